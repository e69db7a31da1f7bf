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

// TestCargoPinsRealCargo runs cargo metadata and cargo tree, as the rewrite gives them, in a
// project whose .cargo/config.toml names a trap as build.rustc, build.rustc-wrapper and
// build.rustc-workspace-wrapper: none may run. The control, the same command without the pins,
// must spring one, so a cargo that stopped asking rustc would fail the test rather than pass it.
// On the policy alone cargo is refused (rust-toolchain.toml can name the project's own
// programs as the toolchain, which only the sandbox holds).
func TestCargoPinsRealCargo(t *testing.T) {
	if _, err := exec.LookPath("cargo"); err != nil || exec.Command("cargo", "-V").Run() != nil {
		testbin.RequireTool(t, "cargo")
	}
	dir := t.TempDir()
	canary := filepath.Join(dir, "canary")
	trap := "#!/bin/sh\necho \"$0 $*\" >> " + canary + "\nexit 1\n"
	files := map[string]string{
		"Cargo.toml":  "[package]\nname = \"x\"\nversion = \"0.1.0\"\nedition = \"2021\"\n",
		"Cargo.lock":  "version = 4\n\n[[package]]\nname = \"x\"\nversion = \"0.1.0\"\n",
		"src/main.rs": "fn main() {}\n",
		".cargo/config.toml": "[build]\nrustc = \"" + dir + "/trap-rustc\"\nrustc-wrapper = \"" + dir + "/trap-wrapper\"\n" +
			"rustc-workspace-wrapper = \"" + dir + "/trap-workspace\"\n",
	}
	for name, text := range files {
		os.MkdirAll(filepath.Dir(filepath.Join(dir, name)), 0o755)
		if err := os.WriteFile(filepath.Join(dir, name), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	for _, name := range []string{"trap-rustc", "trap-wrapper", "trap-workspace"} {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(trap), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	run := func(command string) (string, string) {
		t.Helper()
		os.Remove(canary)
		cmd := exec.Command("bash", "--norc", "--noprofile", "-c", command)
		cmd.Dir = dir
		out, _ := cmd.CombinedOutput()
		sprung, _ := os.ReadFile(canary)
		return string(out), string(sprung)
	}
	if _, sprung := run("cargo metadata --offline --locked --format-version 1"); sprung == "" {
		t.Fatal("control: cargo metadata without the pins ran no trap; the test cannot see the rewrite work")
	}
	for _, c := range []struct{ command, want string }{
		{"cargo metadata --format-version 1 --no-deps", `"packages"`},
		{"cargo tree", "x v0.1.0"},
	} {
		rewritten := rewritten(t, c.command)
		out, sprung := run(rewritten)
		if sprung != "" {
			t.Errorf("%s ran as %s and sprang %q", c.command, rewritten, sprung)
		}
		if !strings.Contains(out, c.want) {
			t.Errorf("%s ran as %s and printed %q, want %q in it", c.command, rewritten, out, c.want)
		}
	}
	p := &policy.Policy{World: shellglob.World{}, Client: testClient, Config: &config.Config{}}
	d := p.Decide(&hook.ToolCall{Tool: "Bash", Kind: hook.KindShell, Command: "cargo tree", Cwd: dir}, policy.SessionState{})
	if d.Verdict != hook.Deny || !strings.Contains(d.Reason, "rust-toolchain.toml") || !strings.Contains(d.Reason, "runs only in the sandbox") {
		t.Errorf("cargo tree on the policy alone: %s %q, want refused because it runs only in the sandbox", d.Verdict, d.Reason)
	}
	p.Binary, p.Sandbox = "/usr/local/bin/hookctl", func() policy.Isolation { return policy.Isolation{Available: true, Describe: "stub"} }
	d = p.Decide(&hook.ToolCall{Tool: "Bash", Kind: hook.KindShell, Command: "cargo tree", Cwd: dir}, policy.SessionState{})
	if d.Verdict != hook.Allow || !strings.Contains(d.Command, "hookctl sandbox") || !strings.Contains(d.Command, "build.rustc-wrapper") {
		t.Errorf("cargo tree with the sandbox: %s %q, want it run in the sandbox with the pins", d.Verdict, d.Command)
	}
}
