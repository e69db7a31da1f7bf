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

// TestModeChangeIsToldOnce (issue 11): after a toggle the model's next prompt, or failing that
// its next main-thread tool call, carries the new mode, once; a subagent's call does not spend
// the notice; session start notes what it told.
func TestModeChangeIsToldOnce(t *testing.T) {
	store := session.NewStore(t.TempDir())
	g := &Gate{Client: testClient, LoadConfig: func(string) (*config.Config, error) { return &config.Config{}, nil }, Store: store, Modes: session.StoreModes{Store: store}}
	if st := g.Decide(&hook.Event{Name: hook.EventSessionStart, Session: "s", Cwd: "/p"}, nil); !strings.Contains(st.Context, "READ-ONLY mode") {
		t.Fatalf("start: %q", st.Context)
	}
	prompt := func() string {
		return g.Decide(&hook.Event{Name: hook.EventPrompt, Session: "s", Cwd: "/p"}, nil).Context
	}
	call := func(agent string) hook.Decision {
		return g.Decide(&hook.Event{Name: hook.EventToolCall, Session: "s", Cwd: "/p", Call: &hook.ToolCall{Session: "s", Cwd: "/p", Tool: "Read",
			Kind: hook.KindFileRead, Paths: []string{"/p/f"}, AgentID: agent}}, nil)
	}
	if c := prompt(); c != "" {
		t.Errorf("no change, yet the prompt says %q", c)
	}
	session.ToggleOff.Apply(store, "s", "cli", "", hook.ModeReadOnly, nil)
	if c := prompt(); !strings.Contains(c, "switched this session from READ-ONLY to EDIT mode") || !strings.Contains(c, "you may change files") {
		t.Errorf("after off: %q", c)
	}
	if c := prompt(); c != "" {
		t.Errorf("told twice: %q", c)
	}
	session.ToggleReview.Apply(store, "s", "cli", "", hook.ModeReadOnly, nil)
	if d := call("sub1"); d.Context != "" {
		t.Errorf("a subagent's call spent the notice: %q", d.Context)
	}
	if d := call(""); !strings.Contains(d.Context, "from EDIT to REVIEW mode") {
		t.Errorf("the main thread's call: %q", d.Context)
	}
	// Off and on again before the model hears of it: nothing to tell.
	session.ToggleOff.Apply(store, "s", "cli", "", hook.ModeReadOnly, nil)
	session.ToggleReview.Apply(store, "s", "cli", "", hook.ModeReadOnly, nil)
	if c := prompt(); c != "" {
		t.Errorf("the mode it was told is the mode: %q", c)
	}
	// A resumed session is told its mode at its start, which counts as told.
	session.ToggleOn.Apply(store, "s", "cli", "", hook.ModeReadOnly, nil)
	if st := g.Decide(&hook.Event{Name: hook.EventSessionStart, Session: "s", Cwd: "/p"}, nil); !strings.Contains(st.Context, "READ-ONLY mode") {
		t.Errorf("resume: %q", st.Context)
	}
	if c := prompt(); c != "" {
		t.Errorf("told again after the start told it: %q", c)
	}
}

// TestPlanModeIsReadOnly (issue 11): a call made while the client is in plan mode gets
// read-only rules whatever the session's mode, review mode's publishes included; the bare
// toggle says so.
func TestPlanModeIsReadOnly(t *testing.T) {
	for _, m := range []hook.Mode{hook.ModeEdit, hook.ModeReview, hook.ModeReadOnly} {
		store := session.NewStore(t.TempDir())
		store.Record("s", "/p", m)
		g := &Gate{Client: testClient, LoadConfig: func(string) (*config.Config, error) { return &config.Config{}, nil }, Store: store, Modes: session.StoreModes{Store: store}}
		for _, c := range []*hook.ToolCall{
			{Tool: "Write", Kind: hook.KindFileWrite, Paths: []string{"/p/f"}},
			{Tool: "Bash", Kind: hook.KindShell, Command: "touch /p/f"},
			{Tool: "Bash", Kind: hook.KindShell, Command: `gh pr comment 7 -b "ok"`},
		} {
			c.Session, c.Cwd, c.PermissionMode = "s", "/p", hook.PermissionPlan
			d := g.Decide(&hook.Event{Name: hook.EventToolCall, Session: "s", Cwd: "/p", Call: c, PermissionMode: hook.PermissionPlan}, nil)
			// The publish is refused by the network router before the read-only rules speak.
			if d.Verdict != hook.Deny || c.Tool == "Write" && !strings.Contains(d.Reason, "plan mode") || d.Publish != nil {
				t.Errorf("%v, %s %s in plan mode: %v %q", m, c.Tool, c.Command, d.Verdict, d.Reason)
			}
		}
		d := g.Decide(&hook.Event{Name: hook.EventToggle, Session: "s", Cwd: "/p", PermissionMode: hook.PermissionPlan, Toggle: &hook.ToggleRequest{Args: "", Trusted: true}}, nil)
		if m != hook.ModeReadOnly && !strings.Contains(d.Reason, "held read-only while the client is in plan mode") {
			t.Errorf("%v: bare toggle in plan mode: %q", m, d.Reason)
		}
	}
}

// TestModeZeroIsReadOnly: a Mode nobody set means read-only.
func TestModeZeroIsReadOnly(t *testing.T) {
	var m hook.Mode
	var st policy.SessionState
	if m != hook.ModeReadOnly || st.Mode != hook.ModeReadOnly {
		t.Errorf("zero Mode is %v", m)
	}
}

// testClient is a client as an adapter would describe it (testclient.Claude).
var testClient = testclient.Claude

// TestReadOnlyRulesOncePerSession: what the read-only shell accepts is told once — in the session
// start's context, or, where the hook saw no start (a client without a session-start hook), with
// the session's first refusal — and never again with each refusal, where it buried the reason.
func TestReadOnlyRulesOncePerSession(t *testing.T) {
	rules := policy.ReadOnlyShellRulesFor(nil)
	cfg := func(string) (*config.Config, error) { return &config.Config{}, nil }
	call := func(session string) *hook.ToolCall {
		return &hook.ToolCall{Session: session, Tool: "Bash", Kind: hook.KindShell, Command: "echo x > f", Cwd: "/p"}
	}
	store := session.NewStore(t.TempDir())
	g := &Gate{Client: testClient, LoadConfig: cfg, Store: store, Modes: session.StoreModes{Store: store}}

	start := g.Decide(&hook.Event{Name: hook.EventSessionStart, Session: "started", Cwd: "/p"}, nil)
	if !strings.Contains(start.Context, rules) {
		t.Errorf("session start context lacks the read-only rules: %q", start.Context)
	}
	if d := g.Decide(&hook.Event{Name: hook.EventToolCall, Call: call("started")}, nil); strings.Contains(d.Reason, rules) {
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
	if !strings.Contains(reasons[0], rules) {
		t.Errorf("the first refusal of a session whose start was not seen lacks the rules: %q", reasons[0])
	}
	for _, r := range reasons[1:] {
		if strings.Contains(r, rules) {
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
