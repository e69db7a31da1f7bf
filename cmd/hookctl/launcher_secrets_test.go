//go:build linux

package main

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// launcherWorld is a directory the given user can run hookctl from: its own copy of the binary,
// a home and hookctl's home.
type launcherWorld struct {
	bin, home, hh string
	user          *syscall.Credential
}

func newLauncherWorld(t *testing.T, user *syscall.Credential) *launcherWorld {
	t.Helper()
	requireTool(t, "bash")
	if os.Geteuid() != 0 {
		t.Skip("the test switches users: it runs as root")
	}
	root := machineDir(t, "hookctl-launcher-test-")
	w := &launcherWorld{bin: filepath.Join(root, "hookctl"), home: filepath.Join(root, "home"), user: user}
	w.hh = filepath.Join(w.home, ".config", "hookctl")
	b, err := os.ReadFile(hookctlBinary(t))
	if err != nil {
		t.Fatal(err)
	}
	os.WriteFile(w.bin, b, 0o755)
	os.MkdirAll(w.hh, 0o700)
	if user != nil {
		filepath.Walk(w.home, func(p string, _ os.FileInfo, _ error) error { return os.Lchown(p, int(user.Uid), int(user.Gid)) })
	}
	return w
}

// run runs argv as the world's user with env on top of a plain environment, killed at limit; it
// returns the output, the exit code and how long it took.
func (w *launcherWorld) run(t *testing.T, limit time.Duration, env []string, argv ...string) (string, int, time.Duration) {
	t.Helper()
	// The clock starts before the deadline's: a run killed at limit took at least limit (the
	// control of TestLauncherBound read 2.9967 s for a loop killed at 3 s).
	start := time.Now()
	ctx, cancel := context.WithTimeout(context.Background(), limit)
	defer cancel()
	cmd := exec.CommandContext(ctx, argv[0], argv[1:]...)
	cmd.Dir = w.home
	cmd.Env = append([]string{"PATH=" + os.Getenv("PATH"), "HOME=" + w.home, "HOOKCTL_HOME=" + w.hh, "TMPDIR=" + w.home, "LANG=C.UTF-8"}, env...)
	cmd.SysProcAttr = &syscall.SysProcAttr{Credential: w.user, Setpgid: true}
	cmd.Cancel = func() error { return syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL) }
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	err := cmd.Run()
	took := time.Since(start)
	code := 0
	if ee, ok := err.(*exec.ExitError); ok {
		code = ee.ExitCode()
	}
	return out.String(), code, took
}

// launcherCanaries are secrets in the environment hookctl's launcher is started with: named like
// secrets, and one whose name says nothing but whose value is a GitHub token.
var launcherCanaries = []string{"GITHUB_TOKEN=canary-env-1", "SONAR_LOGIN=canary-env-2", "DEPLOY_PSW=canary-env-3",
	"APP_SETTING=ghp_canaryenv4abcdefghijklmnopqrstuvwxyz0123", "GOPROXY=https://u:canary-env-5@proxy.example"}

// envProbe prints the command's environment, every /proc environment and command line it can
// read, and the processes it sees: what a read-only runner's own code could do.
const envProbe = `env; for f in /proc/[0-9]*/environ /proc/[0-9]*/cmdline; do tr '\0' '\n' < "$f"; echo; done 2>/dev/null; ps -A -o pid,comm`

// TestLauncherEnvironment runs hookctl's read-only and policy-only launches for real, as root and
// as an unprivileged user (issue 23, item 1): the command's environment is the allowlist, no
// secret of the launcher's is in it or in any /proc it can read, and no other process is in
// sight, while the same probe without the launcher prints every canary (the control), and a
// process outside, with a password on its command line, runs the whole time.
func TestLauncherEnvironment(t *testing.T) {
	forUsers(t, func(t *testing.T, user *syscall.Credential) {
		w := newLauncherWorld(t, user)
		outside := exec.Command("bash", "-c", "sleep 600; :", "service", "--password=canary-cmdline")
		if err := outside.Start(); err != nil {
			t.Fatal(err)
		}
		defer func() { outside.Process.Kill(); outside.Wait() }()
		control, _, _ := w.run(t, 20*time.Second, launcherCanaries, "bash", "-c", envProbe)
		for _, c := range []string{"canary-env-1", "canary-env-2", "canary-env-3", "canary-env-5", "canary-cmdline"} {
			if !strings.Contains(control, c) {
				t.Errorf("control: %s not printed without the launcher; the probe proves nothing", c)
			}
		}
		for _, profile := range []string{"read-only", "policy-only"} {
			// Where no kernel rule holds (policy only), only the judge keeps a command from
			// other processes' /proc: the launcher answers for the command's own environment.
			probe := envProbe
			if profile == "policy-only" {
				probe = "env"
			}
			out, code, _ := w.run(t, 20*time.Second, launcherCanaries, w.bin, "sandbox", "--profile", profile, "--timeout", "10s", "--", "bash", "--noprofile", "--norc", "-c", probe)
			if code != 0 {
				t.Errorf("%s: exit %d\n%s", profile, code, out)
			}
			for _, c := range []string{"canary-env", "canary-cmdline", "ghp_"} {
				if strings.Contains(out, c) {
					t.Errorf("%s: printed %s:\n%s", profile, c, out)
				}
			}
			for _, want := range []string{"PATH=", "HOME=" + w.home, "TMPDIR="} {
				if !strings.Contains(out, want) {
					t.Errorf("%s: the command's environment lacks %s:\n%s", profile, want, out)
				}
			}
			if profile == "read-only" && (strings.Contains(out, "service") || !strings.Contains(out, "      1 ")) {
				// In its own process namespace the command is process 1, and sees no process
				// outside.
				t.Errorf("read-only: the command sees processes outside its namespace:\n%s", out)
			}
		}
	})
}

// TestLauncherBound: an admitted command that never ends is stopped at the launcher's time
// bound, says so on its standard error with status 124, and leaves nothing running behind it,
// not even a child that left its process group (its process namespace ends with it); the
// control, the same loop without the launcher, is still running when the test kills it.
func TestLauncherBound(t *testing.T) {
	forUsers(t, func(t *testing.T, user *syscall.Credential) {
		w := newLauncherWorld(t, user)
		name := "hookctl-orphan-" + strings.ReplaceAll(filepath.Base(w.home), "-", "")
		script := "(setsid bash -c 'exec -a " + name + " sleep 30' &); awk 'BEGIN{while(1){}}'"
		if _, _, took := w.run(t, 3*time.Second, nil, "bash", "-c", "awk 'BEGIN{while(1){}}'"); took < 3*time.Second {
			t.Errorf("control: the loop ended after %v without the launcher", took)
		}
		for _, profile := range []string{"read-only", "policy-only"} {
			out, code, took := w.run(t, 30*time.Second, nil, w.bin, "sandbox", "--profile", profile, "--timeout", "2s", "--", "bash", "--noprofile", "--norc", "-c", script)
			if code != 124 || !strings.Contains(out, "hookctl: the command was stopped after 2s") || took > 10*time.Second {
				t.Errorf("%s: exit %d after %v, output %q", profile, code, took, out)
			}
			if left := processesNamed(name); len(left) > 0 {
				t.Errorf("%s: a process the command started outlived it: %v", profile, left)
				for _, pid := range left {
					syscall.Kill(pid, syscall.SIGKILL)
				}
			}
		}
	})
}

// processesNamed are the processes whose command line holds name.
func processesNamed(name string) []int {
	var out []int
	entries, _ := os.ReadDir("/proc")
	for _, e := range entries {
		var pid int
		if _, err := fmt.Sscan(e.Name(), &pid); err != nil {
			continue
		}
		if b, err := os.ReadFile(filepath.Join("/proc", e.Name(), "cmdline")); err == nil && strings.Contains(string(b), name) {
			out = append(out, pid)
		}
	}
	return out
}
