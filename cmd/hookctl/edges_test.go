//go:build linux

package main

import (
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// Issue 22: the sandboxes hold at their edges. Each test runs its attacks for real, through
// the rewrite the hook answers with (what the client runs), as root and as an unprivileged
// user, each beside a control that shows the attack's effect without hookctl.

// forEditWorlds runs f in a fresh edit world as root and as the unprivileged user.
func forEditWorlds(t *testing.T, f func(t *testing.T, w *editWorld)) {
	for _, u := range []struct {
		name string
		cred *syscall.Credential
	}{{"root", nil}, {"unprivileged", nobody}} {
		t.Run(u.name, func(t *testing.T) { f(t, newEditWorld(t, u.cred)) })
	}
}

// viaHook sends command through the hook in the session's current mode and runs what the client
// would run (the rewrite), as the world's user, in the project, for at most 20 s. refused: the
// hook refused it (nothing ran).
func (w *editWorld) viaHook(t *testing.T, command string) (out string, err error, refused bool) {
	t.Helper()
	runs, refused := w.throughHook(t, command)
	if refused {
		return "", nil, true
	}
	if !strings.Contains(runs, " sandbox ") {
		t.Errorf("%s: the hook passed it unsandboxed: %s", command, runs)
		return "", errors.New("unsandboxed"), false
	}
	out, err = w.shell(t, runs)
	return out, err, false
}

// shell runs script in a clean bash as the world's user, in the project, for at most 20 s.
func (w *editWorld) shell(t *testing.T, script string) (string, error) {
	t.Helper()
	sh := exec.Command("bash", "--noprofile", "--norc", "-c", script)
	sh.Dir, sh.Env = w.project, w.env
	sh.SysProcAttr = &syscall.SysProcAttr{Credential: w.user}
	timer := time.AfterFunc(20*time.Second, func() { sh.Process.Kill() })
	defer timer.Stop()
	b, err := sh.CombinedOutput()
	return string(b), err
}

// mode sets the session's mode as the user does.
func (w *editWorld) mode(t *testing.T, on bool) {
	t.Helper()
	verb := "off"
	if on {
		verb = "on"
	}
	if out, err := w.cli("readonly", verb, "--session", w.session); err != nil {
		t.Fatalf("readonly %s: %v %s", verb, err, out)
	}
}

// chown gives paths to the world's user.
func (w *editWorld) chown(paths ...string) {
	if w.user == nil {
		return
	}
	for _, p := range paths {
		os.Lchown(p, int(w.user.Uid), int(w.user.Gid))
	}
}

// TestFallbackCannotBeTriggered: nothing a command can write turns a sandbox that held into no
// sandbox. Issue 22's attack: in edit mode, `ln -s / ~/.cargo/credentials.toml`; a resolver
// that follows it hides /, the probe fails, and from then on commands ran unsandboxed
// (NoNewPrivs 0). Here the link is planted, the probe is run again (doctor), and a read-only
// command goes through the hook: it runs sandboxed or is refused naming the link; never
// without the sandbox.
func TestFallbackCannotBeTriggered(t *testing.T) {
	forEditWorlds(t, func(t *testing.T, w *editWorld) {
		const probe = "grep NoNewPrivs /proc/self/status"
		// Control: the same command without hookctl shows no sandbox, and the link resolves to /.
		if out, _ := w.shell(t, probe); !strings.Contains(out, "NoNewPrivs:\t0") {
			t.Fatalf("control: %s", out)
		}
		cargo := filepath.Join(w.home, ".cargo")
		os.MkdirAll(cargo, 0o755)
		link := filepath.Join(cargo, "credentials.toml")
		os.Symlink("/", link)
		w.chown(cargo, link)
		if r, _ := filepath.EvalSymlinks(link); r != "/" {
			t.Fatalf("control: the link resolves to %q", r)
		}
		w.mode(t, true)
		if out, err := w.cli("doctor"); !strings.Contains(out, "read-only commands run in hookctl's OS sandbox") {
			t.Errorf("the probe with the link planted: %v\n%s", err, out)
		}
		out, err, refused := w.viaHook(t, probe)
		var ee *exec.ExitError
		switch {
		case refused:
			t.Errorf("the hook refused a read: the sandbox was taken for failing")
		case strings.Contains(out, "NoNewPrivs:\t0"):
			t.Errorf("ran without the sandbox: %s", out)
		case strings.Contains(out, "NoNewPrivs:\t1"):
		case !errors.As(err, &ee) || ee.ExitCode() != exitSandboxFailed || !strings.Contains(out, link+", which the sandbox hides"):
			t.Errorf("neither sandboxed nor refused naming the link: %v %s", err, out)
		}
		t.Logf("with %s -> /: %q", link, strings.TrimSpace(out))
	})
}
