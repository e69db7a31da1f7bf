package hook

import (
	"strings"
	"testing"
)

// TestPolicyScopes: read-only rules bind read-only agent types in every mode and read-only
// sessions; everything else gets no opinion.
func TestPolicyScopes(t *testing.T) {
	p := &Policy{Config: &Config{ReadOnlyAgents: []string{"reviewer"}}}
	write := func(agent string) *Call { return &Call{Tool: "Write", Kind: KindMutate, AgentType: agent} }
	for _, c := range []struct {
		call *Call
		mode Mode
		want Verdict
	}{
		{write(""), ModeEdit, Pass},
		{write("general-purpose"), ModeEdit, Pass},
		{write("Explore"), ModeEdit, Deny},
		{write("Plan"), ModeEdit, Deny},
		{write("reviewer"), ModeEdit, Deny},
		{write("explore"), ModeEdit, Pass}, // exact match only
		{write(""), ModeReadOnly, Deny},
		{write("general-purpose"), ModeReadOnly, Deny},
	} {
		if got := p.Decide(c.call, SessionState{Mode: c.mode}).Verdict; got != c.want {
			t.Errorf("%s by %q in %s: %s, want %s", c.call.Tool, c.call.AgentType, c.mode, got, c.want)
		}
	}
}

// TestPolicyKinds: in read-only mode, reads and session tools pass, web is left to the
// retriever, mutating and unknown tools are refused, shell is judged.
func TestPolicyKinds(t *testing.T) {
	p := &Policy{Config: &Config{}}
	for _, c := range []struct {
		call *Call
		want Verdict
	}{
		{&Call{Tool: "Read", Kind: KindRead}, Pass},
		{&Call{Tool: "TodoWrite", Kind: KindSession}, Pass},
		{&Call{Tool: "Agent", Kind: KindAgent}, Pass},
		{&Call{Tool: "WebFetch", Kind: KindWeb}, Pass},
		{&Call{Tool: "Edit", Kind: KindMutate}, Deny},
		{&Call{Tool: "Whatever", Kind: KindUnknown}, Deny},
		{&Call{Tool: "Bash", Kind: KindShell, Command: "ls -la"}, Allow},
		{&Call{Tool: "Bash", Kind: KindShell, Command: "rm -rf /"}, Deny},
		{&Call{Tool: "Bash", Kind: KindShell, Command: ""}, Deny},
	} {
		d := p.Decide(c.call, SessionState{Mode: ModeReadOnly})
		if d.Verdict != c.want {
			t.Errorf("%s %q: %s (%s), want %s", c.call.Tool, c.call.Command, d.Verdict, d.Reason, c.want)
		}
		if d.Verdict == Deny && !strings.HasPrefix(d.Reason, "hookctl read-only: ") {
			t.Errorf("%s: reason %q", c.call.Tool, d.Reason)
		}
		if d.Verdict == Allow && d.Command == "" {
			t.Errorf("%s %q allowed without the command to run", c.call.Tool, c.call.Command)
		}
	}
}

// TestDenyReasonsSayWhatToDo: every refusal names what was refused and what the agent can do,
// and stays short enough to read.
func TestDenyReasonsSayWhatToDo(t *testing.T) {
	p := &Policy{Config: &Config{}}
	for _, c := range []struct {
		call *Call
		mode Mode
		want []string
	}{
		{&Call{Tool: "Bash", Kind: KindShell, Command: "sed -i s/a/b/ f", AgentType: "Explore"}, ModeEdit,
			[]string{"`-i` edits files in place", "sed -n", "This agent type is read-only"}},
		{&Call{Tool: "Bash", Kind: KindShell, Command: "echo x > f"}, ModeReadOnly,
			[]string{"redirection", "one pipeline of read-only programs", "/readonly off"}},
		{&Call{Tool: "Bash", Kind: KindShell, Command: "curl https://example.com"}, ModeReadOnly,
			[]string{"`curl` is not on the read-only allowlist", "retriever"}},
		{&Call{Tool: "Bash", Kind: KindShell, Command: "ls | xargs rm"}, ModeReadOnly,
			[]string{"`xargs` is not on the read-only allowlist", "interpreters and wrappers"}},
		{&Call{Tool: "Bash", Kind: KindShell, Command: "git log | git show"}, ModeReadOnly,
			[]string{"`git` cannot read a pipe", "after | use one of"}},
		{&Call{Tool: "Write", Kind: KindMutate}, ModeReadOnly, []string{"`Write` changes things", "/readonly off"}},
	} {
		d := p.Decide(c.call, SessionState{Mode: c.mode})
		for _, w := range c.want {
			if !strings.Contains(d.Reason, w) {
				t.Errorf("%s %q: reason %q lacks %q", c.call.Tool, c.call.Command, d.Reason, w)
			}
		}
		if len(d.Reason) > 700 {
			t.Errorf("%q: reason is %d bytes", c.call.Command, len(d.Reason))
		}
	}
}

// TestDenyReasonsQuoteLittle: a reason quotes at most a short prefix of what the model wrote.
func TestDenyReasonsQuoteLittle(t *testing.T) {
	secret := "sk-ant-" + strings.Repeat("x", 200)
	d := (&Policy{Config: &Config{}}).Decide(&Call{Tool: "Bash", Kind: KindShell, Command: "cat " + secret + " | tee /tmp/x"}, SessionState{Mode: ModeReadOnly})
	if strings.Contains(d.Reason, secret) {
		t.Errorf("the reason repeats the whole argument: %q", d.Reason)
	}
}

// TestDenyProgramsRemovesFromAllowlist: the config can remove programs, never add them.
func TestDenyProgramsRemovesFromAllowlist(t *testing.T) {
	cfg := &Config{DenyPrograms: []string{"find", "curl"}}
	if _, r := JudgeReadOnly("find . -name x", cfg); r == nil {
		t.Error("find allowed after deny_programs")
	}
	if _, r := JudgeReadOnly("curl x", cfg); r == nil {
		t.Error("listing curl in deny_programs let it through")
	}
	if _, r := JudgeReadOnly("ls", cfg); r != nil {
		t.Errorf("ls refused: %s", r.What)
	}
}
