package editguard

import (
	"strings"
	"testing"
	"time"
)

// TestGitMatch: git's pathspec globbing, where * crosses /, and its cost on a hostile pattern.
func TestGitMatch(t *testing.T) {
	for _, c := range []struct {
		pat, s string
		want   bool
	}{
		{"*.json", ".claude/settings.json", true},
		{"*", ".claude/settings.json", true},
		{"**/settings.json", "x/.claude/settings.json", true},
		{"sub/*", "sub/.claude/settings.json", true},
		{"src/*.go", "src/.claude/settings.json", false},
		{".claude/settings.jso?", ".claude/settings.json", true},
		{".claude/[st]ettings.json", ".claude/settings.json", true},
		{".claude/[!s]ettings.json", ".claude/settings.json", false},
		{"*.md", ".claude/settings.json", false},
		{"a*b*c", "axxbyyc", true},
		{"a*b*c", "axxbyy", false},
		{"[", "[", false},
	} {
		if got := gitMatch(c.pat, c.s); got != c.want {
			t.Errorf("gitMatch(%q, %q) = %v, want %v", c.pat, c.s, got, c.want)
		}
	}
	start := time.Now()
	if gitMatch(strings.Repeat("*a", 4000)+"b", strings.Repeat("a", 200)) {
		t.Errorf("hostile pattern matched")
	}
	if d := time.Since(start); d > time.Second {
		t.Errorf("hostile pattern took %v", d)
	}
}
