package agenttest

import (
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/hookctl/hookctl/internal/testbin"
)

// API is a fake model API a client talks to, playing a script (Responses, Chat, Gemini, and
// Claude Code's Messages).
type API interface {
	URL() string
	// Saw reports whether any request held s, in its JSON text (quotes escaped as \").
	Saw(s string) bool
	Requests() []string
	// ToolNames are the tools the client offered the model.
	ToolNames() []string
}

// Client is one real client as the end-to-end tests drive it: where its pinned release is, how
// a hook is registered for it, how it runs headless against a fake model, and what it shows the
// model of a refusal. What sets one client apart from the others is a field here, so that a test
// of a behaviour every client must show is written once (agents/conformance).
type Client struct {
	Name  string // as hookctl names it: "Codex"
	Agent string // what `hookctl hook --agent` takes
	// Version is the release the tests and the recorded fixtures were made with (the
	// Makefile's pin).
	Version string
	// Pkg is the npm package the Makefile installs under .cache/Cache, Bin its executable; Find,
	// where set, finds the client instead. Either skips the test where the client is not
	// installed, and fails it under HOOKCTL_REQUIRE_E2E=1.
	Pkg, Cache, Bin string
	Find            func(t testing.TB) string
	// Absent says why no real client runs here (Cursor is a desktop application); nothing is
	// run for it, and the tests say so.
	Absent string
	// NewAPI starts the fake model API the client speaks, playing script.
	NewAPI func(t testing.TB, script []Step) API
	// Configure writes the client's own settings into p (the fake model's address, its auth)
	// and, where hook is not "", registers hook as the client's pre-tool hook (and as its
	// session-start hook, where TellsMode).
	Configure func(t testing.TB, p *Project, api API, hook string)
	// Env is the client's whole environment; hookctl's home is p.Base/hookctl.
	Env func(p *Project, api API) []string
	// Args are the arguments of a headless run that asks no one, before the prompt.
	Args    []string
	Timeout time.Duration

	// Refused is what the client puts before a hook's reason when it tells the model of a
	// refused call; WriteTool the tool the fake model writes a file with, and ShellTool the
	// client's shell tool, each as hooks see it.
	Refused, WriteTool, ShellTool string
	// AsWritten: the client takes no rewritten command (Qwen Code), so an admitted read runs as
	// the model wrote it, outside hookctl's sandbox, and a command that is a read only as
	// hookctl rewrites it (git with its pins, a web read) is refused.
	AsWritten bool
	// TellsMode: hookctl's session-start hook is registered too (as install does), and tells
	// the model its mode before the first call.
	TellsMode bool
	// SessionID, where set, is the session the client's output says it ran (nil where it says
	// none).
	SessionID func(output string) string
	// Fixtures is the directory under fixtures/ that a -record run writes the client's payloads
	// to; "" where they are recorded elsewhere.
	Fixtures string
}

// Session is one test's world for a client: a Project, the fake model playing a script, and
// hookctl. A failed test logs the client's output and the last request it made.
type Session struct {
	*Project
	Client  *Client
	API     API
	Bin     string // the client
	Hookctl string
	outputs []string
}

// NewSession finds the client (see Find), makes a Project, starts the fake model and writes the
// client's settings, with no hook registered.
func (c *Client) NewSession(t *testing.T, script func(*Project) []Step) *Session {
	t.Helper()
	if c.Absent != "" {
		t.Skip(c.Absent)
	}
	s := &Session{Client: c, Bin: c.Binary(t), Hookctl: testbin.Hookctl(t), Project: NewProject(t)}
	s.API = c.NewAPI(t, script(s.Project))
	c.Configure(t, s.Project, s.API, "")
	t.Cleanup(func() {
		if !t.Failed() {
			return
		}
		if reqs := s.API.Requests(); len(reqs) > 0 {
			t.Logf("last request, without its tools: %s", tail(withoutTools(reqs[len(reqs)-1]), 8000))
		}
		for _, out := range s.outputs {
			t.Logf("%s output:\n%s", c.Name, tail(out, 4000))
		}
	})
	return s
}

// Binary is the client's executable (see Pkg).
func (c *Client) Binary(t testing.TB) string {
	t.Helper()
	if c.Find != nil {
		return c.Find(t)
	}
	return Binary(t, c.Cache, c.Bin, c.Pkg+"@"+c.Version)
}

// Register registers a RecordingHook running `hookctl hook --agent` as the client's hook.
func (s *Session) Register(t testing.TB) {
	t.Helper()
	s.Client.Configure(t, s.Project, s.API, RecordingHook(t, s.HookDir, s.Hookctl, "hook", "--agent", s.Client.Agent))
}

// Install runs `hookctl install --agent` in the client's environment, the client on the PATH
// (Codex's install asks it whether it trusts the hook): the registration a user gets.
func (s *Session) Install(t testing.TB) {
	t.Helper()
	s.Project.Install(t, s.Hookctl, s.Client.Agent, PrependPath(s.Env(), filepath.Dir(s.Bin)))
}

// PrependPath is env with dir first on its PATH.
func PrependPath(env []string, dir string) []string {
	out := append([]string(nil), env...)
	for i, kv := range out {
		if path, ok := strings.CutPrefix(kv, "PATH="); ok {
			out[i] = "PATH=" + dir + string(filepath.ListSeparator) + path
			return out
		}
	}
	return append(out, "PATH="+dir)
}

// Env is the client's environment for this session.
func (s *Session) Env() []string { return s.Client.Env(s.Project, s.API) }

// HookctlHome is hookctl's home in the client's environment.
func (s *Session) HookctlHome() string { return filepath.Join(s.Base, "hookctl") }

// Config writes hookctl's config.toml.
func (s *Session) Config(t testing.TB, toml string) {
	t.Helper()
	if err := os.MkdirAll(s.HookctlHome(), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(s.HookctlHome(), "config.toml"), []byte(toml), 0o600); err != nil {
		t.Fatal(err)
	}
}

// Run runs the client headless in the project with prompt: args before it, or the client's
// Args when none are given. A client that fails or outlives its Timeout fails the test.
func (s *Session) Run(t testing.TB, prompt string, args ...string) string {
	t.Helper()
	return s.RunEnv(t, s.Env(), prompt, args...)
}

// RunEnv is Run in the environment env.
func (s *Session) RunEnv(t testing.TB, env []string, prompt string, args ...string) string {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), s.Client.Timeout)
	defer cancel()
	if args == nil {
		args = s.Client.Args
	}
	cmd := exec.CommandContext(ctx, s.Bin, append(append([]string(nil), args...), prompt)...)
	cmd.Dir, cmd.Env = s.Dir, env
	cmd.Stdin = nil // /dev/null: codex exec waits for more input on an open stdin
	cmd.WaitDelay = 5 * time.Second
	start := time.Now()
	out, err := cmd.CombinedOutput()
	s.outputs = append(s.outputs, string(out))
	t.Logf("%s took %s; tools offered: %v", s.Client.Name, time.Since(start).Round(time.Millisecond), s.API.ToolNames())
	if err != nil {
		t.Fatalf("%s: %v after %s\n%s", s.Client.Name, err, time.Since(start).Round(time.Millisecond), tail(string(out), 4000))
	}
	return string(out)
}

// Sessions are the sessions hookctl recorded.
func (s *Session) Sessions() []string {
	var ids []string
	entries, _ := os.ReadDir(filepath.Join(s.HookctlHome(), "sessions"))
	for _, e := range entries {
		if id, ok := strings.CutSuffix(e.Name(), ".json"); ok {
			ids = append(ids, id)
		}
	}
	return ids
}

// withoutTools is a request's JSON without the tools the client offers, which fill the tail
// the log keeps and say nothing of what the model was told.
func withoutTools(body string) string {
	var m map[string]json.RawMessage
	if json.Unmarshal([]byte(body), &m) != nil {
		return body
	}
	delete(m, "tools")
	b, _ := json.Marshal(m)
	return string(b)
}

func tail(s string, n int) string {
	if len(s) > n {
		return "…" + s[len(s)-n:]
	}
	return s
}
