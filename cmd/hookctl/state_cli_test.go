package main

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/hookctl/hookctl/hook"
	"github.com/hookctl/hookctl/internal/testbin"
	"github.com/hookctl/hookctl/session"
)

// hookctlBinary builds the real binary once for the tests that run it as a process.
func hookctlBinary(t *testing.T) string {
	t.Helper()
	if testing.Short() {
		t.Skip("builds the binary")
	}
	return testbin.Hookctl(t)
}

// machineDir is a directory outside the temporary directories, removed when the test ends,
// which every user can reach: the tester's TMPDIR may be private to them (issue 30), and edit
// mode may write it. Only root can make one: for another user the test is skipped.
func machineDir(t *testing.T, prefix string) string {
	t.Helper()
	dir, err := os.MkdirTemp("/var/lib", prefix)
	if err != nil {
		if os.Geteuid() != 0 {
			t.Skipf("no place outside the temporary directories: %v", err)
		}
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(dir) })
	os.Chmod(dir, 0o755)
	return dir
}

// runBin runs the binary with HOOKCTL_HOME=home and returns its output, exit code and run time.
func runBin(t *testing.T, home, stdin string, args ...string) (out string, code int, took time.Duration) {
	t.Helper()
	cmd := exec.Command(hookctlBinary(t), args...)
	cmd.Env = append(os.Environ(), "HOOKCTL_HOME="+home)
	cmd.Stdin = strings.NewReader(stdin)
	start := time.Now()
	b, err := cmd.CombinedOutput()
	took = time.Since(start)
	if ee, ok := err.(*exec.ExitError); ok {
		code = ee.ExitCode()
	} else if err != nil {
		t.Fatal(err)
	}
	return string(b), code, took
}

const writeCall = `{"session_id":"s","cwd":"/tmp","hook_event_name":"PreToolUse","tool_name":"Write","tool_input":{"file_path":"/tmp/x","content":"x"}}`

// TestDisplayAndEnforcementAgree is a hole of issue 7: a state file with two mode keys was
// enforced by the first (the hook's gjson) and displayed and toggled by the last (encoding/json),
// and one with no mode displayed as EDIT. Every reader now refuses such a file: the hook treats
// the session as read-only, the status line shows read-only with a warning, `readonly status`
// says the file is damaged, and a toggle repairs it.
func TestDisplayAndEnforcementAgree(t *testing.T) {
	for name, content := range map[string]string{
		"edit then read-only": `{"id":"s","mode":"edit","mode":"read-only"}`,
		"read-only then edit": `{"id":"s","mode":"read-only","mode":"edit"}`,
		"no mode":             `{"id":"s","cwd":"/tmp"}`,
	} {
		home := t.TempDir()
		os.MkdirAll(filepath.Join(home, "sessions"), 0o700)
		os.WriteFile(filepath.Join(home, "sessions", "s.json"), []byte(content), 0o600)

		if out, _, _ := runBin(t, home, writeCall, "hook"); !strings.Contains(out, `"permissionDecision":"deny"`) {
			t.Errorf("%s: the hook did not refuse a Write: %s", name, out)
		}
		if out, _, _ := runBin(t, home, `{"session_id":"s"}`, "statusline"); !strings.Contains(out, "READ-ONLY") || !strings.Contains(out, "⚠") {
			t.Errorf("%s: status line %q", name, out)
		}
		if out, code, _ := runBin(t, home, "", "readonly", "status", "--session", "s"); code == 0 || !strings.Contains(out, "damaged") {
			t.Errorf("%s: readonly status (exit %d) %q", name, code, out)
		}
		if out, code, _ := runBin(t, home, "", "readonly", "on", "--session", "s"); code != 0 {
			t.Errorf("%s: readonly on did not repair it (exit %d): %s", name, code, out)
		}
		if out, _, _ := runBin(t, home, `{"session_id":"s"}`, "statusline"); strings.TrimSpace(out) != "🔒 READ-ONLY" {
			t.Errorf("%s: status line after repair %q", name, out)
		}
	}
}

// TestNoCommandHangsOnAFIFO is a hole of issue 7: a FIFO in place of the state file hung
// readonly, statusline and status for good; one in place of config.toml hung the hook. Each now
// answers at once, read-only.
func TestNoCommandHangsOnAFIFO(t *testing.T) {
	home := t.TempDir()
	os.MkdirAll(filepath.Join(home, "sessions"), 0o700)
	if err := syscall.Mkfifo(filepath.Join(home, "sessions", "s.json"), 0o600); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		stdin string
		args  []string
		want  string
	}{
		{writeCall, []string{"hook"}, `"permissionDecision":"deny"`},
		{`{"session_id":"s"}`, []string{"statusline"}, "READ-ONLY"},
		{"", []string{"readonly", "status", "--session", "s"}, "FIFO"},
		{"", []string{"readonly", "status", "--all"}, ""},
	} {
		out, _, took := runBin(t, home, c.stdin, c.args...)
		if took > 2*time.Second || !strings.Contains(out, c.want) {
			t.Errorf("%v: took %v, output %q", c.args, took, out)
		}
	}
	if err := syscall.Mkfifo(filepath.Join(home, "config.toml"), 0o600); err != nil {
		t.Fatal(err)
	}
	out, _, took := runBin(t, home, writeCall, "hook")
	if took > 2*time.Second || !strings.Contains(out, `"permissionDecision":"deny"`) || !strings.Contains(out, "FIFO") {
		t.Errorf("config.toml a FIFO: took %v, %s", took, out)
	}
}

// TestToggleLandsWhileAnotherProcessHoldsTheLock is the issue 7 form of an edit-mode attack:
// `flock ~/.config/hookctl/sessions/S.lock sleep 3600` made /readonly on fail. The human's
// toggle lands within a second however long another process holds the lock.
func TestToggleLandsWhileAnotherProcessHoldsTheLock(t *testing.T) {
	flock, err := exec.LookPath("flock")
	if err != nil {
		if os.Getenv("HOOKCTL_REQUIRE_ALL") == "1" {
			t.Fatal("flock is not installed (HOOKCTL_REQUIRE_ALL=1)")
		}
		t.Skip("flock is not installed")
	}
	home := t.TempDir()
	session.NewStore(home).Record("s", "/p", hook.ModeReadOnly)
	if out, code, _ := runBin(t, home, "", "readonly", "off", "--session", "s"); code != 0 {
		t.Fatalf("readonly off: %s", out)
	}
	lock := filepath.Join(home, "sessions", "s.lock")
	holder := exec.Command(flock, lock, "sleep", "60")
	if err := holder.Start(); err != nil {
		t.Fatal(err)
	}
	defer holder.Process.Kill()
	for i := 0; ; i++ { // until flock(1) holds it
		probe := exec.Command(flock, "-n", lock, "true")
		if probe.Run() != nil {
			break
		}
		if i > 200 {
			t.Fatal("flock(1) never took the lock")
		}
		time.Sleep(10 * time.Millisecond)
	}
	out, code, took := runBin(t, home, "", "readonly", "on", "--session", "s")
	if code != 0 || !strings.Contains(out, "READ-ONLY") || took > time.Second {
		t.Errorf("readonly on under a held lock: exit %d after %v: %s", code, took, out)
	}
	if out, _, _ := runBin(t, home, `{"session_id":"s"}`, "statusline"); strings.TrimSpace(out) != "🔒 READ-ONLY" {
		t.Errorf("status line %q", out)
	}
}

// TestWrappedStatusLineCannotNest: if the status line install saved is hookctl's own again (a
// path install did not recognise as its own), running it must not start a chain of status
// lines; and a saved command's children die with it at the timeout.
func TestWrappedStatusLineCannotNest(t *testing.T) {
	bin := hookctlBinary(t)
	home := t.TempDir()
	save := func(command string) {
		prev, _ := json.Marshal(map[string]string{"type": "command", "command": command})
		b, _ := json.Marshal(map[string]string{"previous": string(prev)})
		os.WriteFile(filepath.Join(home, statusLineFile), b, 0o600)
	}
	save("HOOKCTL_HOME=" + home + " " + bin + " statusline")
	out, _, took := runBin(t, home, `{"session_id":"s"}`, "statusline")
	if strings.Count(out, "READ-ONLY") != 2 || took > 2*time.Second {
		t.Errorf("nested status line: %q after %v (want the badge twice: once, and once from the saved command)", out, took)
	}
	marker := filepath.Join(t.TempDir(), "alive")
	save("(sleep 4; touch " + marker + ") & sleep 10")
	out, _, took = runBin(t, home, `{"session_id":"s"}`, "statusline")
	if !strings.HasPrefix(out, "🔒 READ-ONLY") || took > wrappedTimeout+2*time.Second {
		t.Errorf("slow saved command: %q after %v", out, took)
	}
	time.Sleep(3 * time.Second)
	if _, err := os.Stat(marker); err == nil {
		t.Error("the saved command's child outlived the status line")
	}
}

// TestNoUserCommandHangsOnAFIFO: install and doctor read Claude Code's settings, and a toggle
// reads the /readonly command file; a FIFO planted at either is refused at once.
func TestNoUserCommandHangsOnAFIFO(t *testing.T) {
	home, hh := t.TempDir(), t.TempDir()
	os.MkdirAll(filepath.Join(home, ".claude", "commands"), 0o700)
	syscall.Mkfifo(filepath.Join(home, ".claude", "settings.json"), 0o600)
	syscall.Mkfifo(filepath.Join(home, ".claude", "commands", "readonly.md"), 0o600)
	run := func(stdin string, args ...string) (string, time.Duration) {
		cmd := exec.Command(hookctlBinary(t), args...)
		cmd.Env = append(os.Environ(), "HOME="+home, "HOOKCTL_HOME="+hh)
		cmd.Dir = home
		cmd.Stdin = strings.NewReader(stdin)
		start := time.Now()
		b, _ := cmd.CombinedOutput()
		return string(b), time.Since(start)
	}
	for _, args := range [][]string{{"install", "--scope", "user"}, {"doctor"}} {
		out, took := run("", args...)
		if took > 5*time.Second || !strings.Contains(out, "FIFO") {
			t.Errorf("%v: took %v: %s", args, took, out)
		}
	}
	toggle := `{"session_id":"s","cwd":"/tmp","prompt_id":"p","hook_event_name":"UserPromptExpansion","command_name":"readonly",` +
		`"command_args":"off","command_source":"userSettings","prompt":"/readonly off"}`
	out, took := run(toggle, "hook")
	if took > time.Second || !strings.Contains(out, `"decision":"block"`) || !strings.Contains(out, "FIFO") {
		t.Errorf("toggle with a FIFO command file: took %v: %s", took, out)
	}
}
