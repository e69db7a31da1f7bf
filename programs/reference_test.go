package programs

import (
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

var update = flag.Bool("update", false, "rewrite docs/allowlist.md from the rules")

// TestReference keeps docs/allowlist.md in sync with the rules: the file must be exactly what
// reference renders. Run `make docs` after changing a rule.
func TestReference(t *testing.T) {
	path := filepath.Join("..", "docs", "allowlist.md")
	want := reference()
	if *update {
		if err := os.WriteFile(path, []byte(want), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	got, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if string(got) != want {
		t.Errorf("%s is out of date with programs/; run `make docs`", path)
	}
	for _, p := range all {
		if !strings.Contains(want, "\n## "+p.Name+"\n") {
			t.Errorf("the reference has no section for %s", p.Name)
		}
	}
}
