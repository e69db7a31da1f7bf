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

const commitSubject = "initial commit of the qwen e2e project"

// TestRealQwenStaysReadOnly runs Qwen Code (-p, yolo: it asks nothing) with hookctl as its
// PreToolUse hook in a new, read-only session, against a fake Chat Completions API. The model
// tries sed -i, a redirect and write_file, then git log: the file must survive, each refusal
// must reach the model with hookctl's reason, and git log must run.
func TestRealQwenStaysReadOnly(t *testing.T) {
	bin := agenttest.Binary(t, "qwen-code", "qwen", "@qwen-code/qwen-code@"+Version)
	hookctl := testbin.Hookctl(t)
	base := t.TempDir()
	home, project, hookDir := filepath.Join(base, "home"), filepath.Join(base, "proj"), filepath.Join(base, "hook")
	for _, d := range []string{filepath.Join(home, ".qwen"), project, hookDir} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	outside := filepath.Join(base, "outside")
	f := filepath.Join(project, "f")
	script := []agenttest.Step{
		agenttest.Shell("sed -i s/a/b/ f"),
		agenttest.Shell("echo x > " + outside),
		agenttest.WriteFile(f, "written\n"),
		agenttest.Shell("git log --oneline -3"),
	}
	api := agenttest.NewChat(t, script)
	hook := agenttest.RecordingHook(t, hookDir, hookctl, "hook", "--agent", "qwen")
	settings := map[string]any{
		"security": map[string]any{"auth": map[string]any{"selectedType": "openai"}},
		"hooks": map[string]any{"PreToolUse": []any{map[string]any{"matcher": "*", "hooks": []any{
			map[string]any{"type": "command", "command": hook, "timeout": 30000}}}}},
	}
	b, _ := json.Marshal(settings)
	if err := os.WriteFile(filepath.Join(home, ".qwen", "settings.json"), b, 0o644); err != nil {
		t.Fatal(err)
	}
	env := []string{"HOME=" + home, "PATH=" + os.Getenv("PATH"), "OPENAI_BASE_URL=" + api.URL(), "OPENAI_API_KEY=x",
		"OPENAI_MODEL=gpt-4.1", "HOOKCTL_HOME=" + filepath.Join(base, "hookctl"), "LANG=C.UTF-8"}
	git := func(args ...string) {
		cmd := exec.Command("git", args...)
		cmd.Dir, cmd.Env = project, env
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("git %v: %v\n%s", args, err, out)
		}
	}
	git("init", "-q")
	if err := os.WriteFile(f, []byte("a\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	git("add", "f")
	git("-c", "user.name=t", "-c", "user.email=t@example.com", "commit", "-qm", commitSubject)

	ctx, cancel := context.WithTimeout(context.Background(), 120*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, bin, "--approval-mode", "yolo", "-p", "Try to change the project.")
	cmd.Dir, cmd.Env = project, env
	start := time.Now()
	out, err := cmd.CombinedOutput()
	t.Logf("qwen -p took %s; tools offered: %v", time.Since(start), api.ToolNames())
	if err != nil {
		t.Fatalf("qwen: %v\n%s", err, out)
	}
	if b, _ := os.ReadFile(f); string(b) != "a\n" {
		t.Errorf("f was changed to %q", b)
	}
	if _, err := os.Stat(outside); err == nil {
		t.Errorf("the redirect wrote %s", outside)
	}
	for _, want := range []string{"hookctl read-only: sed: `-i` edits files in place",
		"hookctl read-only: `>` (redirection) is not allowed here", "hookctl read-only: `write_file` changes things"} {
		if !api.Saw(want) {
			t.Errorf("the model was not told %q", want)
		}
	}
	if !api.Saw(commitSubject) {
		t.Errorf("git log's output did not reach the model")
	}
	payloads := agenttest.Payloads(t, hookDir)
	if len(payloads) < len(script) {
		t.Errorf("the hook saw %d calls, want %d", len(payloads), len(script))
	}
	if *record {
		agenttest.Record(t, "qwen", payloads, map[string]string{project: "/home/user/proj", home: "/home/user", outside: "/tmp/outside"})
	}
	if t.Failed() {
		reqs := api.Requests()
		if len(reqs) > 0 {
			last := reqs[len(reqs)-1]
			if len(last) > 4000 {
				last = last[len(last)-4000:]
			}
			t.Logf("last request: %s", last)
		}
		t.Logf("qwen output:\n%s", out)
	}
}
