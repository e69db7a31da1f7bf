package agenttest

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// CommitSubject is the subject of the one commit in a Project: git log's output reaching the
// model shows that git log ran.
const CommitSubject = "initial commit of the e2e project"

// Project is one client run's world: a HOME, a git project holding the file F ("a\n"), a
// directory for the recording hook, and Outside, a path outside the project that no step may
// create.
type Project struct {
	Base, Home, Dir, HookDir, F, Outside string
}

// NewProject makes a Project in a temporary directory.
func NewProject(t testing.TB) *Project {
	t.Helper()
	base := t.TempDir()
	p := &Project{Base: base, Home: filepath.Join(base, "home"), Dir: filepath.Join(base, "proj"), HookDir: filepath.Join(base, "hook"),
		Outside: filepath.Join(base, "outside")}
	p.F = filepath.Join(p.Dir, "f")
	for _, d := range []string{p.Home, p.Dir, p.HookDir} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.WriteFile(p.F, []byte("a\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, args := range [][]string{{"init", "-q"}, {"add", "f"},
		{"-c", "user.name=t", "-c", "user.email=t@example.com", "commit", "-qm", CommitSubject}} {
		cmd := exec.Command("git", args...)
		cmd.Dir, cmd.Env = p.Dir, []string{"HOME=" + p.Home, "PATH=" + os.Getenv("PATH"), "GIT_CONFIG_NOSYSTEM=1"}
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("git %v: %v\n%s", args, err, out)
		}
	}
	return p
}

// SandboxProbe is an admitted read whose output says whether it ran under hookctl's seccomp
// filter: where the client takes the rewritten command it runs in the sandbox ("Seccomp: 2"),
// where it does not, as the model wrote it ("Seccomp: 0").
const SandboxProbe = "grep Seccomp: /proc/self/status"

// ReadOnlyScript is what each real-client test has the model try in a read-only session:
// sed -i, a redirect out of the project, the client's write tool, git log, and SandboxProbe.
func (p *Project) ReadOnlyScript() []Step {
	return []Step{Shell("sed -i s/a/b/ f"), Shell("echo x > " + p.Outside), WriteFile(p.F, "written\n"), Shell("git log --oneline -3"),
		Shell(SandboxProbe)}
}

// Sandboxed says whether SandboxProbe's output, as the model saw it (in JSON, where a tab is
// \t), shows the seccomp filter; ok is false when the model saw neither answer.
func Sandboxed(saw func(string) bool) (sandboxed, ok bool) {
	in, out := saw(`Seccomp:\t2`), saw(`Seccomp:\t0`)
	return in, in != out
}

// Replacements are the temporary paths of the Project as a recording writes them.
func (p *Project) Replacements() map[string]string {
	return map[string]string{p.Dir: "/home/user/proj", p.Home: "/home/user", p.Outside: "/tmp/outside", p.HookDir: "/tmp/hook"}
}

// CheckReadOnly asserts what a ReadOnlyScript run must leave: F untouched, Outside absent, each
// of refusals seen by the model (saw), and git log's output too.
func (p *Project) CheckReadOnly(t testing.TB, saw func(string) bool, refusals ...string) {
	t.Helper()
	p.CheckRefusals(t, saw, refusals...)
	if !saw(CommitSubject) {
		t.Errorf("git log's output did not reach the model")
	}
}

// CheckRefusals asserts F untouched, Outside absent, and each of refusals seen by the model.
func (p *Project) CheckRefusals(t testing.TB, saw func(string) bool, refusals ...string) {
	t.Helper()
	if b, _ := os.ReadFile(p.F); string(b) != "a\n" {
		t.Errorf("f was changed to %q", b)
	}
	if _, err := os.Stat(p.Outside); err == nil {
		t.Errorf("the redirect wrote %s", p.Outside)
	}
	for _, want := range refusals {
		if !saw(want) {
			t.Errorf("the model was not told %q", want)
		}
	}
}

// Install runs `hookctl install --agent agent` for the Project's HOME, with hookctl's home
// under Base, so that a test drives the client with the registration install writes.
func (p *Project) Install(t testing.TB, hookctl, agent string, env []string) {
	t.Helper()
	cmd := exec.Command(hookctl, "install", "--agent", agent)
	cmd.Dir, cmd.Env = p.Dir, env
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("hookctl install --agent %s: %v\n%s", agent, err, out)
	}
}

// StatusSession is the session `hookctl readonly status` named in text (its line reads
// "session PREFIX (DIR): BADGE"), or "" when text holds no such line.
func StatusSession(text string) string {
	i := strings.Index(text, "): 🔒")
	if i < 0 {
		i = strings.Index(text, "): ✏️")
	}
	if i < 0 {
		return ""
	}
	j := strings.LastIndex(text[:i], "session ")
	if j < 0 {
		return ""
	}
	named, _, _ := strings.Cut(text[j+len("session "):i], " (")
	return named
}
