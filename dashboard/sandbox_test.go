package dashboard

import (
	"bufio"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/hookctl/hookctl/hook"
	"github.com/hookctl/hookctl/internal/loopback"
	"github.com/hookctl/hookctl/internal/testbin"
	"github.com/hookctl/hookctl/session"
)

func TestMain(m *testing.M) {
	code := m.Run()
	testbin.Cleanup()
	os.Exit(code)
}

// serve starts a real dashboard of home on a free port of 127.0.0.1.
func serve(t testing.TB, home, hookctl string) (*Server, *loopback.Counting) {
	t.Helper()
	l, port, err := Listen(0)
	if err != nil {
		t.Fatal(err)
	}
	s, err := New(home, hookctl, port)
	if err != nil {
		t.Fatal(err)
	}
	cl := &loopback.Counting{Listener: l}
	go s.Serve(cl)
	t.Cleanup(func() { l.Close() })
	return s, cl
}

func requireTool(t *testing.T, name string) {
	t.Helper()
	if _, err := exec.LookPath(name); err != nil {
		if os.Getenv("HOOKCTL_REQUIRE_ALL") != "" {
			t.Fatalf("%s is not installed (HOOKCTL_REQUIRE_ALL is set)", name)
		}
		t.Skipf("%s is not installed", name)
	}
}

// TestAgentShellCannotReachTheDashboard: from inside hookctl sandbox, with the read-only
// profile and the edit profile (the two the agent's commands run under), every way the shell
// has to connect to the dashboard — bash's /dev/tcp by address and by name, python's socket,
// curl with and without the proxy — fails, even given the token, and the dashboard accepts no
// connection. The same script outside the sandbox reaches it, so the test can see a connection.
func TestAgentShellCannotReachTheDashboard(t *testing.T) {
	requireTool(t, "bash")
	requireTool(t, "python3")
	bin := testbin.Hookctl(t)
	home, project := t.TempDir(), t.TempDir()
	plant(t, home, "")
	const editSession = "e0e0e0e0-0000-4000-8000-0000000000ed"
	if _, err := session.NewStore(home).Record(editSession, project, hook.ModeEdit); err != nil {
		t.Fatal(err)
	}
	s, counted := serve(t, home, bin)
	port := strconv.Itoa(s.port)
	get := `printf 'GET /?token=` + s.token + ` HTTP/1.0\r\nHost: 127.0.0.1:` + port + `\r\n\r\n'`
	tries := map[string]string{
		"/dev/tcp address": `exec 3<>/dev/tcp/127.0.0.1/` + port + ` && ` + get + ` >&3 && cat <&3`,
		"/dev/tcp name":    `exec 3<>/dev/tcp/localhost/` + port + ` && ` + get + ` >&3 && cat <&3`,
		"python socket": `python3 -c 'import socket,sys; c=socket.create_connection(("127.0.0.1",` + port + `),3); ` +
			`c.sendall(b"GET / HTTP/1.0\r\nHost: 127.0.0.1:` + port + `\r\n\r\n"); sys.stdout.write(c.recv(100).decode())'`,
	}
	if _, err := exec.LookPath("curl"); err == nil {
		tries["curl"] = `curl -s -m 3 -i 'http://127.0.0.1:` + port + `/?token=` + s.token + `'`
		tries["curl, no proxy"] = `curl -s -m 3 -i --noproxy '*' 'http://127.0.0.1:` + port + `/?token=` + s.token + `'`
	}
	env := append(os.Environ(), "HOOKCTL_HOME="+home, "XDG_CONFIG_HOME=")
	runIn := func(argv []string, script string) (string, error) {
		cmd := exec.Command(argv[0], append(argv[1:], "bash", "--noprofile", "--norc", "-c", script)...)
		cmd.Dir, cmd.Env = project, env
		timer := time.AfterFunc(15*time.Second, func() { cmd.Process.Kill() })
		defer timer.Stop()
		out, err := cmd.CombinedOutput()
		return string(out), err
	}
	profiles := map[string][]string{
		"read-only": {bin, "sandbox", "--session", sessionA, "--"},
		"edit":      {bin, "sandbox", "--profile", "edit", "--session", editSession, "--project", project, "--"},
	}
	probe := exec.Command(bin, "sandbox", "--probe")
	probe.Env = env
	if out, err := probe.CombinedOutput(); err != nil {
		// No sandbox on this machine: the agent's shell runs on the policy alone, and the test
		// proves nothing (docs/dashboard.md says what holds then).
		t.Skipf("no sandbox here: %v %s", err, out)
	}
	for name, argv := range profiles {
		for what, script := range tries {
			out, err := runIn(argv, script)
			if err == nil || strings.Contains(out, "HTTP/1.") {
				t.Errorf("%s profile, %s: reached the dashboard (err %v): %.300s", name, what, err, out)
			}
			t.Logf("%s profile, %s: %v: %.160s", name, what, err, strings.TrimSpace(out))
		}
	}
	if n := counted.Accepted(); n != 0 {
		t.Errorf("the dashboard accepted %d connection(s) from the sandboxes", n)
	}
	out, err := runIn([]string{"env"}, tries["/dev/tcp address"])
	if err != nil || !strings.Contains(out, " 303 See Other") || counted.Accepted() == 0 {
		t.Fatalf("outside the sandbox the script does not reach the dashboard (%v): %.300s", err, out)
	}
}

// TestExecutableKeepsTheTokenToTheTerminal: hookctl dashboard prints the address with the token
// on its standard output and writes it nowhere under hookctl's home; inside an agent client's
// session (its environment says so) it refuses to start and prints no token.
func TestExecutableKeepsTheTokenToTheTerminal(t *testing.T) {
	bin := testbin.Hookctl(t)
	home := t.TempDir()
	plant(t, home, "")
	env := append(os.Environ(), "HOOKCTL_HOME="+home, "XDG_CONFIG_HOME=", "CLAUDE_CODE_SESSION_ID=")

	inside := exec.Command(bin, "dashboard")
	inside.Env = append(env, "CLAUDE_CODE_SESSION_ID="+sessionA)
	out, err := inside.CombinedOutput()
	if err == nil || !strings.Contains(string(out), "inside the agent session") || strings.Contains(string(out), "token=") {
		t.Errorf("inside a session: %v %s", err, out)
	}

	cmd := exec.Command(bin, "dashboard")
	cmd.Env = env
	stdout, _ := cmd.StdoutPipe()
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cmd.Process.Kill(); cmd.Wait() })
	line, err := bufio.NewReader(stdout).ReadString('\n')
	if err != nil {
		t.Fatal(err)
	}
	_, tok, ok := strings.Cut(strings.TrimSpace(line), "/?token=")
	if !ok || len(tok) < 40 || !strings.HasPrefix(line, "hookctl dashboard: http://127.0.0.1:") {
		t.Fatalf("first line %q", line)
	}
	filepath.WalkDir(home, func(p string, d fs.DirEntry, err error) error {
		if err == nil && d.Type().IsRegular() {
			if b, _ := os.ReadFile(p); strings.Contains(string(b), tok) {
				t.Errorf("%s holds the token", p)
			}
		}
		return nil
	})
}
