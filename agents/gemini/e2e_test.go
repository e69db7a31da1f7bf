package gemini_test

import (
	"context"
	"encoding/json"
	"flag"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/hookctl/hookctl/agents/agenttest"
	"github.com/hookctl/hookctl/internal/testbin"
)

// Version is the Gemini CLI release the end-to-end test and the recorded fixtures were made with
// (the Makefile's GEMINI_VERSION).
const Version = "0.61.0"

var record = flag.Bool("record", false, "write the payloads the client sent to fixtures/gemini")

// TestRealGeminiStaysReadOnly runs Gemini CLI (-p, yolo) with hookctl as its BeforeTool hook
// in a new, read-only session, against a fake Gemini API: sed -i, a redirect and write_file
// are refused with hookctl's reason reaching the model, git log runs and its output reaches the model,
// and an admitted read runs in hookctl's sandbox (the rewrite, in hookSpecificOutput.tool_input).
func TestRealGeminiStaysReadOnly(t *testing.T) {
	bin := agenttest.Binary(t, "gemini-cli", "gemini", "@google/gemini-cli@"+Version)
	hookctl := testbin.Hookctl(t)
	p := agenttest.NewProject(t)
	api := agenttest.NewGemini(t, p.ReadOnlyScript())
	hook := agenttest.RecordingHook(t, p.HookDir, hookctl, "hook", "--agent", "gemini")
	writeSettings(t, p, map[string]any{"BeforeTool": []any{map[string]any{"matcher": ".*", "hooks": []any{
		map[string]any{"type": "command", "name": "hookctl", "command": hook, "timeout": 30000}}}}})
	out := run(t, bin, p, api)
	p.CheckReadOnly(t, api.Saw, "Tool execution blocked: hookctl read-only: sed: `-i` edits files in place",
		"Tool execution blocked: hookctl read-only: `>` (redirection) is not allowed here",
		"Tool execution blocked: hookctl read-only: `write_file` changes things")
	if in, ok := agenttest.Sandboxed(api.Saw); !in || !ok {
		t.Errorf("the admitted read did not run in hookctl's sandbox (sandboxed %v, seen %v): Gemini CLI did not take the rewrite", in, ok)
	}
	payloads := agenttest.Payloads(t, p.HookDir)
	if len(payloads) < 5 {
		t.Errorf("the hook saw %d calls, want 5", len(payloads))
	}
	if *record {
		agenttest.Record(t, "gemini", payloads, p.Replacements())
	}
	if t.Failed() {
		dump(t, api, out)
	}
}

// TestRealGeminiRunsTheInstalledHook: what hookctl install --agent gemini writes is a hook
// Gemini CLI runs (its matcher and timeout as the client reads them).
func TestRealGeminiRunsTheInstalledHook(t *testing.T) {
	bin := agenttest.Binary(t, "gemini-cli", "gemini", "@google/gemini-cli@"+Version)
	hookctl := testbin.Hookctl(t)
	p := agenttest.NewProject(t)
	api := agenttest.NewGemini(t, []agenttest.Step{agenttest.Shell("sed -i s/a/b/ f")})
	writeSettings(t, p, nil)
	p.Install(t, hookctl, "gemini", env(p, api))
	out := run(t, bin, p, api)
	if b, _ := os.ReadFile(p.F); string(b) != "a\n" || !api.Saw("Tool execution blocked: hookctl read-only: sed: `-i` edits files in place") {
		dump(t, api, out)
		t.Errorf("the installed hook did not refuse sed -i (f is %q)", b)
	}
}

// writeSettings writes the Project's ~/.gemini/settings.json: the fake's auth, and hooks if any.
func writeSettings(t *testing.T, p *agenttest.Project, hooks map[string]any) {
	t.Helper()
	settings := map[string]any{"security": map[string]any{"auth": map[string]any{"selectedType": "gemini-api-key"}}}
	if hooks != nil {
		settings["hooks"] = hooks
	}
	b, _ := json.MarshalIndent(settings, "", "  ")
	os.MkdirAll(filepath.Join(p.Home, ".gemini"), 0o755)
	if err := os.WriteFile(filepath.Join(p.Home, ".gemini", "settings.json"), b, 0o644); err != nil {
		t.Fatal(err)
	}
}

func env(p *agenttest.Project, api *agenttest.Gemini) []string {
	return []string{"HOME=" + p.Home, "PATH=" + os.Getenv("PATH"), "GEMINI_API_KEY=x", "GOOGLE_GEMINI_BASE_URL=" + api.URL(),
		"GEMINI_CLI_TRUST_WORKSPACE=true", "HOOKCTL_HOME=" + filepath.Join(p.Base, "hookctl"), "LANG=C.UTF-8"}
}

// run runs gemini -p (yolo: it asks nothing) in the Project.
func run(t *testing.T, bin string, p *agenttest.Project, api *agenttest.Gemini) []byte {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 120*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, bin, "--approval-mode", "yolo", "-p", "Try to change the project.")
	cmd.Dir, cmd.Env = p.Dir, env(p, api)
	start := time.Now()
	out, err := cmd.CombinedOutput()
	t.Logf("gemini -p took %s; tools offered: %v", time.Since(start), api.ToolNames())
	if err != nil {
		t.Fatalf("gemini: %v\n%s", err, out)
	}
	return out
}

func dump(t *testing.T, api *agenttest.Gemini, out []byte) {
	if reqs := api.Requests(); len(reqs) > 0 {
		last := reqs[len(reqs)-1]
		if len(last) > 4000 {
			last = last[len(last)-4000:]
		}
		t.Logf("last request: %s", last)
	}
	t.Logf("gemini output:\n%s", out)
}

// TestRealGeminiShellFindsItsSession: `hookctl readonly` in a shell Gemini CLI started finds the
// session it runs in through the process tree: with two sessions in the project, the second
// run's shell names the second one (the project alone cannot tell them apart).
func TestRealGeminiShellFindsItsSession(t *testing.T) {
	bin := agenttest.Binary(t, "gemini-cli", "gemini", "@google/gemini-cli@"+Version)
	hookctl := testbin.Hookctl(t)
	p := agenttest.NewProject(t)
	api := agenttest.NewGemini(t, []agenttest.Step{agenttest.Shell("ls"), agenttest.Shell("hookctl readonly status")})
	writeSettings(t, p, nil)
	p.Install(t, hookctl, "gemini", env(p, api))
	sessions := func() []string {
		var ids []string
		entries, _ := os.ReadDir(filepath.Join(p.Base, "hookctl", "sessions"))
		for _, e := range entries {
			if id, ok := strings.CutSuffix(e.Name(), ".json"); ok {
				ids = append(ids, id)
			}
		}
		return ids
	}
	run(t, bin, p, api)
	before, first := sessions(), len(api.Requests())
	run(t, bin, p, api)
	after := sessions()
	if len(before) != 1 || len(after) != 2 {
		t.Fatalf("hookctl saw sessions %v, then %v", before, after)
	}
	second := after[0]
	if second == before[0] {
		second = after[1]
	}
	named := agenttest.StatusSession(strings.Join(api.Requests()[first:], "\n"))
	if named == "" || !strings.HasPrefix(second, named) || strings.HasPrefix(before[0], named) {
		t.Errorf("the second run's hookctl readonly status named %q; the sessions are %s, then %s", named, before[0], second)
	}
}
