package gate

import (
	"strings"
	"testing"

	"github.com/hookctl/hookctl/config"
	"github.com/hookctl/hookctl/hook"
	"github.com/hookctl/hookctl/internal/shellglob"
	"github.com/hookctl/hookctl/policy"
	"github.com/hookctl/hookctl/scrub"
)

// fakeRules answers every query with v, and records what it was asked.
type fakeRules struct {
	v     policy.ClientVerdict
	asked []policy.ClientQuery
}

func (f *fakeRules) Judge(q policy.ClientQuery) policy.ClientVerdict {
	f.asked = append(f.asked, q)
	return f.v
}

// TestClientRulesOnRewrites: the user's rules settle a call hookctl admits with a rewrite, and
// only that: hookctl's refusal stands, its review-mode ask stays an ask unless a rule denies, a
// call without a rewrite is left to the client, and the rules are asked about the command as
// the agent wrote it.
func TestClientRulesOnRewrites(t *testing.T) {
	sandbox := func() policy.Isolation { return policy.Isolation{Available: true, Edit: true, Describe: "test"} }
	withRules := func(f *fakeRules) *policy.Policy {
		return &policy.Policy{World: shellglob.World{}, Client: testClient, Config: &config.Config{}, Binary: "/opt/hookctl", Sandbox: sandbox,
			ClientRules: func() policy.ClientRules { return f }}
	}
	shell := func(cmd string) *hook.ToolCall {
		return &hook.ToolCall{Session: "s", Tool: "Bash", Kind: hook.KindShell, Command: cmd, Cwd: "/p", Input: []byte(`{"command":"x"}`)}
	}
	ro, edit := policy.SessionState{Mode: hook.ModeReadOnly}, policy.SessionState{Mode: hook.ModeEdit, Project: "/p"}
	deny := policy.ClientVerdict{Verdict: hook.Deny, Rule: "deny Bash(cat:*) in /p/.claude/settings.local.json", By: "your permission rule", Reason: "denied by your rule"}
	for _, c := range []struct {
		name   string
		cmd    string
		st     policy.SessionState
		v      policy.ClientVerdict
		want   hook.Verdict
		asked  bool
		reason string
	}{
		{"a read, denied by the user", "cat README.md", ro, deny, hook.Deny, true, "denied by your rule"},
		{"a read, asked by the user", "cat README.md", ro, policy.ClientVerdict{Verdict: hook.Ask, Reason: "your rule asks"}, hook.Ask, true, "your rule asks"},
		{"a read, allowed", "cat README.md", ro, policy.ClientVerdict{Verdict: hook.Allow, Reason: "allowed"}, hook.Allow, true, "allowed"},
		{"read-only refuses a write whatever the user allows", "touch x", ro, policy.ClientVerdict{Verdict: hook.Allow}, hook.Deny, false, "read-only"},
		{"edit mode: the user's allow runs it", "touch x", edit, policy.ClientVerdict{Verdict: hook.Allow}, hook.Allow, true, ""},
		{"edit mode: the default mode asks", "touch x", edit, policy.ClientVerdict{Verdict: hook.Ask, Reason: "asks"}, hook.Ask, true, "asks"},
		{"edit mode: auto mode is left to the client", "touch x", edit, policy.ClientVerdict{Verdict: hook.Pass}, hook.Pass, true, ""},
		{"edit guard first", "rm -rf ~", edit, policy.ClientVerdict{Verdict: hook.Allow}, hook.Deny, false, "edit-mode guard"},
	} {
		f := &fakeRules{v: c.v}
		call := shell(c.cmd)
		d := withRules(f).Decide(call, c.st)
		if d.Verdict != c.want || !strings.Contains(d.Reason, c.reason) {
			t.Errorf("%s: %s %q, want %s containing %q", c.name, d.Verdict, d.Reason, c.want, c.reason)
		}
		if (len(f.asked) > 0) != c.asked {
			t.Errorf("%s: the user's rules asked=%v, want %v", c.name, len(f.asked) > 0, c.asked)
		}
		if len(f.asked) > 0 {
			q := f.asked[0]
			if q.Line.Src != c.cmd || q.Rewrite == "" || q.Rewrite == c.cmd {
				t.Errorf("%s: asked about %q (rewrite %q), want the agent's command", c.name, q.Line.Src, q.Rewrite)
			}
			if c.st.Mode == hook.ModeReadOnly && !q.Read {
				t.Errorf("%s: an admitted read was not marked a read", c.name)
			}
			if d.Verdict != hook.Deny && d.Command == "" {
				t.Errorf("%s: the rewrite was dropped", c.name)
			}
		}
		if c.v.Verdict == hook.Deny && (d.ClientRule != c.v.Rule || d.ClientBy != c.v.By) {
			t.Errorf("%s: the decision does not record the user's rule: %+v", c.name, d)
		}
	}

	// A review-mode publish stays hookctl's ask, whatever the user allows; a deny refuses it.
	p := withRules(&fakeRules{v: policy.ClientVerdict{Verdict: hook.Allow}})
	p.GH = func() (string, error) { return "/usr/bin/gh", nil }
	p.Secrets = func() *scrub.Scrubber { return scrub.NewScrubber(nil) }
	review := policy.SessionState{Mode: hook.ModeReview}
	pub := shell(`gh pr comment 7 -R o/r -b "Looks good."`)
	if d := p.Decide(pub, review); d.Verdict != hook.Ask {
		t.Errorf("a publish under an allow rule: %s %q, want ask", d.Verdict, d.Reason)
	}
	p.ClientRules = func() policy.ClientRules { return &fakeRules{v: deny} }
	if d := p.Decide(pub, review); d.Verdict != hook.Deny {
		t.Errorf("a publish under a deny rule: %s, want deny", d.Verdict)
	}

	// A file tool is not rewritten: the client applies its own rules to it.
	f := &fakeRules{v: deny}
	if d := withRules(f).Decide(&hook.ToolCall{Session: "s", Tool: "Read", Kind: hook.KindFileRead, ReadPaths: []string{"/p/x"}, Cwd: "/p"}, ro); d.Verdict != hook.Pass || len(f.asked) > 0 {
		t.Errorf("Read: %s, asked %d, want no opinion and no question", d.Verdict, len(f.asked))
	}
}
