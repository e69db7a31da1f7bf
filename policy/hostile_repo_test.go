package policy

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/hookctl/hookctl/config"
	"github.com/hookctl/hookctl/internal/testbin"
)

// hostileRepo builds a project holding two repositories whose configuration runs a command on
// plain reads, and returns the project directory and the marker directory those commands write
// into:
//
//   - sub/: a work tree whose .git/config (as a downloaded archive could carry it) sets
//     core.fsmonitor, diff.external, a textconv driver selected by .gitattributes, and
//     log.showSignature with gpg.program, over a commit carrying a signature header;
//   - evil.git/: a bare repository committed inside the project, with the same signature trap.
//
// Every trap command writes a file named after the trap into the marker directory.
func hostileRepo(t *testing.T) (project, markers string) {
	t.Helper()
	if _, err := exec.LookPath("git"); err != nil {
		testbin.RequireTool(t, "git")
	}
	project = t.TempDir()
	markers = t.TempDir()
	trap := func(name string) string {
		script := filepath.Join(markers, "trap-"+name+".sh")
		body := fmt.Sprintf("#!/bin/sh\ntouch %q\nexit 1\n", filepath.Join(markers, name))
		if err := os.WriteFile(script, []byte(body), 0o755); err != nil {
			t.Fatal(err)
		}
		return script
	}
	git := func(dir string, args ...string) string {
		cmd := exec.Command("git", args...)
		cmd.Dir = dir
		cmd.Env = append(os.Environ(), "GIT_CONFIG_NOSYSTEM=1", "HOME="+project, "GIT_AUTHOR_NAME=t",
			"GIT_AUTHOR_EMAIL=t@t", "GIT_COMMITTER_NAME=t", "GIT_COMMITTER_EMAIL=t@t")
		out, err := cmd.CombinedOutput()
		if err != nil {
			t.Fatalf("git %v: %v\n%s", args, err, out)
		}
		return strings.TrimSpace(string(out))
	}
	write := func(p, s string) {
		if err := os.WriteFile(p, []byte(s), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	// A commit of tree whose object carries a gpgsig header, so that showing it with signatures
	// on asks gpg.program to verify.
	signedCommit := func(dir, tree string) {
		obj := fmt.Sprintf("tree %s\nauthor t <t@t> 1700000000 +0000\ncommitter t <t@t> 1700000000 +0000\n"+
			"gpgsig -----BEGIN PGP SIGNATURE-----\n \n AAAA\n -----END PGP SIGNATURE-----\n\nsigned\n", tree)
		p := filepath.Join(t.TempDir(), "commit")
		write(p, obj)
		id := git(dir, "hash-object", "-t", "commit", "-w", p)
		git(dir, "update-ref", "HEAD", id)
	}

	sub := filepath.Join(project, "sub")
	os.Mkdir(sub, 0o755)
	git(sub, "init", "-q")
	write(filepath.Join(sub, "f.txt"), "one\n")
	write(filepath.Join(sub, ".gitattributes"), "*.txt diff=conv\n")
	git(sub, "add", ".")
	signedCommit(sub, git(sub, "write-tree"))
	write(filepath.Join(sub, "f.txt"), "two\n") // a change, so diff and status look at content
	for _, kv := range [][2]string{
		{"core.fsmonitor", trap("fsmonitor")},
		{"diff.external", trap("external-diff")},
		{"diff.conv.textconv", trap("textconv")},
		{"log.showSignature", "true"},
		{"gpg.program", trap("gpg")},
		{"core.pager", trap("pager")},
	} {
		git(sub, "config", kv[0], kv[1])
	}

	bare := filepath.Join(project, "evil.git")
	git(project, "init", "-q", "--bare", bare)
	git(bare, "config", "log.showSignature", "true")
	git(bare, "config", "gpg.program", trap("bare-gpg"))
	idx := filepath.Join(t.TempDir(), "index")
	cmd := exec.Command("git", "read-tree", "--empty")
	cmd.Dir, cmd.Env = bare, append(os.Environ(), "GIT_INDEX_FILE="+idx)
	cmd.Run()
	tree := func() string {
		c := exec.Command("git", "write-tree")
		c.Dir, c.Env = bare, append(os.Environ(), "GIT_INDEX_FILE="+idx)
		out, _ := c.Output()
		return strings.TrimSpace(string(out))
	}()
	signedCommit(bare, tree)
	return project, markers
}

func runShell(t *testing.T, dir, command string) string {
	t.Helper()
	cmd := exec.Command("bash", "--norc", "--noprofile", "-c", command)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "HOME="+dir)
	out, _ := cmd.CombinedOutput() // many of these fail (refused repository, trap exit 1)
	return string(out)
}

func markersIn(dir string) []string {
	var out []string
	entries, _ := os.ReadDir(dir)
	for _, e := range entries {
		if !strings.HasPrefix(e.Name(), "trap-") {
			out = append(out, e.Name())
		}
	}
	return out
}

// hostileReads are read-only git commands that the hostile repositories turn into code
// execution when run as written, and what each prints when rewritten: the work tree's reads
// still work; the bare repository is refused by git itself (safe.bareRepository=explicit).
var hostileReads = []struct{ cmd, want string }{
	{"cd sub && git status", "modified:   f.txt"},
	{"cd sub && git diff", "+two"},
	{"cd sub && git log -1", "signed"},
	{"cd sub && git show HEAD", "+*.txt diff=conv"},
	{"git -C sub diff --stat", "1 file changed"},
	{"git -C sub log -p -1", "signed"},
	{"git -C evil.git log -1", "bare repository"},
	{"cd evil.git && git log -1", "bare repository"},
	{"cd evil.git && git show", "bare repository"},
}

// TestHostileRepoConfig proves the rewrite neutralises repository configuration that runs code:
// run as written, the reads fire the traps (the control, so this test can fail); run as the hook
// rewrites them, none fires.
func TestHostileRepoConfig(t *testing.T) {
	if _, err := exec.LookPath("bash"); err != nil {
		testbin.RequireTool(t, "bash")
	}
	project, markers := hostileRepo(t)
	for _, c := range hostileReads {
		runShell(t, project, c.cmd)
	}
	fired := markersIn(markers)
	for _, want := range []string{"fsmonitor", "external-diff", "textconv", "gpg", "bare-gpg"} {
		if !contains(fired, want) {
			t.Errorf("control: the %s trap did not fire when the reads ran as written (fired: %v); the fixture is not hostile", want, fired)
		}
	}
	for _, f := range fired {
		os.Remove(filepath.Join(markers, f))
	}

	for _, c := range hostileReads {
		rewritten, r := judgeText(c.cmd, &config.Config{})
		if r != nil {
			t.Fatalf("%q refused: %s", c.cmd, r.What)
		}
		out := runShell(t, project, rewritten)
		if !strings.Contains(out, c.want) {
			t.Errorf("%q ran as %q and printed %q, want %q", c.cmd, rewritten, out, c.want)
		}
		if m := markersIn(markers); len(m) > 0 {
			t.Errorf("%q ran as %q and fired %v\n%s", c.cmd, rewritten, m, out)
			for _, f := range m {
				os.Remove(filepath.Join(markers, f))
			}
		}
	}
}

// TestRewritePinsConfig: rg's config file can add --pre, which runs a program on every file;
// the rewrite ignores RIPGREP_CONFIG_PATH.
func TestRewritePinsConfig(t *testing.T) {
	if _, err := exec.LookPath("rg"); err != nil {
		testbin.RequireTool(t, "rg")
	}
	dir := t.TempDir()
	marker := filepath.Join(dir, "pre-ran")
	pre := filepath.Join(dir, "pre.sh")
	os.WriteFile(pre, []byte("#!/bin/sh\ntouch "+marker+"\ncat \"$1\"\n"), 0o755)
	os.WriteFile(filepath.Join(dir, "rgrc"), []byte("--pre="+pre+"\n"), 0o644)
	os.WriteFile(filepath.Join(dir, "a.txt"), []byte("needle\n"), 0o644)
	t.Setenv("RIPGREP_CONFIG_PATH", filepath.Join(dir, "rgrc"))

	runShell(t, dir, "rg needle a.txt")
	if _, err := os.Stat(marker); err != nil {
		t.Fatalf("control: rg did not run the configured --pre: %v", err)
	}
	os.Remove(marker)
	rewritten, r := judgeText("rg needle a.txt", &config.Config{})
	if r != nil {
		t.Fatal(r.What)
	}
	if out := runShell(t, dir, rewritten); !strings.Contains(out, "needle") {
		t.Errorf("%q did not search: %q", rewritten, out)
	}
	if _, err := os.Stat(marker); err == nil {
		t.Errorf("%q ran the configured --pre", rewritten)
	}
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}
