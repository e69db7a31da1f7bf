package gate

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/hookctl/hookctl/policy"
	"github.com/hookctl/hookctl/programs"
)

// TestWalkJudgesWhereItGoes: a walk is judged by what it can reach, not by its words: a link
// named innocently to a secret, a store beneath its start, a hard link to a credential file;
// and a walk the rewrite excludes secret names from, following no link, is not walked at all,
// so that its size never refuses it.
func TestWalkJudgesWhereItGoes(t *testing.T) {
	root := t.TempDir()
	home, project := filepath.Join(root, "home"), filepath.Join(root, "project")
	for _, f := range []string{"home/.aws/credentials", "home/.netrc", "project/src/main.go", "project/.env"} {
		os.MkdirAll(filepath.Dir(filepath.Join(root, f)), 0o755)
		os.WriteFile(filepath.Join(root, f), []byte("x\n"), 0o600)
	}
	os.Symlink(filepath.Join(home, ".aws", "credentials"), filepath.Join(project, "src", "aa-notes.txt"))
	os.Symlink("../.env", filepath.Join(project, "src", "env.txt"))
	walk := func(w programs.Walk, excluded, sandboxed bool, roots ...string) *policy.WalkHit {
		return Walk([]policy.WalkRequest{{Walk: w, Roots: roots, Home: home, Excluded: excluded, Sandboxed: sandboxed}})
	}
	for _, c := range []struct {
		name      string
		w         programs.Walk
		excluded  bool
		sandboxed bool
		roots     []string
		want      string // in the hit's What or Err; "" for no hit
	}{
		{"rg -L through a link to a store", programs.Walk{Follow: programs.FollowAll}, true, false, []string{project}, "AWS credentials"},
		{"the same in the sandbox, which hides the store", programs.Walk{Follow: programs.FollowAll}, true, true, []string{project}, "environment file"},
		{"find -exec cat opens the link find lists", programs.Walk{OpensLinks: true, Names: []string{"aa-notes.txt"}}, true, false, []string{project}, "AWS credentials"},
		{"find -exec with a name no entry has", programs.Walk{OpensLinks: true, Names: []string{"*.rs"}}, true, false, []string{project}, ""},
		{"no rewrite: .env by its name", programs.Walk{}, false, false, []string{project}, "environment file"},
		{"rg with its exclusions: names are enough", programs.Walk{}, true, false, []string{project}, ""},
		{"a walk of the home outside the sandbox", programs.Walk{}, true, false, []string{home}, "AWS credentials"},
		{"the same in the sandbox", programs.Walk{}, true, true, []string{home}, ""},
	} {
		h := walk(c.w, c.excluded, c.sandboxed, c.roots...)
		switch {
		case c.want == "" && h != nil:
			t.Errorf("%s: hit %+v", c.name, h)
		case c.want != "" && (h == nil || !strings.Contains(h.What+h.Err, c.want)):
			t.Errorf("%s: %+v, want %q", c.name, h, c.want)
		}
	}
	// A second hard link to a credential file makes every walk a real one, and finds it.
	if err := os.Link(filepath.Join(home, ".netrc"), filepath.Join(project, "src", "hard.txt")); err != nil {
		t.Fatal(err)
	}
	if h := walk(programs.Walk{}, true, true, project); h == nil || !strings.Contains(h.What, "hard link") {
		t.Errorf("a hard link to ~/.netrc: %+v", h)
	}
	// A tree larger than the walk's bound is refused, not judged on a part, when it must be
	// walked; and admitted unwalked when it need not be.
	big := filepath.Join(root, "big")
	for i := 0; i < 210; i++ {
		d := filepath.Join(big, "d"+strings.Repeat("x", i%7), "e"+string(rune('a'+i%26))+string(rune('a'+i/26)))
		os.MkdirAll(d, 0o755)
		for j := 0; j < 100; j++ {
			os.WriteFile(filepath.Join(d, "f"+string(rune('a'+j%26))+string(rune('a'+j/26))), nil, 0o644)
		}
	}
	os.Remove(filepath.Join(project, "src", "hard.txt"))
	if h := walk(programs.Walk{Follow: programs.FollowAll}, true, false, big); h == nil || h.Err == "" {
		t.Errorf("a walk of %d files past the bound: %+v", 21000, h)
	}
	if h := walk(programs.Walk{}, true, false, big); h != nil {
		t.Errorf("an excluded walk that follows no link was walked: %+v", h)
	}
}
