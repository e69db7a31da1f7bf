package gate

import (
	"os"
	"strings"
	"testing"

	"github.com/hookctl/hookctl/config"
	"github.com/hookctl/hookctl/hook"
	"github.com/hookctl/hookctl/internal/shellglob"
	"github.com/hookctl/hookctl/policy"
)

func TestSandboxSetting(t *testing.T) {
	if _, err := ParseConfig("c.toml", `sandbox = "off"`); err == nil || !strings.Contains(err.Error(), "c.toml:1: sandbox must be") {
		t.Errorf("sandbox = off: %v", err)
	}
	home, project := t.TempDir(), t.TempDir()
	writeFile(t, home+"/config.toml", `sandbox = "require"`)
	writeFile(t, project+"/"+config.ProjectConfigName, `sandbox = "auto"`)
	if c, err := LoadConfigFor(home, project); err != nil || c.Sandbox != config.SandboxRequire {
		t.Errorf("a project relaxed require: %+v %v", c, err)
	}
	writeFile(t, home+"/config.toml", ``)
	writeFile(t, project+"/"+config.ProjectConfigName, `sandbox = "require"`)
	if c, err := LoadConfigFor(home, project); err != nil || c.Sandbox != config.SandboxRequire {
		t.Errorf("a project could not require the sandbox: %+v %v", c, err)
	}
}

func writeFile(t *testing.T, path, text string) {
	t.Helper()
	if err := os.WriteFile(path, []byte(text), 0o600); err != nil {
		t.Fatal(err)
	}
}

func TestRunnerEntries(t *testing.T) {
	for _, bad := range []string{`"go test; rm -rf x"`, `"make $T"`, `"make test > out"`, `"cd x && make"`, `""`, `"make 'a|b'"`} {
		if _, err := ParseConfig("c.toml", "read_only_runners = ["+bad+"]"); err == nil {
			t.Errorf("read_only_runners = [%s] accepted", bad)
		}
	}
	cfg, err := ParseConfig("c.toml", `read_only_runners = ["go test ./...", "cargo test *"]`)
	if err != nil {
		t.Fatal(err)
	}
	p := &policy.Policy{World: shellglob.World{}, Config: cfg, Binary: "/bin/hookctl", Sandbox: func() policy.Isolation { return policy.Isolation{Available: true} }}
	for cmd, want := range map[string]hook.Verdict{
		"go test ./...":                      hook.Allow,
		"go test ./... 2>&1 | tail -20":      hook.Allow,
		"go test ./... | sh":                 hook.Deny,
		"go test":                            hook.Deny,
		"go test ./... -exec x":              hook.Deny,
		"cargo test":                         hook.Allow,
		"cargo test --release -- x":          hook.Allow,
		"cargo testx":                        hook.Deny,
		"for p in a; do go test ./...; done": hook.Deny,
	} {
		if d := p.Decide(&hook.ToolCall{Tool: "Bash", Kind: hook.KindShell, Command: cmd}, policy.SessionState{}); d.Verdict != want {
			t.Errorf("%q: %v (%s)", cmd, d.Verdict, d.Reason)
		}
	}
	if d := (&policy.Policy{World: shellglob.World{}, Config: cfg, Binary: "/bin/hookctl"}).Decide(&hook.ToolCall{Tool: "Bash", Kind: hook.KindShell, Command: "go test ./..."}, policy.SessionState{}); d.Verdict != hook.Deny {
		t.Errorf("the policy admitted a runner without the sandbox: %s %q", d.Command, d.Isolation)
	}
	home, project := t.TempDir(), t.TempDir()
	writeFile(t, home+"/config.toml", ``)
	writeFile(t, project+"/"+config.ProjectConfigName, `read_only_runners = ["make"]`)
	if c, err := LoadConfigFor(home, project); err != nil || len(c.Runners) != 0 || len(c.Warnings) != 1 {
		t.Errorf("a project named a runner: %+v %v", c, err)
	}
}
