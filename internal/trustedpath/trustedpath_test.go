package trustedpath

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestLookPath: issue 22's gh planted in a directory a sandboxed command could write, ahead of
// the real one on PATH, is passed over; so is one in a directory others may write, or a file
// others may write; the real one is found; with only untrusted ones, the error says why.
func TestLookPath(t *testing.T) {
	root := t.TempDir()
	os.Chmod(root, 0o755)
	dir := func(name string, mode os.FileMode) string {
		d := filepath.Join(root, name)
		os.MkdirAll(d, 0o755)
		os.Chmod(d, mode)
		return d
	}
	project, open, mine := dir("project", 0o755), dir("open", 0o777), dir("mine", 0o755)
	planted := dir("project/bin", 0o755)
	for _, d := range []string{planted, open, mine} {
		os.WriteFile(filepath.Join(d, "gh"), []byte("#!/bin/sh\n"), 0o755)
	}
	loose := dir("loose", 0o755)
	os.WriteFile(filepath.Join(loose, "gh"), []byte("#!/bin/sh\n"), 0o755)
	os.Chmod(filepath.Join(loose, "gh"), 0o777)
	path := strings.Join([]string{"relative", planted, open, loose, mine}, string(os.PathListSeparator))
	got, err := LookPath("gh", path, []string{project})
	if err != nil || got != filepath.Join(mine, "gh") {
		t.Errorf("LookPath: %q %v, want %s", got, err, filepath.Join(mine, "gh"))
	}
	if _, err := LookPath("gh", strings.Join([]string{planted, open}, ":"), []string{project}); err == nil || !strings.Contains(err.Error(), "does not trust") {
		t.Errorf("only untrusted: %v", err)
	}
	if _, err := LookPath("../gh", path, nil); err == nil {
		t.Error("a name with a slash was looked up")
	}
}
