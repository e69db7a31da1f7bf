//go:build unix

package permissions_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	ct "github.com/hookctl/hookctl/agents/claude/claudetest"
)

// fakeNPM stands in for npm: `npm test` leaves a mark per run.
const fakeNPM = "#!/bin/sh\necho ran >> \"$PWD/npm-$1.log\"\necho npm $1 ok\n"

func npmRuns(s *ct.Session) int {
	b, _ := os.ReadFile(filepath.Join(s.Project, "npm-test.log"))
	return strings.Count(string(b), "ran")
}

// dialog waits for a permission dialog, and returns it with its lines joined.
func dialog(t *testing.T, tui *ct.TUI, what string) (string, string) {
	t.Helper()
	screen := tui.WaitUntil(what, 60*time.Second, func(screen string) bool {
		return strings.Contains(screen, "Do you want to proceed?")
	})
	return screen, strings.Join(strings.Fields(strings.ReplaceAll(screen, "│", " ")), " ")
}

// TestRealTUIUserRules: the interactive client, without hookctl and under it in edit mode,
// with an ask rule and a deny rule of the user's, and the "don't ask again" flow. An ask rule
// shows a dialog, and the command runs when the user says yes; a compound command with a denied
// part is refused without one. Without hookctl, "don't ask again" on `npm test` saves
// Bash(npm test *); under hookctl the client cannot offer it for a rewritten command, so the
// dialog offers yes or no and names that rule, and once the user adds it the next `npm test`
// runs without asking, as it does without hookctl. A rule an earlier hookctl let the client
// save for its own wrapper approves nothing.
func TestRealTUIUserRules(t *testing.T) {
	ct.Binary(t)
	ct.Tmux(t)
	hookctl := buildHookctl(t)
	for _, under := range []bool{false, true} {
		name := "without hookctl"
		if under {
			name = "under hookctl"
		}
		t.Run(name, func(t *testing.T) {
			s := ct.NewSession(t)
			s.NoAllowedTools = true
			s.InitGitRepo(commitSubject)
			s.WriteFile("keep.txt", "keep\n")
			bin := t.TempDir()
			os.WriteFile(filepath.Join(bin, "npm"), []byte(fakeNPM), 0o755)
			s.Env = append(s.Env, "PATH="+bin+":"+os.Getenv("PATH"))
			local := filepath.Join(s.Project, ".claude", "settings.local.json")
			allow := []string{}
			if under {
				allow = append(allow, "Bash("+hookctl+" sandbox *)") // saved by an earlier hookctl's prompt
			}
			writeJSON(t, local, map[string]any{"permissions": map[string]any{
				"ask": []string{"Bash(touch asked.txt)"}, "deny": []string{"Bash(rm:*)"}, "allow": allow}})
			if under {
				home := t.TempDir()
				s.Env = append(s.Env, "HOOKCTL_HOME="+home)
				os.WriteFile(filepath.Join(home, "config.toml"), []byte("default_mode = \"edit\"\n"), 0o600)
				s.Hooks = []ct.Hook{{Command: hookctl, Args: []string{"hook"}}}
			}
			s.Script.Main = []ct.Call{ct.Bash("touch asked.txt"), ct.Bash("ls && rm -f keep.txt"), ct.Bash("npm test"), ct.Bash("npm test")}
			s.Script.BeforeCall = func(th ct.Thread, i int) {
				if under && th == ct.Main && i == 3 {
					// The user adds the rule the dialog named (as /permissions would).
					writeJSON(t, local, map[string]any{"permissions": map[string]any{
						"ask": []string{"Bash(touch asked.txt)"}, "deny": []string{"Bash(rm:*)"}, "allow": append(allow, "Bash(npm test *)")}})
					time.Sleep(time.Second)
				}
			}
			tui := s.StartTUI(160, 50)
			tui.Submit("Work through the task.")

			// 1. The ask rule: a dialog; yes runs the command.
			screen, flat := dialog(t, tui, "the ask rule's dialog")
			if under {
				for _, want := range []string{"Bash(touch asked.txt)", "sandbox --profile edit"} {
					if !strings.Contains(flat, want) {
						t.Errorf("the dialog does not show %q:\n%s", want, screen)
					}
				}
			}
			time.Sleep(time.Second)
			tui.Key("1")
			tui.WaitUntil("asked.txt", 30*time.Second, func(string) bool { return exists(s, "asked.txt") })

			// 2 and 3. The compound command is refused without a dialog; npm test asks.
			screen, flat = dialog(t, tui, "npm test's dialog")
			if !exists(s, "keep.txt") {
				t.Errorf("rm ran past the deny rule")
			}
			if tr, _ := s.API.ResultFor(ct.Main, 1); !tr.IsError {
				t.Errorf("the compound command with a denied part: %q", tr.Text)
			}
			if !strings.Contains(flat, "npm test") {
				t.Fatalf("the dialog is not npm test's:\n%s", screen)
			}
			time.Sleep(time.Second)
			if under {
				if strings.Contains(flat, "don’t ask again") || strings.Contains(flat, "don't ask again for") {
					t.Errorf("the dialog offers to remember hookctl's rewrite:\n%s", screen)
				}
				if !strings.Contains(flat, `"Bash(npm test *)"`) {
					t.Errorf("the dialog does not name the rule that would stop the question:\n%s", screen)
				}
				tui.Key("1")
			} else {
				if !strings.Contains(flat, "don’t ask again for: npm test *") {
					t.Errorf("the client's own dialog does not offer to remember npm test:\n%s", screen)
				}
				tui.Key("2")
			}
			// 4. The second npm test runs without a dialog.
			tui.WaitUntil("the first npm run", 30*time.Second, func(string) bool { return npmRuns(s) >= 1 })
			time.Sleep(2 * time.Second) // the answered dialog leaves the screen
			tui.WaitUntil("both npm runs", 60*time.Second, func(screen string) bool {
				if strings.Contains(screen, "Do you want to proceed?") {
					t.Fatalf("the second npm test was asked:\n%s", screen)
				}
				return npmRuns(s) == 2
			})
			b, _ := os.ReadFile(local)
			if !strings.Contains(string(b), `"Bash(npm test *)"`) {
				t.Errorf("settings.local.json does not remember npm test: %s", b)
			}
			if strings.Count(string(b), "sandbox") > len(allow) {
				t.Errorf("settings.local.json remembers hookctl's rewrite: %s", b)
			}
		})
	}
}
