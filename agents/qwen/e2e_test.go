package qwen_test

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

// Version is the Qwen Code release the end-to-end test and the recorded fixtures were made with
// (the Makefile's QWEN_VERSION).
const Version = "0.24.4"

var record = flag.Bool("record", false, "write the payloads the client sent to fixtures/qwen")

// TestRealQwenStaysReadOnly runs Qwen Code (-p, yolo: it asks nothing) with hookctl as its
// PreToolUse hook in a new, read-only session, against a fake Chat Completions API. The model
// tries sed -i, a redirect and write_file, then git log, then a plain read: the file must
// survive, each refusal must reach the model with hookctl's reason, and the plain read must run.
// Qwen Code takes no rewritten input, so an admitted read runs outside hookctl's sandbox, as the
// model wrote it; git is refused, since it is a read only with the pins hookctl's rewrite adds
// (issue 23, item 8: without them the repository's configuration runs programs).
func TestRealQwenStaysReadOnly(t *testing.T) {
	bin := agenttest.Binary(t, "qwen-code", "qwen", "@qwen-code/qwen-code@"+Version)
	hookctl := testbin.Hookctl(t)
	p := agenttest.NewProject(t)
	api := agenttest.NewChat(t, append(p.ReadOnlyScript(), agenttest.Shell("cat f")))
	hook := agenttest.RecordingHook(t, p.HookDir, hookctl, "hook", "--agent", "qwen")
	writeSettings(t, p, map[string]any{"PreToolUse": []any{map[string]any{"matcher": "*", "hooks": []any{
		map[string]any{"type": "command", "command": hook, "timeout": 30000}}}}})
	out := run(t, bin, p, api)
	p.CheckRefusals(t, api.Saw, "hookctl read-only: sed: `-i` edits files in place",
		"hookctl read-only: `>` (redirection) is not allowed here", "hookctl read-only: `write_file` changes things",
		"and `git` is a read only with the settings hookctl's rewrite adds")
	// (Qwen Code puts the latest commits in its own prompt, so the commit's subject reaching the
	// model proves nothing either way; the refusal above is what shows git did not run.)
	if in, ok := agenttest.Sandboxed(api.Saw); in || !ok {
		t.Errorf("the admitted read: sandboxed %v, seen %v; Qwen Code was expected to run it as written", in, ok)
	}
	payloads := agenttest.Payloads(t, p.HookDir)
	if len(payloads) < 5 {
		t.Errorf("the hook saw %d calls, want 5", len(payloads))
	}
	if *record {
		agenttest.Record(t, "qwen", payloads, p.Replacements())
	}
	if t.Failed() {
		dump(t, api, out)
	}
}

// TestRealQwenRunsTheInstalledHook: what hookctl install --agent qwen writes is a hook Qwen
// Code runs (its matcher and timeout as the client reads them).
func TestRealQwenRunsTheInstalledHook(t *testing.T) {
	bin := agenttest.Binary(t, "qwen-code", "qwen", "@qwen-code/qwen-code@"+Version)
	hookctl := testbin.Hookctl(t)
	p := agenttest.NewProject(t)
	api := agenttest.NewChat(t, []agenttest.Step{agenttest.Shell("sed -i s/a/b/ f")})
	writeSettings(t, p, nil)
	p.Install(t, hookctl, "qwen", env(p, api))
	out := run(t, bin, p, api)
	if b, _ := os.ReadFile(p.F); string(b) != "a\n" || !api.Saw("hookctl read-only: sed: `-i` edits files in place") {
		dump(t, api, out)
		t.Errorf("the installed hook did not refuse sed -i (f is %q)", b)
	}
}

// writeSettings writes the Project's ~/.qwen/settings.json: the fake's auth, and hooks if any.
func writeSettings(t *testing.T, p *agenttest.Project, hooks map[string]any) {
	t.Helper()
	settings := map[string]any{"security": map[string]any{"auth": map[string]any{"selectedType": "openai"}}}
	if hooks != nil {
		settings["hooks"] = hooks
	}
	b, _ := json.MarshalIndent(settings, "", "  ")
	os.MkdirAll(filepath.Join(p.Home, ".qwen"), 0o755)
	if err := os.WriteFile(filepath.Join(p.Home, ".qwen", "settings.json"), b, 0o644); err != nil {
		t.Fatal(err)
	}
}

func env(p *agenttest.Project, api *agenttest.Chat) []string {
	return []string{"HOME=" + p.Home, "PATH=" + os.Getenv("PATH"), "OPENAI_BASE_URL=" + api.URL(), "OPENAI_API_KEY=x",
		"OPENAI_MODEL=gpt-4.1", "HOOKCTL_HOME=" + filepath.Join(p.Base, "hookctl"), "LANG=C.UTF-8"}
}

// run runs qwen -p (yolo: it asks nothing) in the Project.
func run(t *testing.T, bin string, p *agenttest.Project, api *agenttest.Chat) []byte {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 120*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, bin, "--approval-mode", "yolo", "-p", "Try to change the project.")
	cmd.Dir, cmd.Env = p.Dir, env(p, api)
	start := time.Now()
	out, err := cmd.CombinedOutput()
	t.Logf("qwen -p took %s; tools offered: %v", time.Since(start), api.ToolNames())
	if err != nil {
		t.Fatalf("qwen: %v\n%s", err, out)
	}
	return out
}

func dump(t *testing.T, api *agenttest.Chat, out []byte) {
	if reqs := api.Requests(); len(reqs) > 0 {
		last := reqs[len(reqs)-1]
		if len(last) > 4000 {
			last = last[len(last)-4000:]
		}
		t.Logf("last request: %s", last)
	}
	t.Logf("qwen output:\n%s", out)
}
