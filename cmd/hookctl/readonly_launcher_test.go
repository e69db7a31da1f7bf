package main

import (
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/hookctl/hookctl/internal/buildinfo"
	"github.com/hookctl/hookctl/sandbox/readonly"
)

// TestReadsStartInTheReadOnlyLauncher: where hookctl-sandbox is installed beside hookctl, the
// hook's rewrite of an admitted read starts it (not hookctl's whole binary, issue 28), and it
// holds what `hookctl sandbox` holds. The rewrite's launcher is given, as a misjudged program
// would be, a write outside the scratch directory, a read of hookctl's home and a connection;
// each lands when run plainly (the control) and is refused through it. A launcher of another
// build runs nothing; with none installed the rewrite is `hookctl sandbox` again.
func TestReadsStartInTheReadOnlyLauncher(t *testing.T) {
	requireTool(t, "bash")
	bin := hookctlBinary(t)
	_, hh, env := userHome(t)
	os.MkdirAll(hh, 0o700)
	secret := filepath.Join(hh, "config.toml")
	os.WriteFile(secret, []byte("# hookctl's own\n"), 0o600)
	rewrite := func(bin string) string {
		t.Helper()
		cmd := exec.Command(bin, "check", "--", "cat /etc/hostname")
		cmd.Env = env
		out, _ := cmd.Output()
		runs, ok := strings.CutPrefix(strings.TrimPrefix(string(out), "allow\n"), "runs: ")
		if !ok {
			t.Fatalf("cat /etc/hostname: %s", out)
		}
		runs, _, _ = strings.Cut(runs, "\n")
		return runs
	}
	runs := rewrite(bin)
	launcher := filepath.Join(filepath.Dir(bin), readonly.Executable)
	prefix, _, ok := strings.Cut(runs, " -- bash ")
	if !ok || !strings.HasPrefix(prefix, launcher+" --build ") {
		t.Fatalf("the rewrite does not start %s: %s", launcher, runs)
	}
	sh := func(command string) (string, error) {
		cmd := exec.Command("bash", "--noprofile", "--norc", "-c", command)
		cmd.Env = env
		out, err := cmd.CombinedOutput()
		return string(out), err
	}
	if out, err := sh(runs); err != nil || strings.TrimSpace(out) == "" {
		t.Fatalf("the rewrite did not run: %v %q", err, out)
	}

	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	go func() {
		for {
			c, err := l.Accept()
			if err != nil {
				return
			}
			c.Write([]byte("connected\n"))
			c.Close()
		}
	}()
	outside := filepath.Join(t.TempDir(), "written")
	port := l.Addr().(*net.TCPAddr).Port
	for _, a := range []struct{ name, script, landed string }{
		{"a write outside", "echo x > " + outside + " && echo wrote", "wrote"},
		{"a read of hookctl's home", "cat " + secret, "hookctl's own"},
		{"a connection", "exec 3<>/dev/tcp/127.0.0.1/" + strconv.Itoa(port) + " && head -1 <&3", "connected"},
	} {
		os.Remove(outside)
		if out, _ := sh(a.script); !strings.Contains(out, a.landed) {
			t.Fatalf("control: %s run plainly did not land: %q", a.name, out)
		}
		os.Remove(outside)
		out, _ := sh(prefix + " -- bash --noprofile --norc -c " + shellQuote(a.script))
		if _, err := os.Stat(outside); strings.Contains(out, a.landed) || err == nil {
			t.Errorf("%s landed through %s: %q", a.name, readonly.Executable, out)
		}
	}

	// Another build's launcher: nothing runs.
	marker := filepath.Join(t.TempDir(), "ran")
	stale, _, _ := strings.Cut(prefix, " --build ")
	out, err := sh(stale + " --build 000000000000 --session s -- bash -c 'echo ran > " + marker + "'")
	if ee, ok := err.(*exec.ExitError); !ok || ee.ExitCode() != exitSandboxFailed || !strings.Contains(out, "another build") {
		t.Errorf("a launcher of another build: %v %q", err, out)
	}
	if _, err := os.Stat(marker); err == nil {
		t.Error("a launcher of another build ran the command")
	}

	// hookctl alone: hookctl sandbox.
	alone := filepath.Join(t.TempDir(), "hookctl")
	b, _ := os.ReadFile(bin)
	os.WriteFile(alone, b, 0o755)
	if runs := rewrite(alone); !strings.HasPrefix(runs, alone+" sandbox --session ") {
		t.Errorf("without %s beside it the rewrite is %s", readonly.Executable, runs)
	}

	// hookctl upgraded without its launcher: the launcher beside it is of another build, which
	// would refuse every command (the control, with this build's digest); the rewrite is
	// hookctl sandbox, and runs. A launcher of this build put in its place is used again.
	dir := t.TempDir()
	upgraded, beside := filepath.Join(dir, "hookctl"), filepath.Join(dir, readonly.Executable)
	os.WriteFile(upgraded, b, 0o755)
	build := exec.Command("go", "build", "-ldflags", "-X github.com/hookctl/hookctl/internal/buildinfo.stamp=another-build",
		"-o", beside, "../hookctl-sandbox")
	build.Env = append(os.Environ(), "CGO_ENABLED=0")
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("build: %v\n%s", err, out)
	}
	digest := readOnlyLauncher(t, launcher)[2]
	out, err = sh(shellQuote(beside) + " --build " + digest + " --session s -- bash -c 'echo ran > " + marker + "'")
	if ee, ok := err.(*exec.ExitError); !ok || ee.ExitCode() != exitSandboxFailed || !strings.Contains(out, "another build") {
		t.Fatalf("control: the launcher of another build, given this build's rewrite: %v %q", err, out)
	}
	runs = rewrite(upgraded)
	if !strings.HasPrefix(runs, upgraded+" sandbox --session ") {
		t.Errorf("with a launcher of another build beside it the rewrite is %s", runs)
	} else if out, err := sh(runs); err != nil || strings.TrimSpace(out) == "" {
		t.Errorf("the rewrite beside a launcher of another build did not run: %v %q", err, out)
	}
	own, _ := os.ReadFile(launcher)
	os.WriteFile(beside+".new", own, 0o755)
	os.Rename(beside+".new", beside)
	if runs := rewrite(upgraded); !strings.HasPrefix(runs, beside+" --build "+digest+" ") {
		t.Errorf("with a launcher of this build put back the rewrite is %s", runs)
	}
}

// readOnlyLauncher is the command line that starts the read-only launcher at path for the build
// it is of: path, --build and the digest the hook would pass (buildinfo.Digest of the build line
// its version prints).
func readOnlyLauncher(t *testing.T, path string) []string {
	t.Helper()
	out, err := exec.Command(path, "version").Output()
	if err != nil {
		t.Fatalf("%s version: %v", path, err)
	}
	digest, ok := buildinfo.DigestOfVersion(string(out))
	if !ok {
		t.Fatalf("%s version printed no build: %q", path, out)
	}
	return []string{path, "--build", digest}
}
