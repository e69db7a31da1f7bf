package copilot_test

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/hookctl/hookctl/agents/agenttest"
	"github.com/hookctl/hookctl/internal/testbin"
)

// TestRealCopilotUserRules (issue 25): Copilot CLI's --allow-tool and --deny-tool hold under
// hookctl as they do without. Copilot runs a call hookctl allows with modifiedArgs without its
// own check (1.0.102, live: hookctl's edit-mode rewrite ran `rm` past --deny-tool 'shell(rm)',
// and, with only --allow-tool 'shell(touch a3)', ran `touch a1` and `touch a4`, which -p refuses
// without hookctl), so hookctl applies the flags, read from the copilot process, to the command
// as the model wrote it. Each set of flags runs the script without hookctl (the control) and
// under hookctl in edit mode.
func TestRealCopilotUserRules(t *testing.T) {
	cmds := []string{"touch a1", "touch a3", "rm -f keep.txt", "touch a4"}
	ran := func(p *agenttest.Project, i int) bool {
		if i == 2 {
			_, err := os.Stat(filepath.Join(p.Dir, "keep.txt"))
			return err != nil
		}
		_, err := os.Stat(filepath.Join(p.Dir, strings.Fields(cmds[i])[1]))
		return err == nil
	}
	for n, c := range []struct {
		flags []string
		want  []bool
	}{
		{[]string{"--allow-all-tools", "--deny-tool", "shell(rm)", "--deny-tool", "shell(touch a1)"}, []bool{false, true, false, true}},
		// A second word is a subcommand to Copilot: shell(touch a3) allows no touch (live).
		{[]string{"--allow-tool", "shell(touch a3)", "--deny-tool", "shell(rm)"}, []bool{false, false, false, false}},
		{[]string{"--allow-tool", "shell(touch)", "--deny-tool", "shell(touch a1)", "--deny-tool", "shell(rm)"}, []bool{false, true, false, true}},
	} {
		// No parentheses in the subtest's name: Copilot runs a hook's path through a shell, and the
		// test's directories carry the name.
		t.Run(fmt.Sprint("flags", n), func(t *testing.T) {
			t.Logf("flags %q", c.flags)
			run := func(under bool) []bool {
				var steps []agenttest.Step
				for _, cmd := range cmds {
					steps = append(steps, agenttest.Shell(cmd))
				}
				bin := agenttest.Binary(t, "copilot", "copilot", "@github/copilot@"+Version)
				p := newProject(t)
				os.WriteFile(filepath.Join(p.Dir, "keep.txt"), []byte("k\n"), 0o644)
				api := agenttest.NewChat(t, steps)
				if under {
					home := filepath.Join(p.Base, "hookctl")
					os.MkdirAll(home, 0o700)
					os.WriteFile(filepath.Join(home, "config.toml"), []byte("default_mode = \"edit\"\n"), 0o600)
					hook := agenttest.RecordingHook(t, p.HookDir, testbin.Hookctl(t), "hook", "--agent", "copilot")
					b, _ := json.Marshal(map[string]any{"version": 1, "hooks": map[string]any{"preToolUse": []any{
						map[string]any{"type": "command", "bash": hook, "timeoutSec": 30}}}})
					os.MkdirAll(filepath.Join(p.Home, ".copilot", "hooks"), 0o755)
					os.WriteFile(filepath.Join(p.Home, ".copilot", "hooks", "hookctl.json"), b, 0o644)
				}
				ctx, cancel := context.WithTimeout(context.Background(), 240*time.Second)
				defer cancel()
				cmd := exec.CommandContext(ctx, bin, append(append([]string(nil), c.flags...), "-p", "Work through the task.")...)
				cmd.Dir, cmd.Env = p.Dir, env(p, api)
				if out, err := cmd.CombinedOutput(); err != nil {
					t.Fatalf("copilot: %v\n%s", err, out)
				}
				var got []bool
				for i := range cmds {
					got = append(got, ran(p, i))
				}
				if under && !api.Saw("denied due to the following rules: `shell(rm)` (--deny-tool") {
					t.Errorf("the refusal of rm does not name the user's --deny-tool")
				}
				return got
			}
			control, got := run(false), run(true)
			for i, cmd := range cmds {
				if control[i] != c.want[i] {
					t.Errorf("without hookctl, %q ran=%v, want %v: Copilot CLI's own behaviour changed", cmd, control[i], c.want[i])
				}
				if got[i] != control[i] {
					t.Errorf("under hookctl, %q ran=%v, without %v", cmd, got[i], control[i])
				}
			}
		})
	}
}
