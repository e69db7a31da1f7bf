package main

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	ct "github.com/hookctl/hookctl/agents/claude/claudetest"
	"github.com/hookctl/hookctl/audit"
)

// TestRetrieveClaudeCLIIsolated: the claude-cli distiller works inside the isolated worker (a
// temporary HOME, a scrubbed environment, Landlock) with a subscription user's credential: the
// real client, given CLAUDE_CODE_OAUTH_TOKEN and pointed at the fake Messages API by
// ANTHROPIC_BASE_URL, both of which the worker passes on for this backend, answers. (Without
// ANTHROPIC_BASE_URL it went for the public API and hung; see TestRetrieveDiesWithItsCaller.)
func TestRetrieveClaudeCLIIsolated(t *testing.T) {
	claude := ct.Binary(t)
	bin := buildPair(t, testSeams...)
	api := ct.NewAPI(t, ct.Script{})
	// A subscription user's setup: the token of `claude setup-token`, no API key.
	cmd, home := retrieveWith(t, bin, fmt.Sprintf("distiller = \"claude-cli\"\n[retriever.claude_cli]\npath = %q\n", claude),
		"ANTHROPIC_BASE_URL="+api.URL(), "CLAUDE_CODE_OAUTH_TOKEN=sk-ant-oat01-fake-token-for-tests")
	out, err := cmd.CombinedOutput()
	if err != nil || !strings.Contains(string(out), "The claude-cli:haiku distiller read the content") {
		t.Fatalf("retrieve: %v\n%s", err, out)
	}
	if !api.Saw(canary) {
		t.Error("the page did not reach the model through claude -p")
	}
	entries, _, _ := audit.AuditAt(home).Entries()
	if len(entries) != 1 || entries[0].Outcome != "answered" || entries[0].Distiller != "claude-cli:haiku" {
		t.Fatalf("audit: %+v", entries)
	}
	t.Logf("isolation: %s, %d ms", entries[0].Isolation, entries[0].DurationMS)
}

// TestRetrieveStopsARunawayDistiller: a distiller that prints past the output cap and then
// neither exits nor minds its closed pipe (testdata/runaway) is killed from inside the isolated
// worker, and none of it is left running. Under Landlock the worker could not signal its own
// child (each thread has its own domain, see retriever/internal/proc): the retrieval hung until the
// front's deadline, 160 s, and the front's kill of the worker orphaned the distiller.
func TestRetrieveStopsARunawayDistiller(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the binary")
	}
	runaway := buildRunaway(t)
	bin := buildPair(t, testSeams...)
	marker := fmt.Sprintf("runaway-%d", time.Now().UnixNano())
	cmd, home := retrieveWith(t, bin, fmt.Sprintf("distiller = \"command\"\n[retriever.command]\nargv = [%q, %q]\n", runaway, marker))
	start := time.Now()
	out, _ := cmd.CombinedOutput()
	took := time.Since(start)
	if took > 30*time.Second || !strings.Contains(string(out), "xxxxxxxx") || !strings.Contains(string(out), "clipped at 65536 bytes") {
		t.Errorf("took %v:\n%.400s", took, out)
	}
	if left, _ := exec.Command("pgrep", "-f", marker).Output(); len(left) > 0 {
		exec.Command("pkill", "-f", marker).Run()
		t.Errorf("the distiller is still running: pids %s", left)
	}
	entries, _, _ := audit.AuditAt(home).Entries()
	if len(entries) != 1 || !strings.HasPrefix(entries[0].Isolation, "landlock") && !strings.HasPrefix(entries[0].Isolation, "none: the kernel") {
		t.Errorf("audit: %+v", entries)
	}
	t.Logf("stopped in %v under %s", took, entries[0].Isolation)
}

// TestRetrieveDiesWithItsCaller: when the client kills the hook (its timeout), the worker and
// the distiller it runs die too, though the distiller ignores everything but SIGKILL and the
// worker, under Landlock, could not signal it.
func TestRetrieveDiesWithItsCaller(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the binary")
	}
	runaway := buildRunaway(t)
	bin := buildPair(t, testSeams...)
	marker := fmt.Sprintf("orphan-%d", time.Now().UnixNano())
	cmd, _ := retrieveWith(t, bin, fmt.Sprintf("distiller = \"command\"\n[retriever.command]\nargv = [%q, %q, \"quiet\"]\n", runaway, marker))
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer exec.Command("pkill", "-9", "-f", marker).Run()
	running := func() bool { out, _ := exec.Command("pgrep", "-f", marker).Output(); return len(out) > 0 }
	for deadline := time.Now().Add(10 * time.Second); !running(); time.Sleep(20 * time.Millisecond) {
		if time.Now().After(deadline) {
			cmd.Process.Kill()
			t.Fatal("the distiller never started")
		}
	}
	cmd.Process.Kill() // as the client does when the hook runs past its timeout
	cmd.Wait()
	for deadline := time.Now().Add(3 * time.Second); running(); time.Sleep(20 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatal("the distiller outlived the hookctl process that started it")
		}
	}
}

// buildRunaway builds testdata/runaway as a static binary, runnable inside the worker.
func buildRunaway(t *testing.T) string {
	t.Helper()
	runaway := filepath.Join(t.TempDir(), "runaway")
	build := exec.Command("go", "build", "-o", runaway, "./testdata/runaway")
	build.Env = append(os.Environ(), "CGO_ENABLED=0")
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("build: %v\n%s", err, out)
	}
	return runaway
}

// retrieveWith is `hookctl retrieve fetch` of the fixture page (bin must be a testSeams pair to
// reach it), not yet started, with a fresh
// HOOKCTL_HOME whose config.toml holds retrieverConfig in its [retriever] table, and env added to an environment without the caller's Anthropic or Claude
// Code variables. It returns the command and the HOOKCTL_HOME.
func retrieveWith(t *testing.T, bin, retrieverConfig string, env ...string) (*exec.Cmd, string) {
	t.Helper()
	page := fixturePage(t)
	home := t.TempDir()
	if err := os.WriteFile(filepath.Join(home, "config.toml"), []byte("[retriever]\n"+retrieverConfig), 0o600); err != nil {
		t.Fatal(err)
	}
	var base []string
	for _, kv := range os.Environ() {
		if !strings.HasPrefix(kv, "ANTHROPIC_") && !strings.HasPrefix(kv, "CLAUDE_CODE_") {
			base = append(base, kv)
		}
	}
	cmd := exec.Command(bin, "retrieve", "fetch", page.URL+"/notes", "--need", "Which version?")
	cmd.Env = append(append(base, "HOOKCTL_HOME="+home), env...)
	return cmd, home
}
