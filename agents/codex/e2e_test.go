package codex_test

import (
	"context"
	"encoding/json"
	"flag"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/hookctl/hookctl/agents/agenttest"
	"github.com/hookctl/hookctl/internal/testbin"
	"github.com/hookctl/hookctl/retriever/front"
)

// Version is the Codex release the end-to-end tests and the recorded fixtures were made with
// (the Makefile's CODEX_VERSION).
const Version = "0.169.0"

var record = flag.Bool("record", false, "write the payloads the client sent to fixtures/codex")

// session is one `codex exec` run against the fake Responses API, in a Project, with hookctl
// (through a recording hook) as its PreToolUse hook.
type session struct {
	bin, codexHome string
	p              *agenttest.Project
	api            *agenttest.Responses
	env            []string
}

func newSession(t *testing.T, script func(*agenttest.Project) []agenttest.Step) *session {
	t.Helper()
	bin := agenttest.Binary(t, "codex", "codex", "@openai/codex@"+Version)
	hookctl := testbin.Hookctl(t)
	p := agenttest.NewProject(t)
	s := &session{bin: bin, p: p, codexHome: filepath.Join(p.Home, ".codex")}
	if err := os.MkdirAll(s.codexHome, 0o755); err != nil {
		t.Fatal(err)
	}
	s.api = agenttest.NewResponses(t, script(p))
	write(t, filepath.Join(s.codexHome, "config.toml"), configFor(s.api.URL()))
	hook := agenttest.RecordingHook(t, p.HookDir, hookctl, "hook", "--agent", "codex")
	group := []any{map[string]any{"hooks": []any{map[string]any{"type": "command", "command": hook, "timeout": 30}}}}
	hooks := map[string]any{"hooks": map[string]any{"PreToolUse": group, "SessionStart": group}}
	b, _ := json.Marshal(hooks)
	write(t, filepath.Join(s.codexHome, "hooks.json"), string(b))
	s.env = []string{"HOME=" + p.Home, "CODEX_HOME=" + s.codexHome, "HOOKCTL_FAKE_KEY=x", "HOOKCTL_HOME=" + filepath.Join(p.Base, "hookctl"),
		"PATH=" + os.Getenv("PATH"), "LANG=C.UTF-8"}
	return s
}

// configFor is the config.toml of a Codex that talks only to the fake at url: the features that
// reach out at start-up are off.
func configFor(url string) string {
	return `model = "gpt-5.5"
model_provider = "fake"

[model_providers.fake]
name = "fake"
base_url = "` + url + `"
wire_api = "responses"
env_key = "HOOKCTL_FAKE_KEY"

[features]
plugins = false
remote_plugin = false
apps = false
in_app_updates = false
`
}

// run runs codex exec with prompt; extra are more arguments before it.
func (s *session) run(t *testing.T, prompt string, extra ...string) (string, time.Duration) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
	defer cancel()
	args := append([]string{"exec", "--skip-git-repo-check", "-s", "danger-full-access"}, extra...)
	cmd := exec.CommandContext(ctx, s.bin, append(args, prompt)...)
	cmd.Dir = s.p.Dir
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
// git log must run (its output reaching the model), and an admitted read must run in hookctl's
// sandbox (Codex takes the rewrite, updatedInput).
func TestRealCodexStaysReadOnly(t *testing.T) {
	s := newSession(t, (*agenttest.Project).ReadOnlyScript)
	out, took := s.run(t, "Try to change the project.", "--dangerously-bypass-hook-trust")
	t.Logf("codex exec took %s; tools offered: %v", took, s.api.ToolNames())
	// gpt-5.5's metadata gives the model Codex's freeform apply_patch tool, which reaches the hook
	// as apply_patch (a model without that metadata has none; the fake then writes with
	// `apply_patch <<'EOF'` in the shell, which reaches the hook as Bash).
	s.p.CheckReadOnly(t, s.api.Saw, "Command blocked by PreToolUse hook: hookctl read-only: sed: `-i` edits files in place",
		"Command blocked by PreToolUse hook: hookctl read-only: `>` (redirection) is not allowed here",
		"Command blocked by PreToolUse hook: hookctl read-only: `apply_patch` changes things")
	if in, ok := agenttest.Sandboxed(s.api.Saw); !in || !ok {
		t.Errorf("the admitted read did not run in hookctl's sandbox (sandboxed %v, seen %v)", in, ok)
	}
	payloads := agenttest.Payloads(t, s.p.HookDir)
	if n := len(payloads); n < 6 {
		t.Errorf("the hook saw %d calls, want 6 (a session start and 5 tool calls)", n)
	}
	if !s.api.Saw("hookctl: this session is in READ-ONLY mode") {
		t.Errorf("the session start did not tell the model its mode")
	}
	if *record {
		agenttest.Record(t, "codex", payloads, s.p.Replacements())
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

// TestRealCodexInstallTrustsItsHook: hookctl install --agent codex registers the hook and makes
// Codex trust it, so that a plain codex exec (no --dangerously-bypass-hook-trust) runs it; doctor
// passes, and reports the hook once its registration changes (Codex would skip it silently);
// uninstall puts config.toml back byte for byte and removes the hooks file it created.
func TestRealCodexInstallTrustsItsHook(t *testing.T) {
	s := newSession(t, func(p *agenttest.Project) []agenttest.Step {
		return []agenttest.Step{agenttest.Shell("sed -i s/a/b/ f")}
	})
	os.Remove(filepath.Join(s.codexHome, "hooks.json")) // install writes its own
	config := filepath.Join(s.codexHome, "config.toml")
	before, _ := os.ReadFile(config)
	hookctl := testbin.Hookctl(t)
	env := append(append([]string(nil), s.env...), "PATH="+filepath.Dir(s.bin)+":"+os.Getenv("PATH"))
	cli := func(args ...string) (string, int) {
		cmd := exec.Command(hookctl, args...)
		cmd.Dir, cmd.Env = s.p.Dir, env
		out, err := cmd.CombinedOutput()
		code := 0
		if e, ok := err.(*exec.ExitError); ok {
			code = e.ExitCode()
		} else if err != nil {
			t.Fatal(err)
		}
		return string(out), code
	}
	if out, code := cli("install", "--agent", "codex"); code != 0 || !strings.Contains(out, "trusted hookctl's hooks") {
		t.Fatalf("install: exit %d\n%s", code, out)
	}
	if out, code := cli("doctor", "--agent", "codex"); code != 0 || !strings.Contains(out, "Codex trusts hookctl's preToolUse hook") ||
		!strings.Contains(out, "Codex trusts hookctl's sessionStart hook") {
		t.Errorf("doctor after install: exit %d\n%s", code, out)
	}
	if out, code := cli("install", "--agent", "codex"); code != 0 || !strings.Contains(out, "Codex trusts hookctl's hooks") {
		t.Errorf("a second install: exit %d\n%s", code, out)
	}
	out, _ := s.run(t, "Try to change the project.")
	if b, _ := os.ReadFile(s.p.F); string(b) != "a\n" || !s.api.Saw("Command blocked by PreToolUse hook: hookctl read-only: sed") {
		t.Errorf("the installed hook did not run (f is %q):\n%s", b, out)
	}
	if !s.api.Saw("hookctl: this session is in READ-ONLY mode") {
		t.Errorf("the installed SessionStart hook did not tell the model its mode:\n%s", out)
	}
	hooksFile := filepath.Join(s.codexHome, "hooks.json")
	installed, _ := os.ReadFile(hooksFile)
	write(t, hooksFile, strings.Replace(string(installed), `"timeout": 30`, `"timeout": 31`, 1))
	if out, code := cli("doctor", "--agent", "codex"); code == 0 || !strings.Contains(out, "hookctl's preToolUse hook modified: it SKIPS it") {
		t.Errorf("doctor did not report the changed hook: exit %d\n%s", code, out)
	}
	write(t, hooksFile, string(installed))
	trusted, _ := os.ReadFile(config)
	write(t, config, string(before))
	if out, code := cli("doctor", "--agent", "codex"); code == 0 || !strings.Contains(out, "hookctl's preToolUse hook untrusted: it SKIPS it") {
		t.Errorf("doctor did not report the untrusted hook: exit %d\n%s", code, out)
	}
	write(t, config, string(trusted))
	if out, code := cli("uninstall", "--agent", "codex"); code != 0 {
		t.Fatalf("uninstall: exit %d\n%s", code, out)
	}
	if after, _ := os.ReadFile(config); string(after) != string(before) {
		t.Errorf("config.toml not restored:\n got %q\nwant %q", after, before)
	}
	if _, err := os.Stat(hooksFile); err == nil {
		t.Errorf("uninstall left the hooks file install created")
	}
}

// TestRealCodexShellFindsItsSession: `hookctl readonly` typed in a shell Codex started finds
// the session it runs in through the process tree (the hook noted the Codex process that ran
// it), as in Claude Code: with two sessions in the project, where the project alone cannot tell
// them apart, the second run's shell names the second session. (Here the model's own shell
// asks, which only reads the mode; the user's `!` shell is a child of the same process.)
func TestRealCodexShellFindsItsSession(t *testing.T) {
	s := newSession(t, func(p *agenttest.Project) []agenttest.Step {
		return []agenttest.Step{agenttest.Shell("ls"), agenttest.Shell("hookctl readonly status")}
	})
	sessionID := func(out string) string {
		_, id, ok := strings.Cut(out, "session id: ")
		if !ok {
			t.Fatalf("no session id in codex's output:\n%s", out)
		}
		return strings.Fields(id)[0]
	}
	first, _ := s.run(t, "What mode is this session in?", "--dangerously-bypass-hook-trust")
	second, _ := s.run(t, "What mode is this session in?", "--dangerously-bypass-hook-trust")
	id1, id2 := sessionID(first), sessionID(second)
	reqs := s.api.Requests()
	last := reqs[len(reqs)-1]
	// The status names the session by its shortest unique prefix: "session PREFIX (DIR): MODE".
	named := agenttest.StatusSession(last)
	if named == "" || !strings.HasPrefix(id2, named) || strings.HasPrefix(id1, named) || !strings.Contains(last, "READ-ONLY") {
		t.Errorf("hookctl readonly status in session %s named %q (the first was %s):\n%s", id2, named, id1, clip(last))
	}
}

// TestRealCodexWebReadGoesToTheRetriever: a shell web read in Codex is answered by hookctl's
// quarantined retriever, not run: Codex takes the rewrite into `hookctl retrieve fetch`, whose
// answer (here its refusal of a loopback address, which only the retriever words) reaches the
// model, and the audit records the retrieval with the session and the tool. Nothing of the page
// is fetched by Codex's shell: the server sees no request.
func TestRealCodexWebReadGoesToTheRetriever(t *testing.T) {
	var hits atomic.Int32
	page := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		hits.Add(1)
		io.WriteString(w, "page text")
	}))
	defer page.Close()
	url := page.URL + "/notes"
	s := newSession(t, func(*agenttest.Project) []agenttest.Step { return []agenttest.Step{agenttest.Shell("curl -s " + url)} })
	home := filepath.Join(s.p.Base, "hookctl")
	os.MkdirAll(home, 0o700)
	write(t, filepath.Join(home, "config.toml"), "[retriever]\ndistiller = \"command\"\n[retriever.command]\nargv = [\"/bin/sh\", \"-c\", \"cat >/dev/null; echo distilled\"]\n")
	out, took := s.run(t, "Read the notes.", "--dangerously-bypass-hook-trust")
	t.Logf("codex exec took %s", took)
	if !s.api.Saw("hookctl refused this retrieval: refused: 127.0.0.1 is a loopback address") {
		t.Errorf("the model did not get the retriever's answer\n%s", clip(out))
	}
	if n := hits.Load(); n != 0 {
		t.Errorf("the page was fetched %d times", n)
	}
	entries, _, err := front.AuditAt(home).Entries()
	if err != nil || len(entries) != 1 || entries[0].URL != url || entries[0].Tool != "Bash" || entries[0].Session == "" {
		t.Errorf("audit: %v %+v", err, entries)
	}
}
