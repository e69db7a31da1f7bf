package permissions

import (
	"testing"

	"github.com/hookctl/hookctl/hook"
	"github.com/hookctl/hookctl/lexer"
	"github.com/hookctl/hookctl/policy"
)

func judge(p *Permissions, cmd string, read bool) hook.Verdict {
	c := &hook.ToolCall{Tool: "bash", Kind: hook.KindShell, Command: cmd}
	return p.Judge(policy.ClientQuery{Call: c, Line: lexer.NewCommandLine(cmd), Read: read}).Verdict
}

// Rows from Copilot CLI's documentation ("Allowing and denying tool use") and seen live
// (1.0.102): deny rules win over allow rules and --allow-all-tools.
func TestCopilotRules(t *testing.T) {
	for _, r := range []struct {
		args []string
		cmd  string
		read bool
		want hook.Verdict
	}{
		{[]string{"--allow-all-tools", "--deny-tool", "shell(rm)", "--deny-tool", "shell(touch a1)"}, "touch a1", false, hook.Deny},
		{[]string{"--allow-all-tools", "--deny-tool", "shell(rm)"}, "rm -f keep.txt", false, hook.Deny},
		{[]string{"--allow-all-tools", "--deny-tool", "shell(rm)"}, "ls && rm -f x", false, hook.Deny},
		{[]string{"--allow-all-tools", "--deny-tool", "shell(rm)"}, "touch a3", false, hook.Allow},
		{[]string{"--allow-tool=shell(git:*)", "--deny-tool=shell(git push)"}, "git push origin main", false, hook.Deny},
		{[]string{"--allow-tool=shell(git:*)", "--deny-tool=shell(git push)"}, "git commit -m x", false, hook.Allow},
		{[]string{"--allow-tool", "shell(touch a3)"}, "touch a3", false, hook.Ask},
		{[]string{"--allow-tool", "shell(touch)"}, "touch a3", false, hook.Allow},
		{[]string{"--allow-tool", "shell(touch)", "--deny-tool", "shell(touch a1)"}, "touch a1", false, hook.Deny},
		{[]string{"--allow-tool", "shell(touch a3)"}, "touch a4", false, hook.Ask},
		{[]string{"--allow-tool", "shell(touch a3)"}, "cat f", true, hook.Allow},
		{[]string{"--allow-tool", "shell(touch)"}, "touch a3 && rm a4", false, hook.Ask},
		{[]string{"--allow-tool", "shell"}, "anything at all", false, hook.Allow},
		{[]string{"--deny-tool", "shell"}, "ls", true, hook.Deny},
		{[]string{"--allow-tool", "write,shell(npm test)"}, "npm test", false, hook.Allow},
		{[]string{"--yolo", "--deny-tool", "shell(rm)"}, "bash -c 'rm -rf x'", false, hook.Deny},
	} {
		if got := judge(Parse(r.args), r.cmd, r.read); got != r.want {
			t.Errorf("%q, %q: %s, want %s", r.args, r.cmd, got, r.want)
		}
	}
	if got := judge(&Permissions{}, "touch x", false); got != hook.Ask {
		t.Errorf("unknown flags, a write: %s, want ask", got)
	}
	if got := judge(&Permissions{}, "cat f", true); got != hook.Allow {
		t.Errorf("unknown flags, a read: %s, want allow", got)
	}
}
