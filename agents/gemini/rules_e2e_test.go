package gemini_test

import (
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/hookctl/hookctl/agents/agenttest"
	"github.com/hookctl/hookctl/internal/testbin"
)

// geminiPolicy is the user's policy for TestRealGeminiUserPolicy.
const geminiPolicy = `[[rule]]
toolName = "run_shell_command"
commandPrefix = "touch a1"
decision = "deny"
priority = 500

[[rule]]
toolName = "run_shell_command"
commandPrefix = "touch a2"
decision = "ask_user"
priority = 500

[[rule]]
toolName = "run_shell_command"
commandPrefix = "touch a3"
decision = "allow"
priority = 500
`

// TestRealGeminiUserPolicy (issue 25): Gemini CLI's policy holds under hookctl in yolo mode as
// it does without. Gemini CLI checks its policy against hookctl's rewrite (0.61.0, live: in yolo
// mode the edit-mode rewrite ran `touch a1` past a deny rule and `touch a2` past an ask_user rule),
// so hookctl applies the policy to the command as the model wrote it. The same script runs
// without hookctl (the control) and under hookctl in edit mode: the deny refuses, the ask_user
// refuses (-p asks no one), the allowed command and a command no rule names run.
func TestRealGeminiUserPolicy(t *testing.T) {
	cmds := []string{"touch a1", "touch a2", "touch a3", "touch a4"}
	run := func(under bool) []bool {
		var steps []agenttest.Step
		for _, c := range cmds {
			steps = append(steps, agenttest.Shell(c))
		}
		bin := agenttest.Binary(t, "gemini-cli", "gemini", "@google/gemini-cli@"+Version)
		p := agenttest.NewProject(t)
		api := agenttest.NewGemini(t, steps)
		settings := map[string]any{"security": map[string]any{"auth": map[string]any{"selectedType": "gemini-api-key"}}}
		if under {
			home := filepath.Join(p.Base, "hookctl")
			os.MkdirAll(home, 0o700)
			os.WriteFile(filepath.Join(home, "config.toml"), []byte("default_mode = \"edit\"\n"), 0o600)
			hook := agenttest.RecordingHook(t, p.HookDir, testbin.Hookctl(t), "hook", "--agent", "gemini")
			settings["hooks"] = map[string]any{"BeforeTool": []any{map[string]any{"matcher": ".*", "hooks": []any{
				map[string]any{"type": "command", "name": "hookctl", "command": hook, "timeout": 30000}}}}}
		}
		b, _ := json.MarshalIndent(settings, "", "  ")
		os.MkdirAll(filepath.Join(p.Home, ".gemini", "policies"), 0o755)
		os.WriteFile(filepath.Join(p.Home, ".gemini", "settings.json"), b, 0o644)
		os.WriteFile(filepath.Join(p.Home, ".gemini", "policies", "mine.toml"), []byte(geminiPolicy), 0o644)
		ctx, cancel := context.WithTimeout(context.Background(), 120*time.Second)
		defer cancel()
		cmd := exec.CommandContext(ctx, bin, "--approval-mode", "yolo", "-p", "Work through the task.")
		cmd.Dir, cmd.Env = p.Dir, env(p, api)
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("gemini: %v\n%s", err, out)
		}
		var got []bool
		for _, c := range cmds {
			_, err := os.Stat(filepath.Join(p.Dir, strings.Fields(c)[1]))
			got = append(got, err == nil)
		}
		if under && !api.Saw("hookctl applies it to `touch a1` as written") {
			t.Errorf("the refusal of touch a1 does not name the user's policy")
		}
		return got
	}
	control := run(false)
	want := []bool{false, false, true, true}
	got := run(true)
	for i, c := range cmds {
		if control[i] != want[i] {
			t.Errorf("without hookctl, %q ran=%v, want %v: Gemini CLI's own behaviour changed", c, control[i], want[i])
		}
		if got[i] != control[i] {
			t.Errorf("under hookctl, %q ran=%v, without %v", c, got[i], control[i])
		}
	}
}
