package gate

import (
	"strings"
	"testing"

	"github.com/hookctl/hookctl/config"
	"github.com/hookctl/hookctl/hook"
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
