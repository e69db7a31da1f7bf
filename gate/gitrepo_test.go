package gate

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/hookctl/hookctl/internal/gitrepo"
)

// TestProjectGitHubRepo reads the repository gh would choose from a project's git config.
func TestProjectGitHubRepo(t *testing.T) {
	for _, c := range []struct {
		config, remote, want string
	}{
		{"[remote \"origin\"]\n\turl = https://github.com/o/r.git\n", "", "o/r"},
		{"[remote \"origin\"]\n\turl = git@github.com:o/r.git\n[remote \"upstream\"]\n\turl = https://github.com/up/r\n", "", "up/r"},
		{"[remote \"origin\"]\n\turl = git@github.com:o/r.git\n[remote \"upstream\"]\n\turl = https://github.com/up/r\n", "origin", "o/r"},
		{"[remote \"fork\"]\n\turl = ssh://git@github.com/f/r.git\n", "", "f/r"},
		{"[remote \"a\"]\n\turl = https://github.com/a/r\n[remote \"b\"]\n\turl = https://github.com/b/r\n", "", ""}, // gh would ask
		{"[remote \"a\"]\n\turl = https://github.com/a/r\n\tgh-resolved = base\n[remote \"b\"]\n\turl = https://github.com/b/r\n", "", "a/r"},
		{"[remote \"origin\"]\n\turl = https://ghe.corp.example/t/s.git\n", "", "ghe.corp.example/t/s"},
		{"[remote \"origin\"]\n\turl = /srv/git/r.git\n", "", ""},
		{"[remote \"origin\"]\n\turl = https://github.com/o/r/x\n", "", ""},
		{"[remote \"origin\"]\n\turl = https://github.com/o/r\n", "upstream", ""},
	} {
		dir := t.TempDir()
		os.MkdirAll(filepath.Join(dir, ".git"), 0o755)
		os.WriteFile(filepath.Join(dir, ".git", "config"), []byte(c.config), 0o644)
		os.MkdirAll(filepath.Join(dir, "sub"), 0o755)
		if got := gitrepo.ProjectGitHubRepo(filepath.Join(dir, "sub"), c.remote); got != c.want {
			t.Errorf("%q remote %q: %q, want %q", c.config, c.remote, got, c.want)
		}
	}
	if got := gitrepo.ProjectGitHubRepo(t.TempDir(), ""); got != "" {
		t.Errorf("no repository: %q", got)
	}
}

// TestProjectBranch reads the branch HEAD is on, in a repository and in a worktree of one.
func TestProjectBranch(t *testing.T) {
	dir := t.TempDir()
	os.MkdirAll(filepath.Join(dir, ".git", "worktrees", "wt"), 0o755)
	os.WriteFile(filepath.Join(dir, ".git", "HEAD"), []byte("ref: refs/heads/main\n"), 0o644)
	os.WriteFile(filepath.Join(dir, ".git", "config"), []byte("[remote \"origin\"]\n\turl = https://github.com/o/r\n"), 0o644)
	wt := filepath.Join(t.TempDir(), "wt")
	os.MkdirAll(wt, 0o755)
	os.WriteFile(filepath.Join(wt, ".git"), []byte("gitdir: "+filepath.Join(dir, ".git", "worktrees", "wt")+"\n"), 0o644)
	os.WriteFile(filepath.Join(dir, ".git", "worktrees", "wt", "HEAD"), []byte("ref: refs/heads/feature/x\n"), 0o644)
	os.WriteFile(filepath.Join(dir, ".git", "worktrees", "wt", "commondir"), []byte("../..\n"), 0o644)
	if got := gitrepo.ProjectBranch(dir); got != "main" {
		t.Errorf("repository: %q", got)
	}
	if got := gitrepo.ProjectBranch(wt); got != "feature/x" {
		t.Errorf("worktree: %q", got)
	}
	if got := gitrepo.ProjectGitHubRepo(wt, ""); got != "o/r" {
		t.Errorf("worktree's remote: %q", got)
	}
	os.WriteFile(filepath.Join(dir, ".git", "HEAD"), []byte("0123456789abcdef0123456789abcdef01234567\n"), 0o644)
	if got := gitrepo.ProjectBranch(dir); got != "" {
		t.Errorf("detached: %q", got)
	}
}
