package codex_test

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/hookctl/hookctl/agents/agenttest"
	"github.com/hookctl/hookctl/internal/testbin"
)

// codexRules are the user's exec policy for TestRealCodexUserRules.
const codexRules = `prefix_rule(pattern = ["touch", "a1"], decision = "forbidden", justification = "no a1 here")
prefix_rule(pattern = ["touch", "a2"], decision = "prompt")
prefix_rule(pattern = ["touch", "a3"], decision = "allow")
prefix_rule(pattern = ["rm"], decision = "forbidden")
`

// TestRealCodexUserRules (issue 25): Codex's exec policy holds under hookctl as it does without.
// Codex matches its rules against hookctl's rewrite (0.169.0, live: the edit-mode rewrite ran a
// forbidden `rm` and `touch a1`), so hookctl applies them to the command as the model wrote it.
// The same script runs without hookctl (the control), then under hookctl in edit and read-only
// mode: a forbidden rule refuses, a prompt rule refuses (codex exec asks no one), an allow rule
// runs (edit mode; read-only mode refuses every write, whatever the user allows).
func TestRealCodexUserRules(t *testing.T) {
	cmds := []string{"touch a1", "touch a2", "touch a3", "rm -f keep.txt", "cat f"}
	ran := func(p *agenttest.Project, i int) bool {
		switch i {
		case 3:
			_, err := os.Stat(filepath.Join(p.Dir, "keep.txt"))
			return err != nil
		case 4:
			return true // judged by the output below
		}
		_, err := os.Stat(filepath.Join(p.Dir, strings.Fields(cmds[i])[1]))
		return err == nil
	}
	run := func(mode string) ([]bool, *agenttest.Responses) {
		var steps []agenttest.Step
		for _, c := range cmds {
			steps = append(steps, agenttest.Shell(c))
		}
		bin := agenttest.Binary(t, "codex", "codex", "@openai/codex@"+Version)
		p := agenttest.NewProject(t)
		os.WriteFile(filepath.Join(p.Dir, "keep.txt"), []byte("k\n"), 0o644)
		codexHome := filepath.Join(p.Home, ".codex")
		os.MkdirAll(filepath.Join(codexHome, "rules"), 0o755)
		api := agenttest.NewResponses(t, steps)
		write(t, filepath.Join(codexHome, "config.toml"), configFor(api.URL()))
		write(t, filepath.Join(codexHome, "rules", "default.rules"), codexRules)
		home := filepath.Join(p.Base, "hookctl")
		if mode != "" {
			os.MkdirAll(home, 0o700)
			if mode == "edit" {
				write(t, filepath.Join(home, "config.toml"), "default_mode = \"edit\"\n")
			}
			hook := agenttest.RecordingHook(t, p.HookDir, testbin.Hookctl(t), "hook", "--agent", "codex")
			group := []any{map[string]any{"hooks": []any{map[string]any{"type": "command", "command": hook, "timeout": 30}}}}
			b, _ := json.Marshal(map[string]any{"hooks": map[string]any{"PreToolUse": group}})
			write(t, filepath.Join(codexHome, "hooks.json"), string(b))
		}
		s := &session{bin: bin, p: p, codexHome: codexHome, api: api,
			env: []string{"HOME=" + p.Home, "CODEX_HOME=" + codexHome, "HOOKCTL_FAKE_KEY=x", "HOOKCTL_HOME=" + home, "PATH=" + os.Getenv("PATH"), "LANG=C.UTF-8"}}
		s.run(t, "Work through the task.", "--dangerously-bypass-hook-trust")
		var got []bool
		for i := range cmds {
			got = append(got, ran(p, i))
		}
		got[4] = api.Saw(`Output:\na\n`)
		return got, api
	}
	control, _ := run("")
	want := []bool{false, false, true, false, true}
	for i, c := range cmds {
		if control[i] != want[i] {
			t.Errorf("without hookctl, %q ran=%v, want %v: Codex's own behaviour changed", c, control[i], want[i])
		}
	}
	for _, mode := range []string{"edit", "read-only"} {
		got, api := run(mode)
		for i, c := range cmds {
			exp := control[i]
			if mode == "read-only" && i == 2 {
				exp = false // a write: read-only mode refuses it whatever the user allows
			}
			if got[i] != exp {
				t.Errorf("%s mode, %q ran=%v, without hookctl %v", mode, c, got[i], control[i])
			}
		}
		if mode == "edit" && (!api.Saw("no a1 here") || !api.Saw("default.rules:1")) {
			t.Errorf("%s mode: the refusal of touch a1 does not give the rule's justification and place", mode)
		}
		if mode == "edit" && !api.Saw("Your Codex rule prefix_rule(pattern=[\\\"touch\\\", \\\"a2\\\"], decision=\\\"prompt\\\")") {
			t.Errorf("edit mode: the refusal of touch a2 does not name the prompt rule")
		}
	}
}
