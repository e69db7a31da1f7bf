package permissions

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/hookctl/hookctl/hook"
	"github.com/hookctl/hookctl/lexer"
	"github.com/hookctl/hookctl/policy"
)

func judge(p *Policy, cmd string) hook.Verdict {
	c := &hook.ToolCall{Tool: "run_shell_command", Kind: hook.KindShell, Command: cmd}
	return p.Judge(policy.ClientQuery{Call: c, Line: lexer.NewCommandLine(cmd)}).Verdict
}

const userPolicy = `[[rule]]
toolName = "run_shell_command"
commandPrefix = "touch a1"
decision = "deny"
priority = 500

[[rule]]
toolName = "run_shell_command"
commandPrefix = ["git push", "git fetch"]
decision = "ask_user"
priority = 500

[[rule]]
toolName = "run_shell_command"
commandRegex = "rm .*-rf"
decision = "deny"
priority = 100
denyMessage = "no recursive removal"

[[rule]]
toolName = "run_shell_command"
commandPrefix = "git push origin docs"
decision = "allow"
priority = 900

[[rule]]
toolName = "run_shell_command"
commandPrefix = "terraform apply"
decision = "deny"
priority = 500
modes = ["yolo"]
`

// Rows from Gemini CLI's policy engine (0.61.0's bundle, and live in -p).
func TestGeminiPolicy(t *testing.T) {
	home, cwd := t.TempDir(), t.TempDir()
	os.MkdirAll(filepath.Join(home, ".gemini", "policies"), 0o755)
	os.WriteFile(filepath.Join(home, ".gemini", "policies", "mine.toml"), []byte(userPolicy), 0o644)
	os.WriteFile(filepath.Join(home, ".gemini", "settings.json"), []byte(`{"tools":{"exclude":["run_shell_command(rm)"],"allowed":["run_shell_command(touch a3)"]}}`), 0o644)
	yolo := Load(Options{Home: home, Cwd: cwd, Args: []string{"--approval-mode", "yolo", "-p", "x"}})
	def := Load(Options{Home: home, Cwd: cwd, Args: []string{"-p", "x"}})
	for _, r := range []struct {
		p    *Policy
		cmd  string
		want hook.Verdict
		why  string
	}{
		{yolo, "touch a1", hook.Deny, "a user deny rule"},
		{yolo, "touch a1x", hook.Deny, "not touch a1's rule, but tools.allowed's narrowing"},
		{yolo, "ls && touch a1", hook.Deny, "any part"},
		{yolo, "git push origin main", hook.Ask, "an ask_user rule"},
		{yolo, "git push origin docs", hook.Pass, "a higher-priority allow wins: left to the client"},
		{yolo, "rm -rf build", hook.Deny, "commandRegex"},
		{yolo, "rm -f keep.txt", hook.Deny, "tools.allowed narrows the shell: any other command is denied"},
		{yolo, "touch a3", hook.Pass, "tools.allowed"},
		{yolo, "terraform apply", hook.Deny, "a yolo-only rule in yolo mode"},
		{def, "terraform apply", hook.Deny, "the narrowing deny, in any mode"},
		{yolo, "bash -c 'touch a1'", hook.Deny, "hookctl: a literal inline script too"},
	} {
		if got := judge(r.p, r.cmd); got != r.want {
			t.Errorf("%s %q: %s, want %s (%s)", r.p.Mode, r.cmd, got, r.want, r.why)
		}
	}
	// tools.exclude with arguments is matched as a tool name, which no call has (live: rm ran in
	// yolo mode without hookctl).
	os.WriteFile(filepath.Join(home, ".gemini", "settings.json"), []byte(`{"tools":{"exclude":["run_shell_command(rm)"]}}`), 0o644)
	plain := Load(Options{Home: home, Cwd: cwd, Args: []string{"-y"}})
	if got := judge(plain, "rm -f keep.txt"); got != hook.Pass {
		t.Errorf("tools.exclude run_shell_command(rm): %s, want pass (as the client)", got)
	}
	if got := judge(plain, "touch a1x"); got != hook.Pass {
		t.Errorf("touch a1x under commandPrefix touch a1: %s, want pass (a prefix ends at a blank or the end)", got)
	}
	if got := judge(plain, "touch a1 x"); got != hook.Deny {
		t.Errorf("touch a1 x: %s, want deny", got)
	}
}
