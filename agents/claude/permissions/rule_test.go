package permissions

import (
	"strings"
	"testing"

	"github.com/hookctl/hookctl/hook"
	"github.com/hookctl/hookctl/lexer"
	"github.com/hookctl/hookctl/policy"
)

const (
	cwd  = "/home/u/proj"
	home = "/home/u"
)

// set builds a rule set from "behavior Rule" lines, all in the project's local settings unless a
// line names its scope ("user deny Read(/x/**)").
func set(lines ...string) *Set {
	s := &Set{cwd: cwd, home: home, dirs: []string{cwd}, ArgsKnown: true}
	for i, l := range lines {
		scope, src := ScopeLocal, Source{Scope: ScopeLocal, Path: cwd + "/.claude/settings.local.json", Root: cwd}
		if rest, ok := strings.CutPrefix(l, "user "); ok {
			l, scope = rest, ScopeUser
			src = Source{Scope: scope, Path: home + "/.claude/settings.json", Root: home + "/.claude"}
		}
		b, text, _ := strings.Cut(l, " ")
		beh := map[string]Behavior{"allow": Allow, "ask": Ask, "deny": Deny}[b]
		s.rules = append(s.rules, parseRule(text, beh, src, i))
	}
	return s
}

func judge(s *Set, mode, cmd string, read bool) policy.ClientVerdict {
	c := &hook.ToolCall{Tool: "Bash", Kind: hook.KindShell, Command: cmd, Cwd: cwd, PermissionMode: mode}
	return s.Judge(policy.ClientQuery{Call: c, Line: lexer.NewCommandLine(cmd), Read: read, Rewrite: "/opt/hookctl sandbox --session s -- bash -c " + lexer.Quote(cmd)})
}

// reads stands in for hookctl's read-only judge in these rows: a command made only of the
// client's read-only programs is a read.
func reads(cmd string) bool {
	a := newAnatomy(lexer.NewCommandLine(cmd))
	for _, p := range a.parts {
		if !readOnlyPart(p) {
			return false
		}
	}
	return a.parsed
}

// row: under rule (one line of set), the command gets want ("allow", "ask", "deny": the
// verdict in default mode, where no rule asks).
type row struct{ rule, cmd, want, why string }

func check(t *testing.T, rows ...row) {
	t.Helper()
	seen := map[string]bool{}
	for _, r := range rows {
		key := r.rule + "\x00" + r.cmd
		if seen[key] {
			t.Fatalf("duplicate row %q %q", r.rule, r.cmd)
		}
		seen[key] = true
		v := judge(set(r.rule), "default", r.cmd, reads(r.cmd))
		if got := v.Verdict.String(); got != r.want {
			t.Errorf("%s: %q → %s, want %s (%s)", r.rule, r.cmd, got, r.want, r.why)
		}
	}
}

// Rows from Claude Code's permission documentation ("Wildcard patterns", 2026-10), as allow
// rules: a match allows, a miss asks (default mode).
func TestBashWildcardsDocumented(t *testing.T) {
	check(t,
		row{"allow Bash(npm run build)", "npm run build", "allow", "exact"},
		row{"allow Bash(npm run build)", "npm run build --watch", "ask", "exact is exact"},
		row{"allow Bash(npm run *)", "npm run build", "allow", ""},
		row{"allow Bash(npm run *)", "npm run test --watch", "allow", ""},
		row{"allow Bash(npm run *)", "npm run", "allow", "a lone trailing ` *` also matches the bare command"},
		row{"allow Bash(npm run *)", "npm install", "ask", ""},
		row{"allow Bash(git log * main)", "git log --oneline main", "allow", ""},
		row{"allow Bash(git log * main)", "git log -5 main", "allow", ""},
		row{"allow Bash(git log * main)", "git log --output=out main", "allow", ""},
		row{"allow Bash(git log * main)", "git log main", "ask", "the middle * needs its spaces"},
		row{"allow Bash(git log * main)", "git push origin main", "ask", ""},
		row{"allow Bash(git * main)", "git merge main", "allow", ""},
		row{"allow Bash(git * main)", "git push origin main", "allow", ""},
		row{"allow Bash(git * main)", "git -c core.fsmonitor=x diff main", "allow", ""},
		row{"allow Bash(git * main)", "git log", "ask", ""},
		row{"allow Bash(* --version)", "node --version", "allow", ""},
		row{"allow Bash(* --version)", "bash -c 'echo hi' --version", "allow", ""},
		row{"allow Bash(* --version)", "node -v", "ask", ""},
		row{"allow Bash(ls *)", "ls -la", "allow", ""},
		row{"allow Bash(ls *)", "ls", "allow", ""},
		row{"allow Bash(ls *)", "lsof", "ask", "the space before * is part of the rule"},
		row{"allow Bash(ls*)", "ls -la", "allow", ""},
		row{"allow Bash(ls*)", "lsof", "allow", ""},
		row{"allow Bash(* --help *)", "npm --help x", "allow", ""},
		row{"allow Bash(* --help *)", "npm --help", "ask", "two wildcards: the trailing one is not optional"},
		row{"allow Bash(ls:*)", "ls -la", "allow", ":* is a trailing wildcard"},
		row{"allow Bash(ls:*)", "ls", "allow", ""},
		row{"allow Bash(ls:*)", "lsof", "ask", ""},
		row{"allow Bash(git:* push)", "git push", "ask", "a :* not at the end is literal"},
		row{"allow Bash(touch e4:*)", "touch e4 x", "allow", "live, 2.1.328"},
		row{"allow Bash(rm \\* *)", "rm * x", "allow", `\* is a literal star`},
		row{"allow Bash(rm \\* *)", "rm a x", "ask", ""},
	)
}

// Compound commands, wrappers and assignments ("Compound commands", "Wrappers"; and live,
// 2.1.328, where noted).
func TestBashCompoundAndWrappers(t *testing.T) {
	check(t,
		row{"allow Bash(safe-cmd *)", "safe-cmd && other-cmd", "ask", "a rule must match each subcommand"},
		row{"allow Bash(touch e1)", "touch e1; touch e1", "allow", "live: every part matches"},
		row{"allow Bash(touch e1)", "touch e1 && touch e2", "ask", "live"},
		row{"allow Bash(touch x1)", "touch x1 && ls", "allow", "live: the read-only part needs no rule"},
		row{"allow Bash(touch x1)", "touch x1 | cat", "allow", "live"},
		row{"allow Bash(touch x1)", "echo $(touch x1)", "ask", "live: a nested command is not approved"},
		row{"allow Bash(touch x1)", "touch x1 &", "ask", "live: the background operator"},
		row{"allow Bash(touch sub/x2)", "cd sub && touch sub/x2", "ask", "live: cd before a write"},
		row{"allow Bash(npm test)", "npm test &&", "ask", "unparseable: not split, not approved"},
		row{"deny Bash(git clean *)", "cd /tmp && git clean -f", "deny", "any subcommand"},
		row{"deny Bash(git clean *)", `echo "$(git clean -f)"`, "deny", "inside a command substitution"},
		row{"deny Bash(git clean *)", "for f in a; do git clean -f; done", "deny", "inside a loop's body"},
		row{"ask Bash(git clean *)", "(git clean -fdx)", "ask", "inside a subshell"},
		row{"deny Bash(rm:*)", "ls && rm -f keep.txt", "deny", "live"},
		row{"allow Bash(npm test *)", "timeout 30 npm test", "allow", "timeout is stripped"},
		row{"allow Bash(npm test *)", "nice -n 5 nohup npm test", "allow", ""},
		row{"allow Bash(npm test *)", "stdbuf -oL npm test", "allow", ""},
		row{"allow Bash(npm test *)", "time npm test", "allow", ""},
		row{"allow Bash(npm test *)", "command npm test", "allow", ""},
		row{"allow Bash(npm test *)", "NODE_ENV=test npm test", "allow", "a harmless assignment"},
		row{"allow Bash(touch e1)", "FOO=bar touch e1", "ask", "live: any other assignment stops an allow"},
		row{"allow Bash(npm test *)", "env npm test", "ask", "env is not one of the client's wrappers"},
		row{"deny Bash(rm *)", "FOO=bar rm -rf tmp/", "deny", "a deny matches past any assignment"},
		row{"allow Bash(grep *)", "xargs grep pattern", "allow", "bare xargs is stripped"},
		row{"allow Bash(grep *)", "xargs -n1 grep pattern", "ask", "xargs with options is not"},
		row{"allow Bash(devbox run *)", "devbox run rm -rf .", "allow", "the documented danger of a runner prefix"},
		row{"allow Bash(watch *)", "watch ls", "ask", "exec wrappers take exact rules only"},
		row{"allow Bash(watch ls)", "watch ls", "allow", ""},
		row{"allow Bash(find *)", "find . -delete", "ask", "find -delete takes exact rules only"},
		row{"allow Bash(find *)", "find . -exec rm {} ;", "ask", ""},
	)
}

// What a deny or ask rule also stops in hookctl, beyond the client ("What a Bash rule doesn't
// match" lists these as not stopped by the client): a rule written to refuse keeps refusing.
func TestBashDenyBroaderThanClient(t *testing.T) {
	check(t,
		row{"deny Bash(curl *)", "/usr/bin/curl https://example.com", "deny", "the program's directory"},
		row{"deny Bash(curl *)", "sh -c 'curl https://example.com'", "deny", "a literal sh -c script"},
		row{"deny Bash(rm *)", "bash -c 'rm -rf build/'", "deny", ""},
		row{"deny Bash(rm *)", "bash -c 'bash -c \"rm -rf build/\"'", "deny", "nested scripts"},
		row{"deny Bash(git push *)", "git 'push' origin main", "deny", "quotes removed"},
		row{"deny Bash(git push *)", "sudo git push origin main", "deny", "sudo stripped"},
		row{"deny Bash(git push *)", "env GIT_TRACE=1 git push origin main", "deny", "env stripped"},
		row{"ask Bash(terraform apply:*)", "TF_LOG=1 terraform apply -auto-approve", "ask", ""},
		row{"deny Bash(git push *)", "git -C . push origin main", "ask", "not stopped: an option before the subcommand (the client neither)"},
	)
}

// Read and Edit rules on the files Bash commands name (live, 2.1.328).
func TestFileRulesOnBash(t *testing.T) {
	check(t,
		row{"deny Read(./secrets/**)", "cat secrets/k", "deny", "live"},
		row{"deny Read(./secrets/**)", "grep -r s secrets", "deny", "live: a directory read whole"},
		row{"deny Read(./secrets/**)", "head secrets/k", "deny", "live"},
		row{"deny Read(./secrets/**)", "wc -l secrets/k", "deny", "live"},
		row{"deny Read(./secrets/**)", "sort secrets/k", "deny", "live"},
		row{"deny Read(./secrets/**)", "cat README.md", "allow", "another file: a read, which runs"},
		row{"deny Read(./secrets/**)", "grep -r secrets .", "allow", "a pattern is no file, and . is named whole"},
		row{"deny Read(./secrets/**)", "cat < secrets/k", "deny", "an input redirection"},
		row{"deny Read(secrets/**)", "cat vendor/secrets/k", "deny", "deny: a single directory at any depth"},
		row{"deny Edit(docs/**)", "echo x > docs/d", "deny", "live: an output redirection"},
		row{"deny Edit(docs/**)", "cp README.md docs/e", "deny", "live: cp's target"},
		row{"deny Edit(docs/**)", "echo y | tee docs/f", "deny", "live: tee's file"},
		row{"deny Edit(docs/**)", "cp docs/a x", "ask", "cp reads its source: an Edit rule does not cover it"},
		row{"deny Edit(docs/**)", "sed -i s/a/b/ docs/x", "deny", "sed -i writes"},
		row{"deny Edit(docs/**)", "sed s/a/b/ docs/x", "ask", "sed without -i reads: not denied"},
		row{"deny Read(.env)", "cat sub/dir/.env", "deny", "a bare name at any depth"},
		row{"deny Read(.env)", "cat ../.env", "allow", "not above the working directory"},
		row{"deny Read(//**/.env)", "cat /etc/app/.env", "deny", "anchored at the root"},
		row{"deny Read(~/.zshrc)", "cat ~/.zshrc", "deny", "home-relative"},
		row{"deny Edit(//tmp/scratch.txt)", "echo x > /tmp/scratch.txt", "deny", "absolute"},
		row{"deny Edit(/src/**)", "touch src/a.ts", "deny", "/ is the project in local settings"},
		row{"deny Edit(/src/**)", "touch vendor/src/a.ts", "ask", "anchored"},
		row{"user deny Read(/secrets/**)", "cat secrets/k", "allow", "/ in user settings is ~/.claude"},
		row{"user deny Read(/secrets/**)", "cat ~/.claude/secrets/k", "deny", ""},
		row{"ask Read(*.pem)", "cat certs/x.pem", "ask", ""},
	)
	// Allow rules on one directory are anchored; deny rules reach any depth.
	if v := judge(set("allow Edit(src/**)", "allow Bash(echo *)"), "default", "echo x > vendor/pkg/src/lib.js", false); v.Verdict != hook.Ask {
		t.Errorf("allow Edit(src/**) approved a write below vendor: %+v", v)
	}
	if v := judge(set("allow Edit(src/**)", "allow Bash(echo *)"), "default", "echo x > src/app.ts", false); v.Verdict != hook.Allow {
		t.Errorf("allow Edit(src/**) did not approve src/app.ts: %+v", v)
	}
	// A carve-out reopens what a rule listed before it in the same list blocks.
	s := set("deny Read(*.env)", "deny Read(!sample.env)")
	if v := judge(s, "default", "cat sample.env", false); v.Verdict == hook.Deny {
		t.Errorf("!sample.env did not carve out: %+v", v)
	}
	if v := judge(s, "default", "cat prod.env", false); v.Verdict != hook.Deny {
		t.Errorf("*.env did not deny prod.env: %+v", v)
	}
	if v := judge(set("deny Read(!sample.env)", "deny Read(*.env)"), "default", "cat sample.env", false); v.Verdict != hook.Deny {
		t.Errorf("a ! listed first carved out: %+v", v)
	}
}

// Precedence: deny, then ask, then allow, whatever the scope and however specific.
func TestPrecedence(t *testing.T) {
	s := set("allow Bash(aws s3 ls)", "user deny Bash(aws *)")
	if v := judge(s, "default", "aws s3 ls", false); v.Verdict != hook.Deny || !strings.Contains(v.Rule, "deny Bash(aws *) in "+home) {
		t.Errorf("a broad deny did not beat a narrow allow: %+v", v)
	}
	s = set("allow Bash(git push origin main)", "ask Bash(git push *)")
	if v := judge(s, "bypassPermissions", "git push origin main", false); v.Verdict != hook.Ask {
		t.Errorf("an ask rule did not beat an allow, in bypassPermissions: %+v", v)
	}
	if v := judge(set("deny Bash"), "default", "ls", true); v.Verdict != hook.Deny {
		t.Errorf("a deny of the whole tool let a read run: %+v", v)
	}
	if v := judge(set("ask *"), "default", "ls", true); v.Verdict != hook.Ask {
		t.Errorf("an ask rule on every tool did not ask: %+v", v)
	}
}

// No rule: the permission mode decides (live, 2.1.328, -p: default and plan ask, which -p
// refuses; dontAsk refuses; acceptEdits runs file changes in the working directory;
// bypassPermissions runs; a read runs in every mode).
func TestModes(t *testing.T) {
	s := set()
	for _, r := range []struct {
		mode, cmd string
		read      bool
		want      hook.Verdict
	}{
		{"default", "touch m1", false, hook.Ask},
		{"", "touch m1", false, hook.Ask},
		{"plan", "touch m1", false, hook.Ask},
		{"default", "cat README.md", true, hook.Allow},
		{"dontAsk", "touch m1", false, hook.Deny},
		{"dontAsk", "ls", true, hook.Allow},
		{"bypassPermissions", "touch m8", false, hook.Allow},
		{"acceptEdits", "touch m2", false, hook.Allow},
		{"acceptEdits", "mkdir m3 && cp README.md m3/x", false, hook.Allow},
		{"acceptEdits", "rm -f keep.txt", false, hook.Allow},
		{"acceptEdits", "echo x > m5", false, hook.Allow},
		{"acceptEdits", "sed -i s/r/q/ README.md", false, hook.Allow},
		{"acceptEdits", "touch /tmp/outside", false, hook.Ask},
		{"acceptEdits", "touch .git/x1", false, hook.Ask},
		{"acceptEdits", "touch .claude/x2", false, hook.Ask},
		{"acceptEdits", "touch .claude/commands/x", false, hook.Allow},
		{"acceptEdits", "chmod 600 README.md", false, hook.Ask},
		{"acceptEdits", "npm --version > /dev/null", false, hook.Ask},
		{"default", "rm -rf " + cwd, false, hook.Ask},
		{"bypassPermissions", "rm -rf ~", false, hook.Ask},
		{"dontAsk", "rm -rf /", false, hook.Deny},
		{"auto", "touch m1", false, hook.Pass},
		{"someNewMode", "touch m1", false, hook.Ask},
	} {
		if v := judge(s, r.mode, r.cmd, r.read); v.Verdict != r.want {
			t.Errorf("%s %q: %s, want %s (%s)", r.mode, r.cmd, v.Verdict, r.want, v.Reason)
		}
	}
	// An allow rule does not approve an rm of a critical path.
	if v := judge(set("allow Bash(rm *)"), "default", "rm -rf ~", false); v.Verdict != hook.Ask {
		t.Errorf("allow Bash(rm *) approved rm -rf ~: %+v", v)
	}
	// auto: a rule that would approve hookctl's rewrite is not left to decide.
	if v := judge(set("allow Bash(/opt/hookctl sandbox *)"), "auto", "touch m1", false); v.Verdict != hook.Ask {
		t.Errorf("auto mode with a rule on the rewrite: %+v", v)
	}
	// The default mode's ask says what rule would stop the question.
	if v := judge(s, "default", "npm test", false); !strings.Contains(v.Reason, `"Bash(npm test *)"`) {
		t.Errorf("the ask names no rule to add: %q", v.Reason)
	}
}

// A redirection's target is the command's own check: an allow rule approves the command, not
// the file it writes (live, 2.1.328: `echo hi > e1` was asked without an Edit rule).
func TestRedirectTargets(t *testing.T) {
	if v := judge(set("allow Bash(echo *)"), "default", "echo hi > e1", false); v.Verdict != hook.Ask {
		t.Errorf("allow Bash(echo *) approved a write to e1: %+v", v)
	}
	if v := judge(set("allow Bash(echo *)", "allow Edit(/e1)"), "default", "echo hi > e1", false); v.Verdict != hook.Allow {
		t.Errorf("Edit(/e1) did not approve the write: %+v", v)
	}
	if v := judge(set("allow Bash(echo *)"), "acceptEdits", "echo hi > e1", false); v.Verdict != hook.Allow {
		t.Errorf("acceptEdits did not accept a write in the working directory: %+v", v)
	}
	if v := judge(set("allow Bash(npm test *)"), "default", "npm test 2>&1 > /dev/null", false); v.Verdict != hook.Allow {
		t.Errorf("/dev/null and fd copies are no file: %+v", v)
	}
}

func TestParseRule(t *testing.T) {
	for _, r := range []struct{ in, tool, content string }{
		{"Bash", "Bash", ""},
		{"Bash(*)", "Bash", ""},
		{"Bash(npm run build)", "Bash", "npm run build"},
		{"Edit(./Finance (2024)/**)", "Edit", "./Finance (2024)/**"},
		{" Read(~/.ssh/**) ", "Read", "~/.ssh/**"},
		{"mcp__github__*", "mcp__github__*", ""},
		{"Bash(unclosed", "Bash(unclosed", ""},
	} {
		got := parseRule(r.in, Allow, Source{}, 0)
		if got.Tool != r.tool || got.Content != r.content {
			t.Errorf("parseRule(%q) = %q %q, want %q %q", r.in, got.Tool, got.Content, r.tool, r.content)
		}
	}
}
