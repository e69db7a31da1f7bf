package claudetest

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/hookctl/hookctl/internal/testbin"
)

// Version is the Claude Code release the harness and the recorded fixtures were made with.
const Version = "2.1.328"

// AllowedTools is passed to --allowedTools so that no tool call waits for a permission prompt.
const AllowedTools = "Bash Write Edit Read WebFetch WebSearch Agent Grep Glob"

// Binary returns the claude executable to test against: $HOOKCTL_CLAUDE_BIN if set, else
// <repo root>/.cache/claude-code/node_modules/.bin/claude. When neither exists the test is
// skipped, or fails if HOOKCTL_REQUIRE_E2E=1 (CI sets it so a missing client cannot pass).
func Binary(t testing.TB) string {
	t.Helper()
	var tried []string
	if p := os.Getenv("HOOKCTL_CLAUDE_BIN"); p != "" {
		if isExecutable(p) {
			return p
		}
		tried = append(tried, p+" (from HOOKCTL_CLAUDE_BIN)")
	} else if root, err := testbin.RepoRoot(); err == nil {
		p := filepath.Join(root, ".cache", "claude-code", "node_modules", ".bin", "claude")
		if isExecutable(p) {
			return p
		}
		tried = append(tried, p)
	} else {
		tried = append(tried, "<repo root>/.cache/claude-code (no go.mod above the working directory)")
	}
	msg := fmt.Sprintf("claude client not found at %s; install it with "+
		"`npm install --prefix .cache/claude-code @anthropic-ai/claude-code@%s` or set HOOKCTL_CLAUDE_BIN",
		strings.Join(tried, ", "), Version)
	if os.Getenv("HOOKCTL_REQUIRE_E2E") == "1" {
		t.Fatal(msg + " (HOOKCTL_REQUIRE_E2E=1)")
	}
	t.Skip(msg)
	return ""
}

func isExecutable(p string) bool {
	fi, err := os.Stat(p)
	return err == nil && !fi.IsDir() && fi.Mode()&0o111 != 0
}

// Hook is one command hook to register. Command is an absolute path run without a shell, with
// Args as its arguments (the exec form).
type Hook struct {
	Event     string // e.g. "PreToolUse"; "" means PreToolUse
	Matcher   string // tool name pattern; "" means "*" (ignored by events without a matcher)
	Command   string
	Args      []string
	Timeout   int    // seconds; 0 means 10
	OnFailure string // "block" or "continue"; "" means "block", so a broken hook stops the call
}

// Session is one claude -p run: a temporary HOME and project directory, the fake API, and the
// hooks to register. Fill in the fields, prepare Project as the test needs, then call Run.
type Session struct {
	Bin     string        // the claude executable; NewSession sets it from Binary
	API     *API          // the fake model; Run gives it Script
	Script  Script        // what the fake model does; paths in it can use Project
	Home    string        // HOME for the client; user settings live in Home/.claude
	Project string        // the working directory; project settings live in Project/.claude
	Hooks   []Hook        // registered in Project/.claude/settings.json by Run
	Env     []string      // extra KEY=value pairs for the client and so for its hooks
	Args    []string      // extra command-line arguments, e.g. "--agent", "reviewer"
	Timeout time.Duration // for the whole run; NewSession sets 60 s

	// NoAllowedTools starts the client without --allowedTools AllowedTools, so that its own
	// permission rules and mode decide each call, as for a user who passed none.
	NoAllowedTools bool

	t testing.TB
}

// NewSession finds the client (skipping the test if there is none, see Binary), makes temporary
// directories and starts the fake API.
func NewSession(t testing.TB) *Session {
	t.Helper()
	bin := Binary(t)
	base := t.TempDir()
	s := &Session{
		Bin:     bin,
		API:     NewAPI(t, Script{}),
		Home:    filepath.Join(base, "home"),
		Project: filepath.Join(base, "proj"),
		Timeout: 60 * time.Second,
		t:       t,
	}
	for _, d := range []string{s.Home, s.Project} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatalf("failed to create %s: %v", d, err)
		}
	}
	return s
}

// Result is what one run produced.
type Result struct {
	ExitCode int
	Stdout   []byte
	Stderr   []byte
	Duration time.Duration
	Output   Output         // stdout parsed as the --output-format json result
	Raw      map[string]any // the same, every field

	s *Session
}

// Output holds the fields of the client's JSON result that tests assert on.
type Output struct {
	Type              string   `json:"type"`
	Subtype           string   `json:"subtype"`
	IsError           bool     `json:"is_error"`
	Result            string   `json:"result"`
	SessionID         string   `json:"session_id"`
	NumTurns          int      `json:"num_turns"`
	PermissionDenials []Denial `json:"permission_denials"`
}

// Denial is one entry of permission_denials: a tool call the client refused.
type Denial struct {
	ToolName  string         `json:"tool_name"`
	ToolUseID string         `json:"tool_use_id"`
	ToolInput map[string]any `json:"tool_input"`
}

// WriteSettings writes Project/.claude/settings.json registering s.Hooks. Run calls it; a test
// that wants extra settings keys can write the file itself and leave Hooks empty.
func (s *Session) WriteSettings() {
	s.t.Helper()
	if len(s.Hooks) == 0 {
		return
	}
	s.WriteFile(".claude/settings.json", string(Settings(s.Hooks)))
}

// Settings is a settings.json registering hooks.
func Settings(hooks []Hook) []byte {
	type entry struct {
		Type      string   `json:"type"`
		Command   string   `json:"command"`
		Args      []string `json:"args,omitempty"`
		Timeout   int      `json:"timeout"`
		OnFailure string   `json:"onFailure"`
	}
	type group struct {
		Matcher string  `json:"matcher,omitempty"`
		Hooks   []entry `json:"hooks"`
	}
	groups := map[string][]group{}
	for _, h := range hooks {
		ev, m, timeout, onFailure := h.Event, h.Matcher, h.Timeout, h.OnFailure
		if ev == "" {
			ev = "PreToolUse"
		}
		if m == "" {
			m = "*"
		}
		if timeout == 0 {
			timeout = 10
		}
		if onFailure == "" {
			onFailure = "block"
		}
		groups[ev] = append(groups[ev], group{Matcher: m, Hooks: []entry{{
			Type: "command", Command: h.Command, Args: h.Args, Timeout: timeout, OnFailure: onFailure,
		}}})
	}
	b, _ := json.MarshalIndent(map[string]any{"hooks": groups}, "", "  ") // plain types: cannot fail
	return b
}

// WriteFile writes a file under Project, creating directories.
func (s *Session) WriteFile(rel, content string) {
	s.t.Helper()
	p := filepath.Join(s.Project, rel)
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		s.t.Fatalf("failed to create %s: %v", filepath.Dir(p), err)
	}
	if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
		s.t.Fatalf("failed to write %s: %v", p, err)
	}
}

// InitGitRepo gives the project a file f holding "a" and a git repository with one commit
// whose subject is subject.
func (s *Session) InitGitRepo(subject string) {
	s.t.Helper()
	s.WriteFile("f", "a\n")
	for _, args := range [][]string{
		{"init", "-q", "-b", "main"},
		{"add", "f"},
		{"-c", "user.name=Test", "-c", "user.email=test@example.com", "commit", "-q", "-m", subject},
	} {
		cmd := exec.Command("git", args...)
		cmd.Dir = s.Project
		cmd.Env = s.Environ()
		if out, err := cmd.CombinedOutput(); err != nil {
			s.t.Fatalf("failed to run git %v: %v\n%s", args, err, out)
		}
	}
}

// Environ is the client's whole environment. It is built from scratch, not inherited, so a
// test run inside another Claude Code session (CLAUDECODE, ANTHROPIC_* …) behaves the same.
func (s *Session) Environ() []string {
	return append(Environ(s.Home, s.API.URL()), s.Env...)
}

// Environ is the environment of a client with home as its HOME that talks to the fake at url
// and to nothing else.
func Environ(home, url string) []string {
	return []string{
		"PATH=" + os.Getenv("PATH"),
		"HOME=" + home,
		"USER=test",
		"LANG=C.UTF-8",
		"TERM=dumb",
		"TMPDIR=" + os.TempDir(),
		"ANTHROPIC_BASE_URL=" + url,
		"ANTHROPIC_API_KEY=sk-ant-fake-key-for-tests",
		"CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC=1",
		"DISABLE_TELEMETRY=1",
		"DISABLE_AUTOUPDATER=1",
		"DISABLE_ERROR_REPORTING=1",
		"GIT_CONFIG_NOSYSTEM=1",
	}
}

// Run writes the settings, runs claude -p prompt in Project and parses its JSON result. It fails
// the test if the client cannot start, times out, or prints no JSON result; a non-zero exit with
// a result is returned for the test to judge.
func (s *Session) Run(prompt string) *Result {
	s.t.Helper()
	s.WriteSettings()
	s.API.SetScript(s.Script)
	ctx, cancel := context.WithTimeout(context.Background(), s.Timeout)
	defer cancel()
	args := []string{"-p", prompt, "--output-format", "json"}
	if !s.NoAllowedTools {
		args = append(args, "--allowedTools", AllowedTools)
	}
	args = append(args, s.Args...)
	cmd := exec.CommandContext(ctx, s.Bin, args...)
	cmd.Dir = s.Project
	cmd.Env = s.Environ()
	cmd.WaitDelay = 5 * time.Second
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	start := time.Now()
	err := cmd.Run()
	r := &Result{Stdout: stdout.Bytes(), Stderr: stderr.Bytes(), Duration: time.Since(start), s: s}
	var exitErr *exec.ExitError
	switch {
	case ctx.Err() != nil:
		r.Fatalf(s.t, "claude did not finish within %v", s.Timeout)
	case errors.As(err, &exitErr):
		r.ExitCode = exitErr.ExitCode()
	case err != nil:
		r.Fatalf(s.t, "failed to run %s: %v", s.Bin, err)
	}
	out := bytes.TrimSpace(r.Stdout)
	if i := bytes.LastIndexByte(out, '\n'); i >= 0 {
		out = out[i+1:] // the result is the last line; anything before it is noise
	}
	if err := json.Unmarshal(out, &r.Output); err != nil {
		r.Fatalf(s.t, "failed to parse the client's JSON result: %v", err)
	}
	_ = json.Unmarshal(out, &r.Raw)
	return r
}

// Fatalf fails the test with msg and the diagnostics of the run.
func (r *Result) Fatalf(t testing.TB, format string, args ...any) {
	t.Helper()
	t.Fatalf("%s\n%s", fmt.Sprintf(format, args...), r.Diagnostics())
}

// Errorf reports a failure with msg and the diagnostics of the run, and goes on.
func (r *Result) Errorf(t testing.TB, format string, args ...any) {
	t.Helper()
	t.Errorf("%s\n%s", fmt.Sprintf(format, args...), r.Diagnostics())
}

// Diagnostics describes the run for a failure message: exit code, stdout, stderr, the tool
// results the model saw and the last requests made to the fake.
func (r *Result) Diagnostics() string {
	var b strings.Builder
	fmt.Fprintf(&b, "--- claude exit %d after %v\n", r.ExitCode, r.Duration.Round(time.Millisecond))
	fmt.Fprintf(&b, "--- stdout:\n%s\n", clip(string(r.Stdout), 4000))
	fmt.Fprintf(&b, "--- stderr:\n%s\n", clip(string(r.Stderr), 4000))
	fmt.Fprintf(&b, "--- tool results the model saw:\n")
	for _, tr := range r.s.API.ToolResults() {
		fmt.Fprintf(&b, "  %s %s %s is_error=%v: %s\n", tr.Thread, tr.ToolUseID, tr.Tool, tr.IsError, clip(tr.Text, 300))
	}
	reqs := r.s.API.Requests()
	from := max(0, len(reqs)-3)
	fmt.Fprintf(&b, "--- last %d of %d requests to the fake:\n", len(reqs)-from, len(reqs))
	for _, q := range reqs[from:] {
		fmt.Fprintf(&b, "  %s %s: %s\n", q.Thread, q.Path, clip(lastMessage(q.Body), 1500))
	}
	return b.String()
}

// lastMessage is the last message of a request body: the part that is new in each turn.
func lastMessage(body []byte) string {
	var req struct {
		Messages []json.RawMessage `json:"messages"`
	}
	if json.Unmarshal(body, &req) != nil || len(req.Messages) == 0 {
		return string(body)
	}
	return string(req.Messages[len(req.Messages)-1])
}

func clip(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return s[:n] + fmt.Sprintf("… (%d more bytes)", len(s)-n)
}

// TrustedBin makes a directory for a test's stand-in programs (a fake gh) outside the temporary
// directories, which hookctl never trusts to hold a program it runs (internal/trustedpath):
// edit mode's commands may write them.
func TrustedBin(t testing.TB) string {
	t.Helper()
	dir, err := os.MkdirTemp("/var/lib", "hookctl-test-bin-")
	if err != nil {
		t.Skipf("no directory outside the temporary directories for a stand-in program: %v", err)
	}
	os.Chmod(dir, 0o755)
	t.Cleanup(func() { os.RemoveAll(dir) })
	return dir
}
