package buildcheck

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// TestIdleBuildIsNotShipped: hookctl's idle build (cmd/hookctl/idle.go), which answers every
// hook call with "allow" before judging anything, is make bench's yardstick and nothing else.
// The file is in the package only under its build tag, and the only line of the Makefile that
// names the tag writes bin/hookctl-idle, which nothing installs.
func TestIdleBuildIsNotShipped(t *testing.T) {
	files := func(args ...string) []string {
		return strings.Fields(goList(t, append(args, "-f", "{{join .GoFiles \" \"}}", "./cmd/hookctl")...)[0])
	}
	if slices.Contains(files(), "idle.go") {
		t.Error("hookctl's shipped build includes idle.go: it would answer every hook call with allow")
	}
	if !slices.Contains(files("-tags", "hookctl_idle"), "idle.go") {
		t.Error("idle.go is not in the hookctl_idle build, so this test cannot see it")
	}
	mk, err := os.ReadFile(filepath.Join("..", "..", "Makefile"))
	if err != nil {
		t.Fatal(err)
	}
	tagged := 0
	for _, line := range strings.Split(string(mk), "\n") {
		if !strings.Contains(line, "hookctl_idle") {
			continue
		}
		tagged++
		if !strings.Contains(line, "-o bin/hookctl-idle ") {
			t.Errorf("a Makefile line builds with hookctl_idle into something other than bin/hookctl-idle: %s", line)
		}
	}
	if tagged != 1 {
		t.Errorf("the Makefile names hookctl_idle on %d lines, want 1 (make bench's)", tagged)
	}
	if strings.Contains(string(mk), "bin/hookctl-idle") && strings.Contains(installRecipe(string(mk)), "hookctl-idle") {
		t.Error("make install installs bin/hookctl-idle")
	}
}

// installRecipe is the Makefile's install target's recipe.
func installRecipe(mk string) string {
	_, after, _ := strings.Cut(mk, "\ninstall:")
	end := strings.Index(after, "\n\n")
	if end < 0 {
		return after
	}
	return after[:end]
}
