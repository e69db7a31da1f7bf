package gate

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/hookctl/hookctl/hook"
)

// TestResolveSessionNames (issue 11): a whole id, a unique prefix and the short form hookctl
// shows (with its "…") name a session; a prefix of two sessions, one too short to be meant, and
// a name of no session are refused, the last as ErrNoSession (`--session nonexist` created a
// phantom session).
func TestResolveSessionNames(t *testing.T) {
	s := NewStore(t.TempDir())
	const a, b = "4f0c1a2b-1111-4aaa-8bbb-000000000001", "4f0c9d3e-2222-4aaa-8bbb-000000000002"
	for _, id := range []string{a, b, "s"} {
		s.Record(id, "/p", hook.ModeReadOnly)
	}
	os.WriteFile(filepath.Join(s.Dir, "damaged.json"), []byte("{"), 0o600) // nameable, so a toggle can repair it
	for name, want := range map[string]string{a: a, "4f0c1a2b": a, "4f0c1a2b…": a, "4f0c9": b, "s": "s", "damaged": "damaged"} {
		if got, err := s.Resolve(name); err != nil || got != want {
			t.Errorf("Resolve(%q) = %q, %v; want %q", name, got, err, want)
		}
	}
	for name, want := range map[string]error{"4f0c": ErrAmbiguous, "nonexist": ErrNoSession, "zz": ErrNoSession} {
		if _, err := s.Resolve(name); !errors.Is(err, want) {
			t.Errorf("Resolve(%q): %v, want %v", name, err, want)
		}
	}
	if _, err := s.Resolve("4f"); err == nil || !strings.Contains(err.Error(), "at least 4") {
		t.Errorf("a two-character prefix: %v", err)
	}
	if _, err := s.Resolve("../x"); err == nil {
		t.Error("a path was taken as a session name")
	}
	if _, err := s.Load("nonexist"); !errors.Is(err, ErrNoSession) {
		t.Errorf("Resolve created a session: %v", err)
	}
}

// TestShortIDsAreUnique: the short form is eight characters, longer where two sessions share
// them, and always resolves back to its session.
func TestShortIDsAreUnique(t *testing.T) {
	s := NewStore(t.TempDir())
	ids := []string{"4f0c1a2b-1111-4aaa-8bbb-000000000001", "4f0c1a2b-2222-4aaa-8bbb-000000000002", "9e8d7c6b-3333-4aaa-8bbb-000000000003", "short-id"}
	for _, id := range ids {
		s.Record(id, "/p", hook.ModeReadOnly)
	}
	want := map[string]string{ids[0]: "4f0c1a2b-1", ids[1]: "4f0c1a2b-2", ids[2]: "9e8d7c6b", "short-id": "short-id"}
	for _, id := range ids {
		short := s.Short(id)
		if short != want[id] {
			t.Errorf("Short(%s) = %q, want %q", id, short, want[id])
		}
		if got, err := s.Resolve(short); err != nil || got != id {
			t.Errorf("Resolve(Short(%s)) = %q, %v", id, got, err)
		}
	}
}

// TestInProject (issue 11): a shell anywhere in a session's project finds it (`cd sub &&
// hookctl readonly on` failed with "no session started in …/sub"); a nested project's sessions
// are preferred to the outer one's; a directory beside a project is not in it.
func TestInProject(t *testing.T) {
	s := NewStore(t.TempDir())
	s.Record("outer", "/p", hook.ModeReadOnly)
	s.Record("inner1", "/p/lib", hook.ModeReadOnly)
	s.Record("inner2", "/p/lib", hook.ModeReadOnly)
	s.Record("beside", "/p2", hook.ModeReadOnly)
	for dir, want := range map[string]string{"/p": "outer", "/p/": "outer", "/p/sub/deeper": "outer", "/p/lib": "inner1 inner2",
		"/p/lib/x": "inner1 inner2", "/p2/a": "beside", "/": "", "/p3": "", "/elsewhere": ""} {
		list, err := s.InProject(dir)
		if err != nil {
			t.Fatal(err)
		}
		var got []string
		for _, sess := range list {
			got = append(got, sess.ID)
		}
		if g := strings.Join(sortedCopy(got), " "); g != want {
			t.Errorf("InProject(%s) = %q, want %q", dir, g, want)
		}
	}
}

func sortedCopy(s []string) []string {
	out := append([]string(nil), s...)
	for i := range out {
		for j := i + 1; j < len(out); j++ {
			if out[j] < out[i] {
				out[i], out[j] = out[j], out[i]
			}
		}
	}
	return out
}

// TestClientSessionFollowsTheProcessTree (issue 11): the hook notes that its parent, the client
// process, is in a session; a process below that client finds the session, and a note whose
// process has gone (or whose pid was reused: another start time) counts for nothing.
func TestClientSessionFollowsTheProcessTree(t *testing.T) {
	if _, ok := ReadProc(os.Getpid()); !ok {
		t.Skip("no /proc here: clients are not noted on this system")
	}
	s := NewStore(t.TempDir())
	s.Record("a", "/p", hook.ModeReadOnly)
	s.Record("b", "/p", hook.ModeReadOnly)
	if _, _, ok := s.ClientSession(os.Getpid()); ok {
		t.Fatal("a session was found before any was noted")
	}
	s.NoteClient("a", func(int) bool { return false }) // a parent that is not the client (a shell, piping a payload by hand)
	if _, _, ok := s.ClientSession(os.Getpid()); ok {
		t.Fatal("a parent the client check refused was noted")
	}
	s.NoteClient("a", nil) // as the hook does: this test's parent plays the client
	id, client, ok := s.ClientSession(os.Getpid())
	if !ok || id != "a" || client.PID != os.Getppid() {
		t.Fatalf("ClientSession = %q %+v %v", id, client, ok)
	}
	s.NoteClient("b", nil) // the client moved on (/clear, /resume)
	if id, _, _ := s.ClientSession(os.Getpid()); id != "b" {
		t.Errorf("after the client moved: %q", id)
	}
	if live := s.LiveClients(false); live["b"] != 1 || live["a"] != 0 {
		t.Errorf("live %v", live)
	}
	// A note for a process that is not running (the same pid, another start time).
	p, _ := ReadProc(os.Getppid())
	stale := Proc{PID: p.PID, Start: p.Start + 1}
	os.WriteFile(s.clientPath(stale), []byte("a\n"), 0o600)
	if live := s.LiveClients(true); live["a"] != 0 {
		t.Errorf("a stale note counted as live: %v", live)
	}
	if _, err := os.Stat(s.clientPath(stale)); err == nil {
		t.Error("the stale note was not pruned")
	}
	// A note holding something that is not a session id is ignored.
	os.WriteFile(s.clientPath(p), []byte("../../etc\n"), 0o600)
	if _, _, ok := s.ClientSession(os.Getpid()); ok {
		t.Error("a bad note was taken")
	}
}

// TestModeChangeIsToldOnce (issue 11): after a toggle the model's next prompt, or failing that
// its next main-thread tool call, carries the new mode, once; a subagent's call does not spend
// the notice; session start notes what it told.
func TestModeChangeIsToldOnce(t *testing.T) {
	store := NewStore(t.TempDir())
	g := &Gate{Client: testClient, LoadConfig: func(string) (*Config, error) { return &Config{}, nil }, Store: store, Modes: StoreModes{Store: store}}
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
	ToggleOff.Apply(store, "s", "cli", "", hook.ModeReadOnly, nil)
	if c := prompt(); !strings.Contains(c, "switched this session from READ-ONLY to EDIT mode") || !strings.Contains(c, "you may change files") {
		t.Errorf("after off: %q", c)
	}
	if c := prompt(); c != "" {
		t.Errorf("told twice: %q", c)
	}
	ToggleReview.Apply(store, "s", "cli", "", hook.ModeReadOnly, nil)
	if d := call("sub1"); d.Context != "" {
		t.Errorf("a subagent's call spent the notice: %q", d.Context)
	}
	if d := call(""); !strings.Contains(d.Context, "from EDIT to REVIEW mode") {
		t.Errorf("the main thread's call: %q", d.Context)
	}
	// Off and on again before the model hears of it: nothing to tell.
	ToggleOff.Apply(store, "s", "cli", "", hook.ModeReadOnly, nil)
	ToggleReview.Apply(store, "s", "cli", "", hook.ModeReadOnly, nil)
	if c := prompt(); c != "" {
		t.Errorf("the mode it was told is the mode: %q", c)
	}
	// A resumed session is told its mode at its start, which counts as told.
	ToggleOn.Apply(store, "s", "cli", "", hook.ModeReadOnly, nil)
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
		store := NewStore(t.TempDir())
		store.Record("s", "/p", m)
		g := &Gate{Client: testClient, LoadConfig: func(string) (*Config, error) { return &Config{}, nil }, Store: store, Modes: StoreModes{Store: store}}
		for _, c := range []*hook.ToolCall{
			{Tool: "Write", Kind: hook.KindFileWrite, Paths: []string{"/p/f"}},
			{Tool: "Bash", Kind: hook.KindShell, Command: "touch /p/f"},
			{Tool: "Bash", Kind: hook.KindShell, Command: `gh pr comment 7 -b "ok"`},
		} {
			c.Session, c.Cwd, c.PermissionMode = "s", "/p", PermissionPlan
			d := g.Decide(&hook.Event{Name: hook.EventToolCall, Session: "s", Cwd: "/p", Call: c, PermissionMode: PermissionPlan}, nil)
			// The publish is refused by the network router before the read-only rules speak.
			if d.Verdict != hook.Deny || c.Tool == "Write" && !strings.Contains(d.Reason, "plan mode") || d.Publish != nil {
				t.Errorf("%v, %s %s in plan mode: %v %q", m, c.Tool, c.Command, d.Verdict, d.Reason)
			}
		}
		d := g.Decide(&hook.Event{Name: hook.EventToggle, Session: "s", Cwd: "/p", PermissionMode: PermissionPlan, Toggle: &hook.ToggleRequest{Args: "", Trusted: true}}, nil)
		if m != hook.ModeReadOnly && !strings.Contains(d.Reason, "held read-only while the client is in plan mode") {
			t.Errorf("%v: bare toggle in plan mode: %q", m, d.Reason)
		}
	}
}
