package sandbox

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

func TestScratch(t *testing.T) {
	base := filepath.Join(t.TempDir(), "base")
	dir, err := Scratch(base, "0f7c2a-uuid")
	if err != nil || dir != filepath.Join(base, "0f7c2a-uuid") {
		t.Fatalf("%q %v", dir, err)
	}
	if fi, _ := os.Stat(dir); fi.Mode().Perm() != 0o700 {
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

// TestScratchRefusesAnotherUsersBase: in a shared /tmp anyone can create the base first.
func TestScratchRefusesAnotherUsersBase(t *testing.T) {
	tmp := t.TempDir()
	target := t.TempDir()
	link := filepath.Join(tmp, "link")
	os.Symlink(target, link)
	open := filepath.Join(tmp, "open")
	os.Mkdir(open, 0o777)
	os.Chmod(open, 0o777)
	file := filepath.Join(tmp, "file")
	os.WriteFile(file, nil, 0o600)
	for _, base := range []string{link, open, file} {
		if dir, err := Scratch(base, "s"); err == nil {
			t.Errorf("%s accepted as the scratch base (%s)", base, dir)
		}
	}
	if os.Getuid() == 0 {
		other := filepath.Join(tmp, "other")
		os.Mkdir(other, 0o700)
		os.Chown(other, 65534, 65534)
		if _, err := Scratch(other, "s"); err == nil || !strings.Contains(err.Error(), "another user") {
			t.Errorf("another user's base: %v", err)
		}
	}
	if entries, _ := os.ReadDir(target); len(entries) != 0 {
		t.Errorf("a scratch directory was made through the link: %v", entries)
	}
}

func TestSweep(t *testing.T) {
	base := filepath.Join(t.TempDir(), "base")
	old, _ := Scratch(base, "old")
	fresh, _ := Scratch(base, "fresh")
	kept, _ := Scratch(base, "kept")
	os.WriteFile(filepath.Join(old, "f"), []byte("x"), 0o600)
	past := time.Now().Add(-StaleAfter - time.Minute)
	os.Chtimes(old, past, past)
	os.Chtimes(kept, past, past)
	Sweep(base, kept)
	for dir, want := range map[string]bool{old: false, fresh: true, kept: true} {
		if _, err := os.Stat(dir); (err == nil) != want {
			t.Errorf("%s: exists %v, want %v", dir, err == nil, want)
		}
	}
}
