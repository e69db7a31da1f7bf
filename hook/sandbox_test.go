package hook

import (
	"os"
	"strings"
	"testing"

	"mvdan.cc/sh/v3/expand"
	"mvdan.cc/sh/v3/syntax"
)

// shellWords parses command as bash would and returns each simple command's words, expanded.
func shellWords(t *testing.T, command string) [][]string {
	t.Helper()
	f, err := syntax.NewParser().Parse(strings.NewReader(command), "")
	if err != nil {
		t.Fatalf("%q does not parse: %v", command, err)
	}
	var cmds [][]string
	syntax.Walk(f, func(n syntax.Node) bool {
		if call, ok := n.(*syntax.CallExpr); ok {
			var words []string
			for _, w := range call.Args {
				s, err := expand.Literal(nil, w)
				if err != nil {
					t.Fatalf("%q: %v", command, err)
				}
				words = append(words, s)
			}
			cmds = append(cmds, words)
		}
		return true
	})
	return cmds
}

func TestContainRewritesIntoTheLauncher(t *testing.T) {
	calls := 0
	p := &Policy{Config: &Config{}, Binary: "/opt/hook ctl/hookctl", Sandbox: func() Isolation {
		calls++
		return Isolation{Available: true, Describe: "landlock ABI 7, seccomp"}
	}}
	for _, c := range []struct {
		command, session string
		cd               string // the directory left outside, or ""
	}{
		{"git log --oneline -3", "0f7c-uuid", ""},
		{"rg -n 'it'\"'\"'s' --type go | head -5", "s", ""},
		{"cd lexer && ls -la", "s", "lexer"},
		{"cd 'a dir' && cat f", "it's", "a dir"},
		{"for f in a b; do wc -l \"$f\"; done", "s", ""},
		{"if git diff --quiet; then echo clean; else git diff --stat; fi", "s", ""},
	} {
		want, r := judgeReadOnly(c.command, p.Config)
		if r != nil {
			t.Fatalf("%q refused: %s", c.command, r.What)
		}
		d := p.Decide(&ToolCall{Tool: "Bash", Kind: KindShell, Command: c.command, Session: c.session}, SessionState{})
		if d.Verdict != Allow || d.Isolation != "sandbox: landlock ABI 7, seccomp" {
			t.Fatalf("%q: %v %q %q", c.command, d.Verdict, d.Reason, d.Isolation)
		}
		cmds := shellWords(t, d.Command)
		launch := cmds[len(cmds)-1]
		if c.cd != "" {
			if len(cmds) < 2 || strings.Join(cmds[0], " ") != "cd "+c.cd {
				t.Errorf("%q: the cd did not stay outside: %s", c.command, d.Command)
			}
			want = strings.TrimPrefix(want, "cd "+quoteForTest(c.cd)+" && ")
		}
		head := []string{p.Binary, "sandbox", "--session", c.session, "--", "bash", "--noprofile", "--norc", "-c"}
		if len(launch) != len(head)+1 || strings.Join(launch[:len(head)], "\x00") != strings.Join(head, "\x00") {
			t.Errorf("%q: launcher words %q", c.command, launch)
			continue
		}
		if launch[len(head)] != want {
			t.Errorf("%q: the sandboxed shell runs\n%q\nnot what was judged\n%q", c.command, launch[len(head)], want)
		}
	}
	p.Decide(&ToolCall{Tool: "Bash", Kind: KindShell, Command: "sed -i s/a/b/ f"}, SessionState{})
	p.Decide(&ToolCall{Tool: "Read", Kind: KindFileRead}, SessionState{})
	if calls != 6 {
		t.Errorf("the sandbox was asked %d times for 6 admitted commands", calls)
	}
}

func quoteForTest(s string) string {
	if strings.ContainsAny(s, " '") {
		return "'" + s + "'"
	}
	return s
}

func TestContainWithoutSandbox(t *testing.T) {
	none := func() Isolation { return Isolation{Reason: "the kernel has no Landlock"} }
	some := func() Isolation { return Isolation{Available: true, Describe: "landlock"} }
	for _, c := range []struct {
		name      string
		sandbox   func() Isolation
		setting   string
		call      ToolCall
		verdict   Verdict
		isolation string
		command   string
	}{
		{"policy only", none, "", ToolCall{Tool: "Bash", Kind: KindShell, Command: "ls -la"},
			Allow, "policy only: the kernel has no Landlock", "ls -la"},
		{"require refuses", none, SandboxRequire, ToolCall{Tool: "Bash", Kind: KindShell, Command: "ls -la"},
			Deny, "", ""},
		{"a client that ignores rewrites", some, "", ToolCall{Tool: "Monitor", Kind: KindShell, Command: "ls -la", NoRewrite: true},
			Allow, "policy only: the client runs Monitor commands as it received them (no rewrite)", "ls -la"},
		{"require refuses a client that ignores rewrites", some, SandboxRequire, ToolCall{Tool: "Monitor", Kind: KindShell, Command: "ls", NoRewrite: true},
			Deny, "", ""},
		{"hookctl's own read runs outside", some, SandboxRequire, ToolCall{Tool: "Bash", Kind: KindShell, Command: "hookctl readonly status"},
			Allow, "hookctl's own read, outside the sandbox", "/bin/hookctl readonly status"},
		{"hookctl in a pipeline is sandboxed", none, "", ToolCall{Tool: "Bash", Kind: KindShell, Command: "hookctl readonly status | head -1"},
			Allow, "policy only: the kernel has no Landlock", "hookctl readonly status | head -1"},
	} {
		p := &Policy{Config: &Config{Sandbox: c.setting}, Binary: "/bin/hookctl", Sandbox: c.sandbox}
		d := p.Decide(&c.call, SessionState{})
		if d.Verdict != c.verdict || d.Isolation != c.isolation || d.Command != c.command {
			t.Errorf("%s: %v %q %q (%s)", c.name, d.Verdict, d.Isolation, d.Command, d.Reason)
		}
		if c.verdict == Deny && !strings.Contains(d.Reason, `sandbox = "require"`) {
			t.Errorf("%s: reason %q", c.name, d.Reason)
		}
	}
}

func TestSandboxSetting(t *testing.T) {
	if _, err := ParseConfig("c.toml", `sandbox = "off"`); err == nil || !strings.Contains(err.Error(), "c.toml:1: sandbox must be") {
		t.Errorf("sandbox = off: %v", err)
	}
	home, project := t.TempDir(), t.TempDir()
	writeFile(t, home+"/config.toml", `sandbox = "require"`)
	writeFile(t, project+"/"+ProjectConfigName, `sandbox = "auto"`)
	if c, err := LoadConfigFor(home, project); err != nil || c.Sandbox != SandboxRequire {
		t.Errorf("a project relaxed require: %+v %v", c, err)
	}
	writeFile(t, home+"/config.toml", ``)
	writeFile(t, project+"/"+ProjectConfigName, `sandbox = "require"`)
	if c, err := LoadConfigFor(home, project); err != nil || c.Sandbox != SandboxRequire {
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
	p := &Policy{Config: cfg, Binary: "/bin/hookctl", Sandbox: func() Isolation { return Isolation{Available: true} }}
	for cmd, want := range map[string]Verdict{
		"go test ./...":                      Allow,
		"go test ./... 2>&1 | tail -20":      Allow,
		"go test ./... | sh":                 Deny,
		"go test":                            Deny,
		"go test ./... -exec x":              Deny,
		"cargo test":                         Allow,
		"cargo test --release -- x":          Allow,
		"cargo testx":                        Deny,
		"for p in a; do go test ./...; done": Deny,
	} {
		if d := p.Decide(&ToolCall{Tool: "Bash", Kind: KindShell, Command: cmd}, SessionState{}); d.Verdict != want {
			t.Errorf("%q: %v (%s)", cmd, d.Verdict, d.Reason)
		}
	}
	if _, r := judgeReadOnly("go test ./...", cfg); r == nil {
		t.Error("JudgeReadOnly admitted a runner without the sandbox")
	}
	home, project := t.TempDir(), t.TempDir()
	writeFile(t, home+"/config.toml", ``)
	writeFile(t, project+"/"+ProjectConfigName, `read_only_runners = ["make"]`)
	if c, err := LoadConfigFor(home, project); err != nil || len(c.runners) != 0 || len(c.Warnings) != 1 {
		t.Errorf("a project named a runner: %+v %v", c, err)
	}
}
