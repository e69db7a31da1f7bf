//go:build linux

package main

import (
	"bytes"
	"encoding/json"
	"flag"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	ct "github.com/hookctl/hookctl/agents/claude/claudetest"
	"github.com/hookctl/hookctl/internal/loopback"
	"github.com/hookctl/hookctl/retriever/front"
	"github.com/hookctl/hookctl/securerun"
)

var updateGolden = flag.Bool("update-run-golden", false, "rewrite testdata/run-dry-run.golden")

// runWorld is a machine in miniature for hookctl run: a repository (a git work tree with a
// committed file and a link out of it), a sibling project with a secret, the caller's home
// with an SSH key, hookctl's home, and a loopback TCP server that counts who reaches it.
type runWorld struct {
	root, bin, repo, sibling, home, hh, out string
	user                                    *syscall.Credential // nil: root
	env                                     []string
	port                                    int
	reached                                 atomic.Int32
}

func newRunWorld(t *testing.T, user *syscall.Credential) *runWorld {
	t.Helper()
	requireTool(t, "bash")
	requireTool(t, "git")
	if user != nil && os.Geteuid() != 0 {
		t.Skip("switching users needs root")
	}
	root := machineDir(t, "hookctl-run-test-")
	w := &runWorld{root: root, bin: hookctlBinary(t), user: user, repo: filepath.Join(root, "repo"), sibling: filepath.Join(root, "sibling"),
		home: filepath.Join(root, "home"), hh: filepath.Join(root, "home", ".config", "hookctl"), out: filepath.Join(root, "out")}
	for _, d := range []string{w.repo, w.sibling, filepath.Join(w.home, ".ssh")} {
		os.MkdirAll(d, 0o755)
	}
	os.WriteFile(filepath.Join(w.home, ".ssh", "id_rsa"), []byte("SECRET-SSH-KEY\n"), 0o600)
	os.WriteFile(filepath.Join(w.sibling, "secret.txt"), []byte("SECRET-SIBLING\n"), 0o644)
	os.WriteFile(filepath.Join(w.repo, "tracked.txt"), []byte("original\n"), 0o644)
	os.Symlink("../sibling/secret.txt", filepath.Join(w.repo, "escape"))
	git := exec.Command("bash", "-c", "git init -q && git add -A && git -c user.email=t@t -c user.name=t commit -qm init")
	git.Dir = w.repo
	if out, err := git.CombinedOutput(); err != nil {
		t.Fatalf("git: %v %s", err, out)
	}
	if user != nil {
		// The user's own copy of hookctl (the build's directory is closed to it).
		b, _ := os.ReadFile(w.bin)
		worker, _ := os.ReadFile(front.WorkerPath(w.bin))
		w.bin = filepath.Join(root, "bin", "hookctl")
		os.MkdirAll(filepath.Dir(w.bin), 0o755)
		os.WriteFile(w.bin, b, 0o755)
		os.WriteFile(front.WorkerPath(w.bin), worker, 0o755)
		filepath.Walk(root, func(p string, _ os.FileInfo, _ error) error {
			if !strings.HasPrefix(p, filepath.Dir(w.bin)) {
				os.Lchown(p, int(user.Uid), int(user.Gid))
			}
			return nil
		})
	}
	l := loopback.Listen(t, "tcp", "127.0.0.1:0")
	loopback.Go(l, func(net.Conn) { w.reached.Add(1) })
	w.port = l.Addr().(*net.TCPAddr).Port
	w.env = []string{"PATH=/usr/local/bin:/usr/bin:/bin", "HOME=" + w.home, "HOOKCTL_HOME=" + w.hh, "LANG=C.UTF-8", "TERM=dumb"}
	return w
}

// run runs hookctl with args in the repository as the world's user.
func (w *runWorld) run(t *testing.T, env []string, args ...string) (stdout, stderr string, code int) {
	t.Helper()
	cmd := w.command(env, args...)
	var o, e bytes.Buffer
	cmd.Stdout, cmd.Stderr = &o, &e
	timer := time.AfterFunc(30*time.Second, func() { cmd.Process.Kill() })
	defer timer.Stop()
	err := cmd.Run()
	if ee, ok := err.(*exec.ExitError); ok {
		code = ee.ExitCode()
	} else if err != nil {
		t.Fatal(err)
	}
	return o.String(), e.String(), code
}

func (w *runWorld) command(env []string, args ...string) *exec.Cmd {
	cmd := exec.Command(w.bin, args...)
	cmd.Dir, cmd.Env = w.repo, append(append([]string{}, w.env...), env...)
	cmd.SysProcAttr = &syscall.SysProcAttr{Credential: w.user}
	return cmd
}

func (w *runWorld) meta(t *testing.T) *securerun.RunMeta {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(w.out, securerun.MetaName))
	if err != nil {
		t.Fatal(err)
	}
	var m securerun.RunMeta
	if err := json.Unmarshal(b, &m); err != nil {
		t.Fatalf("runmeta.json: %v\n%s", err, b)
	}
	return &m
}

// forUsers runs f as root and as the unprivileged user: the profile needs no privilege, and
// drops root's.
func forUsers(t *testing.T, f func(t *testing.T, user *syscall.Credential)) {
	t.Run("root", func(t *testing.T) {
		if os.Geteuid() != 0 {
			t.Skip("not root")
		}
		f(t, nil)
	})
	t.Run("nobody", func(t *testing.T) { f(t, nobody) })
}

// attemptScript tries, each on its own line, what the profile must refuse, and then writes its
// own output: it prints "ALLOWED name" for any that worked.
const attemptScript = `
home=$1 sibling=$2 port=$3
try() { if eval "$2" >/dev/null 2>&1; then echo "ALLOWED $1"; else echo "refused $1"; fi; }
try write-tracked 'echo x > tracked.txt'
try create-in-repo 'echo x > new.txt'
try remove-in-repo 'rm tracked.txt'
try read-ssh-key 'cat "$home/.ssh/id_rsa"'
try list-home 'ls "$home"'
try read-sibling 'cat "$sibling/secret.txt"'
try follow-symlink 'cat escape'
try read-proc-environ 'cat /proc/1/environ'
try read-shadow 'cat /etc/shadow'
try tcp-loopback 'exec 3<>/dev/tcp/127.0.0.1/$port'
try python-connect '/usr/bin/python3 -c "import socket; socket.create_connection((\"127.0.0.1\", $port), 2)"'
try write-tmp 'echo x > /tmp/hookctl-run-escape-$$'
try write-caller-home 'echo x > "$home/planted"'
echo "result $(cat tracked.txt)" > "$HOOKCTL_RUN_OUT/result.txt"
echo "home $HOME" >> "$HOOKCTL_RUN_OUT/result.txt"
echo done
`

// TestRunRefusesEscapes is issue 12's list, run for real as root and as an unprivileged user:
// a script under the profile tries to write the repository, read an SSH key in the caller's
// home, a sibling project and a symlink out of the root, and connect to a loopback server the
// test runs. Each fails, the world is unchanged, the server saw nothing, and the script's own
// output is in the output directory and in runmeta.json.
func TestRunRefusesEscapes(t *testing.T) {
	forUsers(t, func(t *testing.T, user *syscall.Credential) {
		w := newRunWorld(t, user)
		os.WriteFile(filepath.Join(w.repo, "attempts.sh"), []byte(attemptScript), 0o644)
		if user != nil {
			os.Lchown(filepath.Join(w.repo, "attempts.sh"), int(user.Uid), int(user.Gid))
		}
		// Control: outside the sandbox the reads and the connection work (the script is honest).
		control := exec.Command("bash", "-c", strings.Join(slices.DeleteFunc(strings.Split(attemptScript, "\n"), func(l string) bool {
			return strings.HasPrefix(l, "try ") && !slices.ContainsFunc([]string{"read-ssh-key", "read-sibling", "follow-symlink", "tcp-loopback"},
				func(n string) bool { return strings.HasPrefix(l, "try "+n+" ") }) || strings.Contains(l, "HOOKCTL_RUN_OUT")
		}), "\n"), "control", w.home, w.sibling, fmt.Sprint(w.port))
		control.Dir = w.repo
		control.SysProcAttr = &syscall.SysProcAttr{Credential: user}
		out, _ := control.CombinedOutput()
		// The server counts a connection once it has accepted it, which can come after the
		// control's bash has connected and exited.
		for deadline := time.Now().Add(5 * time.Second); w.reached.Load() < 1 && time.Now().Before(deadline); {
			time.Sleep(10 * time.Millisecond)
		}
		if strings.Count(string(out), "ALLOWED") != 4 || w.reached.Load() != 1 {
			t.Fatalf("control outside the sandbox (%d connections):\n%s", w.reached.Load(), out)
		}
		w.reached.Store(0)
		before := world(t, w.repo, w.sibling, w.home)
		stdout, stderr, code := w.run(t, nil, "run", "--profile", "secure-read-only", "--out", w.out, "--",
			"bash", "attempts.sh", w.home, w.sibling, fmt.Sprint(w.port))
		if code != 0 || !strings.Contains(stdout, "done") {
			t.Fatalf("exit %d\n%s\n%s", code, stdout, stderr)
		}
		lines := strings.Split(strings.TrimSpace(stdout), "\n")
		if len(lines) != 14 {
			t.Errorf("%d lines:\n%s", len(lines), stdout)
		}
		for _, l := range lines {
			if strings.HasPrefix(l, "ALLOWED") {
				t.Errorf("%s under the profile", l)
			}
		}
		if strings.Contains(stdout+stderr, "SECRET") {
			t.Errorf("a secret reached the output:\n%s\n%s", stdout, stderr)
		}
		time.Sleep(200 * time.Millisecond) // a connection is counted once accepted: let a late one show
		if n := w.reached.Load(); n != 0 {
			t.Errorf("the loopback server saw %d connections", n)
		}
		// The probe's cache in hookctl's home is the only change there; the repository, the
		// sibling and the caller's home are otherwise untouched.
		after := world(t, w.repo, w.sibling, w.home)
		for _, d := range strings.Split(changes(before, after), "\n") {
			if d != "" && !strings.Contains(d, filepath.Join(w.home, ".config")) {
				t.Errorf("the run changed the world: %s", d)
			}
		}
		if m, _ := filepath.Glob("/tmp/hookctl-run-escape-*"); len(m) > 0 {
			t.Errorf("written outside: %q", m)
		}
		result, err := os.ReadFile(filepath.Join(w.out, "artifacts", "result.txt"))
		if err != nil || !strings.Contains(string(result), "result original") || !strings.Contains(string(result), "home "+filepath.Join(w.out, "home")) {
			t.Errorf("the script's own output: %v %q", err, result)
		}
		m := w.meta(t)
		if m.State != securerun.StateFinished || m.Exit == nil || m.Exit.Code != 0 || m.Applied == nil || m.Applied.LandlockABI < 6 || !m.Applied.Seccomp {
			t.Errorf("runmeta: state %s exit %+v applied %+v", m.State, m.Exit, m.Applied)
		}
		if user == nil && !m.Applied.Caps {
			t.Error("root's capabilities were not dropped")
		}
		if len(m.Output.Artifacts) != 1 || m.Output.Artifacts[0].Path != "artifacts/result.txt" || len(m.Output.Artifacts[0].SHA256) != 64 {
			t.Errorf("artifacts: %+v", m.Output.Artifacts)
		}
		if m.Preflight.Repository.Commit == "" || m.Preflight.Repository.Tree == "" || !m.Preflight.Repository.Dirty {
			t.Errorf("repository: %+v (attempts.sh is untracked)", m.Preflight.Repository)
		}
		if _, err := os.Stat(filepath.Join(w.out, "tmp")); err == nil {
			t.Error("the run's TMPDIR was left behind")
		}
		checkSARIF(t, w, m)
	})
}

// checkSARIF reads the run's SARIF log: one run of hookctl, one invocation mapped from
// runmeta.json as docs/secure-read-only.md says.
func checkSARIF(t *testing.T, w *runWorld, m *securerun.RunMeta) {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(w.out, securerun.SARIFName))
	if err != nil {
		t.Fatal(err)
	}
	var log struct {
		Version string `json:"version"`
		Runs    []struct {
			Tool struct {
				Driver struct{ Name string } `json:"driver"`
			} `json:"tool"`
			Invocations []struct {
				CommandLine         string `json:"commandLine"`
				StartTimeUTC        string `json:"startTimeUtc"`
				EndTimeUTC          string `json:"endTimeUtc"`
				ExitCode            *int   `json:"exitCode"`
				ExecutionSuccessful bool   `json:"executionSuccessful"`
				WorkingDirectory    struct {
					URI string `json:"uri"`
				} `json:"workingDirectory"`
			} `json:"invocations"`
			Results []any `json:"results"`
		} `json:"runs"`
	}
	if err := json.Unmarshal(b, &log); err != nil || log.Version != "2.1.0" || len(log.Runs) != 1 || len(log.Runs[0].Invocations) != 1 {
		t.Fatalf("run.sarif: %v\n%s", err, b)
	}
	inv := log.Runs[0].Invocations[0]
	start, _ := time.Parse(time.RFC3339Nano, inv.StartTimeUTC)
	if log.Runs[0].Tool.Driver.Name != "hookctl" || log.Runs[0].Results == nil || !start.Equal(m.Started) ||
		inv.EndTimeUTC == "" || inv.ExitCode == nil || *inv.ExitCode != m.Exit.Code || inv.ExecutionSuccessful != (m.Exit.Code == 0) ||
		inv.WorkingDirectory.URI != "file://"+w.repo+"/" || !strings.HasPrefix(inv.CommandLine, m.Preflight.Command[0]) {
		t.Errorf("run.sarif does not match runmeta.json:\n%s", b)
	}
}

// TestRunRefusesForwardedCredential: a credential forwarded with --env is a hard failure before
// anything starts, naming the variable and never its value; one merely present is withheld.
func TestRunRefusesForwardedCredential(t *testing.T) {
	w := newRunWorld(t, nil)
	const value = "wJalrXUtnFEMI/K7MDENG/bPxRfiCYVALUE"
	env := []string{"AWS_SECRET_ACCESS_KEY=" + value, "GITHUB_TOKEN=ghp_0123456789abcdef0123456789abcdef0123"}
	_, stderr, code := w.run(t, env, "run", "--profile", "secure-read-only", "--out", w.out, "--env", "AWS_SECRET_ACCESS_KEY", "--", "true")
	if code != securerun.ExitNotStarted || !strings.Contains(stderr, "REFUSED      --env AWS_SECRET_ACCESS_KEY: a secret (by its name)") {
		t.Errorf("exit %d\n%s", code, stderr)
	}
	if strings.Contains(stderr, value) {
		t.Errorf("the value was shown:\n%s", stderr)
	}
	if _, err := os.Stat(w.out); err == nil {
		t.Error("a refused run made its output directory")
	}
	stdout, stderr, code := w.run(t, env, "run", "--profile", "secure-read-only", "--out", w.out, "--", "/usr/bin/env")
	if code != 0 || strings.Contains(stdout, value) || strings.Contains(stdout, "GITHUB_TOKEN") || strings.Contains(stdout, "AWS_") ||
		!strings.Contains(stderr, "withheld   AWS_SECRET_ACCESS_KEY GITHUB_TOKEN") {
		t.Errorf("exit %d\n%s\n%s", code, stdout, stderr)
	}
}

// TestRunRefusesSensitiveFile: a planted .env refuses the run, named and never shown;
// --allow-sensitive lets it through, and the decision is recorded.
func TestRunRefusesSensitiveFile(t *testing.T) {
	w := newRunWorld(t, nil)
	os.WriteFile(filepath.Join(w.repo, ".env"), []byte("DB_PASSWORD=PLANTED-VALUE\n"), 0o600)
	os.MkdirAll(filepath.Join(w.repo, "deploy"), 0o755)
	os.WriteFile(filepath.Join(w.repo, "deploy", "notes.txt"), []byte("-----BEGIN OPENSSH PRIVATE KEY-----\nPLANTED-KEY\n"), 0o600)
	_, stderr, code := w.run(t, nil, "run", "--profile", "secure-read-only", "--out", w.out, "--", "cat", ".env")
	if code != securerun.ExitNotStarted || !strings.Contains(stderr, "the repository holds 2 sensitive files (.env, deploy/notes.txt)") ||
		!strings.Contains(stderr, "refused  .env  an environment file") || !strings.Contains(stderr, "refused  deploy/notes.txt  a private key (by its content)") {
		t.Errorf("exit %d\n%s", code, stderr)
	}
	if strings.Contains(stderr, "PLANTED") {
		t.Errorf("a value was shown:\n%s", stderr)
	}
	stdout, stderr, code := w.run(t, nil, "run", "--profile", "secure-read-only", "--out", w.out, "--allow-sensitive", ".env", "--allow-sensitive", "deploy", "--", "cat", ".env")
	if code != 0 || !strings.Contains(stdout, "PLANTED-VALUE") {
		t.Fatalf("allowed: exit %d\n%s\n%s", code, stdout, stderr)
	}
	if s := w.meta(t).Preflight.Sensitive; len(s.Found) != 2 || len(s.Allowed) != 2 || len(s.Refused()) != 0 {
		t.Errorf("recorded: %+v", s)
	}
}

// TestRunInterrupted: SIGINT in the middle of a run tears down the command and everything it
// started, the ones that ignore SIGTERM and the ones that left its session included, and
// runmeta.json says so.
func TestRunInterrupted(t *testing.T) {
	forUsers(t, func(t *testing.T, user *syscall.Credential) {
		t.Run("deny", func(t *testing.T) { runInterrupted(t, newRunWorld(t, user), nil) })
		// Model-only: the broker, outside the run, goes with it.
		t.Run("model-only", func(t *testing.T) {
			w, api := modelWorld(t, user, ct.Script{})
			runInterrupted(t, w, []string{"--network", "model-only", "--model-url", api.URL()})
		})
	})
}

func runInterrupted(t *testing.T, w *runWorld, network []string) {
	{
		script := `sleep 61 & echo $! >> "$HOOKCTL_RUN_OUT/pids"
setsid sleep 62 & echo $! >> "$HOOKCTL_RUN_OUT/pids"
(trap '' TERM; : > "$HOOKCTL_RUN_OUT/ignoring"; exec sleep 63) & echo $! >> "$HOOKCTL_RUN_OUT/pids"
until [ -e "$HOOKCTL_RUN_OUT/ignoring" ]; do sleep 0.01; done
trap '' TERM INT
echo started > "$HOOKCTL_RUN_OUT/started"
wait`
		args := append(append([]string{"run", "--profile", "secure-read-only", "--out", w.out, "--grace", "300ms"}, network...), "--", "bash", "-c", script)
		cmd := w.command([]string{"ANTHROPIC_API_KEY=" + realKey}, args...)
		var stderr bytes.Buffer
		cmd.Stderr = &stderr
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		deadline := time.Now().Add(10 * time.Second)
		for {
			if _, err := os.Stat(filepath.Join(w.out, "artifacts", "started")); err == nil {
				break
			}
			if time.Now().After(deadline) {
				cmd.Process.Kill()
				t.Fatalf("the run did not start:\n%s", stderr.String())
			}
			time.Sleep(20 * time.Millisecond)
		}
		pids, _ := os.ReadFile(filepath.Join(w.out, "artifacts", "pids"))
		if m := w.meta(t); m.State != securerun.StateRunning {
			t.Errorf("runmeta.json during the run: %s", m.State)
		}
		cmd.Process.Signal(syscall.SIGINT)
		done := make(chan error, 1)
		go func() { done <- cmd.Wait() }()
		select {
		case <-done:
		case <-time.After(10 * time.Second):
			cmd.Process.Kill()
			t.Fatal("hookctl run did not end after SIGINT")
		}
		if code := cmd.ProcessState.ExitCode(); code != 130 {
			t.Errorf("exit %d, want 130\n%s", code, stderr.String())
		}
		// The pids the script saw are its pid namespace's; the machine's /proc is searched for
		// the sleeps themselves.
		if len(strings.Fields(string(pids))) != 3 {
			t.Errorf("the script did not start its three sleeps: %q", pids)
		}
		for _, s := range []string{"61", "62", "63"} {
			if left := running("sleep\x00" + s); len(left) > 0 {
				t.Errorf("sleep %s outlived the run: %q", s, left)
			}
		}
		m := w.meta(t)
		if m.State != securerun.StateInterrupted || m.Interrupted == nil || m.Interrupted.Signal != "SIGINT" || m.Interrupted.Killed == 0 || m.Ended.IsZero() {
			t.Errorf("runmeta: state %s interrupted %+v leftover %d exit %+v\n%s", m.State, m.Interrupted, m.Leftover, m.Exit, stderr.String())
		}
		if network != nil {
			if left := processesOf(front.WorkerPath(w.bin)); len(left) > 0 {
				t.Errorf("the broker outlived the run: %q", left)
			}
			if m.Network == nil || m.Network.BrokerError != "" {
				t.Errorf("runmeta network: %+v", m.Network)
			}
		}
	}
}

// TestRunQuarantinesArtifacts: an artifact over --max-artifact-size and a link out of the output
// are moved to the quarantine and reported; the rest are kept and listed.
func TestRunQuarantinesArtifacts(t *testing.T) {
	forUsers(t, func(t *testing.T, user *syscall.Credential) {
		w := newRunWorld(t, user)
		script := `head -c 2048 /dev/zero > "$HOOKCTL_RUN_OUT/big.bin"; echo ok > "$HOOKCTL_RUN_OUT/small.txt"; ln -s /etc/passwd "$HOOKCTL_RUN_OUT/passwd"`
		_, stderr, code := w.run(t, nil, "run", "--profile", "secure-read-only", "--out", w.out, "--max-artifact-size", "1024", "--", "bash", "-c", script)
		if code != 0 || !strings.Contains(stderr, "1 artifacts, 2 quarantined") {
			t.Errorf("exit %d\n%s", code, stderr)
		}
		m := w.meta(t)
		reasons := map[string]string{}
		for _, q := range m.Output.Quarantined {
			reasons[q.Path] = q.Reason + " → " + q.MovedTo
		}
		if reasons["artifacts/big.bin"] != "larger than the cap of 1024 bytes → quarantine/artifacts/big.bin" ||
			reasons["artifacts/passwd"] != "a symbolic link out of its directory (to /etc/passwd) → quarantine/artifacts/passwd" {
			t.Errorf("quarantined: %q", reasons)
		}
		if fi, err := os.Stat(filepath.Join(w.out, "quarantine", "artifacts", "big.bin")); err != nil || fi.Size() != 2048 {
			t.Errorf("the oversized artifact is not in the quarantine: %v", err)
		}
		if _, err := os.Lstat(filepath.Join(w.out, "artifacts", "big.bin")); err == nil {
			t.Error("the oversized artifact was kept")
		}
		if len(m.Output.Artifacts) != 1 || m.Output.Artifacts[0].Path != "artifacts/small.txt" {
			t.Errorf("artifacts: %+v", m.Output.Artifacts)
		}
	})
}

// TestRunFailsClosed: what is not built, or cannot apply, refuses the run before anything
// starts, saying what is missing.
func TestRunFailsClosed(t *testing.T) {
	w := newRunWorld(t, nil)
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"--network", "model-only"}, "--network model-only needs the model's credential"},
		{[]string{"--credentials", "broker"}, `--credentials "broker": the one credential mode is none`},
		{[]string{"--out", filepath.Join(w.repo, "out")}, "is inside the repository"},
		{[]string{"--repo", "/"}, "the repository root is /, the whole system"},
	} {
		args := append(append([]string{"run", "--profile", "secure-read-only", "--out", w.out}, c.args...), "--", "true")
		if _, stderr, code := w.run(t, nil, args...); code != securerun.ExitNotStarted || !strings.Contains(stderr, c.want) {
			t.Errorf("%q: exit %d\n%s", c.args, code, stderr)
		}
	}
	if _, stderr, code := w.run(t, nil, "run", "--profile", "secure-read-only", "--out", w.out, "--", "/root/.no-such-program"); code != securerun.ExitNotStarted || !strings.Contains(stderr, "not an executable file") {
		t.Errorf("a missing program: exit %d\n%s", code, stderr)
	}
	if _, stderr, code := w.run(t, nil, "run", "--profile", "read-only", "--", "true"); code != exitError || !strings.Contains(stderr, "unknown profile") {
		t.Errorf("another profile: exit %d\n%s", code, stderr)
	}
	// A kernel without Landlock: the run does not start, and says so.
	cmd := withoutLandlock(t, w.bin, "run", "--profile", "secure-read-only", "--out", w.out, "--", "true")
	cmd.Dir, cmd.Env = w.repo, w.env
	out, err := cmd.CombinedOutput()
	if ee, ok := err.(*exec.ExitError); !ok || ee.ExitCode() != securerun.ExitNotStarted || !strings.Contains(string(out), "REFUSED      no sandbox: the kernel has no Landlock") {
		t.Errorf("without Landlock: %v\n%s", err, out)
	}
	if _, err := os.Stat(w.out); err == nil {
		t.Error("a refused run made its output directory")
	}
}

// TestRunDryRunGolden: the preflight as --dry-run prints it, machine-specific parts normalised,
// for a repository with agent configuration, an allowed secret and a forwarded variable; and
// the same as JSON.
func TestRunDryRunGolden(t *testing.T) {
	w := newRunWorld(t, nil)
	os.MkdirAll(filepath.Join(w.repo, ".claude", "commands"), 0o755)
	os.WriteFile(filepath.Join(w.repo, ".claude", "settings.json"), []byte(`{"hooks": {}, "permissions": {"allow": ["Bash(*)"]}, "env": {"X": "1"}}`), 0o644)
	os.WriteFile(filepath.Join(w.repo, ".claude", "commands", "ship.md"), []byte("ship it\n"), 0o644)
	os.WriteFile(filepath.Join(w.repo, ".mcp.json"), []byte(`{"mcpServers": {"tracker": {"command": "npx"}}}`), 0o644)
	os.WriteFile(filepath.Join(w.repo, "CLAUDE.md"), []byte("Read @docs/architecture.md first.\n"), 0o644)
	os.WriteFile(filepath.Join(w.repo, ".env.test"), []byte("X=1\n"), 0o644)
	env := []string{"AWS_PROFILE=prod", "SSH_AUTH_SOCK=/tmp/agent.sock", "FEATURE_FLAG=on", "UNRELATED=1"}
	args := []string{"run", "--profile", "secure-read-only", "--out", w.out, "--allow-sensitive", ".env.test", "--env", "FEATURE_FLAG", "--dry-run", "--",
		"bash", "-c", "echo 'analysis'"}
	stdout, stderr, code := w.run(t, env, args...)
	if code != 0 || stderr != "" {
		t.Fatalf("exit %d\n%s\n%s", code, stdout, stderr)
	}
	if _, err := os.Stat(w.out); err == nil {
		t.Error("--dry-run made the output directory")
	}
	got := normaliseRun(stdout, w.root)
	golden := filepath.Join("testdata", "run-dry-run.golden")
	if *updateGolden {
		os.WriteFile(golden, []byte(got), 0o644)
	}
	want, _ := os.ReadFile(golden)
	if got != string(want) {
		t.Errorf("--dry-run output differs from %s (go test ./cmd/hookctl -run TestRunDryRunGolden -update-run-golden):\n%s", golden, got)
	}

	stdout, _, code = w.run(t, env, append(args[:len(args)-4], "--json", "--", "true")...)
	var p securerun.Preflight
	if err := json.Unmarshal([]byte(stdout), &p); err != nil || code != 0 {
		t.Fatalf("--json: exit %d %v\n%s", code, err, stdout)
	}
	if p.Profile != "secure-read-only" || p.Network.Policy != "deny" || p.Repository.Root != w.repo || len(p.AgentConfig) != 4 ||
		p.Credentials.Environment.Forwarded[0] != "FEATURE_FLAG" || len(p.Failures) != 0 {
		t.Errorf("--json: %+v", p)
	}
}

// normaliseRun replaces what differs between machines and runs in the preflight's text: the
// world's directory, the checkout's hashes, the kernel and its Landlock ABI, the count of
// entries scanned (git's files).
func normaliseRun(s, root string) string {
	s = strings.ReplaceAll(s, root, "$WORLD")
	for _, r := range []struct{ re, with string }{
		{`commit [0-9a-f]{40}`, "commit <commit>"},
		{`tree   [0-9a-f]{40}`, "tree   <tree>"},
		{`landlock ABI \d+ \(6 needed\); kernel \S+`, "landlock ABI <abi> (6 needed); kernel <kernel>"},
		{`\(\d+ entries scanned\)`, "(<n> entries scanned)"},
		{`and \d+ other variables`, "and <n> other variables"},
	} {
		s = regexp.MustCompile(r.re).ReplaceAllString(s, r.with)
	}
	return s
}

// running lists the machine's processes whose command line is cmdline (its words joined by
// NULs).
func running(cmdline string) []string {
	var pids []string
	entries, _ := os.ReadDir("/proc")
	for _, e := range entries {
		if b, err := os.ReadFile(filepath.Join("/proc", e.Name(), "cmdline")); err == nil && strings.TrimRight(string(b), "\x00") == cmdline {
			pids = append(pids, e.Name())
		}
	}
	return pids
}

// TestRunEndsWhatItLeaves: every process a run's command starts ends with the run, and is
// counted (issue 22: a process whose main thread has exited looked like a zombie, was neither
// killed nor counted, outlived the run, and raced the artifacts' validation). Control: the same
// script without hookctl leaves processes that write after it has returned. Through hookctl
// run, leftover_processes counts them, none writes afterwards, none is left on the machine;
// and one swapping an artifact directory for a link to a file outside the run, again and
// again, moves nothing from outside into the run's quarantine.
func TestRunEndsWhatItLeaves(t *testing.T) {
	requireTool(t, "python3")
	requireTool(t, "setsid")
	forUsers(t, func(t *testing.T, user *syscall.Credential) {
		w := newRunWorld(t, user)
		victim := filepath.Join(w.sibling, "victim")
		os.WriteFile(victim, []byte("outside\n"), 0o644)
		py := `import threading, time, ctypes, os; out = os.environ["HOOKCTL_RUN_OUT"]; ` +
			`threading.Thread(target=lambda: (time.sleep(2), open(out + "/late-thread", "w").write("x"))).start(); ` +
			`ctypes.CDLL(None).pthread_exit(None)`
		script := `out=${HOOKCTL_RUN_OUT:-$1}
setsid -f bash -c "sleep 2; echo late > $out/late-setsid" </dev/null >/dev/null 2>&1
( ( sleep 2; echo late > $out/late-fork ) & ) </dev/null >/dev/null 2>&1
/usr/bin/python3 -c '` + py + `' </dev/null >/dev/null 2>&1 &
mkdir -p "$out/d"; mkfifo "$out/d/victim"
setsid -f bash -c "while :; do rm -rf $out/d; ln -sfn ` + w.sibling + ` $out/d; mkdir -p $out/d; mkfifo $out/d/victim; done" </dev/null >/dev/null 2>&1
sleep 0.3; echo done`
		// Control: without hookctl (its output directory stands in for the run's).
		ctl := filepath.Join(w.root, "control")
		os.MkdirAll(ctl, 0o777)
		os.Chmod(ctl, 0o777)
		c := exec.Command("bash", "-c", strings.ReplaceAll(script, "setsid -f bash -c \"while", "false && bash -c \"while"), "x", ctl)
		c.Env = append(append([]string{}, w.env...), "HOOKCTL_RUN_OUT="+ctl)
		c.SysProcAttr = &syscall.SysProcAttr{Credential: user}
		if out, err := c.CombinedOutput(); err != nil {
			t.Fatalf("control: %v %s", err, out)
		}
		time.Sleep(3 * time.Second)
		for _, f := range []string{"late-setsid", "late-fork", "late-thread"} {
			if _, err := os.Stat(filepath.Join(ctl, f)); err != nil {
				t.Errorf("control: without hookctl nothing wrote %s after the script returned", f)
			}
		}
		_, stderr, code := w.run(t, nil, "run", "--profile", "secure-read-only", "--out", w.out, "--", "bash", "-c", script)
		if code != 0 {
			t.Fatalf("the run: exit %d\n%s", code, stderr)
		}
		m := w.meta(t)
		// setsid's bash and sleep, the fork's subshell and sleep, python, the swapper: 6.
		if m.Leftover < 6 {
			t.Errorf("leftover_processes %d, want at least 6\n%s", m.Leftover, stderr)
		}
		time.Sleep(3 * time.Second)
		for _, f := range []string{"late-setsid", "late-fork", "late-thread"} {
			if _, err := os.Stat(filepath.Join(w.out, "artifacts", f)); err == nil {
				t.Errorf("%s: a process the run left wrote its output after the run", f)
			}
		}
		if b, err := os.ReadFile(victim); err != nil || string(b) != "outside\n" {
			t.Errorf("the file outside the run was moved or changed: %v %q", err, b)
		}
		if left := running("sleep\x002"); len(left) > 0 {
			t.Errorf("the run's sleeps outlived it: %q", left)
		}
		t.Logf("leftover_processes %d; quarantined %d", m.Leftover, len(m.Output.Quarantined))
	})
}

// TestRunReadsNoRepositoryACommonDirNames: a repository whose .git/commondir names another
// repository (the user's private one) would have the run read that one: git takes the objects
// and refs from it. Control: without hookctl, git log in the repository shows the private
// repository's commit. hookctl run refuses it before anything runs; a real linked worktree
// (whose git directory names it back) still runs, with git.
func TestRunReadsNoRepositoryACommonDirNames(t *testing.T) {
	forUsers(t, func(t *testing.T, user *syscall.Credential) {
		w := newRunWorld(t, user)
		private := filepath.Join(w.root, "private")
		git := func(dir, script string) string {
			c := exec.Command("bash", "-c", script)
			c.Dir, c.Env = dir, append(append([]string{}, w.env...), "GIT_CONFIG_GLOBAL=/dev/null")
			c.SysProcAttr = &syscall.SysProcAttr{Credential: user}
			out, _ := c.CombinedOutput()
			return string(out)
		}
		os.MkdirAll(private, 0o755)
		w.chownAll(private)
		git(private, "git init -q && git -c user.email=t@t -c user.name=t commit -q --allow-empty -m SECRET-COMMIT")
		os.WriteFile(filepath.Join(w.repo, ".git", "commondir"), []byte(filepath.Join(private, ".git")+"\n"), 0o644)
		w.chownAll(w.repo)
		if out := git(w.repo, "git log --all --format=%s"); !strings.Contains(out, "SECRET-COMMIT") {
			t.Fatalf("control: git does not follow the commondir: %s", out)
		}
		stdout, stderr, code := w.run(t, nil, "run", "--profile", "secure-read-only", "--out", w.out, "--", "git", "log", "--all", "--format=%s")
		if code != securerun.ExitNotStarted || strings.Contains(stdout+stderr, "SECRET-COMMIT") || !strings.Contains(stderr, "commondir") {
			t.Errorf("a commondir naming another repository: exit %d\n%s%s", code, stdout, stderr)
		}
		os.Remove(filepath.Join(w.repo, ".git", "commondir"))
		// A linked worktree of the repository: its git directory names it back.
		wt := filepath.Join(w.root, "wt")
		git(w.repo, "git worktree add -q "+wt+" 2>&1")
		w.out = filepath.Join(w.root, "out-wt")
		c := w.command(nil, "run", "--profile", "secure-read-only", "--out", w.out, "--", "git", "log", "--format=%s")
		c.Dir = wt
		out, err := c.CombinedOutput()
		if err != nil || !strings.Contains(string(out), "init") {
			t.Errorf("a linked worktree: %v\n%s", err, out)
		}
	})
}

// chownAll gives the tree at root to the world's user.
func (w *runWorld) chownAll(root string) {
	if w.user == nil {
		return
	}
	filepath.Walk(root, func(p string, _ os.FileInfo, _ error) error {
		return os.Lchown(p, int(w.user.Uid), int(w.user.Gid))
	})
}

// TestRunRefusesUnixSockets: a secure run cannot reach a service outside on a unix socket (a
// container engine's API, an abstract socket), by path or through a link, since its profile
// refuses every connect. Control: the same script without hookctl reaches both.
func TestRunRefusesUnixSockets(t *testing.T) {
	requireTool(t, "python3")
	forUsers(t, func(t *testing.T, user *syscall.Credential) {
		w := newRunWorld(t, user)
		sock := filepath.Join(w.sibling, "docker.sock")
		link := filepath.Join(w.repo, "docker.sock")
		var reached atomic.Int32
		countConns(t, listenUnix(t, sock), &reached)
		abstract := fmt.Sprintf("hookctl-run-victim-%d", time.Now().UnixNano())
		countConns(t, loopback.Listen(t, "unix", "@"+abstract), &reached)
		os.Symlink(sock, link)
		script := ""
		for _, addr := range []string{sock, link, `\0` + abstract} {
			script += `/usr/bin/python3 -c 'import socket; c = socket.socket(socket.AF_UNIX); c.connect("` + addr + `"); c.send(b"x")' 2>/dev/null && echo reached` + "\n"
		}
		c := exec.Command("bash", "-c", script)
		c.SysProcAttr = &syscall.SysProcAttr{Credential: user}
		out, _ := c.CombinedOutput()
		time.Sleep(200 * time.Millisecond)
		if strings.Count(string(out), "reached") != 3 || reached.Load() != 3 {
			t.Fatalf("control: without hookctl %d of 3 connections reached the service (%d counted): %s", strings.Count(string(out), "reached"), reached.Load(), out)
		}
		stdout, stderr, code := w.run(t, nil, "run", "--profile", "secure-read-only", "--out", w.out, "--", "bash", "-c", script+"echo done\n")
		time.Sleep(200 * time.Millisecond)
		if code != 0 || !strings.Contains(stdout, "done") || strings.Contains(stdout, "reached") || reached.Load() != 3 {
			t.Errorf("the run reached a unix socket outside: exit %d, %d counted\n%s%s", code, reached.Load(), stdout, stderr)
		}
	})
}
