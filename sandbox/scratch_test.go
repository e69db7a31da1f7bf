package sandbox

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

func TestScratch(t *testing.T) {
	home := filepath.Join(t.TempDir(), "hookctl")
	s, err := OpenScratch(home, "0f7c2a-uuid")
	if err != nil || s.Path != filepath.Join(home, "scratch", "0f7c2a-uuid") {
		t.Fatalf("%+v %v", s, err)
	}
	defer s.Close()
	if fi, _ := os.Stat(s.Path); fi.Mode().Perm() != 0o700 {
		t.Errorf("mode %v", fi.Mode())
	}
	for _, id := range []string{"../../etc", "", ".hidden", "a/b", strings.Repeat("x", 65), "a\nb"} {
		name := scratchName(id)
		if !strings.HasPrefix(name, "session-") || strings.ContainsAny(name, "/.\n") {
			t.Errorf("session %q: scratch name %q", id, name)
		}
	}
	if scratchName("a") == scratchName("b") || scratchName("../x") == scratchName("../y") {
		t.Error("two sessions share a scratch directory")
	}
}

// TestScratchRefusesWhatIsNotItsOwn: a scratch root or session directory that is a link, a
// file, open to others, or another user's is refused, and nothing is made through a link.
func TestScratchRefusesWhatIsNotItsOwn(t *testing.T) {
	target := t.TempDir()
	for name, plant := range map[string]func(root, dir string){
		"root is a link":    func(root, _ string) { os.Symlink(target, root) },
		"root is a file":    func(root, _ string) { os.WriteFile(root, nil, 0o600) },
		"root is open":      func(root, _ string) { os.Mkdir(root, 0o700); os.Chmod(root, 0o777) },
		"session is a link": func(root, dir string) { os.Mkdir(root, 0o700); os.Symlink(target, dir) },
		"session is open":   func(root, dir string) { os.Mkdir(root, 0o700); os.Mkdir(dir, 0o700); os.Chmod(dir, 0o755) },
	} {
		home := t.TempDir()
		root := ScratchRoot(home)
		plant(root, filepath.Join(root, "s"))
		if s, err := OpenScratch(home, "s"); err == nil {
			s.Close()
			t.Errorf("%s: accepted (%s)", name, s.Path)
		}
	}
	if os.Getuid() == 0 {
		home := t.TempDir()
		os.Mkdir(ScratchRoot(home), 0o700)
		os.Chown(ScratchRoot(home), 65534, 65534)
		if _, err := OpenScratch(home, "s"); err == nil || !strings.Contains(err.Error(), "another user") {
			t.Errorf("another user's root: %v", err)
		}
	}
	if entries, _ := os.ReadDir(target); len(entries) != 0 {
		t.Errorf("a scratch directory was made through a link: %v", entries)
	}
}

// TestScratchIsTheDirectoryOpened: once opened, the scratch directory is what the descriptor
// holds, whatever its path names later (issue 22's swap for a link to the home).
func TestScratchIsTheDirectoryOpened(t *testing.T) {
	home := t.TempDir()
	s, err := OpenScratch(home, "s")
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	elsewhere := t.TempDir()
	os.Rename(s.Path, s.Path+".moved")
	os.Symlink(elsewhere, s.Path)
	var a, b os.FileInfo
	if a, err = s.Dir.Stat(); err != nil {
		t.Fatal(err)
	}
	b, _ = os.Stat(s.Path + ".moved")
	if !os.SameFile(a, b) {
		t.Error("the descriptor does not hold the directory it opened")
	}
	if _, err := OpenScratch(home, "s"); err == nil {
		t.Error("a scratch directory swapped for a link was opened again")
	}
}

func TestSweep(t *testing.T) {
	home := t.TempDir()
	open := func(id string) string {
		s, err := OpenScratch(home, id)
		if err != nil {
			t.Fatal(err)
		}
		s.Close()
		return s.Path
	}
	old, fresh, kept := open("old"), open("fresh"), open("kept")
	os.WriteFile(filepath.Join(old, "f"), []byte("x"), 0o600)
	past := time.Now().Add(-StaleAfter - time.Minute)
	os.Chtimes(old, past, past)
	os.Chtimes(kept, past, past)
	Sweep(home, kept)
	for dir, want := range map[string]bool{old: false, fresh: true, kept: true} {
		if _, err := os.Stat(dir); (err == nil) != want {
			t.Errorf("%s: exists %v, want %v", dir, err == nil, want)
		}
	}
}
