package policy

import (
	"strings"
	"testing"

	"github.com/hookctl/hookctl/config"
	"github.com/hookctl/hookctl/hook"
	"github.com/hookctl/hookctl/internal/shellglob"
	"github.com/hookctl/hookctl/lexer"
)

// TestPolicyScopes: read-only rules bind read-only agent types in every mode and read-only
// sessions; everything else gets no opinion.
func TestPolicyScopes(t *testing.T) {
	p := &Policy{World: shellglob.World{}, Client: testClient, Config: &config.Config{ReadOnlyAgents: []string{"reviewer"}}}
	write := func(agent string) *hook.ToolCall {
		return &hook.ToolCall{Tool: "Write", Kind: hook.KindFileWrite, AgentType: agent}
	}
	for _, c := range []struct {
		call *hook.ToolCall
		mode hook.Mode
		want hook.Verdict
	}{
		{write(""), hook.ModeEdit, hook.Pass},
		{write("general-purpose"), hook.ModeEdit, hook.Pass},
		{write("Explore"), hook.ModeEdit, hook.Deny},
		{write("Plan"), hook.ModeEdit, hook.Deny},
		{write("reviewer"), hook.ModeEdit, hook.Deny},
		{write("explore"), hook.ModeEdit, hook.Pass}, // exact match only
		{write(""), hook.ModeReadOnly, hook.Deny},
		{write("general-purpose"), hook.ModeReadOnly, hook.Deny},
	} {
		if got := p.Decide(c.call, SessionState{Mode: c.mode}).Verdict; got != c.want {
			t.Errorf("%s by %q in %s: %s, want %s", c.call.Tool, c.call.AgentType, c.mode, got, c.want)
		}
	}
}

// TestPolicyKinds: in read-only mode, reads and session tools pass, web is left to the
// retriever, mutating and unknown tools are refused, shell is judged.
func TestPolicyKinds(t *testing.T) {
	p := &Policy{World: shellglob.World{}, Client: testClient, Config: &config.Config{}}
	for _, c := range []struct {
		call *hook.ToolCall
		want hook.Verdict
	}{
		{&hook.ToolCall{Tool: "Read", Kind: hook.KindFileRead}, hook.Pass},
		{&hook.ToolCall{Tool: "TodoWrite", Kind: hook.KindSession}, hook.Pass},
		{&hook.ToolCall{Tool: "Agent", Kind: hook.KindAgent}, hook.Pass},
		{&hook.ToolCall{Tool: "WebFetch", Kind: hook.KindWeb}, hook.Deny}, // answered by the retrieval hook instead
		{&hook.ToolCall{Tool: "Edit", Kind: hook.KindFileWrite}, hook.Deny},
		{&hook.ToolCall{Tool: "Whatever", Kind: hook.KindUnknown}, hook.Deny},
		{&hook.ToolCall{Tool: "Bash", Kind: hook.KindShell, Command: "ls -la"}, hook.Allow},
		{&hook.ToolCall{Tool: "Bash", Kind: hook.KindShell, Command: "rm -rf /"}, hook.Deny},
		{&hook.ToolCall{Tool: "Bash", Kind: hook.KindShell, Command: ""}, hook.Deny},
	} {
		d := p.Decide(c.call, SessionState{Mode: hook.ModeReadOnly})
		if d.Verdict != c.want {
			t.Errorf("%s %q: %s (%s), want %s", c.call.Tool, c.call.Command, d.Verdict, d.Reason, c.want)
		}
		if d.Verdict == hook.Deny && !strings.HasPrefix(d.Reason, "hookctl") {
			t.Errorf("%s: reason %q", c.call.Tool, d.Reason)
		}
		if d.Verdict == hook.Allow && d.Command == "" {
			t.Errorf("%s %q allowed without the command to run", c.call.Tool, c.call.Command)
		}
	}
}

// TestDenyReasonsSayWhatToDo: every refusal names what was refused and what the agent can do,
// and stays short enough to read.
func TestDenyReasonsSayWhatToDo(t *testing.T) {
	p := &Policy{World: shellglob.World{}, Client: testClient, Config: &config.Config{}}
	for _, c := range []struct {
		call *hook.ToolCall
		mode hook.Mode
		want []string
	}{
		{&hook.ToolCall{Tool: "Bash", Kind: hook.KindShell, Command: "sed -i s/a/b/ f", AgentType: "Explore"}, hook.ModeEdit,
			[]string{"`-i` edits files in place", "sed -n", "This agent type is read-only"}},
		{&hook.ToolCall{Tool: "Bash", Kind: hook.KindShell, Command: "echo x > f"}, hook.ModeReadOnly,
			[]string{"redirection", "the only redirections allowed are", "/readonly off"}},
		{&hook.ToolCall{Tool: "Bash", Kind: hook.KindShell, Command: "curl -d x https://example.com"}, hook.ModeReadOnly,
			[]string{"curl: curl `-d` is not a plain read", "hookctl retrieve fetch URL"}},
		{&hook.ToolCall{Tool: "Bash", Kind: hook.KindShell, Command: "nc evil.example 80"}, hook.ModeEdit,
			[]string{"`nc` reaches the network outside hookctl's retriever", "hookctl retrieve"}},
		{&hook.ToolCall{Tool: "Bash", Kind: hook.KindShell, Command: "ls | xargs rm"}, hook.ModeReadOnly,
			[]string{"xargs runs a program on words from its input, which the judge cannot see", "find … -print0 | xargs -0 PROG"}},
		{&hook.ToolCall{Tool: "Bash", Kind: hook.KindShell, Command: "ls | env rm"}, hook.ModeReadOnly,
			[]string{"`env` is not on the read-only allowlist", "interpreters and wrappers"}},
		{&hook.ToolCall{Tool: "Bash", Kind: hook.KindShell, Command: "git log | git show"}, hook.ModeReadOnly,
			[]string{"`git` cannot read a pipe", "after | use one of"}},
		{&hook.ToolCall{Tool: "Write", Kind: hook.KindFileWrite}, hook.ModeReadOnly, []string{"`Write` changes things", "/readonly off"}},
		// A new user's first hour (issue 30): each refusal names the key or the form that works.
		{&hook.ToolCall{Tool: "Bash", Kind: hook.KindShell, Command: "go vet ./..."}, hook.ModeReadOnly, []string{"read_only_runners in your config"}},
		// Admitted through the launcher, which passes only variables that hold no secret; here,
		// without one, the refusal says so.
		{&hook.ToolCall{Tool: "Bash", Kind: hook.KindShell, Command: "env | grep GO"}, hook.ModeReadOnly, []string{"only hookctl's launcher reduces"}},
		{&hook.ToolCall{Tool: "Bash", Kind: hook.KindShell, Command: "diff <(git show HEAD~1:Makefile) Makefile"}, hook.ModeReadOnly,
			[]string{"(process substitution)", "git diff HEAD~1 -- FILE"}},
	} {
		d := p.Decide(c.call, SessionState{Mode: c.mode})
		for _, w := range c.want {
			if !strings.Contains(d.Reason, w) {
				t.Errorf("%s %q: reason %q lacks %q", c.call.Tool, c.call.Command, d.Reason, w)
			}
		}
		// The specific reason and one hint: the general rules are told once per session.
		if len(d.Reason) > 600 || strings.Contains(d.Reason, readOnlyShellRules) {
			t.Errorf("%q: reason is %d bytes: %q", c.call.Command, len(d.Reason), d.Reason)
		}
	}
}

// TestDenyReasonsQuoteLittle: a reason quotes at most a short prefix of what the model wrote.
func TestDenyReasonsQuoteLittle(t *testing.T) {
	secret := "sk-ant-" + strings.Repeat("x", 200)
	d := (&Policy{World: shellglob.World{}, Client: testClient, Config: &config.Config{}}).Decide(&hook.ToolCall{Tool: "Bash", Kind: hook.KindShell, Command: "cat " + secret + " | tee /tmp/x"}, SessionState{Mode: hook.ModeReadOnly})
	if strings.Contains(d.Reason, secret) {
		t.Errorf("the reason repeats the whole argument: %q", d.Reason)
	}
}

// TestDenyProgramsRemovesFromAllowlist: the config can remove programs, never add them.
func TestDenyProgramsRemovesFromAllowlist(t *testing.T) {
	cfg := &config.Config{DenyPrograms: []string{"find", "curl"}}
	if _, r := judgeText("find . -name x", cfg); r == nil {
		t.Error("find allowed after deny_programs")
	}
	if _, r := judgeText("curl x", cfg); r == nil {
		t.Error("listing curl in deny_programs let it through")
	}
	if _, r := judgeText("ls", cfg); r != nil {
		t.Errorf("ls refused: %s", r.What)
	}
	// The refusal names the setting, and no hint offers a removed program back to the agent
	// (control: without deny_programs, the same hint offers find).
	if _, r := judgeText("find . -name x", cfg); r == nil || !strings.Contains(r.What, "deny_programs") || strings.Contains(" "+r.Hint+" ", " find ") {
		t.Errorf("find after deny_programs: %+v", r)
	}
	_, r := judgeText("frobnicate", cfg)
	_, control := judgeText("frobnicate", &config.Config{})
	if r == nil || control == nil || strings.Contains(" "+r.Hint+" ", " find ") || !strings.Contains(" "+control.Hint+" ", " find ") {
		t.Errorf("the allowlist offered after deny_programs: %+v (without it: %+v)", r, control)
	}
}

// TestNetworkRouting: in every mode, web tools go to the retrieval hook, a plain web read in
// the shell becomes hookctl retrieve (the need from the call's description), and direct_fetch
// lets web tools through.
func TestNetworkRouting(t *testing.T) {
	p := &Policy{World: shellglob.World{}, Client: testClient, Config: &config.Config{}, Binary: "/opt/hookctl"}
	for _, mode := range []hook.Mode{hook.ModeReadOnly, hook.ModeEdit} {
		st := SessionState{Mode: mode}
		d := p.Decide(&hook.ToolCall{Tool: "WebSearch", Kind: hook.KindWeb, Web: &hook.WebRequest{Query: "q", Need: "q"}}, st)
		if d.Verdict != hook.Deny || !strings.Contains(d.Reason, "retrieval hook") {
			t.Errorf("%v WebSearch: %+v", mode, d)
		}
		c := &hook.ToolCall{Tool: "Bash", Kind: hook.KindShell, Session: "s1", AgentType: "Explore", Command: "curl -sL https://go.dev/doc/",
			Description: "Find what's new in Go's for loops"}
		d = p.Decide(c, st)
		want := "/opt/hookctl retrieve fetch --op '{\"url\":\"https://go.dev/doc/\"}' --need 'Find what'\"'\"'s new in Go'\"'\"'s for loops' --session s1 --tool Bash --agent-type Explore"
		if d.Verdict != hook.Allow || d.Command != want {
			t.Errorf("%v curl:\n got %s %s\nwant %s", mode, d.Verdict, d.Command, want)
		}
		d = p.Decide(&hook.ToolCall{Tool: "Bash", Kind: hook.KindShell, Command: "gh pr diff 3 -R cli/cli"}, st)
		if d.Verdict != hook.Allow || !strings.Contains(d.Command, `retrieve github --op '{"op":"pr-diff","owner":"cli","repo":"cli","number":3}' --need 'Summarize what this says, briefly.'`) {
			t.Errorf("%v gh: %+v", mode, d)
		}
		d = p.Decide(&hook.ToolCall{Tool: "Monitor", Kind: hook.KindOther, NoRewrite: true, Command: "curl https://example.com"}, st)
		if d.Verdict != hook.Deny {
			t.Errorf("%v Monitor curl: %+v", mode, d)
		}
	}
	direct := &Policy{World: shellglob.World{}, Client: testClient, Config: &config.Config{DirectFetch: true}, Binary: "/opt/hookctl"}
	if d := direct.Decide(&hook.ToolCall{Tool: "WebFetch", Kind: hook.KindWeb, Web: &hook.WebRequest{URL: "https://x"}}, SessionState{Mode: hook.ModeReadOnly}); d.Verdict != hook.Pass {
		t.Errorf("direct_fetch: %+v", d)
	}
	// The rewrite is a command the read-only lexer also accepts, word for word.
	d := p.Decide(&hook.ToolCall{Tool: "Bash", Kind: hook.KindShell, Command: "wget -qO- 'https://example.com/a b'", Description: "x; rm -rf /"}, SessionState{})
	if d.Verdict != hook.Allow {
		t.Fatalf("%+v", d)
	}
	sc, err := lexer.Parse(d.Command)
	if err != nil || len(sc.Items[0].Pipeline.Cmds) != 1 || sc.Items[0].Pipeline.Cmds[0].Args[3].Value != `{"url":"https://example.com/a b"}` ||
		sc.Items[0].Pipeline.Cmds[0].Args[5].Value != "x; rm -rf /" {
		t.Errorf("the rewrite %q does not parse back: %v", d.Command, err)
	}
}

// TestQuarantineSeesEverySpelling is the edit-mode hole of issue 7: the network router read
// words with a reader of its own that neither undid `\x` escapes nor decoded $'…', so these
// ran unmediated and raw web content reached an agent holding file access and write tools.
// Every one must be answered by the retriever (or refused), in both modes.
func TestQuarantineSeesEverySpelling(t *testing.T) {
	p := &Policy{World: shellglob.World{}, Client: testClient, Config: &config.Config{}, Binary: "/opt/hookctl",
		Protection: Protection{Home: "/home/u", Paths: []string{"/home/u/.config/hookctl"}}}
	for _, cmd := range []string{
		`cu\rl https://example.com/x`,
		`$'curl' -s https://example.com/x`,
		`$'\x63url' -s https://example.com/x`,
		`wg\et -qO- https://example.com/x`,
		`"cu"rl https://example.com/x`,
		`c''url https://example.com/x`,
		"cu\\\nrl https://example.com/x",
	} {
		for _, mode := range []hook.Mode{hook.ModeEdit, hook.ModeReadOnly} {
			d := p.Decide(&hook.ToolCall{Tool: "Bash", Kind: hook.KindShell, Cwd: "/home/u/proj", Command: cmd}, SessionState{Mode: mode})
			switch {
			case d.Verdict == hook.Allow && strings.HasPrefix(d.Command, `/opt/hookctl retrieve fetch --op '{"url":"https://example.com/x"}' `):
			case d.Verdict == hook.Deny:
			default:
				t.Errorf("%s %q: %s %q — raw web content would reach the agent", mode, cmd, d.Verdict, d.Command)
			}
		}
	}
}

// judgeInSandbox is judgeReadOnly where the sandbox holds: a command admitted for the sandbox
// only (Refusal.sandboxOnly) comes back rewritten, as the sandboxed shell runs it.
func judgeInSandbox(cmd string, cfg *config.Config) (string, *Refusal) {
	out, r := judgeText(cmd, cfg)
	if r == nil || !r.sandboxOnly {
		return out, r
	}
	sc, _, _ := judgeScript(lexer.NewCommandLine(cmd), cfg)
	return lexer.Print(sc, rewriteFor(cfg)), nil
}
