package permissions

import (
	"testing"
	"time"

	"github.com/hookctl/hookctl/hook"
	"github.com/hookctl/hookctl/lexer"
	"github.com/hookctl/hookctl/policy"
)

// FuzzRulesJudge: any rule text against any command, in any mode, gives a verdict, soon: a rule
// or a command the matcher cannot read must never crash the hook or hang it (the hook then
// fails closed, but the user's rules would decide nothing).
func FuzzRulesJudge(f *testing.F) {
	for _, s := range [][3]string{
		{"Bash(git log * main)", "git log --oneline main && rm -rf x", "default"},
		{"Read(./secrets/**)", "cat secrets/k > out 2>&1 < in", "acceptEdits"},
		{"Edit(!**/[a-", "sed -i s/a/b/ 'x y' | tee z", "dontAsk"},
		{"Bash(\\\\*:*)", "bash -c 'sh -c \"rm -rf /\"'", "bypassPermissions"},
		{"Bash(*)", "timeout -k 1 5 nice -n 2 xargs grep x", "auto"},
		{"Read(~/x/**)", "cd ~/x && cat ../../etc/passwd", "plan"},
	} {
		f.Add(s[0], s[1], s[2])
	}
	f.Fuzz(func(t *testing.T, rule, cmd, mode string) {
		if len(rule) > 256 || len(cmd) > 1024 {
			return
		}
		var s *Set
		for _, b := range []string{"allow", "ask", "deny"} {
			s = set(b + " " + rule)
			c := &hook.ToolCall{Tool: "Bash", Kind: hook.KindShell, Command: cmd, Cwd: cwd, PermissionMode: mode}
			start := time.Now()
			v := s.Judge(policy.ClientQuery{Call: c, Line: lexer.NewCommandLine(cmd), Rewrite: "/x/hookctl sandbox -- " + cmd})
			if d := time.Since(start); d > 2*time.Second {
				t.Fatalf("%q on %q took %v", rule, cmd, d)
			}
			if v.Verdict > hook.Ask {
				t.Fatalf("verdict %d", v.Verdict)
			}
			if v.Verdict == hook.Deny && v.Reason == "" {
				t.Fatalf("a deny without a reason for %q on %q", rule, cmd)
			}
		}
	})
}
