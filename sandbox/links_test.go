//go:build unix

package sandbox

import (
	"os"
	"path/filepath"
	"testing"
)

func TestHardLinked(t *testing.T) {
	dir := t.TempDir()
	claude := filepath.Join(dir, ".claude")
	for _, d := range []string{"commands", "projects/p"} {
		os.MkdirAll(filepath.Join(claude, d), 0o755)
	}
	for _, f := range []string{"settings.json", "commands/readonly.md", "projects/p/s.jsonl"} {
		os.WriteFile(filepath.Join(claude, f), []byte("{}"), 0o644)
	}
	rc := filepath.Join(dir, ".bashrc")
	os.WriteFile(rc, nil, 0o644)
	elsewhere := filepath.Join(dir, "elsewhere")
	os.Mkdir(elsewhere, 0o755)
	paths := []string{claude, rc, filepath.Join(dir, "missing")}
	if f, _ := HardLinked(paths); f != "" {
		t.Fatalf("no links yet, got %s", f)
	}
	for _, row := range []struct{ file, want string }{
		{"projects/p/s.jsonl", ""}, // a transcript, not a setting: not walked
		{"settings.json", filepath.Join(claude, "settings.json")},
		{"commands/readonly.md", filepath.Join(claude, "commands/readonly.md")},
	} {
		link := filepath.Join(elsewhere, filepath.Base(row.file))
		if err := os.Link(filepath.Join(claude, row.file), link); err != nil {
			t.Fatal(err)
		}
		if f, n := HardLinked(paths); f != row.want || row.want != "" && n != 2 {
			t.Errorf("a link to %s: HardLinked = %q, %d; want %q", row.file, f, n, row.want)
		}
		os.Remove(link)
	}
	os.Link(rc, filepath.Join(elsewhere, "rc"))
	if f, _ := HardLinked(paths); f != rc {
		t.Errorf("a link to the start-up file: %q", f)
	}
}
