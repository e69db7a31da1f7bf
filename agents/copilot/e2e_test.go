package copilot_test

import (
	"context"
	"encoding/json"
	"flag"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
	"time"

	"github.com/hookctl/hookctl/agents/agenttest"
	"github.com/hookctl/hookctl/internal/testbin"
)

// Version is the Copilot CLI release the end-to-end test and the recorded fixtures were made
// with (the Makefile's COPILOT_VERSION).
const Version = "1.0.102"

var record = flag.Bool("record", false, "write the payloads the client sent to fixtures/copilot")

// TestRealCopilotStaysReadOnly runs Copilot CLI (-p, every tool allowed, offline, no GitHub
// login) with hookctl as its camelCase preToolUse hook in a new, read-only session, against a
// fake Chat Completions API: sed -i, a redirect and the create tool are refused with hookctl's
// reason reaching the model, git log runs, and an admitted read runs in hookctl's sandbox (the
// rewrite, in modifiedArgs).
//
// Copilot unpacks about 235 MB into ~/.cache/copilot/pkg on its first run; the test's HOME links
// that directory to .cache/copilot-pkg, so the unpacking happens once per checkout.
func TestRealCopilotStaysReadOnly(t *testing.T) {
	bin := agenttest.Binary(t, "copilot", "copilot", "@github/copilot@"+Version)
	hookctl := testbin.Hookctl(t)
	p := newProject(t)
	script := p.ReadOnlyScript()
	api := agenttest.NewChat(t, script)
	hook := agenttest.RecordingHook(t, p.HookDir, hookctl, "hook", "--agent", "copilot")
	hooks := map[string]any{"version": 1, "hooks": map[string]any{"preToolUse": []any{
		map[string]any{"type": "command", "bash": hook, "timeoutSec": 30}}}}
	b, _ := json.Marshal(hooks)
	os.MkdirAll(filepath.Join(p.Home, ".copilot", "hooks"), 0o755)
	if err := os.WriteFile(filepath.Join(p.Home, ".copilot", "hooks", "recording.json"), b, 0o644); err != nil {
		t.Fatal(err)
	}
	out := run(t, bin, p, api)
	p.CheckReadOnly(t, api.Saw, "Denied by preToolUse hook: hookctl read-only: sed: `-i` edits files in place",
		"Denied by preToolUse hook: hookctl read-only: `>` (redirection) is not allowed here",
		"Denied by preToolUse hook: hookctl read-only: `create` changes things")
	if in, ok := agenttest.Sandboxed(api.Saw); !in || !ok {
		t.Errorf("the admitted read did not run in hookctl's sandbox (sandboxed %v, seen %v): Copilot CLI did not take the rewrite", in, ok)
	}
	payloads := agenttest.Payloads(t, p.HookDir)
	if len(payloads) < len(script) {
		t.Errorf("the hook saw %d calls, want %d", len(payloads), len(script))
	}
	if *record {
		agenttest.Record(t, "copilot", payloads, p.Replacements())
	}
	if t.Failed() {
		dump(t, api, out)
	}
}

// TestRealCopilotRunsTheInstalledHook: the file hookctl install --agent copilot writes is a hook
// Copilot CLI runs.
func TestRealCopilotRunsTheInstalledHook(t *testing.T) {
	bin := agenttest.Binary(t, "copilot", "copilot", "@github/copilot@"+Version)
	hookctl := testbin.Hookctl(t)
	p := newProject(t)
	api := agenttest.NewChat(t, []agenttest.Step{agenttest.Shell("sed -i s/a/b/ f")})
	p.Install(t, hookctl, "copilot", env(p, api))
	out := run(t, bin, p, api)
	if b, _ := os.ReadFile(p.F); string(b) != "a\n" || !api.Saw("Denied by preToolUse hook: hookctl read-only: sed: `-i` edits files in place") {
		dump(t, api, out)
		t.Errorf("the installed hook did not refuse sed -i (f is %q)", b)
	}
}

// newProject is a Project whose HOME keeps Copilot's unpacked package in .cache/copilot-pkg.
func newProject(t *testing.T) *agenttest.Project {
	t.Helper()
	p := agenttest.NewProject(t)
	pkg := filepath.Join(agenttest.RepoRoot(t), ".cache", "copilot-pkg")
	if err := os.MkdirAll(pkg, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(filepath.Join(p.Home, ".cache"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(pkg, filepath.Join(p.Home, ".cache", "copilot")); err != nil {
		t.Fatal(err)
	}
	return p
}

func env(p *agenttest.Project, api *agenttest.Chat) []string {
	return []string{"HOME=" + p.Home, "PATH=" + os.Getenv("PATH"), "COPILOT_OFFLINE=true", "COPILOT_AUTO_UPDATE=false",
		"COPILOT_PROVIDER_BASE_URL=" + api.URL(), "COPILOT_PROVIDER_API_KEY=x", "COPILOT_MODEL=gpt-4.1",
		"HOOKCTL_HOME=" + filepath.Join(p.Base, "hookctl"), "LANG=C.UTF-8"}
}

// run runs copilot -p with every tool allowed (it asks nothing) in the Project.
func run(t *testing.T, bin string, p *agenttest.Project, api *agenttest.Chat) []byte {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 240*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, bin, "--allow-all-tools", "-p", "Try to change the project.")
	cmd.Dir, cmd.Env = p.Dir, env(p, api)
	start := time.Now()
	out, err := cmd.CombinedOutput()
	t.Logf("copilot -p took %s; tools offered: %v", time.Since(start), api.ToolNames())
	if err != nil {
		t.Fatalf("copilot: %v\n%s", err, out)
	}
	return out
}

func dump(t *testing.T, api *agenttest.Chat, out []byte) {
	if reqs := api.Requests(); len(reqs) > 0 {
		last := reqs[len(reqs)-1]
		if len(last) > 5000 {
			last = last[len(last)-5000:]
		}
		t.Logf("last request: %s", last)
	}
	t.Logf("copilot output:\n%s", out)
}
