package execpolicy

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/hookctl/hookctl/hook"
	"github.com/hookctl/hookctl/lexer"
	"github.com/hookctl/hookctl/policy"
)

const rules = `# mine
prefix_rule(
    pattern = ["gh", "pr", "view"],
    decision = "prompt",
    justification = "Viewing PRs is allowed with approval",
    match = ["gh pr view 7888"],
    not_match = ["gh pr --repo openai/codex view 7888"],
)
prefix_rule(pattern = ["git", ["push", "fetch"]], decision = "prompt")
prefix_rule(pattern = ["rm"], decision = "forbidden", justification = "Use trash instead.")
prefix_rule(pattern = ["git", "add"])
prefix_rule(pattern = ["touch", "a3"], decision = 'allow',)
host_executable(name = "git", paths = ["/usr/bin/git"])
`

func judge(t *testing.T, p *Policy, cmd string) policy.ClientVerdict {
	t.Helper()
	c := &hook.ToolCall{Tool: "Bash", Kind: hook.KindShell, Command: cmd}
	return p.Judge(policy.ClientQuery{Call: c, Line: lexer.NewCommandLine(cmd)})
}

// Rows from Codex's rules documentation (developers.openai.com/codex/rules) and seen live
// (0.169.0).
func TestCodexRules(t *testing.T) {
	rs, err := Parse("default.rules", rules)
	if err != nil {
		t.Fatal(err)
	}
	p := &Policy{Rules: rs}
	for _, r := range []struct {
		cmd  string
		want hook.Verdict
		why  string
	}{
		{"gh pr view 7888", hook.Ask, "the documented prompt rule"},
		{"gh pr view --repo openai/codex", hook.Ask, ""},
		{"gh pr --repo openai/codex view 7888", hook.Pass, "the pattern must be an exact prefix"},
		{"git push origin main", hook.Ask, "alternatives"},
		{"git fetch", hook.Ask, ""},
		{"git status", hook.Pass, "no rule"},
		{"rm -rf build", hook.Deny, "forbidden"},
		{"git add . && rm -rf /", hook.Deny, "a chain is split: the strictest wins"},
		{"git add . && touch a3", hook.Allow, "every part allowed"},
		{"git add . && ls", hook.Pass, "a part no rule names: Codex's own check"},
		{"git add . > log", hook.Pass, "a redirection: judged whole as bash -lc, which no rule names"},
		{"touch a3 > log", hook.Pass, ""},
		{"X=1 rm -rf build", hook.Deny, "hookctl: a forbidden rule also holds where Codex would not split"},
		{"rm -rf $DIR", hook.Deny, "the leading literal words"},
		{"bash -lc 'rm -rf build'", hook.Deny, "a literal inline script"},
		{"/bin/rm -rf build", hook.Deny, "the program's directory"},
	} {
		if v := judge(t, p, r.cmd); v.Verdict != r.want {
			t.Errorf("%q: %s, want %s (%s): %s", r.cmd, v.Verdict, r.want, r.why, v.Reason)
		}
	}
	if v := judge(t, p, "rm x"); !strings.Contains(v.Reason, "Use trash instead.") || !strings.Contains(v.Rule, "default.rules:10") {
		t.Errorf("the refusal names neither the justification nor the rule: %+v", v)
	}
}

func TestParseRefusesWhatItCannotRead(t *testing.T) {
	for _, src := range []string{
		"x = 1\n",
		"prefix_rule(pattern = [\"a\"], decision = \"maybe\")\n",
		"prefix_rule(pattern = [])\n",
		"prefix_rule(pattern = [\"a\"], colour = \"red\")\n",
		"for r in rules: prefix_rule(pattern = r)\n",
		"prefix_rule(pattern = [\"a\"]\n",
		"prefix_rule(pattern = [\"a\"], decision = \"\"\"allow\"\"\")\n",
	} {
		if _, err := Parse("f.rules", src); err == nil {
			t.Errorf("Parse(%q) succeeded", src)
		}
	}
}

// TestLoadLayers: the system's, the user's, and a trusted project's rules; an unreadable file
// refuses every command, naming it.
func TestLoadLayers(t *testing.T) {
	base := t.TempDir()
	sys, home, proj := filepath.Join(base, "etc"), filepath.Join(base, "codex"), filepath.Join(base, "proj")
	write := func(p, s string) {
		os.MkdirAll(filepath.Dir(p), 0o755)
		os.WriteFile(p, []byte(s), 0o644)
	}
	write(filepath.Join(sys, "rules", "a.rules"), `prefix_rule(pattern = ["s1"], decision = "forbidden")`)
	write(filepath.Join(home, "rules", "default.rules"), `prefix_rule(pattern = ["u1"], decision = "forbidden")`)
	write(filepath.Join(proj, ".codex", "rules", "p.rules"), `prefix_rule(pattern = ["p1"], decision = "forbidden")`)
	os.MkdirAll(filepath.Join(proj, ".git"), 0o755)
	o := Options{CodexHome: home, Cwd: proj, System: sys}
	p := Load(o)
	for cmd, want := range map[string]hook.Verdict{"s1": hook.Deny, "u1": hook.Deny, "p1": hook.Pass} {
		if v := judge(t, p, cmd); v.Verdict != want {
			t.Errorf("untrusted project, %s: %s, want %s", cmd, v.Verdict, want)
		}
	}
	write(filepath.Join(home, "config.toml"), "[projects.\""+proj+"\"]\ntrust_level = \"trusted\"\n")
	if v := judge(t, Load(o), "p1"); v.Verdict != hook.Deny {
		t.Errorf("trusted project, p1: %s", v.Verdict)
	}
	write(filepath.Join(home, "rules", "z.rules"), "load(\"x\")\n")
	if v := judge(t, Load(o), "ls"); v.Verdict != hook.Deny || !strings.Contains(v.Reason, "z.rules") {
		t.Errorf("an unreadable rules file: %+v", v)
	}
}
