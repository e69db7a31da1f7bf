package claude_test

import (
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	ct "github.com/hookctl/hookctl/agents/claude/claudetest"
)

// TestRealClientRunsAdmittedCommandsSandboxed: the real client takes the hook's rewrite, so an
// admitted command runs inside hookctl's sandbox. The project's repository sets a clean filter
// driver, which git runs on `git status` and which the read-only rules cannot see
// (docs/residual-risks.md); the driver tries to write a marker outside the project and to
// rewrite a file in it. The same command run as judged, without the sandbox, fires it: the
// control shows the trap is real.
func TestRealClientRunsAdmittedCommandsSandboxed(t *testing.T) {
	ct.Binary(t)
	hookctl := buildHookctl(t)
	s := ct.NewSession(t)
	s.InitGitRepo(commitSubject)
	markers := t.TempDir()
	trap := filepath.Join(markers, "trap.sh")
	os.WriteFile(trap, []byte("#!/bin/sh\ntouch "+markers+"/fired\necho pwned >> \"$GIT_DIR/../f\" 2>/dev/null\ncat\n"), 0o755)
	s.WriteFile(".gitattributes", "f filter=trap\n")
	git := func(args ...string) {
		cmd := exec.Command("git", args...)
		cmd.Dir, cmd.Env = s.Project, s.Environ()
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("git %v: %v %s", args, err, out)
		}
	}
	git("config", "filter.trap.clean", trap)
	dirty := func() { // a stale stat makes git status hash f, through the filter
		past := time.Date(2001, 1, 1, 0, 0, 0, 0, time.UTC)
		os.Chtimes(filepath.Join(s.Project, "f"), past, past)
	}
	dirty()

	s.Script = ct.Script{Main: []ct.Call{ct.Bash("git status --short")}}
	s.Hooks = []ct.Hook{{Command: hookctl, Args: []string{"hook"}}, {Event: "SessionEnd", Command: hookctl, Args: []string{"hook"}}}
	hh := t.TempDir()
	s.Env = append(s.Env, "HOOKCTL_HOME="+hh)
	s.WriteSettings()
	r := s.Run("What is the state of the repository?")
	tr, ok := s.API.ResultFor(ct.Main, 0)
	if !ok || tr.IsError {
		r.Fatalf(t, "git status did not run: %v %q", ok, tr.Text)
	}
	if _, err := os.Stat(filepath.Join(markers, "fired")); err == nil {
		r.Fatalf(t, "the filter driver wrote outside the project: the command did not run in the sandbox")
	}
	if b, _ := os.ReadFile(filepath.Join(s.Project, "f")); string(b) != "a\n" {
		r.Fatalf(t, "f changed: %q", b)
	}
	// The session ended with the run, and its SessionEnd hook removed its scratch directory.
	sessions, _ := filepath.Glob(filepath.Join(hh, "sessions", "*.json"))
	if len(sessions) != 1 {
		r.Fatalf(t, "want one session recorded, have %v", sessions)
	}
	id := strings.TrimSuffix(filepath.Base(sessions[0]), ".json")
	scratch := filepath.Join(os.TempDir(), fmt.Sprintf("hookctl-sandbox-%d", os.Getuid()), id)
	if _, err := os.Stat(scratch); err == nil {
		r.Fatalf(t, "the session's scratch directory %s outlived the session", scratch)
	}

	// The control: the command as judged, run plainly, fires the trap.
	dirty()
	check := exec.Command(hookctl, "check", "--", "git status --short")
	check.Env = append(s.Environ(), "HOOKCTL_HOME="+hh)
	out, _ := check.Output()
	runs, _, _ := strings.Cut(strings.TrimPrefix(string(out), "allow\nruns: "), "\n")
	_, inner, found := strings.Cut(runs, " -- bash --noprofile --norc -c ")
	if !found {
		t.Fatalf("hookctl check did not sandbox: %s", out)
	}
	sh := exec.Command("bash", "--noprofile", "--norc", "-c", "eval "+inner)
	sh.Dir, sh.Env = s.Project, s.Environ()
	sh.Run()
	if _, err := os.Stat(filepath.Join(markers, "fired")); err != nil {
		t.Errorf("the control did not fire the filter driver, so the test proves nothing: %v", err)
	}
}

// TestRealClientEditModeCannotUnregisterTheHook: in edit mode the real client runs the agent's
// Bash through the edit sandbox. A write of the project's settings the guard cannot read
// (the path is base64 inside python) fails at the kernel, so the hook stays registered, while
// ordinary work in the project goes on; the control runs the same python plainly and it does
// rewrite the file.
func TestRealClientEditModeCannotUnregisterTheHook(t *testing.T) {
	ct.Binary(t)
	if os.Geteuid() != 0 {
		t.Skip("the edit sandbox needs root here so far")
	}
	hookctl := buildHookctl(t)
	s := ct.NewSession(t)
	s.InitGitRepo(commitSubject)
	hh := t.TempDir()
	os.WriteFile(filepath.Join(hh, "config.toml"), []byte("default_mode = \"edit\"\n"), 0o600)
	s.Env = append(s.Env, "HOOKCTL_HOME="+hh)
	s.Hooks = []ct.Hook{{Command: hookctl, Args: []string{"hook"}}}
	// .claude/settings.json, base64: the guard sees no protected path in the code.
	unregister := `python3 -c "import base64; open(base64.b64decode('LmNsYXVkZS9zZXR0aW5ncy5qc29u').decode(), 'w').write('{\"disableAllHooks\": true}')"`
	s.Script = ct.Script{Main: []ct.Call{ct.Bash(unregister), ct.Bash("echo built > out.txt && cat out.txt")}}
	s.WriteSettings()
	settings := filepath.Join(s.Project, ".claude", "settings.json")
	before, _ := os.ReadFile(settings)
	r := s.Run("Build it.")
	// Refused by the sandbox's supervisor (it makes no file in a client's settings directory),
	// or by the read-only mount beneath it.
	if tr, _ := s.API.ResultFor(ct.Main, 0); !strings.Contains(tr.Text, "Read-only file system") &&
		!strings.Contains(tr.Text, "hookctl: refused to create or write .claude/settings.json") {
		r.Fatalf(t, "the settings write did not fail at the kernel: is_error=%v %q", tr.IsError, tr.Text)
	}
	if after, _ := os.ReadFile(settings); string(after) != string(before) {
		r.Fatalf(t, "the project's settings changed:\n%s", after)
	}
	if tr, _ := s.API.ResultFor(ct.Main, 1); tr.IsError || !strings.Contains(tr.Text, "built") {
		r.Fatalf(t, "ordinary work failed: %q", tr.Text)
	}
	if b, _ := os.ReadFile(filepath.Join(s.Project, "out.txt")); string(b) != "built\n" {
		t.Errorf("out.txt: %q", b)
	}
	// The control: the same command, run plainly, unregisters the hook.
	sh := exec.Command("bash", "-c", unregister)
	sh.Dir = s.Project
	sh.Run()
	if after, _ := os.ReadFile(settings); !strings.Contains(string(after), "disableAllHooks") {
		t.Errorf("the control did not write the settings, so the test proves nothing: %s", after)
	}
}

// TestRealClientEditModeNetworkIsTheProxys: in edit mode the real client's Bash runs in its own
// network namespace. A program that fetches on its own (python's urllib, which the policy does
// not read as a web fetch) reaches an allowed host through the egress proxy and is refused
// anywhere else, and the model reads why in the tool's result; a connection that bypasses the
// proxy reaches nothing. The servers are on the machine's loopback, outside the namespace, and
// count what reached them.
func TestRealClientEditModeNetworkIsTheProxys(t *testing.T) {
	ct.Binary(t)
	if os.Geteuid() != 0 {
		t.Skip("the edit sandbox needs root here so far")
	}
	allowed, other := countingServer(t), countingServer(t)
	hookctl := buildHookctl(t)
	s := ct.NewSession(t)
	s.InitGitRepo(commitSubject)
	hh := t.TempDir()
	os.WriteFile(filepath.Join(hh, "config.toml"), []byte("default_mode = \"edit\"\n[network]\nallow = [\""+allowed.addr+"\"]\n"), 0o600)
	s.Env = append(s.Env, "HOOKCTL_HOME="+hh)
	s.Hooks = []ct.Hook{{Command: hookctl, Args: []string{"hook"}}}
	fetch := func(addr string) string {
		// NO_PROXY would send loopback past the proxy: the command's loopback is its own.
		return `NO_PROXY= no_proxy= python3 -c "import urllib.request; print(urllib.request.urlopen('http://` + addr + `/x', timeout=5).read().decode().strip())" 2>&1 | tail -1`
	}
	s.Script = ct.Script{Main: []ct.Call{ct.Bash(fetch(allowed.addr)), ct.Bash(fetch(other.addr)),
		ct.Bash(`python3 -c "import socket; socket.create_connection(('` + strings.Replace(other.addr, ":", "', ", 1) + `), timeout=3)" 2>&1 | tail -1`)}}
	s.WriteSettings()
	r := s.Run("Fetch them.")
	if tr, _ := s.API.ResultFor(ct.Main, 0); !strings.Contains(tr.Text, "served /x") {
		r.Errorf(t, "the allowed host: %q", tr.Text)
	}
	if tr, _ := s.API.ResultFor(ct.Main, 1); !strings.Contains(tr.Text, "403") || !strings.Contains(tr.Text, other.addr+" was refused") {
		r.Errorf(t, "a host not allowed: %q", tr.Text)
	}
	if tr, _ := s.API.ResultFor(ct.Main, 2); !strings.Contains(tr.Text, "Connection refused") {
		r.Errorf(t, "a direct connection: %q", tr.Text)
	}
	if allowed.hits.Load() != 1 || other.hits.Load() != 0 {
		t.Errorf("requests reached: allowed %d (want 1), other %d (want 0)", allowed.hits.Load(), other.hits.Load())
	}
}

type counting struct {
	addr string
	hits atomic.Int32
}

func countingServer(t *testing.T) *counting {
	c := &counting{}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		c.hits.Add(1)
		fmt.Fprintf(w, "served %s\n", r.URL.Path)
	}))
	t.Cleanup(srv.Close)
	c.addr = srv.Listener.Addr().String()
	return c
}
