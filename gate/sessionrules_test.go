package gate

import (
	"strings"
	"testing"

	"github.com/hookctl/hookctl/config"
	"github.com/hookctl/hookctl/hook"
	"github.com/hookctl/hookctl/internal/testclient"
	"github.com/hookctl/hookctl/policy"
	"github.com/hookctl/hookctl/session"
)

// testClient is a client as an adapter would describe it (testclient.Claude).
var testClient = testclient.Claude

// TestReadOnlyRulesOncePerSession: what the read-only shell accepts is told once — in the session
// start's context, or, where the hook saw no start (a client without a session-start hook), with
// the session's first refusal — and never again with each refusal, where it buried the reason.
func TestReadOnlyRulesOncePerSession(t *testing.T) {
	cfg := func(string) (*config.Config, error) { return &config.Config{}, nil }
	call := func(session string) *hook.ToolCall {
		return &hook.ToolCall{Session: session, Tool: "Bash", Kind: hook.KindShell, Command: "echo x > f", Cwd: "/p"}
	}
	store := session.NewStore(t.TempDir())
	g := &Gate{Client: testClient, LoadConfig: cfg, Store: store, Modes: session.StoreModes{Store: store}}

	start := g.Decide(&hook.Event{Name: hook.EventSessionStart, Session: "started", Cwd: "/p"}, nil)
	if !strings.Contains(start.Context, policy.ReadOnlyShellRules) {
		t.Errorf("session start context lacks the read-only rules: %q", start.Context)
	}
	if d := g.Decide(&hook.Event{Name: hook.EventToolCall, Call: call("started")}, nil); strings.Contains(d.Reason, policy.ReadOnlyShellRules) {
		t.Errorf("a refusal after the session start repeats the rules: %q", d.Reason)
	}

	var reasons []string
	for range 3 {
		d := g.Decide(&hook.Event{Name: hook.EventToolCall, Call: call("unseen")}, nil)
		if d.Verdict != hook.Deny {
			t.Fatalf("%v %q", d.Verdict, d.Reason)
		}
		reasons = append(reasons, d.Reason)
	}
	if !strings.Contains(reasons[0], policy.ReadOnlyShellRules) {
		t.Errorf("the first refusal of a session whose start was not seen lacks the rules: %q", reasons[0])
	}
	for _, r := range reasons[1:] {
		if strings.Contains(r, policy.ReadOnlyShellRules) {
			t.Errorf("a later refusal repeats the rules: %q", r)
		}
	}
}

// TestSessionStartOffersNoDeniedProgram: the session start's examples of read-only programs
// leave out what deny_programs removed (control: without it, jq is among them).
func TestSessionStartOffersNoDeniedProgram(t *testing.T) {
	for _, c := range []struct {
		deny   []string
		wantJQ bool
	}{{nil, true}, {[]string{"jq", "git"}, false}} {
		cfg := func(string) (*config.Config, error) { return &config.Config{DenyPrograms: c.deny}, nil }
		store := session.NewStore(t.TempDir())
		g := &Gate{Client: testClient, LoadConfig: cfg, Store: store, Modes: session.StoreModes{Store: store}}
		start := g.Decide(&hook.Event{Name: hook.EventSessionStart, Session: "started", Cwd: "/p"}, nil)
		if got := strings.Contains(start.Context, "sort, jq"); got != c.wantJQ || !strings.Contains(start.Context, "sed -n") ||
			strings.Contains(start.Context, "git status") == (len(c.deny) > 0) {
			t.Errorf("deny_programs %v: the context offers jq: %v (want %v): %q", c.deny, got, c.wantJQ, start.Context)
		}
	}
}
