//go:build linux

package main

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// TestPassEnvTravelsInTheRewrite: the config's pass_env reaches an admitted read-only command
// through the rewrite the hook gives the client (--pass-env: the read-only launcher reads no
// config), and nothing else of the client's environment does. Control: the same call under a
// config without pass_env, whose command does not get the variable.
func TestPassEnvTravelsInTheRewrite(t *testing.T) {
	requireTool(t, "bash")
	bin := hookctlBinary(t)
	home, hh, env := userHome(t, "HOOKCTL_TEST_CARRIED=carried-value", "HOOKCTL_TEST_OTHER=other-value")
	os.MkdirAll(hh, 0o700)
	payload := `{"session_id":"5e55a0e1-0000-4000-8000-0000000000e1","hook_event_name":"PreToolUse","tool_name":"Bash","tool_use_id":"toolu_%s",` +
		`"cwd":` + strconvQuote(home) + `,"tool_input":{"command":"echo \"p=$HOOKCTL_TEST_CARRIED o=$HOOKCTL_TEST_OTHER\""}}`
	for i, c := range []struct {
		config, want string
		named        bool
	}{
		{"", "p= o=", false}, // the control
		{"pass_env = [\"HOOKCTL_TEST_CARRIED\", \"-HOOKCTL_TEST_ODD\"]\n", "p=carried-value o=", true},
	} {
		if err := os.WriteFile(filepath.Join(hh, "config.toml"), []byte(c.config), 0o600); err != nil {
			t.Fatal(err)
		}
		hook := exec.Command(bin, "hook")
		hook.Env, hook.Stdin = env, strings.NewReader(strings.Replace(payload, "%s", string(rune('a'+i)), 1))
		out, err := hook.Output()
		var a hookAnswer
		if err != nil || json.Unmarshal(out, &a) != nil || a.HookSpecificOutput.UpdatedInput.Command == "" {
			t.Fatalf("config %q: the hook gave no rewrite: %v\n%s", c.config, err, out)
		}
		rewrite := a.HookSpecificOutput.UpdatedInput.Command
		if strings.Contains(rewrite, "--pass-env=HOOKCTL_TEST_CARRIED") != c.named || !strings.Contains(rewrite, "hookctl-sandbox") {
			t.Errorf("config %q: the rewrite %s", c.config, rewrite)
		}
		run := exec.Command("bash", "-c", rewrite)
		run.Env, run.Dir = env, home
		got, err := run.CombinedOutput()
		if err != nil || strings.TrimSpace(string(got)) != c.want {
			t.Errorf("config %q: %s ran to %v, printing %q; want %q", c.config, rewrite, err, got, c.want)
		}
	}
}
