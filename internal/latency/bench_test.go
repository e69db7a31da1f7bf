package latency_test

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/hookctl/hookctl/internal/testbin"
)

// TestBenchToolsRun runs each whole-process tool `make bench` runs, a few rounds each, as make
// bench runs them: make bench is not part of make test, and a change elsewhere once left its
// edit-profile row failing unseen (edit mode's launcher came to refuse a session not in edit
// mode, and the tool never put its session there). Only that they run and print their figures
// is checked; the figures themselves mean nothing at this size.
func TestBenchToolsRun(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and runs the benchmark tools")
	}
	root, err := testbin.RepoRoot()
	if err != nil {
		t.Fatal(err)
	}
	// The launch tool also runs the launchers as uid 65534 when it runs as root: the binaries
	// lie where every user may run them, as make bench's bin/ does.
	bin, err := os.MkdirTemp("", "hookctl-bench-bin-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(bin) })
	os.Chmod(bin, 0o755)
	for _, name := range []string{"hookctl", "hookctl-sandbox"} {
		b, err := os.ReadFile(filepath.Join(filepath.Dir(testbin.Hookctl(t)), name))
		if err == nil {
			err = os.WriteFile(filepath.Join(bin, name), b, 0o755)
		}
		if err != nil {
			t.Fatal(err)
		}
	}
	hookctl := filepath.Join(bin, "hookctl")
	goTool := func(args ...string) string {
		t.Helper()
		cmd := exec.Command("go", args...)
		cmd.Dir = root
		cmd.Env = append(os.Environ(), "CGO_ENABLED=0")
		out, err := cmd.CombinedOutput()
		if err != nil {
			t.Fatalf("go %s: %v\n%s", strings.Join(args, " "), err, out)
		}
		return string(out)
	}
	floor, minimal, idle := filepath.Join(bin, "floor"), filepath.Join(bin, "minlaunch"), filepath.Join(bin, "hookctl-idle")
	goTool("build", "-trimpath", "-o", floor, "./internal/latency/floor")
	goTool("build", "-trimpath", "-tags", "hookctl_idle", "-o", idle, "./cmd/hookctl")
	goTool("build", "-trimpath", "-o", minimal, "./internal/latency/minlaunch")
	payloads := []string{"fixtures/claude/explore-bash-git-log.json", "fixtures/claude/explore-write-project-agent.json"}
	for _, c := range []struct {
		args []string
		want []string
	}{
		{append([]string{"run", "./cmd/latency", "-hook", hookctl, "-floor", floor, "-wrapper", "-n", "4"}, payloads...),
			[]string{"repeat calls", "wrapped p50", "issue 28 as filed"}},
		{append([]string{"run", "./cmd/latency", "-hook", hookctl, "-floor", floor, "-idle", idle, "-unique", "-installed", "-n", "4"}, payloads...),
			[]string{"copies of the binaries as make install writes them", "issue 28 as filed", "hookctl / idle", "goal (issue 28, restated)"}},
		{[]string{"run", "./internal/latency/sandboxed", "-hookctl", hookctl, "-home", t.TempDir(), "-n", "3", "-heavy", "1", "-edit"},
			[]string{"sandbox's added latency", "syscall-heavy reads", "edit profile's added latency", "git log --oneline -5"}},
		{[]string{"run", "./internal/latency/launch", "-hookctl", hookctl, "-min", minimal, "-n", "3", "-dir", bin},
			[]string{"hookctl-sandbox, home among 5,000", "ratio: hookctl-sandbox / minimal Go launcher", "ratio: hookctl-sandbox / layers' minimal", "goal (issue 28, restated)"}},
	} {
		out := goTool(c.args...)
		for _, w := range c.want {
			if !strings.Contains(out, w) {
				t.Errorf("go %s printed no %q:\n%s", strings.Join(c.args, " "), w, out)
			}
		}
		if t.Failed() {
			return
		}
		if c.args[1] == "./internal/latency/sandboxed" && strings.Count(out, "added p50") != 6 {
			t.Errorf("the sandboxed tool measured %d commands with p50s, want 6 (3 read-only, 3 edit):\n%s", strings.Count(out, "added p50"), out)
		}
	}
}
