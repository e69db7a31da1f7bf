//go:build unix

package claudetest

// The interactive client. Some behaviour exists only there: a custom slash command typed at the
// prompt fires UserPromptExpansion, an unknown one is answered locally, `! cmd` runs without a
// hook, and the status line is drawn. TUI runs the real client in a detached tmux session with
// the Session's HOME, project, hooks and fake API, types into it and reads the screen back.
//
// Out of scope: colours and layout. Tests match plain text on the screen.

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync/atomic"
	"syscall"
	"testing"
	"time"
)

// TUI sizes used when StartTUI is given zero.
const (
	DefaultWidth  = 120
	DefaultHeight = 40
)

// StartupTimeout bounds how long StartTUI waits for the empty prompt.
const StartupTimeout = 60 * time.Second

// pollEvery is how often WaitFor looks at the screen.
const pollEvery = 100 * time.Millisecond

// TUI is the interactive client running in a detached tmux session. Its zero value is not
// usable; call Session.StartTUI.
type TUI struct {
	s      *Session
	t      testing.TB
	tmux   string // the tmux executable
	dir    string // TMUX_TMPDIR: the server's socket lives here, so no other test can reach it
	socket string // the -L name
	pid    int    // the client's process, leader of the pane's process group; 0 if unknown
	closed bool
}

// Tmux returns the tmux executable. When there is none the test is skipped, or fails if
// HOOKCTL_REQUIRE_E2E=1.
func Tmux(t testing.TB) string {
	t.Helper()
	p, err := exec.LookPath("tmux")
	if err == nil {
		return p
	}
	msg := "tmux not found in PATH; install it to run the interactive Claude Code tests"
	if os.Getenv("HOOKCTL_REQUIRE_E2E") == "1" {
		t.Fatal(msg + " (HOOKCTL_REQUIRE_E2E=1)")
	}
	t.Skip(msg)
	return ""
}

var tuiCount atomic.Int64

// StartTUI writes the settings (as Run does), marks the first-run screens as done in
// Home/.claude.json and starts claude in Project inside a new tmux server, on a width×height
// screen (0 means DefaultWidth, DefaultHeight). It returns once the empty prompt is on screen,
// and fails the test with the screen if it does not appear within StartupTimeout or a first-run
// screen is showing. The session is closed when the test ends.
//
// The client runs with --permission-mode default and --allowedTools AllowedTools, then s.Args:
// in 2.1.328 a session authenticated by API key starts in auto mode, whose safety check calls a
// server the fake does not provide, and every action then waits on a dialog.
func (s *Session) StartTUI(width, height int) *TUI {
	s.t.Helper()
	if width == 0 {
		width = DefaultWidth
	}
	if height == 0 {
		height = DefaultHeight
	}
	u := &TUI{s: s, t: s.t, tmux: Tmux(s.t)}
	s.WriteSettings()
	s.API.SetScript(s.Script)
	if err := s.skipFirstRun(); err != nil {
		s.t.Fatalf("failed to pre-seed %s: %v", filepath.Join(s.Home, ".claude.json"), err)
	}

	// A short private directory: a Unix socket path must fit in about 100 bytes, which a
	// t.TempDir path with a long test name may not.
	dir, err := os.MkdirTemp("", "hookctl-tmux-")
	if err != nil {
		s.t.Fatalf("failed to create a tmux directory: %v", err)
	}
	u.dir = dir
	u.socket = fmt.Sprintf("hookctl-%d-%d", os.Getpid(), tuiCount.Add(1))
	s.t.Cleanup(u.Close)

	conf := filepath.Join(dir, "tmux.conf")
	// remain-on-exit keeps the pane after claude exits, so a failure can show its last words;
	// no status bar, so the client gets the whole height.
	if err := os.WriteFile(conf, []byte("set -g remain-on-exit on\nset -g status off\nset -g history-limit 5000\n"), 0o644); err != nil {
		s.t.Fatalf("failed to write %s: %v", conf, err)
	}
	// The pane's environment is exactly the Session's: env -i drops what the tmux server
	// inherited and what it adds itself (TMUX, TMUX_PANE).
	argv := []string{"-f", conf, "new-session", "-d", "-s", "claude", "-x", fmt.Sprint(width), "-y", fmt.Sprint(height),
		"-c", s.Project, "--", "env", "-i"}
	argv = append(argv, s.tuiEnviron()...)
	argv = append(argv, s.Bin, "--permission-mode", "default")
	if !s.NoAllowedTools {
		argv = append(argv, "--allowedTools", AllowedTools)
	}
	argv = append(argv, s.Args...)
	if out, err := u.run(argv...); err != nil {
		s.t.Fatalf("failed to start tmux: %v\n%s", err, out)
	}
	if out, err := u.run("display-message", "-p", "-t", "claude", "#{pane_pid}"); err == nil {
		u.pid, _ = strconv.Atoi(strings.TrimSpace(string(out)))
	}
	u.waitReady()
	return u
}

// tuiEnviron is Environ for a terminal: the same variables with a TERM that can draw the UI.
func (s *Session) tuiEnviron() []string {
	var env []string
	for _, kv := range s.Environ() {
		if strings.HasPrefix(kv, "TERM=") {
			continue
		}
		env = append(env, kv)
	}
	// Left on, the client clones the official plugin marketplace into HOME in the background,
	// which can still be writing there when the test removes it.
	return append(env, "TERM=xterm-256color", "CLAUDE_CODE_DISABLE_OFFICIAL_MARKETPLACE_AUTOINSTALL=1")
}

// skipFirstRun merges into Home/.claude.json the keys that stop 2.1.328 from showing its
// first-run screens:
//   - hasCompletedOnboarding: otherwise the client checks connectivity to api.anthropic.com
//     (not ANTHROPIC_BASE_URL), prints "Unable to connect to Anthropic services" and exits 1;
//     with network it would go on to the theme picker.
//   - customApiKeyResponses.approved holding the last 20 characters of ANTHROPIC_API_KEY:
//     otherwise "Detected a custom API key in your environment … Do you want to use this API
//     key?" with "No (recommended)" selected.
//   - projects[<project>].hasTrustDialogAccepted: otherwise "Quick safety check: Is this a
//     project you created or one you trust?" with "No, exit" selected, and the project's
//     settings (so its hooks) are not loaded until it is answered.
func (s *Session) skipFirstRun() error {
	p := filepath.Join(s.Home, ".claude.json")
	cfg := map[string]any{}
	if b, err := os.ReadFile(p); err == nil {
		if err := json.Unmarshal(b, &cfg); err != nil {
			return fmt.Errorf("failed to parse it: %w", err)
		}
	} else if !errors.Is(err, os.ErrNotExist) {
		return err
	}
	cfg["hasCompletedOnboarding"] = true
	cfg["lastOnboardingVersion"] = Version
	key := ""
	for _, kv := range s.Environ() {
		if v, ok := strings.CutPrefix(kv, "ANTHROPIC_API_KEY="); ok {
			key = v // the last one wins, as in the client's environment
		}
	}
	if key = strings.TrimSpace(key); key != "" {
		responses, _ := cfg["customApiKeyResponses"].(map[string]any)
		if responses == nil {
			responses = map[string]any{}
		}
		approved, _ := responses["approved"].([]any)
		responses["approved"] = append(approved, key[max(0, len(key)-20):])
		if _, ok := responses["rejected"]; !ok {
			responses["rejected"] = []any{}
		}
		cfg["customApiKeyResponses"] = responses
	}
	projects, _ := cfg["projects"].(map[string]any)
	if projects == nil {
		projects = map[string]any{}
	}
	dirs := []string{s.Project}
	if real, err := filepath.EvalSymlinks(s.Project); err == nil && real != s.Project {
		dirs = append(dirs, real) // the client may key the project by either
	}
	for _, d := range dirs {
		proj, _ := projects[d].(map[string]any)
		if proj == nil {
			proj = map[string]any{}
		}
		proj["hasTrustDialogAccepted"] = true
		projects[d] = proj
	}
	cfg["projects"] = projects
	b, err := json.MarshalIndent(cfg, "", "  ")
	if err != nil {
		return err
	}
	if err := os.MkdirAll(s.Home, 0o755); err != nil {
		return err
	}
	return os.WriteFile(p, b, 0o600)
}

// firstRunScreens are texts of screens that mean skipFirstRun did not take; waiting for the
// prompt behind them would only time out.
var firstRunScreens = []struct{ text, why string }{
	{"Unable to connect to Anthropic services", "onboarding ran: hasCompletedOnboarding is not set"},
	{"Do you want to use this API key?", "the API key is not in customApiKeyResponses.approved"},
	{"Quick safety check", "the project is not trusted: projects[<dir>].hasTrustDialogAccepted"},
	{"Choose the text style", "onboarding ran: hasCompletedOnboarding is not set"},
	{"Auto mode can't check actions", "the session is in auto mode; pass --permission-mode default"},
}

// waitReady waits for the empty prompt, failing early on a first-run screen or a dead pane.
func (u *TUI) waitReady() {
	u.t.Helper()
	u.WaitUntil("the empty prompt", StartupTimeout, func(screen string) bool {
		for _, f := range firstRunScreens {
			if strings.Contains(screen, f.text) {
				u.fatalf(screen, "claude shows a first-run screen (%q): %s", f.text, f.why)
			}
		}
		return PromptEmpty(screen)
	})
}

// PromptEmpty reports whether screen shows the input box with nothing typed in it: a line that
// is just "❯" right under a horizontal rule.
func PromptEmpty(screen string) bool {
	return promptLine(screen, func(input string) bool { return input == "" })
}

// promptLine finds the input line (the "❯" line right under a rule) and tests what is typed.
func promptLine(screen string, ok func(input string) bool) bool {
	lines := strings.Split(screen, "\n")
	for i := 1; i < len(lines); i++ {
		in, found := strings.CutPrefix(strings.TrimRight(lines[i], " "), "❯")
		if found && strings.HasPrefix(strings.TrimSpace(lines[i-1]), "──") && ok(strings.TrimSpace(in)) {
			return true
		}
	}
	return false
}

// SendKeys types text literally: key names are not interpreted and a newline is not Enter.
func (u *TUI) SendKeys(text string) {
	u.t.Helper()
	if out, err := u.run("send-keys", "-t", "claude", "-l", "--", text); err != nil {
		u.fatalf(u.capture(), "failed to type %q: %v %s", text, err, out)
	}
}

// Key presses keys by tmux name: "Enter", "Escape", "C-u" (clear the input line), "BTab"
// (shift+tab, cycles the permission mode), "Up", "Down".
func (u *TUI) Key(names ...string) {
	u.t.Helper()
	args := append([]string{"send-keys", "-t", "claude"}, names...)
	if out, err := u.run(args...); err != nil {
		u.fatalf(u.capture(), "failed to press %v: %v %s", names, err, out)
	}
}

// Enter presses Enter.
func (u *TUI) Enter() {
	u.t.Helper()
	u.Key("Enter")
}

// Submit types one line of text at the prompt, waits until the input box shows it and presses
// Enter. Enter sent together with the text could be read as part of a paste and insert a
// newline instead.
func (u *TUI) Submit(text string) {
	u.t.Helper()
	u.SendKeys(text)
	want := strings.TrimSpace(text)
	tail := []rune(want)
	tail = tail[max(0, len(tail)-20):] // a long text wraps inside the box; its end is on a later line
	u.WaitUntil(fmt.Sprintf("%q in the input line", want), 10*time.Second, func(screen string) bool {
		return promptLine(screen, func(input string) bool {
			return input == want || input != "" && strings.HasPrefix(want, input) && strings.Contains(screen, string(tail))
		})
	})
	u.Enter()
}

func (u *TUI) capture() string {
	out, err := u.run("capture-pane", "-p", "-J", "-t", "claude")
	if err != nil {
		return fmt.Sprintf("<capture-pane failed: %v %s>", err, out)
	}
	lines := strings.Split(string(out), "\n")
	for i, l := range lines {
		lines[i] = strings.TrimRight(l, " ")
	}
	return strings.Join(lines, "\n")
}

// WaitFor waits until the screen contains substr and returns the screen. It fails the test
// with the last screen when timeout passes or claude exits.
func (u *TUI) WaitFor(substr string, timeout time.Duration) string {
	u.t.Helper()
	return u.WaitUntil(fmt.Sprintf("%q on screen", substr), timeout, func(screen string) bool {
		return strings.Contains(screen, substr)
	})
}

// WaitUntil waits until ok(screen) holds and returns that screen; what names the condition in
// the failure message. It fails the test when timeout passes or claude exits.
func (u *TUI) WaitUntil(what string, timeout time.Duration, ok func(screen string) bool) string {
	u.t.Helper()
	deadline := time.Now().Add(timeout)
	for {
		screen := u.capture()
		if ok(screen) {
			return screen
		}
		if dead, status := u.paneDead(); dead {
			u.fatalf(screen, "claude exited (status %s) while waiting for %s", status, what)
		}
		if time.Now().After(deadline) {
			u.fatalf(screen, "timed out after %v waiting for %s", timeout, what)
		}
		time.Sleep(pollEvery)
	}
}

// paneDead reports whether the client has exited, and its exit status.
func (u *TUI) paneDead() (bool, string) {
	out, err := u.run("display-message", "-p", "-t", "claude", "#{pane_dead} #{pane_dead_status}")
	if err != nil {
		return true, fmt.Sprintf("unknown: tmux: %v %s", err, strings.TrimSpace(string(out)))
	}
	dead, status, _ := strings.Cut(strings.TrimSpace(string(out)), " ")
	return dead == "1", status
}

// Close ends the client and its tmux server. It is safe to call twice; StartTUI registers it
// with t.Cleanup.
func (u *TUI) Close() {
	if u.closed {
		return
	}
	u.closed = true
	if dead, _ := u.paneDead(); !dead && u.pid > 1 {
		_ = syscall.Kill(-u.pid, syscall.SIGTERM) // only while the pane is alive: its pid is ours
	}
	_, _ = u.run("kill-server")
	u.reap()
	_ = os.RemoveAll(u.dir) // tmux 3.3 leaves its socket behind
}

// reap waits for the pane's process group (the client, its hooks and helpers) to exit after
// the server hung up on it, and kills what is left after a few seconds: a process still
// writing in HOME would make the test's temporary directory fail to be removed.
func (u *TUI) reap() {
	if u.pid <= 1 {
		return
	}
	gone := func(wait time.Duration) bool {
		for end := time.Now().Add(wait); ; time.Sleep(20 * time.Millisecond) {
			if errors.Is(syscall.Kill(-u.pid, 0), syscall.ESRCH) {
				return true
			}
			if time.Now().After(end) {
				return false
			}
		}
	}
	if gone(5 * time.Second) {
		return
	}
	_ = syscall.Kill(-u.pid, syscall.SIGKILL)
	if !gone(2 * time.Second) {
		u.t.Logf("claude's process group %d is still running after SIGKILL", u.pid)
	}
}

// fatalf fails the test with msg, the screen and the last requests to the fake.
func (u *TUI) fatalf(screen, format string, args ...any) {
	u.t.Helper()
	var b strings.Builder
	fmt.Fprintf(&b, "%s\n--- screen (tmux -L %s, TMUX_TMPDIR=%s):\n%s\n", fmt.Sprintf(format, args...), u.socket, u.dir, strings.TrimRight(screen, "\n"))
	reqs := u.s.API.Requests()
	from := max(0, len(reqs)-3)
	fmt.Fprintf(&b, "--- last %d of %d requests to the fake:\n", len(reqs)-from, len(reqs))
	for _, q := range reqs[from:] {
		fmt.Fprintf(&b, "  %s %s: %s\n", q.Thread, q.Path, clip(lastTurn(q.Body), 1500))
	}
	u.t.Fatal(b.String())
}

// lastTurn is the last user or assistant message of a request body. The interactive client
// ends its requests with a "system" message (environment, tool list) that says nothing new.
func lastTurn(body []byte) string {
	var req struct {
		Messages []json.RawMessage `json:"messages"`
	}
	if json.Unmarshal(body, &req) != nil {
		return string(body)
	}
	for i := len(req.Messages) - 1; i >= 0; i-- {
		var m struct {
			Role string `json:"role"`
		}
		if json.Unmarshal(req.Messages[i], &m) == nil && m.Role != "system" {
			return string(req.Messages[i])
		}
	}
	return lastMessage(body)
}

// run runs one tmux command against this TUI's server, with an environment of its own so that
// running inside another tmux (TMUX set) or with a user's tmux config changes nothing.
func (u *TUI) run(args ...string) ([]byte, error) {
	cmd := exec.Command(u.tmux, append([]string{"-L", u.socket}, args...)...)
	cmd.Env = []string{"PATH=" + os.Getenv("PATH"), "HOME=" + u.s.Home, "LANG=C.UTF-8", "TMUX_TMPDIR=" + u.dir}
	cmd.WaitDelay = 5 * time.Second
	return cmd.CombinedOutput()
}
