package gate

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/hookctl/hookctl/config"
	"github.com/hookctl/hookctl/hook"
	"github.com/hookctl/hookctl/internal/shellglob"
	"github.com/hookctl/hookctl/internal/testbin"
	"github.com/hookctl/hookctl/policy"
)

// TestToolchainsRunOnlyInTheSandbox: node --version, python3 --version and gofmt -l are admitted
// only where the OS sandbox holds; on the policy alone the refusal says why.
func TestToolchainsRunOnlyInTheSandbox(t *testing.T) {
	for _, c := range []struct{ command, why string }{
		{"node --version", "version manager's shim"},
		{"python3 -V", "version manager's shim"},
		{"for f in *.go; do gofmt -l \"$f\"; done", "telemetry counters"},
	} {
		p := &policy.Policy{World: shellglob.World{}, Client: testClient, Config: &config.Config{}}
		d := p.Decide(&hook.ToolCall{Tool: "Bash", Kind: hook.KindShell, Command: c.command}, policy.SessionState{})
		if d.Verdict != hook.Deny || !strings.Contains(d.Reason, c.why) || !strings.Contains(d.Reason, "runs only in the sandbox") {
			t.Errorf("%s on the policy alone: %s %q, want refused because it runs only in the sandbox", c.command, d.Verdict, d.Reason)
		}
		p.Binary, p.Sandbox = "/usr/local/bin/hookctl", func() policy.Isolation { return policy.Isolation{Available: true, Describe: "stub"} }
		d = p.Decide(&hook.ToolCall{Tool: "Bash", Kind: hook.KindShell, Command: c.command}, policy.SessionState{})
		if d.Verdict != hook.Allow || !strings.Contains(d.Command, "hookctl sandbox") {
			t.Errorf("%s with the sandbox: %s %q, want it run in the sandbox", c.command, d.Verdict, d.Command)
		}
	}
}

// TestGofmtWritesTelemetry runs the installed gofmt with a fresh home: it writes Go's telemetry
// counters there, which is why gofmt runs only in the sandbox. If a Go release stops, the rule's
// reason is out of date and this fails.
func TestGofmtWritesTelemetry(t *testing.T) {
	if _, err := exec.LookPath("gofmt"); err != nil {
		testbin.RequireTool(t, "gofmt")
	}
	dir := t.TempDir()
	home := filepath.Join(dir, "home")
	os.Mkdir(home, 0o755)
	if err := os.WriteFile(filepath.Join(dir, "x.go"), []byte("package x\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command("gofmt", "-l", "x.go")
	cmd.Dir, cmd.Env = dir, append(os.Environ(), "HOME="+home, "XDG_CONFIG_HOME=")
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("gofmt -l: %v\n%s", err, out)
	}
	if _, err := os.Stat(filepath.Join(home, ".config", "go", "telemetry")); err != nil {
		t.Errorf("gofmt -l wrote no telemetry under the home (%v): gofmt's SandboxOnly reason is out of date", err)
	}
}

// TestInterpreterVersionsRunNoCode runs the installed node and python3 with code set to run at
// start-up (NODE_OPTIONS=--require, a sitecustomize on PYTHONPATH, PYTHONSTARTUP): --version
// runs none of it, the controls do. The interpreters themselves are safe to ask; their rules are
// sandbox-only for the shims in front of them (programs/toolchains.go).
func TestInterpreterVersionsRunNoCode(t *testing.T) {
	for _, c := range []struct {
		prog, version, control string
		setup                  func(dir string) []string // writes the start-up code, returns the environment
	}{
		{"node", "--version", "-e 1", func(dir string) []string {
			os.WriteFile(filepath.Join(dir, "start.js"), []byte("require('fs').writeFileSync('ran', '')\n"), 0o644)
			return []string{"NODE_OPTIONS=--require " + filepath.Join(dir, "start.js")}
		}},
		{"python3", "-V", "-c 1", func(dir string) []string {
			code := []byte("open('ran', 'w').close()\n")
			os.WriteFile(filepath.Join(dir, "sitecustomize.py"), code, 0o644)
			os.WriteFile(filepath.Join(dir, "usercustomize.py"), code, 0o644)
			os.WriteFile(filepath.Join(dir, "startup.py"), code, 0o644)
			return []string{"PYTHONPATH=" + dir, "PYTHONSTARTUP=" + filepath.Join(dir, "startup.py")}
		}},
	} {
		if _, err := exec.LookPath(c.prog); err != nil {
			testbin.RequireTool(t, c.prog)
		}
		dir := t.TempDir()
		env := append(os.Environ(), c.setup(dir)...)
		ran := func(args string) bool {
			os.Remove(filepath.Join(dir, "ran"))
			cmd := exec.Command(c.prog, strings.Fields(args)...)
			cmd.Dir, cmd.Env = dir, env
			cmd.Run()
			_, err := os.Stat(filepath.Join(dir, "ran"))
			return err == nil
		}
		if !ran(c.control) {
			t.Errorf("control: %s %s ran no start-up code; the test cannot see it", c.prog, c.control)
		}
		if ran(c.version) {
			t.Errorf("%s %s ran start-up code", c.prog, c.version)
		}
	}
}
