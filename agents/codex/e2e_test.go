package codex_test

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

// Version is the Codex release the end-to-end tests and the recorded fixtures were made with
// (the Makefile's CODEX_VERSION).
const Version = "0.169.0"

var record = flag.Bool("record", false, "write the payloads the client sent to fixtures/codex")

const commitSubject = "initial commit of the codex e2e project"

// session is one `codex exec` run against the fake Responses API, in a temporary HOME and
// project, with hookctl (through a recording hook) as its PreToolUse hook.
type session struct {
	bin, home, codexHome, project, hookDir string
	api                                    *agenttest.Responses
	env                                    []string
}

func newSession(t *testing.T, script []agenttest.Step) *session {
	t.Helper()
	bin := agenttest.Binary(t, "codex", "codex", "@openai/codex@"+Version)
	hookctl := testbin.Hookctl(t)
	base := t.TempDir()
	s := &session{bin: bin, home: filepath.Join(base, "home"), project: filepath.Join(base, "proj"), hookDir: filepath.Join(base, "hook")}
	s.codexHome = filepath.Join(s.home, ".codex")
	for _, d := range []string{s.codexHome, s.project, s.hookDir} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	s.api = agenttest.NewResponses(t, script)
	config := `model = "gpt-5"
model_provider = "fake"

[model_providers.fake]
name = "fake"
base_url = "` + s.api.URL() + `"
wire_api = "responses"
env_key = "HOOKCTL_FAKE_KEY"

[features]
plugins = false
remote_plugin = false
apps = false
in_app_updates = false
apply_patch_freeform = true
`
	write(t, filepath.Join(s.codexHome, "config.toml"), config)
	hook := agenttest.RecordingHook(t, s.hookDir, hookctl, "hook", "--agent", "codex")
	hooks := map[string]any{"hooks": map[string]any{"PreToolUse": []any{map[string]any{"hooks": []any{
		map[string]any{"type": "command", "command": hook, "timeout": 30}}}}}}
	b, _ := json.Marshal(hooks)
	write(t, filepath.Join(s.codexHome, "hooks.json"), string(b))
	s.env = []string{"HOME=" + s.home, "CODEX_HOME=" + s.codexHome, "HOOKCTL_FAKE_KEY=x", "HOOKCTL_HOME=" + filepath.Join(base, "hookctl"),
		"PATH=" + os.Getenv("PATH"), "LANG=C.UTF-8"}
	s.git(t, "init", "-q")
	write(t, filepath.Join(s.project, "f"), "a\n")
	s.git(t, "add", "f")
	s.git(t, "-c", "user.name=t", "-c", "user.email=t@example.com", "commit", "-qm", commitSubject)
	return s
}

func (s *session) git(t *testing.T, args ...string) {
	t.Helper()
	cmd := exec.Command("git", args...)
	cmd.Dir = s.project
	cmd.Env = s.env
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("git %v: %v\n%s", args, err, out)
	}
}

// run runs codex exec with prompt; extra are more arguments before it.
func (s *session) run(t *testing.T, prompt string, extra ...string) (string, time.Duration) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
	defer cancel()
	args := append([]string{"exec", "--skip-git-repo-check", "-s", "danger-full-access"}, extra...)
	cmd := exec.CommandContext(ctx, s.bin, append(args, prompt)...)
	cmd.Dir = s.project
	cmd.Env = s.env
	cmd.Stdin = nil // /dev/null: codex exec waits for more input on an open stdin
	start := time.Now()
	out, err := cmd.CombinedOutput()
	d := time.Since(start)
	if err != nil {
		t.Fatalf("codex exec: %v after %s\n%s", err, d, out)
	}
	return string(out), d
}

func write(t *testing.T, path, content string) {
	t.Helper()
	if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
}

// TestRealCodexStaysReadOnly runs Codex with hookctl as its PreToolUse hook, in a new session
// (read-only by default). The model tries sed -i, a redirect and an apply_patch write, then
// git log: the file must survive, each write must come back to the model as hookctl's refusal,
// and git log must run (its output reaching the model).
func TestRealCodexStaysReadOnly(t *testing.T) {
	outside := filepath.Join(t.TempDir(), "outside")
	script := []agenttest.Step{
		agenttest.Shell("sed -i s/a/b/ f"),
		agenttest.Shell("echo x > " + outside),
		agenttest.WriteFile("f", "patched\n"),
		agenttest.Shell("git log --oneline -3"),
	}
	s := newSession(t, script)
	out, took := s.run(t, "Try to change the project.", "--dangerously-bypass-hook-trust")
	t.Logf("codex exec took %s; tools offered: %v", took, s.api.ToolNames())
	if b, _ := os.ReadFile(filepath.Join(s.project, "f")); string(b) != "a\n" {
		t.Errorf("f was changed to %q\n%s", b, out)
	}
	if _, err := os.Stat(outside); err == nil {
		t.Errorf("the redirect wrote %s", outside)
	}
	// Codex 0.169.0 offers a model without apply_patch metadata no apply_patch tool; the fake
	// then writes with `apply_patch <<'EOF'` in the shell, which reaches the hook as Bash.
	for _, want := range []string{"Command blocked by PreToolUse hook: hookctl read-only: sed: `-i` edits files in place",
		"Command blocked by PreToolUse hook: hookctl read-only: `>` (redirection) is not allowed here",
		"Command blocked by PreToolUse hook: hookctl read-only: `<` (redirection) is not allowed here"} {
		if !s.api.Saw(want) {
			t.Errorf("the model was not told %q", want)
		}
	}
	if !s.api.Saw(commitSubject) {
		t.Errorf("git log's output did not reach the model")
	}
	payloads := agenttest.Payloads(t, s.hookDir)
	if n := len(payloads); n < len(script) {
		t.Errorf("the hook saw %d calls, want %d", n, len(script))
	}
	if *record {
		agenttest.Record(t, "codex", payloads, map[string]string{s.project: "/home/user/proj", s.home: "/home/user", outside: "/tmp/outside"})
	}
	if t.Failed() {
		for i, r := range s.api.Requests() {
			t.Logf("request %d: %s", i, clip(r))
		}
		t.Logf("codex output:\n%s", out)
	}
}

func clip(s string) string {
	if len(s) > 3000 {
		return s[len(s)-3000:]
	}
	return strings.TrimSpace(s)
}
