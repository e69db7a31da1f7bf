package session

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
