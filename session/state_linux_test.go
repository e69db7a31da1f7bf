package session

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/hookctl/hookctl/hook"
	"github.com/hookctl/hookctl/internal/faultbench"
)

// TestToggleOnAFullDisk (issue 31, item 1): with the session's home on a tmpfs filled to the
// last byte, `readonly on` exited 3 and the session's Writes kept passing. A toggle now
// rewrites the state in place, within the room it kept: the toggle to read-only lands, again
// and again, the history trimmed when it must be, and the file is the same file.
func TestToggleOnAFullDisk(t *testing.T) {
	dir := faultbench.TmpfsFor(t, 256<<10)
	s := NewStore(dir)
	if _, err := s.Record("s", "/p", hook.ModeEdit); err != nil {
		t.Fatal(err)
	}
	before := mustStat(t, s.path("s"))
	if _, err := faultbench.Fill(dir); err != nil {
		t.Fatal(err) // it checks that not one more byte fits
	}
	for i := range 300 {
		toggle, want := ToggleOn, hook.ModeReadOnly
		if i%2 == 1 {
			toggle, want = ToggleOff, hook.ModeEdit
		}
		if _, to, err := toggle.Apply(s, "s", "cli", "/p", hook.ModeEdit, nil); err != nil || to != want {
			t.Fatalf("toggle %d on the full disk: %v %v", i, to, err)
		}
		if m, _, err := s.Peek("s"); err != nil || m != want {
			t.Fatalf("after toggle %d: %v %v", i, m, err)
		}
	}
	after := mustStat(t, s.path("s"))
	if !os.SameFile(before, after) || after.Size() != before.Size() {
		t.Errorf("the state file was replaced or grew: %d → %d bytes", before.Size(), after.Size())
	}
	sess, err := s.Load("s")
	if err != nil || len(sess.History) == 0 || len(sess.History) >= 300 || sess.History[len(sess.History)-1].To != hook.ModeEdit {
		t.Errorf("history after 300 toggles in %d bytes: %d entries, %v", after.Size(), len(sess.History), err)
	}
	if left, _ := filepath.Glob(filepath.Join(s.Dir, ".*.tmp")); len(left) > 0 {
		t.Errorf("temporary files left: %v", left)
	}
}
