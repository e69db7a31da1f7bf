package session

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/hookctl/hookctl/hook"
)

func gitConfig(t *testing.T, dir, text string) {
	t.Helper()
	os.MkdirAll(filepath.Join(dir, ".git"), 0o755)
	if err := os.WriteFile(filepath.Join(dir, ".git", "config"), []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
}

const originGitHub = "[remote \"origin\"]\n\turl = https://github.com/o/r.git\n"

// TestProjectRemotesAreRecordedOnce (issue 24): what a project's .git/config says after its
// first session — a pushurl, a new remote — never becomes one of its remotes, from any
// directory of the project, in a linked worktree, or in a repository made later where there was
// none.
func TestProjectRemotesAreRecordedOnce(t *testing.T) {
	home, proj := t.TempDir(), t.TempDir()
	gitConfig(t, proj, originGitHub)
	store := NewStore(home)
	if _, err := store.Record("s-first", proj, hook.ModeReadOnly); err != nil {
		t.Fatal(err)
	}
	// An edit-mode session plants remotes for the next.
	gitConfig(t, proj, originGitHub+"\tpushurl = https://evil.example/x.git\n[remote \"m\"]\n\turl = git@evil2.example:x.git\n")
	os.MkdirAll(filepath.Join(proj, "sub"), 0o755)
	wt := t.TempDir()
	os.WriteFile(filepath.Join(wt, ".git"), []byte("gitdir: "+filepath.Join(proj, ".git", "worktrees", "wt")+"\n"), 0o644)
	os.MkdirAll(filepath.Join(proj, ".git", "worktrees", "wt"), 0o755)
	os.WriteFile(filepath.Join(proj, ".git", "worktrees", "wt", "commondir"), []byte("../..\n"), 0o644)
	for i, dir := range []string{proj, filepath.Join(proj, "sub"), wt} {
		id := "s-next-" + string(rune('a'+i))
		sess, err := store.Record(id, dir, hook.ModeReadOnly)
		if err != nil {
			t.Fatal(err)
		}
		if got := strings.Join(NewProjects(home).RemotesFor(sess), " "); got != "github.com" {
			t.Errorf("a session in %s reaches %q", dir, got)
		}
	}
	// Control: the config does name the planted hosts.
	if got := strings.Join(ProjectRemotes(proj), " "); !strings.Contains(got, "evil.example") || !strings.Contains(got, "evil2.example") {
		t.Fatalf("control: the planted config reads as %q", got)
	}

	// No repository at the first session: one made later is the same project.
	bare := t.TempDir()
	if _, err := store.Record("s-bare", bare, hook.ModeReadOnly); err != nil {
		t.Fatal(err)
	}
	gitConfig(t, bare, "[remote \"origin\"]\n\turl = https://evil.example/x.git\n")
	sess, _ := store.Record("s-bare-next", bare, hook.ModeReadOnly)
	if got := NewProjects(home).RemotesFor(sess); len(got) != 0 {
		t.Errorf("a repository made after the first session opened %q", got)
	}
}

// TestProjectRemotesFromEarlierSessions: a project whose sessions began before per-project
// records takes what its earliest session recorded, not what .git/config says now.
func TestProjectRemotesFromEarlierSessions(t *testing.T) {
	home, proj := t.TempDir(), t.TempDir()
	gitConfig(t, proj, originGitHub+"[remote \"evil\"]\n\turl = https://evil.example/x.git\n")
	store := NewStore(home)
	os.MkdirAll(store.Dir, 0o700)
	for i, remotes := range [][]string{{"github.com"}, {"github.com", "evil.example"}} {
		b, _ := encodeState(&Session{ID: "old-" + string(rune('a'+i)), Mode: hook.ModeEdit, Cwd: proj,
			Started: time.Date(2026, 1, 1+i, 0, 0, 0, 0, time.UTC), Remotes: remotes})
		os.WriteFile(store.path("old-"+string(rune('a'+i))), b, 0o600)
	}
	sess, err := store.Record("new", proj, hook.ModeReadOnly)
	if err != nil {
		t.Fatal(err)
	}
	r, err := NewProjects(home).Load(proj)
	if err != nil || strings.Join(r.Hosts(), " ") != "github.com" || r.From != "session old-a" ||
		strings.Join(NewProjects(home).RemotesFor(sess), " ") != "github.com" {
		t.Errorf("record %+v %v", r, err)
	}
}

// TestProjectRemotesAdd: the human's additions are kept beside what was recorded, once each,
// in the form the proxy's rules read; a malformed host is refused.
func TestProjectRemotesAdd(t *testing.T) {
	home, proj := t.TempDir(), t.TempDir()
	gitConfig(t, proj, originGitHub)
	p := NewProjects(home)
	if _, err := p.Note(proj, func() []*Session { return nil }); err != nil {
		t.Fatal(err)
	}
	for _, h := range []string{"git.corp.example:8443", "GIT.corp.example:8443", "github.com"} {
		if _, err := p.Add(proj, h); err != nil {
			t.Fatal(err)
		}
	}
	r, _ := p.Load(proj)
	if got := strings.Join(r.Hosts(), " "); got != "github.com git.corp.example:8443" {
		t.Errorf("hosts %q", got)
	}
	for _, bad := range []string{"http://x", "a b", ""} {
		if _, err := p.Add(proj, bad); err == nil {
			t.Errorf("%q added", bad)
		}
	}
	// No record yet: the addition alone, not the unvouched config.
	other := t.TempDir()
	gitConfig(t, other, "[remote \"origin\"]\n\turl = https://evil.example/x.git\n")
	if r, err := p.Add(other, "git.corp.example"); err != nil || strings.Join(r.Hosts(), " ") != "git.corp.example" {
		t.Errorf("add without a record: %+v %v", r, err)
	}
}
