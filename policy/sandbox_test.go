package policy

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/hookctl/hookctl/config"
	"github.com/hookctl/hookctl/hook"
	"github.com/hookctl/hookctl/internal/corpus"
	"github.com/hookctl/hookctl/internal/shellglob"
	"github.com/hookctl/hookctl/internal/testbin"
	"github.com/hookctl/hookctl/lexer"

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
	p := &Policy{World: shellglob.World{}, Config: &config.Config{}, Binary: "/opt/hook ctl/hookctl", Sandbox: func() Isolation {
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
		want, r := judgeText(c.command, p.Config)
		if r != nil {
			t.Fatalf("%q refused: %s", c.command, r.What)
		}
		d := p.Decide(&hook.ToolCall{Tool: "Bash", Kind: hook.KindShell, Command: c.command, Session: c.session}, SessionState{})
		if d.Verdict != hook.Allow || d.Isolation != "sandbox: landlock ABI 7, seccomp" {
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
		head := []string{p.Binary, "sandbox", "--session", c.session, "--timeout", "2m0s", "--", "bash", "--noprofile", "--norc", "-c"}
		if len(launch) != len(head)+1 || strings.Join(launch[:len(head)], "\x00") != strings.Join(head, "\x00") {
			t.Errorf("%q: launcher words %q", c.command, launch)
			continue
		}
		if launch[len(head)] != want {
			t.Errorf("%q: the sandboxed shell runs\n%q\nnot what was judged\n%q", c.command, launch[len(head)], want)
		}
	}
	p.Decide(&hook.ToolCall{Tool: "Bash", Kind: hook.KindShell, Command: "sed -i s/a/b/ f"}, SessionState{})
	p.Decide(&hook.ToolCall{Tool: "Read", Kind: hook.KindFileRead}, SessionState{})
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

// containCase is a call decided with an isolation and a sandbox setting, and the verdict it must
// get.
type containCase struct {
	name    string
	sandbox func() Isolation
	setting string
	call    hook.ToolCall
	verdict hook.Verdict
}

// decide decides the call in a session st, hookctl being /bin/hookctl.
func (c *containCase) decide(st SessionState) hook.Decision {
	p := &Policy{World: shellglob.World{}, Config: &config.Config{Sandbox: c.setting}, Binary: "/bin/hookctl", Sandbox: c.sandbox}
	return p.Decide(&c.call, st)
}

func TestContainWithoutSandbox(t *testing.T) {
	none := func() Isolation { return Isolation{Reason: "the kernel has no Landlock"} }
	some := func() Isolation { return Isolation{Available: true, Describe: "landlock"} }
	for _, c := range []struct {
		containCase
		isolation, command string
	}{
		// Where the sandbox cannot apply, hookctl's launcher still runs the command, for its
		// environment allowlist and time bound (issue 23).
		{containCase{"policy only", none, "", hook.ToolCall{Tool: "Bash", Kind: hook.KindShell, Command: "ls -la"},
			hook.Allow}, "policy only: the kernel has no Landlock; hookctl's launcher: environment allowlist, time bound",
			"/bin/hookctl sandbox --profile policy-only --session '' --timeout 2m0s -- bash --noprofile --norc -c 'ls -la'"},
		{containCase{"require refuses", none, config.SandboxRequire, hook.ToolCall{Tool: "Bash", Kind: hook.KindShell, Command: "ls -la"},
			hook.Deny}, "", ""},
		{containCase{"a client that ignores rewrites", some, "", hook.ToolCall{Tool: "Monitor", Kind: hook.KindShell, Command: "ls -la", NoRewrite: true},
			hook.Allow}, "policy only: the client runs Monitor commands as it received them (no rewrite)", "ls -la"},
		{containCase{"require refuses a client that ignores rewrites", some, config.SandboxRequire, hook.ToolCall{Tool: "Monitor", Kind: hook.KindShell, Command: "ls", NoRewrite: true},
			hook.Deny}, "", ""},
		{containCase{"hookctl's own read runs outside", some, config.SandboxRequire, hook.ToolCall{Tool: "Bash", Kind: hook.KindShell, Command: "hookctl readonly status"},
			hook.Allow}, "hookctl's own read, outside the sandbox", "/bin/hookctl readonly status"},
		{containCase{"hookctl in a pipeline is sandboxed", none, "", hook.ToolCall{Tool: "Bash", Kind: hook.KindShell, Command: "hookctl readonly status | head -1"},
			hook.Allow}, "policy only: the kernel has no Landlock; hookctl's launcher: environment allowlist, time bound",
			"/bin/hookctl sandbox --profile policy-only --session '' --timeout 2m0s -- bash --noprofile --norc -c 'hookctl readonly status | head -1'"},
	} {
		d := c.decide(SessionState{})
		if d.Verdict != c.verdict || d.Isolation != c.isolation || d.Command != c.command {
			t.Errorf("%s: %v %q %q (%s)", c.name, d.Verdict, d.Isolation, d.Command, d.Reason)
		}
		if c.verdict == hook.Deny && !strings.Contains(d.Reason, `sandbox = "require"`) {
			t.Errorf("%s: reason %q", c.name, d.Reason)
		}
	}
}

// TestShellsRunTheLauncherOnWhatWasJudged: for every allowed corpus row, the sandboxed rewrite,
// run by real bash and zsh (the shells a client may run it in), starts the launcher with exactly
// the judged command as the sandboxed shell's script. The launcher is a stub at a path with a
// space and a quote that records its argv.
func TestShellsRunTheLauncherOnWhatWasJudged(t *testing.T) {
	rows, err := corpus.Load("allow")
	if err != nil {
		t.Fatal(err)
	}
	dir := filepath.Join(t.TempDir(), "it's a dir")
	os.MkdirAll(dir, 0o755)
	stub := filepath.Join(dir, "hookctl")
	trace := filepath.Join(t.TempDir(), "trace")
	if err := os.WriteFile(stub, []byte("#!/bin/sh\nfor a in \"$@\"; do printf '%s\\037' \"$a\"; done >> \"$HOOKCTL_TRACE\"; printf '\\036' >> \"$HOOKCTL_TRACE\"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	os.Chmod(stub, 0o755)
	p := &Policy{World: shellglob.World{}, Config: &config.Config{}, Binary: stub, Sandbox: func() Isolation { return Isolation{Available: true} }}
	for _, sh := range []struct {
		name string
		argv []string
	}{{"bash", []string{"bash", "--noprofile", "--norc", "-c"}}, {"zsh", []string{"zsh", "-f", "-c"}}} {
		if _, err := exec.LookPath(sh.name); err != nil {
			testbin.RequireTool(t, sh.name)
		}
		ran := 0
		for _, r := range rows {
			d := p.Decide(&hook.ToolCall{Tool: "Bash", Kind: hook.KindShell, Command: r.Command, Session: "s'1 x"}, SessionState{})
			if d.Verdict != hook.Allow || !strings.Contains(d.Isolation, "sandbox") {
				continue // routed to the retriever, or hookctl's own read
			}
			sc, _ := lexer.NewCommandLine(r.Command).Shape()
			body := *sc
			body.Cd = nil
			want := strings.Join([]string{"sandbox", "--session", "s'1 x", "--timeout", "2m0s", "--", "bash", "--noprofile", "--norc", "-c", lexer.Print(&body, rewrite)}, "\x1f") + "\x1f"
			os.Remove(trace)
			cmd := exec.Command(sh.argv[0], append(sh.argv[1:], "cd() { :; }\n"+d.Command)...)
			cmd.Env = append(os.Environ(), "HOOKCTL_TRACE="+trace)
			if out, err := cmd.CombinedOutput(); err != nil {
				t.Errorf("%s: %s: %v %s", sh.name, r, err, out)
				continue
			}
			got, _ := os.ReadFile(trace)
			if string(got) != want+"\x1e" {
				t.Errorf("%s: %s: the launcher got\n%q\nwant\n%q", sh.name, r, got, want)
			}
			ran++
		}
		t.Logf("%s: %d sandboxed rewrites started the launcher on what was judged", sh.name, ran)
		if ran < 300 {
			t.Errorf("%s: only %d rows ran", sh.name, ran)
		}
	}
}

func TestContainEdit(t *testing.T) {
	edit := func() Isolation { return Isolation{Available: true, Edit: true, Describe: "landlock"} }
	noEdit := func() Isolation { return Isolation{Available: true, EditReason: "no mount namespace"} }
	for _, c := range []struct {
		containCase
		cd    string // the cd left outside
		inner string // what the sandboxed bash runs; "" when not rewritten
	}{
		{containCase{"a plain command", edit, "", hook.ToolCall{Command: "go build ./... && ./app --flag 'x y'"}, hook.Pass}, "", "go build ./... && ./app --flag 'x y'"},
		{containCase{"a leading cd stays outside", edit, "", hook.ToolCall{Command: "cd 'sub dir' && make test"}, hook.Pass}, "sub dir", "make test"},
		{containCase{"a cd that is not a literal stays inside", edit, "", hook.ToolCall{Command: "cd $(git rev-parse --show-toplevel) && ls"}, hook.Pass}, "", "cd $(git rev-parse --show-toplevel) && ls"},
		{containCase{"a cd not followed by && stays inside", edit, "", hook.ToolCall{Command: "cd sub; ls"}, hook.Pass}, "", "cd sub; ls"},
		{containCase{"a lone cd runs in the client's shell", edit, "", hook.ToolCall{Command: "cd sub"}, hook.Pass}, "", ""},
		{containCase{"hookctl retrieve runs outside, as hookctl", edit, "", hook.ToolCall{Command: "hookctl retrieve fetch https://go.dev --need 'what'"}, hook.Pass}, "", "/bin/hookctl retrieve fetch https://go.dev --need what"},
		{containCase{"a cd with more after stays inside", edit, "", hook.ToolCall{Command: "cd sub && ls || echo no"}, hook.Pass}, "", "cd sub && ls || echo no"},
		{containCase{"no edit sandbox: as passed", noEdit, "", hook.ToolCall{Command: "make"}, hook.Pass}, "", ""},
		{containCase{"no edit sandbox and require: refused", noEdit, config.SandboxRequire, hook.ToolCall{Command: "make"}, hook.Deny}, "", ""},
		{containCase{"the guard still refuses first", edit, "", hook.ToolCall{Command: "rm -rf ~"}, hook.Deny}, "", ""},
	} {
		c.call.Tool, c.call.Kind, c.call.Session, c.call.Cwd = "Bash", hook.KindShell, "s1", "/elsewhere"
		d := c.decide(SessionState{Mode: hook.ModeEdit, Project: "/home/u/proj"})
		if d.Verdict != c.verdict {
			t.Errorf("%s: %v %q", c.name, d.Verdict, d.Reason)
			continue
		}
		if c.inner == "" {
			if d.Command != "" {
				t.Errorf("%s: rewritten to %q", c.name, d.Command)
			}
			continue
		}
		cmds := shellWords(t, d.Command)
		launch := cmds[len(cmds)-1]
		if strings.HasPrefix(c.name, "hookctl retrieve") {
			if strings.Join(launch, " ") != c.inner {
				t.Errorf("%s: %q", c.name, d.Command)
			}
			continue
		}
		head := []string{"/bin/hookctl", "sandbox", "--profile", "edit", "--session", "s1", "--project", "/home/u/proj", "--", "bash", "--noprofile", "--norc", "-c"}
		if strings.Join(launch[:min(len(head), len(launch))], "\x00") != strings.Join(head, "\x00") || launch[len(launch)-1] != c.inner {
			t.Errorf("%s: %q runs %q", c.name, d.Command, launch)
		}
		if c.cd != "" && (len(cmds) != 2 || strings.Join(cmds[0], " ") != "cd "+c.cd) {
			t.Errorf("%s: the cd: %q", c.name, d.Command)
		}
	}
}

// TestNoRewriteToolsGetNoShapeRewrites: a tool whose command runs as written (Claude Code's
// Monitor) cannot take the rewrite a glob, a brace group or ~ needs, so those are refused there
// and admitted in Bash; a plain read is admitted in both.
func TestNoRewriteToolsGetNoShapeRewrites(t *testing.T) {
	p := &Policy{World: shellglob.World{}, Client: testClient, Config: &config.Config{UserHome: "/home/u"}, Binary: "/bin/hookctl"}
	for cmd, needs := range map[string]bool{"sort *.txt": true, "cat {a,b}.md": true, "ls ~/src": true, "ls -la": false, "cat README.md": false} {
		for _, noRewrite := range []bool{false, true} {
			d := p.Decide(&hook.ToolCall{Tool: "Monitor", Kind: hook.KindShell, Command: cmd, NoRewrite: noRewrite}, SessionState{Mode: hook.ModeReadOnly})
			if want := hook.Allow; needs && noRewrite {
				if d.Verdict != hook.Deny || !strings.Contains(d.Reason, "runs its command as written") {
					t.Errorf("%q, no rewrite: %v %q", cmd, d.Verdict, d.Reason)
				}
			} else if d.Verdict != want {
				t.Errorf("%q, no rewrite %v: %v %q", cmd, noRewrite, d.Verdict, d.Reason)
			}
		}
	}
}

// TestNoRewriteHintNamesTheClientsShellTool: the refusal's hint names a shell tool that takes
// the rewrite only where the client has one (Claude Code's Bash); a client whose shell takes
// none (Qwen Code) is told only to write the names out.
func TestNoRewriteHintNamesTheClientsShellTool(t *testing.T) {
	for _, tc := range []struct {
		client   hook.Client
		want, no string
	}{
		{testClient, "or use the Bash tool", ""},
		{hook.Client{Name: "Qwen Code"}, "write the file names and paths out", "Bash"},
	} {
		p := &Policy{World: shellglob.World{}, Client: tc.client, Config: &config.Config{UserHome: "/home/u"}, Binary: "/bin/hookctl"}
		d := p.Decide(&hook.ToolCall{Tool: "run_shell_command", Kind: hook.KindShell, Command: "sort *.txt", NoRewrite: true}, SessionState{Mode: hook.ModeReadOnly})
		if d.Verdict != hook.Deny || !strings.Contains(d.Reason, tc.want) || tc.no != "" && strings.Contains(d.Reason, tc.no) {
			t.Errorf("%s: %v %q", tc.client.Name, d.Verdict, d.Reason)
		}
	}
}
