//go:build linux

package main

import (
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/hookctl/hookctl/fixtures/hostile"
	"github.com/hookctl/hookctl/internal/loopback"
)

// world is a snapshot of everything under the roots (fixtures/hostile: names, types, modes,
// contents, link targets, files' modification times), but the sandbox's scratch directories
// in hookctl's home (home/.config/hookctl/scratch), the one place a command may write.
func world(t *testing.T, roots ...string) hostile.State {
	t.Helper()
	st, err := hostile.Snapshot(roots...)
	if err != nil {
		t.Fatal(err)
	}
	for p := range st {
		if _, rest, ok := strings.Cut(p, "/.config/hookctl/scratch"); ok && (rest == "" || rest[0] == '/') {
			delete(st, p)
		}
	}
	return st
}

// changes lists what differs between two snapshots, or "" if nothing does.
func changes(before, after hostile.State) string {
	return strings.Join(hostile.Diff(before, after), "\n")
}

// sandboxWorld is a project, a home and hookctl's home for sandboxed commands to attack, and
// listeners on every kind of socket that count what reaches them.
type sandboxWorld struct {
	bin, project, home, hookctlHome, outside  string
	tcp, udp, unixStream, unixDgram, abstract string
	reached                                   atomic.Int32
	env                                       []string
}

func newSandboxWorld(t *testing.T) *sandboxWorld {
	t.Helper()
	requireTool(t, "bash")
	requireTool(t, "python3")
	w := &sandboxWorld{bin: hookctlBinary(t), project: t.TempDir(), home: t.TempDir(), outside: t.TempDir()}
	w.hookctlHome = filepath.Join(w.home, ".config", "hookctl")
	os.MkdirAll(filepath.Join(w.hookctlHome, "sessions"), 0o700)
	os.WriteFile(filepath.Join(w.hookctlHome, "config.toml"), []byte("default_mode = \"read-only\"\n"), 0o600)
	os.WriteFile(filepath.Join(w.hookctlHome, "sessions", "s.json"), []byte("{}\n"), 0o600)
	os.WriteFile(filepath.Join(w.project, "existing"), []byte("data\n"), 0o644)
	os.WriteFile(filepath.Join(w.home, ".bashrc"), []byte("# rc\n"), 0o644)
	git := exec.Command("git", "init", "-q", w.project)
	if out, err := git.CombinedOutput(); err != nil {
		t.Fatalf("git init: %v %s", err, out)
	}

	count := func(c net.Conn) { w.reached.Add(1); c.Close() }
	listen := func(network, addr string) string {
		l := loopback.Listen(t, network, addr)
		loopback.Go(l, count)
		return l.Addr().String()
	}
	packets := func(network, addr string) string {
		c, err := net.ListenPacket(network, addr)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { c.Close() })
		go func() {
			buf := make([]byte, 64)
			for {
				if _, _, err := c.ReadFrom(buf); err != nil {
					return
				}
				w.reached.Add(1)
			}
		}()
		return c.LocalAddr().String()
	}
	w.tcp = listen("tcp", "127.0.0.1:0")
	w.unixStream = listen("unix", filepath.Join(w.outside, "agent.sock"))
	w.abstract = listen("unix", fmt.Sprintf("@hookctl-test-%d", os.Getpid()))
	w.udp = packets("udp", "127.0.0.1:0")
	w.unixDgram = packets("unixgram", filepath.Join(w.outside, "log.sock"))
	w.env = append(os.Environ(), "HOME="+w.home, "HOOKCTL_HOME="+w.hookctlHome, "XDG_CONFIG_HOME=")
	return w
}

// run runs script under hookctl sandbox, as the hook's rewrite does, in the project.
func (w *sandboxWorld) run(t *testing.T, script string) (string, error) {
	t.Helper()
	cmd := exec.Command(w.bin, "sandbox", "--session", "test", "--", "bash", "--noprofile", "--norc", "-c", script)
	cmd.Dir = w.project
	cmd.Env = w.env
	done := make(chan struct{})
	time.AfterFunc(10*time.Second, func() {
		select {
		case <-done:
		default:
			cmd.Process.Kill()
		}
	})
	out, err := cmd.CombinedOutput()
	close(done)
	return string(out), err
}

// TestSandboxRefusesWritesAndNetwork runs writing and connecting commands directly under
// hookctl sandbox: each must fail, the project, the home, hookctl's home and the outside
// directory must be unchanged, and no listener reached.
func TestSandboxRefusesWritesAndNetwork(t *testing.T) {
	w := newSandboxWorld(t)
	py := func(code string) string { return "python3 -c " + shellQuote(code) }
	host, port, _ := net.SplitHostPort(w.tcp)
	uhost, uport, _ := net.SplitHostPort(w.udp)
	victim := exec.Command("sleep", "30")
	if err := victim.Start(); err != nil {
		t.Fatal(err)
	}
	defer victim.Process.Kill()

	attempts := []string{
		"touch new",
		"echo x > new",
		"echo x >> existing",
		"mkdir dir",
		"rm existing",
		"mv existing moved",
		"ln -s existing link",
		"ln existing hardlink",
		"cp existing copy",
		"chmod 777 existing",
		"touch -d 2001-01-01 existing",
		"truncate -s 0 existing",
		"mkfifo fifo",
		py(`open("existing", "w")`),
		py(`import os; os.utime("existing", (0, 0))`),
		"git config user.name x",
		"git -c user.name=x -c user.email=x@x commit -q --allow-empty -m x",
		"echo > ~/.bashrc",
		"echo x > " + w.outside + "/new",
		"echo x > /dev/shm/hookctl-test",
		"cat " + w.hookctlHome + "/config.toml",
		"cat " + w.hookctlHome + "/sessions/s.json",
		"echo x > " + w.hookctlHome + "/config.toml",
		"rm " + w.hookctlHome + "/sessions/s.json",
		py(fmt.Sprintf(`import socket; s=socket.socket(); s.connect(("%s", %s))`, host, port)),
		"echo x > /dev/tcp/" + host + "/" + port,
		py(fmt.Sprintf(`import socket; s=socket.socket(socket.AF_INET, socket.SOCK_DGRAM); s.sendto(b"x", ("%s", %s))`, uhost, uport)),
		"echo x > /dev/udp/" + uhost + "/" + uport,
		py(fmt.Sprintf(`import socket; s=socket.socket(socket.AF_UNIX); s.connect("%s")`, w.unixStream)),
		py(fmt.Sprintf(`import socket; s=socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM); s.sendto(b"x", "%s")`, w.unixDgram)),
		py(fmt.Sprintf(`import socket; a, b = socket.socketpair(socket.AF_UNIX, socket.SOCK_DGRAM); a.sendto(b"x", "%s")`, w.unixDgram)),
		py(fmt.Sprintf(`import socket; s=socket.socket(socket.AF_UNIX); s.connect("\0%s")`, strings.TrimPrefix(w.abstract, "@"))),
		py(`import socket; socket.socket(socket.AF_NETLINK, socket.SOCK_RAW, 0)`),
		fmt.Sprintf("kill -TERM %d", victim.Process.Pid),
		py(fmt.Sprintf(`import ctypes, sys; sys.exit(0 if ctypes.CDLL(None).ptrace(16, %d, 0, 0) == 0 else 1)`, victim.Process.Pid)), // PTRACE_ATTACH
		// Setting the clock to what it reads: refused inside, harmless if a broken sandbox let it
		// through (this test must never damage the machine it runs on; it runs as root in CI).
		py(`import time; time.clock_settime(time.CLOCK_REALTIME, time.clock_gettime(time.CLOCK_REALTIME))`),
	}
	t.Cleanup(func() { os.Remove("/dev/shm/hookctl-test") })
	if _, err := exec.LookPath("nc"); err == nil {
		attempts = append(attempts, "echo x | nc -u -w1 "+uhost+" "+uport, "echo x | nc -w1 "+host+" "+port,
			"echo x | nc -U "+w.unixStream)
	}
	before := world(t, w.project, w.home, w.outside)
	for _, a := range attempts {
		out, err := w.run(t, a)
		if err == nil {
			t.Errorf("%s: succeeded under the sandbox: %s", a, out)
		}
		if strings.Contains(out, "hookctl sandbox:") {
			t.Errorf("%s: the sandbox did not apply: %s", a, out)
		}
		if after := world(t, w.project, w.home, w.outside); changes(before, after) != "" {
			t.Errorf("%s: changed the world:\n%s", a, changes(before, after))
			before = after
		}
	}
	if n := w.reached.Load(); n != 0 {
		t.Errorf("%d connections or packets reached a listener", n)
	}
	if victim.ProcessState != nil || victim.Process.Signal(syscall.Signal(0)) != nil {
		t.Error("a process outside the sandbox was signalled")
	}
	t.Logf("%d write and network attempts refused", len(attempts))
}

// TestSandboxAllowsReads: what read-only commands need still works inside.
func TestSandboxAllowsReads(t *testing.T) {
	w := newSandboxWorld(t)
	before := world(t, w.project, w.home, w.outside)
	for _, c := range []struct{ script, want string }{
		{"cat existing", "data"},
		{"ls -a ~", ".bashrc"},
		{"ls /", "usr"},
		{"ls " + w.hookctlHome, "config.toml"}, // names only; contents stay hidden
		{"git status --short; echo ok", "ok"},
		{"echo kept > \"$TMPDIR/f\" && cat \"$TMPDIR/f\"", "kept"},
		{"ls /nonexistent 2>/dev/null; echo ok", "ok"},
		{"cat <(echo substituted)", "substituted"},
		{"cat <<'EOF'\nheredoc\nEOF", "heredoc"},
		{"printf 'b\\na\\n' | sort | head -1", "a"},
		{"echo \"$TMPDIR\"", filepath.Join(w.hookctlHome, "scratch", "test")},
		// No capabilities, even for root, none to regain, and no new privileges.
		{"grep -E '^(CapEff|CapPrm|CapBnd|CapAmb|NoNewPrivs)' /proc/self/status | tr -s '\\t' ' '", "CapPrm: 0000000000000000\nCapEff: 0000000000000000\nCapBnd: 0000000000000000\nCapAmb: 0000000000000000\nNoNewPrivs: 1"},
	} {
		out, err := w.run(t, c.script)
		if err != nil || !strings.Contains(out, c.want) {
			t.Errorf("%q: %v\n%s\nwant %q", c.script, err, out, c.want)
		}
	}
	if d := changes(before, world(t, w.project, w.home, w.outside)); d != "" {
		t.Errorf("reads changed the world:\n%s", d)
	}
}

// TestSandboxEnvironment: the shell starts clean: no start-up file from BASH_ENV, no exported
// function standing in for a program.
func TestSandboxEnvironment(t *testing.T) {
	w := newSandboxWorld(t)
	rc := filepath.Join(w.outside, "rc")
	os.WriteFile(rc, []byte("echo RC-RAN\n"), 0o644)
	w.env = append(w.env, "BASH_ENV="+rc, "ENV="+rc, "BASH_FUNC_ls%%=() { echo FUNCTION-RAN; }", "CDPATH=/")
	out, err := w.run(t, "ls existing; cd usr 2>&1 || echo no-cdpath")
	if err != nil || strings.Contains(out, "RC-RAN") || strings.Contains(out, "FUNCTION-RAN") || !strings.Contains(out, "no-cdpath") {
		t.Errorf("%v: %s", err, out)
	}
}

// TestPolicyOnlyMachine runs the shipped binary on a kernel without Landlock (see
// withoutLandlock): the probe says so, admitted commands run as judged, and the user is told
// in every place they look; with sandbox = "require" every command is refused instead.
func TestPolicyOnlyMachine(t *testing.T) {
	bin := hookctlBinary(t)
	home, hh, env := userHome(t)
	run := func(stdin string, args ...string) (string, int) {
		t.Helper()
		cmd := withoutLandlock(t, append([]string{bin}, args...)...)
		cmd.Env = env
		cmd.Stdin = strings.NewReader(stdin)
		out, err := cmd.CombinedOutput()
		code := 0
		if ee, ok := err.(*exec.ExitError); ok {
			code = ee.ExitCode()
		}
		return string(out), code
	}
	if out, code := run("", "sandbox", "--probe"); code != exitDenied || !strings.Contains(out, "no sandbox: the kernel has no Landlock (function not implemented)") {
		t.Errorf("probe: exit %d\n%s", code, out)
	}
	// The launcher still runs it, for the environment allowlist and the time bound (issue 23).
	if out, _ := run("", "check", "--", "ls -la"); !strings.Contains(out, " --profile policy-only --session '' --timeout 2m0s -- bash --noprofile --norc -c 'ls -la'\nunder: policy only: the kernel has no Landlock") {
		t.Errorf("check: %s", out)
	}
	if out, _ := run(`{"session_id":"s1"}`, "statusline"); strings.TrimSpace(out) != "🔒 READ-ONLY (⚠ policy only for files, seccomp holds: hookctl doctor)" {
		t.Errorf("status line: %q", out)
	}
	start := `{"session_id":"s1","hook_event_name":"SessionStart","source":"startup","cwd":"` + home + `"}`
	if out, _ := run(start, "hook"); !strings.Contains(out, "no OS sandbox here") || !strings.Contains(out, "per-program rules alone") {
		t.Errorf("session start: %s", out)
	}
	if out, _ := run("", "doctor"); !strings.Contains(out, "⚠ no OS sandbox here") || !strings.Contains(out, "to get it: run a kernel with Landlock") {
		t.Errorf("doctor: %s", out)
	}

	os.WriteFile(filepath.Join(hh, "config.toml"), []byte("sandbox = \"require\"\n"), 0o600)
	if out, code := run("", "check", "--", "ls -la"); code != exitDenied || !strings.Contains(out, `requires the sandbox (sandbox = "require")`) {
		t.Errorf("check under require: exit %d %s", code, out)
	}
	if out, _ := run(`{"session_id":"s1"}`, "statusline"); strings.TrimSpace(out) != "🔒 READ-ONLY (⚠ no sandbox: shell refused)" {
		t.Errorf("status line under require: %q", out)
	}
	if out, code := run("", "doctor"); code == exitOK || !strings.Contains(out, "every shell command is refused") {
		t.Errorf("doctor under require: exit %d %s", code, out)
	}
}

// TestSandboxFailingAtExecRefuses: the probe said yes on this machine, then the kernel says no
// when the command runs (here: Landlock taken away). The launcher must not run the command
// without the sandbox, and must not forget the probe: a failure a command could cause is never
// a reason for the next one to run without it.
func TestSandboxFailingAtExecRefuses(t *testing.T) {
	bin := hookctlBinary(t)
	_, hh, env := userHome(t)
	check := exec.Command(bin, "check", "--", "ls -la")
	check.Env = env
	out, _ := check.Output()
	runs, ok := strings.CutPrefix(strings.TrimPrefix(string(out), "allow\n"), "runs: ")
	runs, _, _ = strings.Cut(runs, "\n")
	if !ok || !launched(runs) {
		t.Fatalf("not sandboxed here: %s", out)
	}
	if _, err := os.Stat(filepath.Join(hh, "sandbox.json")); err != nil {
		t.Fatalf("no probe cache: %v", err)
	}
	marker := filepath.Join(t.TempDir(), "ran")
	sh := withoutLandlock(t, "bash", "--noprofile", "--norc", "-c", strings.Replace(runs, "ls -la", "ls -la; echo ran", 1)+" > "+marker)
	sh.Env = env
	got, err := sh.CombinedOutput()
	ee, _ := err.(*exec.ExitError)
	if ee == nil || ee.ExitCode() != exitSandboxFailed || !strings.Contains(string(got), "the sandbox could not be applied, so the command did not run") {
		t.Errorf("exit %v: %s", err, got)
	}
	if b, _ := os.ReadFile(marker); len(b) != 0 {
		t.Errorf("the command ran without the sandbox: %s", b)
	}
	// Nothing a failure does turns the sandbox off: the probe's answer stays, and the next
	// command is sent to the sandbox again (never around it).
	if _, err := os.Stat(filepath.Join(hh, "sandbox.json")); err != nil {
		t.Errorf("the probe's cache was forgotten after the sandbox failed: %v", err)
	}
	again := exec.Command(bin, "check", "--", "ls -la")
	again.Env = env
	if out, _ := again.Output(); !launched(string(out)) {
		t.Errorf("after a failure the next command is not sandboxed: %s", out)
	}
}

// TestReadOnlyRunner: a runner the user's config names runs in read-only mode, in the sandbox,
// with its caches in the scratch directory; a recipe that writes into the repository fails,
// which is the point; the same command is refused where there is no sandbox, and a command
// that only starts like the runner is refused everywhere. (make stands in for go test, cargo
// test and the rest: the mechanism is the same, and it needs no compiler cache warmed.)
func TestReadOnlyRunner(t *testing.T) {
	requireTool(t, "make")
	bin := hookctlBinary(t)
	// MAKEFLAGS and MAKELEVEL: make test runs this test, and an inner make would say where it is.
	home, hh, env := userHome(t, "MAKEFLAGS=", "MAKELEVEL=", "MFLAGS=")
	os.MkdirAll(hh, 0o700)
	os.WriteFile(filepath.Join(hh, "config.toml"), []byte(`read_only_runners = ["make test", "make check *"]`+"\n"), 0o600)
	project := t.TempDir()
	os.WriteFile(filepath.Join(project, "Makefile"), []byte("test:\n\t@cat data\n\t@echo \"cache=$$GOCACHE\"\n\techo x > written\n"+
		"check:\n\t@echo checked $(T)\n"), 0o644)
	os.WriteFile(filepath.Join(project, "data"), []byte("read-me\n"), 0o644)
	check := func(env []string, command string) (string, string) {
		t.Helper()
		cmd := exec.Command(bin, "check", "--", command)
		cmd.Env = env
		out, _ := cmd.Output()
		runs, _, _ := strings.Cut(strings.TrimPrefix(string(out), "allow\nruns: "), "\n")
		return string(out), runs
	}
	check(env, "ls") // the probe writes its cache before the world is taken
	before := world(t, project, home)
	scratch := filepath.Join(hh, "scratch")
	for _, c := range []struct {
		command string
		want    []string
	}{
		{"make test", []string{"read-me", "cache=" + scratch, "written: Permission denied"}},
		{"make check T=one 2>&1 | head -1", []string{"checked one"}},
	} {
		out, runs := check(env, c.command)
		if !strings.HasPrefix(out, "allow\n") || !launched(runs) {
			t.Fatalf("%s: %s", c.command, out)
		}
		sh := exec.Command("bash", "--noprofile", "--norc", "-c", runs)
		sh.Dir, sh.Env = project, env
		got, _ := sh.CombinedOutput()
		for _, w := range c.want {
			if !strings.Contains(string(got), w) {
				t.Errorf("%s: want %q in\n%s", c.command, w, got)
			}
		}
	}
	if d := changes(before, world(t, project, home)); d != "" {
		t.Errorf("the runner changed the world:\n%s", d)
	}
	for _, refused := range []string{"make test -f other.mk", "make test; touch x", "make", "make test > out", "make tests"} {
		if out, _ := check(env, refused); !strings.HasPrefix(out, "deny:") {
			t.Errorf("%s: %s", refused, out)
		}
	}
	// A machine without the sandbox (its own hookctl home: the probe is cached per machine).
	other := filepath.Join(t.TempDir(), "hookctl")
	os.MkdirAll(other, 0o700)
	os.WriteFile(filepath.Join(other, "config.toml"), []byte(`read_only_runners = ["make test"]`+"\n"), 0o600)
	cmd := withoutLandlock(t, bin, "check", "--", "make test")
	cmd.Env = append(env, "HOOKCTL_HOME="+other)
	if out, _ := cmd.Output(); !strings.Contains(string(out), "run only in the sandbox, and it cannot apply") {
		t.Errorf("a runner on a machine without the sandbox: %s", out)
	}
}

// TestProbeCache: the hook trusts the cached probe only for the machine and build it was made
// on; a cache edited to say "no sandbox" downgrades visibly (policy only, with its reason), and
// one from another kernel is probed again.
func TestProbeCache(t *testing.T) {
	bin := hookctlBinary(t)
	hh := t.TempDir()
	env := append(os.Environ(), "HOOKCTL_HOME="+hh)
	check := func() string {
		cmd := exec.Command(bin, "check", "--", "ls")
		cmd.Env = env
		out, _ := cmd.Output()
		return string(out)
	}
	if out := check(); !strings.Contains(out, "under: sandbox:") {
		t.Fatalf("no sandbox here: %s", out)
	}
	cache := filepath.Join(hh, "sandbox.json")
	b, _ := os.ReadFile(cache)
	// A probe that fails where the sandbox held before: refused, never run without it.
	edited := strings.Replace(string(b), `"available":true`, `"available":false,"reason":"edited by hand"`, 1)
	os.WriteFile(cache, []byte(edited), 0o600)
	if out := check(); !strings.HasPrefix(out, "deny:") || !strings.Contains(out, "held on this machine before and cannot apply now: edited by hand") {
		t.Errorf("a failing sandbox: %s", out)
	}
	// Without the memory of it having held (the user's `hookctl sandbox --forget`, then a
	// probe that finds none): policy only, said so.
	edited = regexp.MustCompile(`"(edit_)?held_since":"[^"]*",`).ReplaceAllString(edited, "")
	os.WriteFile(cache, []byte(edited), 0o600)
	if out := check(); !strings.Contains(out, "under: policy only: edited by hand") {
		t.Errorf("an edited cache: %s", out)
	}
	other := strings.Replace(edited, `"machine":"`, `"machine":"another kernel `, 1)
	os.WriteFile(cache, []byte(other), 0o600)
	if out := check(); !strings.Contains(out, "under: sandbox:") {
		t.Errorf("a cache from another machine was trusted: %s", out)
	}
}

// TestSandboxHidesCredentials: inside the read-only sandbox the user's credential stores cannot
// be read, whatever the command (the sensitive-file rule's defence in depth), while the public
// files beside them still can.
func TestSandboxHidesCredentials(t *testing.T) {
	w := newSandboxWorld(t)
	for _, f := range []string{".aws/credentials", ".aws/config", ".ssh/id_rsa", ".ssh/deploy", ".ssh/known_hosts", ".ssh/id_rsa.pub", ".netrc", ".gnupg/secring.gpg", ".config/gh/hosts.yml"} {
		os.MkdirAll(filepath.Dir(filepath.Join(w.home, f)), 0o700)
		if err := os.WriteFile(filepath.Join(w.home, f), []byte("SECRET "+f+"\n"), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	for _, f := range []string{".aws/credentials", ".ssh/id_rsa", ".ssh/deploy", ".netrc", ".gnupg/secring.gpg", ".config/gh/hosts.yml"} {
		if out, _ := exec.Command("cat", filepath.Join(w.home, f)).CombinedOutput(); !strings.Contains(string(out), "SECRET") {
			t.Fatalf("control: cat %s outside the sandbox printed %q", f, out)
		}
		out, err := w.run(t, "cat ~/"+f)
		if err == nil || strings.Contains(out, "SECRET") {
			t.Errorf("cat ~/%s in the sandbox: %v %q, want it refused", f, err, out)
		}
	}
	if out, err := w.run(t, "grep -r SECRET ~ 2>/dev/null; true"); err != nil || strings.Contains(out, "credentials:") || strings.Contains(out, "id_rsa:") || strings.Contains(out, "deploy:") || strings.Contains(out, "hosts.yml:") {
		t.Errorf("a walk of the home in the sandbox printed a credential: %v %q", err, out)
	}
	for _, f := range []string{".aws/config", ".ssh/known_hosts", ".ssh/id_rsa.pub"} {
		if out, err := w.run(t, "cat ~/"+f); err != nil || !strings.Contains(out, "SECRET") {
			t.Errorf("cat ~/%s in the sandbox: %v %q, want it read", f, err, out)
		}
	}
}

// TestSandboxExplainsGoOffline (issue 30): go list -m all in a module whose dependency is not in
// the module cache fails in the read-only sandbox with go's "module lookup disabled by
// GOPROXY=off", which names neither hookctl nor what to do; the launcher adds one line that does.
// Control: the same command outside the launcher fails without it.
func TestSandboxExplainsGoOffline(t *testing.T) {
	if _, err := exec.LookPath("go"); err != nil {
		t.Fatal("go is not installed")
	}
	bin := hookctlBinary(t)
	mod := t.TempDir()
	os.WriteFile(filepath.Join(mod, "go.mod"), []byte("module example.com/m\n\ngo 1.22\n\nrequire example.com/never/cached v1.2.3\n"), 0o644)
	os.WriteFile(filepath.Join(mod, "main.go"), []byte("package main\n\nfunc main() {}\n"), 0o644)
	script := "GOTOOLCHAIN=local GOFLAGS=-buildvcs=false GOPROXY=off go list -m all"
	env := append(os.Environ(), "HOOKCTL_HOME="+t.TempDir(), "GOFLAGS=", "GOMODCACHE="+t.TempDir())
	control := exec.Command("bash", "--noprofile", "--norc", "-c", script)
	control.Dir, control.Env = mod, env
	out, err := control.CombinedOutput()
	if err == nil || !strings.Contains(string(out), "GOPROXY=off") || strings.Contains(string(out), "hookctl") {
		t.Fatalf("control: %v\n%s", err, out)
	}
	cmd := exec.Command(bin, "sandbox", "--session", "s1", "--", "bash", "--noprofile", "--norc", "-c", script)
	cmd.Dir, cmd.Env = mod, env
	out, err = cmd.CombinedOutput()
	if err == nil || !strings.Contains(string(out), "hookctl: go ran in hookctl's read-only sandbox with GOPROXY=off") ||
		!strings.Contains(string(out), "go mod download") {
		t.Errorf("in the sandbox: %v\n%s", err, out)
	}
}
