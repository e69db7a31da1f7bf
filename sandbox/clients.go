package sandbox

import (
	"io/fs"
	"path/filepath"
	"strings"
)

// maxClientWalk bounds NestedClientDirs's walk of a project.
const maxClientWalk = 500_000

// NestedClientDirs finds the clients' settings directories already beneath project, at any
// depth (the project's own, at its top, are frozen anyway): a monorepo's packages/web/.claude,
// say. The edit sandbox freezes them, as it freezes the top one; making a new one is refused by
// its supervisor. The walk follows no link and stops after maxClientWalk entries (complete
// says whether it saw them all).
func NestedClientDirs(project string) (dirs []string, complete bool) {
	seen := 0
	complete = true
	filepath.WalkDir(project, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			if d != nil && d.IsDir() {
				return fs.SkipDir
			}
			return nil
		}
		if seen++; seen > maxClientWalk {
			complete = false
			return fs.SkipAll
		}
		if !d.IsDir() || p == project {
			return nil
		}
		name := d.Name()
		if isClientDir(name) || githubClientDir(p) {
			dirs = append(dirs, p)
			return fs.SkipDir
		}
		return nil
	})
	return dirs, complete
}

// isClientDir says whether name is a client's settings directory (clientNames).
func isClientDir(name string) bool {
	for _, n := range clientNames {
		if strings.EqualFold(name, n) {
			return true
		}
	}
	return false
}

// githubClientDir says whether p is Copilot's .github/hooks or .github/copilot.
func githubClientDir(p string) bool {
	if !strings.EqualFold(filepath.Base(filepath.Dir(p)), ".github") {
		return false
	}
	for _, n := range githubNames {
		if strings.EqualFold(filepath.Base(p), n) {
			return true
		}
	}
	return false
}

// clientNames are the directories whose settings a coding agent's client reads where it starts
// (an edit-mode command may not give any directory entry one of these names); githubNames are
// Copilot's, beneath a .github.
var (
	clientNames = []string{".claude", ".codex", ".gemini", ".qwen", ".cursor", ".copilot"}
	githubNames = []string{"hooks", "copilot"}
)
