//go:build unix

package claude_test

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/hookctl/hookctl/agents/agenttest"
	"github.com/hookctl/hookctl/agents/claude"
	ct "github.com/hookctl/hookctl/agents/claude/claudetest"
	"github.com/hookctl/hookctl/hook"
)

// TestRealTUIManagedReadonly: `hookctl install --scope managed` registers hookctl for every user
// of the machine, and the /readonly command must reach them too: it goes beside the managed
// settings (/etc/claude-code/.claude/commands), not into root's home, where it served root
// alone. The client runs where the machine's /etc/claude-code is in place (a mount namespace of
// its own, agenttest.InPlace), with no hookctl in the user's own settings: typed /readonly off
// switches the session to edit mode, the command arriving from policySettings. Control: the same
// managed install without that command file, where the client answers "Unknown command" and the
// session stays read-only. Doctor, for another user of the machine, names the organisation's
// command and finds no problem; uninstalling the managed scope removes the command, as
// uninstall.sh does run on the managed settings.
func TestRealTUIManagedReadonly(t *testing.T) {
	ct.Tmux(t)
	requireRoot(t, "the machine's /etc/claude-code is mounted in place and written as root")
	for _, withCommand := range []bool{true, false} {
		name := "managed command"
		if !withCommand {
			name = "control: no managed command"
		}
		t.Run(name, func(t *testing.T) {
			s, hookctl, home := newSession(t)
			machine := agenttest.MachineDir(t, "hookctl-managed-tui-")
			system := filepath.Dir(managedSettings(t))
			// run runs argv where the machine's directory is in place, as root with a hardened
			// shell's umask, which must not decide who reads the command; only doctor may fail.
			env := s.Environ()
			run := func(argv ...string) string {
				t.Helper()
				argv = append([]string{"sh", "-c", `umask 077 && exec "$@"`, "sh"}, agenttest.InPlace(t, machine, system, argv...)...)
				cmd := exec.Command(argv[0], argv[1:]...)
				cmd.Env, cmd.Dir = env, s.Project
				out, err := cmd.CombinedOutput()
				if err != nil && !strings.Contains(strings.Join(argv, " "), " doctor") {
					t.Fatalf("%s: %v\n%s", strings.Join(argv, " "), err, out)
				}
				return string(out)
			}
			inPlace := func(args ...string) string { t.Helper(); return run(append([]string{hookctl}, args...)...) }
			out := inPlace("install", "--scope", "managed")
			command := filepath.Join(machine, claude.ReadonlyCommandRel)
			if !strings.Contains(out, "wrote the /readonly command to "+claude.ManagedReadonlyCommandPath()) {
				t.Errorf("install --scope managed:\n%s", out)
			}
			for _, p := range []string{filepath.Join(machine, filepath.Base(managedSettings(t))), command, filepath.Dir(command), filepath.Dir(filepath.Dir(command))} {
				fi, err := os.Stat(p)
				if err != nil {
					t.Fatal(err)
				}
				others := os.FileMode(0o004) // a file every user reads; a directory every user also enters
				if fi.IsDir() {
					others = 0o005
				}
				if fi.Mode().Perm()&others != others || fi.Mode().Perm()&0o022 != 0 {
					t.Errorf("%s: %v: every user must read it, only root write it", p, fi.Mode())
				}
			}
			if _, err := os.Stat(claude.ReadonlyCommandPath(s.Home)); err == nil {
				t.Errorf("the managed install wrote the installing user's own command %s", claude.ReadonlyCommandPath(s.Home))
			}
			if withCommand {
				// Doctor for another user of the machine, whose own home holds nothing of hookctl's:
				// no problem (their way out is the administrator's, not an uninstall.sh of theirs).
				// Control: once their own install registers hookctl and its uninstall.sh is gone,
				// doctor demands it.
				other := t.TempDir()
				env = append(s.Environ(), "HOME="+other, "HOOKCTL_HOME="+filepath.Join(other, ".config", "hookctl"))
				out := inPlace("doctor")
				for _, want := range []string{"✓ the /readonly command is your organisation's (" + claude.ManagedReadonlyCommandPath() + ")",
					"• your organisation's managed settings register hookctl (they run " + hookctl + ")", "no problems found"} {
					if !strings.Contains(out, want) {
						t.Errorf("doctor for another user lacks %q:\n%s", want, out)
					}
				}
				inPlace("install")
				os.Remove(filepath.Join(other, ".config", "hookctl", claude.UninstallScriptName))
				if out := inPlace("doctor"); !strings.Contains(out, "uninstall.sh is missing or out of date") {
					t.Errorf("control: doctor for a user whose own install lost uninstall.sh:\n%s", out)
				}
				env = s.Environ()
			} else if err := os.Remove(command); err != nil {
				t.Fatal(err)
			}

			// The client itself runs where the machine's directory is in place, its hooks with it.
			s.Bin = agenttest.InPlaceWrapper(t, machine, system, s.Bin)
			// The model's own try at the organisation's command, once the session is read-only again.
			s.Script.Main = []ct.Call{{Name: "Skill", Input: map[string]any{"skill": "readonly", "args": "off"}}}
			tui := s.StartTUI(110, 30)
			tui.WaitFor("🔒 READ-ONLY", 20*time.Second)
			mode := func() hook.Mode { return onlySessionMode(t, home) }
			tui.Submit("/readonly off")
			if !withCommand {
				tui.WaitFor("Unknown command: /readonly", 20*time.Second)
				if m := mode(); m != hook.ModeReadOnly {
					t.Errorf("without the managed command the session is %v", m)
				}
				return
			}
			tui.WaitFor("this session is now ✏ EDIT", 20*time.Second)
			if m := mode(); m != hook.ModeEdit {
				t.Errorf("after /readonly off: %v", m)
			}
			if s.API.Saw("/readonly") || s.API.Saw("readonly off") {
				t.Error("the model was sent the /readonly command")
			}
			// The model cannot use it: back in read-only mode, its Skill call is refused (by
			// hookctl's hook, before the client's disable-model-invocation would) and the mode
			// stays; the user's typed command above is the control that the same command switches.
			tui.Submit("/readonly on")
			tui.WaitFor("this session is now 🔒 READ-ONLY", 20*time.Second)
			tui.Submit("hello")
			tui.WaitFor("● Done.", 20*time.Second)
			if res, ok := s.API.ResultFor(ct.Main, 0); !ok || !res.IsError || !strings.Contains(res.Text, "only the user may change the session's mode") {
				t.Errorf("the model's Skill readonly: %+v", res)
			}
			if m := mode(); m != hook.ModeReadOnly {
				t.Errorf("after the model's Skill readonly off: %v", m)
			}
			// Uninstalling the managed scope takes its command with it: hookctl uninstall, and the
			// script for when the binary is gone, run on the managed settings.
			if out := inPlace("uninstall", "--scope", "managed"); !strings.Contains(out, "removed the /readonly command "+claude.ManagedReadonlyCommandPath()) {
				t.Errorf("uninstall --scope managed:\n%s", out)
			}
			if _, err := os.Stat(command); err == nil {
				t.Errorf("uninstall --scope managed left %s", command)
			}
			inPlace("install", "--scope", "managed")
			out = run("sh", filepath.Join(home, claude.UninstallScriptName), managedSettings(t))
			if !strings.Contains(out, "removed hookctl from "+managedSettings(t)) || !strings.Contains(out, "removed the /readonly command "+claude.ManagedReadonlyCommandPath()) {
				t.Errorf("uninstall.sh %s:\n%s", managedSettings(t), out)
			}
			if _, err := os.Stat(command); err == nil {
				t.Errorf("uninstall.sh left %s", command)
			}
		})
	}
}

// managedSettings is Claude Code's managed settings file on this system.
func managedSettings(t *testing.T) string {
	p, err := claude.SettingsPath("managed", "", "")
	if err != nil {
		t.Fatal(err)
	}
	return p
}

func requireRoot(t *testing.T, why string) {
	t.Helper()
	if os.Geteuid() != 0 {
		t.Skipf("needs root: %s", why)
	}
	if _, err := exec.LookPath("unshare"); err != nil {
		t.Skipf("needs unshare: %v", err)
	}
}
