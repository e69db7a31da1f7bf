// Package buildcheck holds tests of the build itself: that the Makefile runs what the tree holds.
package buildcheck

import (
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
)

var fuzzFunc = regexp.MustCompile(`(?m)^func (Fuzz\w+)\(f \*testing\.F\)`)

// TestMakefileFuzzesEveryTarget: every fuzz function in the tree is in the Makefile's
// FUZZ_TARGETS as ./pkg:Name, and every entry there names one, so `make test` and `make fuzz`
// fuzz all of them (two were once left out unnoticed).
func TestMakefileFuzzesEveryTarget(t *testing.T) {
	root := filepath.Join("..", "..")
	mk, err := os.ReadFile(filepath.Join(root, "Makefile"))
	if err != nil {
		t.Fatal(err)
	}
	m := regexp.MustCompile(`(?s)\nFUZZ_TARGETS :=(.*?)\n\n`).FindSubmatch(mk)
	if m == nil {
		t.Fatal("no FUZZ_TARGETS block in the Makefile")
	}
	listed := strings.Fields(strings.ReplaceAll(string(m[1]), "\\", " "))

	var found []string
	err = filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && (d.Name() == ".cache" || d.Name() == ".git" || d.Name() == "testdata") {
			return filepath.SkipDir
		}
		if d.IsDir() || !strings.HasSuffix(path, "_test.go") {
			return nil
		}
		src, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(root, filepath.Dir(path))
		for _, f := range fuzzFunc.FindAllSubmatch(src, -1) {
			found = append(found, "./"+filepath.ToSlash(rel)+":"+string(f[1]))
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	slices.Sort(found)
	slices.Sort(listed)
	if len(found) < 12 {
		t.Fatalf("found only %d fuzz functions: %q", len(found), found)
	}
	if !slices.Equal(found, listed) {
		t.Errorf("the Makefile's FUZZ_TARGETS do not match the tree\n tree:     %q\n Makefile: %q", found, listed)
	}
}
