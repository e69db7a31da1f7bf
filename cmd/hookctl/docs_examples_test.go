package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// fencedBlocks returns the fenced code blocks of language lang in a Markdown file, each with the
// line its fence opens on.
func fencedBlocks(t *testing.T, path, lang string) (blocks []string, lines []int) {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var cur []string
	in, start := false, 0
	for i, line := range strings.Split(string(b), "\n") {
		switch {
		case !in && strings.TrimSpace(line) == "```"+lang:
			in, start, cur = true, i+1, nil
		case in && strings.TrimSpace(line) == "```":
			in = false
			blocks, lines = append(blocks, strings.Join(cur, "\n")+"\n"), append(lines, start)
		case in:
			cur = append(cur, line)
		}
	}
	return blocks, lines
}

// docFiles are the Markdown files a user reads: the README and everything under docs/.
func docFiles(t *testing.T) []string {
	t.Helper()
	files := []string{filepath.Join("..", "..", "README.md")}
	err := filepath.WalkDir(filepath.Join("..", "..", "docs"), func(p string, d os.DirEntry, err error) error {
		if err == nil && !d.IsDir() && strings.HasSuffix(p, ".md") {
			files = append(files, p)
		}
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	return files
}

// TestConfigExamples: every configuration example in the README and docs/, pasted as the user's
// config.toml, leaves hookctl working: `hookctl check` still admits a plain read. (The README's
// example once put top-level keys after its [network] header, which TOML reads as
// network.read_only_runners, and every tool call was refused.)
func TestConfigExamples(t *testing.T) {
	load := func(text string) (int, string) {
		home := t.TempDir()
		if err := os.WriteFile(filepath.Join(home, "config.toml"), []byte(text), 0o600); err != nil {
			t.Fatal(err)
		}
		code, out, errOut := runCLI(t, home, "", "check", "--", "ls")
		return code, out + errOut
	}
	// The control: the README's broken example is caught, and the refusal says what to move.
	code, out := load("[network]\nallow = [\"npm.corp.example\"]\nread_only_runners = [\"go test ./...\"]\n")
	if code == exitOK || !strings.Contains(out, "read_only_runners is a top-level key") {
		t.Fatalf("a top-level key after [network]: exit %d, %q; want a refusal naming the misplaced key", code, out)
	}
	n := 0
	for _, f := range docFiles(t) {
		blocks, lines := fencedBlocks(t, f, "toml")
		for i, b := range blocks {
			n++
			if code, out := load(b); code != exitOK {
				t.Errorf("%s:%d: the example breaks hookctl when pasted into config.toml: exit %d\n%s", f, lines[i], code, out)
			}
		}
	}
	if n < 5 {
		t.Errorf("found %d configuration examples; the reader of the docs is broken", n)
	}
}
