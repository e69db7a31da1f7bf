package gate

import (
	"strings"
	"testing"

	"github.com/hookctl/hookctl/config"
	"github.com/hookctl/hookctl/hook"
	"github.com/hookctl/hookctl/policy"
)

// TestContainEditWithoutNamespaces: where the edit profile's namespaces are missing and the
// Landlock-only edit profile holds (issue 28), edit mode's commands are rewritten into it, also
// under sandbox = "require"; where the edit sandbox held here before and fails now, they are
// refused, never run in the weaker profile.
func TestContainEditWithoutNamespaces(t *testing.T) {
	lite := policy.Isolation{Available: true, EditLandlock: true, EditReason: "no user namespaces"}
	failing := lite
	failing.EditFailing = true
	for _, c := range []struct {
		name    string
		iso     policy.Isolation
		setting string
		verdict hook.Verdict
		launch  bool
	}{
		{"rewritten into edit-landlock", lite, "", hook.Pass, true},
		{"under require too", lite, config.SandboxRequire, hook.Pass, true},
		{"the edit sandbox failing: refused", failing, "", hook.Deny, false},
	} {
		call := hook.ToolCall{Tool: "Bash", Kind: hook.KindShell, Session: "s1", Cwd: "/elsewhere", Command: "make"}
		p := &policy.Policy{Config: &config.Config{Sandbox: c.setting}, Binary: "/bin/hookctl", Sandbox: func() policy.Isolation { return c.iso }}
		d := p.Decide(&call, policy.SessionState{Mode: hook.ModeEdit, Project: "/home/u/proj"})
		if d.Verdict != c.verdict {
			t.Errorf("%s: %v %q", c.name, d.Verdict, d.Reason)
			continue
		}
		if got := strings.Contains(d.Command, "--profile edit-landlock --session s1 --project /home/u/proj -- bash"); got != c.launch {
			t.Errorf("%s: command %q", c.name, d.Command)
		}
	}
	if s := EditEnforcement(lite, &config.Config{}); !strings.Contains(s, "cannot write hookctl's files") || !strings.Contains(s, "no network") || !strings.Contains(s, "git commit fails") {
		t.Errorf("EditEnforcement does not say what holds and what does not: %s", s)
	}
}
