package launcher

import (
	"strings"
	"testing"

	"github.com/spf13/pflag"

	"github.com/hookctl/hookctl/config"
	"github.com/hookctl/hookctl/hook"
	"github.com/hookctl/hookctl/internal/shellglob"
	"github.com/hookctl/hookctl/internal/testclient"
	"github.com/hookctl/hookctl/policy"
	"github.com/hookctl/hookctl/sandbox/readonly"
)

// TestNoAgentStartsARole: the roles' hidden flags (and --scratch, the probe's, which hides less)
// are hookctl's to write on the command lines it starts; an agent's shell call naming any of
// them is refused in every mode, written plainly, by path, or inside an interpreter's code, so
// that no role becomes a switch the agent can turn (each role's holds says why that leaves them
// safe). Control: in the same modes hookctl's read verb `hookctl check` is admitted, so the
// refusals are about the sandbox verb.
func TestNoAgentStartsARole(t *testing.T) {
	fs := pflag.NewFlagSet("sandbox", pflag.ContinueOnError)
	(&Options{}).AddFlags(fs)
	flags := []string{"--scratch"}
	fs.VisitAll(func(f *pflag.Flag) {
		if !f.Hidden {
			t.Errorf("--%s is not hidden", f.Name)
		}
		flags = append(flags, "--"+f.Name)
	})
	if len(flags) < 15 {
		t.Fatalf("AddFlags registered %d flags", len(flags)-1)
	}
	decide := func(mode hook.Mode, command string) hook.Decision {
		p := &policy.Policy{World: shellglob.World{}, Client: testclient.Claude, Config: &config.Config{}, Binary: "/usr/local/bin/hookctl"}
		return p.Decide(&hook.ToolCall{Tool: "Bash", Kind: hook.KindShell, Command: command, Cwd: "/tmp"}, policy.SessionState{Mode: mode})
	}
	modes := []hook.Mode{hook.ModeReadOnly, hook.ModeReview, hook.ModeEdit}
	for _, mode := range modes {
		if d := decide(mode, "hookctl check 'ls -la'"); d.Verdict == hook.Deny {
			t.Errorf("control, %s mode: hookctl check is refused: %s", mode, d.Reason)
		}
	}
	for _, flag := range flags {
		line := "sandbox " + flag + " 3 --profile edit --project /tmp -- true"
		for _, command := range []string{"hookctl " + line, "/usr/local/bin/hookctl " + line, `python3 -c "import os; os.system('hookctl ` + line + `')"`} {
			for _, mode := range modes {
				d := decide(mode, command)
				switch {
				case d.Verdict != hook.Deny:
					t.Errorf("%s mode: %s is not refused (%s %s)", mode, command, d.Verdict, d.Command)
				case mode == hook.ModeEdit && !strings.Contains(d.Reason, "`hookctl sandbox`"):
					// Edit mode's guard passes most commands: this one for what it runs.
					t.Errorf("%s mode: %s is refused, but not for running hookctl sandbox: %s", mode, command, d.Reason)
				case flag == "--probe-confine" && testing.Verbose():
					t.Logf("%s mode: %s: %s", mode, command, d.Reason)
				}
			}
		}
	}
}

// TestPolicyOnlyIsOneName: the policy's rewrite names the policy-only profile, and both of its
// launchers (hookctl sandbox's table and hookctl-sandbox) answer to that name.
func TestPolicyOnlyIsOneName(t *testing.T) {
	if policy.PolicyOnlyProfile != readonly.PolicyOnlyName {
		t.Errorf("the policy rewrites to --profile %q, the launchers run %q", policy.PolicyOnlyProfile, readonly.PolicyOnlyName)
	}
}
