package codex_test

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/hookctl/hookctl/agents/agenttest"
)

// TestRealCodexInstallTrustsItsHook: hookctl install --agent codex registers the hook and makes
// Codex trust it, so that a plain codex exec (no --dangerously-bypass-hook-trust) runs it; doctor
// passes, and reports the hook once its registration changes (Codex would skip it silently);
// uninstall puts config.toml back byte for byte and removes the hooks file it created. (The
// conformance table, agents/conformance, sends its installed-hook row for Codex here.)
func TestRealCodexInstallTrustsItsHook(t *testing.T) {
	s := agenttest.Codex.NewSession(t, func(p *agenttest.Project) []agenttest.Step {
		return []agenttest.Step{agenttest.Shell("sed -i s/a/b/ f")}
	})
	codexHome := agenttest.CodexHome(s.Project)
	config := filepath.Join(codexHome, "config.toml")
	before, _ := os.ReadFile(config)
	env := agenttest.PrependPath(s.Env(), filepath.Dir(s.Bin))
	cli := func(args ...string) (string, int) {
		cmd := exec.Command(s.Hookctl, args...)
		cmd.Dir, cmd.Env = s.Dir, env
		out, err := cmd.CombinedOutput()
		code := 0
		if e, ok := err.(*exec.ExitError); ok {
			code = e.ExitCode()
		} else if err != nil {
			t.Fatal(err)
		}
		return string(out), code
	}
	if out, code := cli("install", "--agent", "codex"); code != 0 || !strings.Contains(out, "trusted hookctl's hooks") {
		t.Fatalf("install: exit %d\n%s", code, out)
	}
	if out, code := cli("doctor", "--agent", "codex"); code != 0 || !strings.Contains(out, "Codex trusts hookctl's preToolUse hook") ||
		!strings.Contains(out, "Codex trusts hookctl's sessionStart hook") {
		t.Errorf("doctor after install: exit %d\n%s", code, out)
	}
	if out, code := cli("install", "--agent", "codex"); code != 0 || !strings.Contains(out, "Codex trusts hookctl's hooks") {
		t.Errorf("a second install: exit %d\n%s", code, out)
	}
	out := s.Run(t, "Try to change the project.", "exec", "--skip-git-repo-check", "-s", "danger-full-access")
	if b, _ := os.ReadFile(s.F); string(b) != "a\n" || !s.API.Saw("Command blocked by PreToolUse hook: hookctl read-only: sed") {
		t.Errorf("the installed hook did not run (f is %q):\n%s", b, out)
	}
	if !s.API.Saw("hookctl: this session is in READ-ONLY mode") {
		t.Errorf("the installed SessionStart hook did not tell the model its mode:\n%s", out)
	}
	hooksFile := filepath.Join(codexHome, "hooks.json")
	installed, _ := os.ReadFile(hooksFile)
	write(t, hooksFile, strings.Replace(string(installed), `"timeout": 30`, `"timeout": 31`, 1))
	if out, code := cli("doctor", "--agent", "codex"); code == 0 || !strings.Contains(out, "hookctl's preToolUse hook modified: it SKIPS it") {
		t.Errorf("doctor did not report the changed hook: exit %d\n%s", code, out)
	}
	write(t, hooksFile, string(installed))
	trusted, _ := os.ReadFile(config)
	write(t, config, string(before))
	if out, code := cli("doctor", "--agent", "codex"); code == 0 || !strings.Contains(out, "hookctl's preToolUse hook untrusted: it SKIPS it") {
		t.Errorf("doctor did not report the untrusted hook: exit %d\n%s", code, out)
	}
	write(t, config, string(trusted))
	if out, code := cli("uninstall", "--agent", "codex"); code != 0 {
		t.Fatalf("uninstall: exit %d\n%s", code, out)
	}
	if after, _ := os.ReadFile(config); string(after) != string(before) {
		t.Errorf("config.toml not restored:\n got %q\nwant %q", after, before)
	}
	if _, err := os.Stat(hooksFile); err == nil {
		t.Errorf("uninstall left the hooks file install created")
	}
}

func write(t *testing.T, path, content string) {
	t.Helper()
	if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
}
