package policy

import (
	"github.com/hookctl/hookctl/hook"
	"github.com/hookctl/hookctl/lexer"
	"github.com/hookctl/hookctl/programs"
)

// The client's own permission rules, on a command hookctl rewrites.
//
// Why: a client that takes a rewritten command matches its permission rules against the rewrite
// (hookctl sandbox … -- bash -c 'CMD'), which none of the user's rules was written for: Claude
// Code 2.1.328 then ran `rm` past a deny Bash(rm:*) and asked for a `touch` an allow rule named
// (live, issue 25). What: for every call hookctl admits with a rewrite, the adapter's model of
// the client's check (ClientRules) judges the command the agent wrote, and the hook answers the
// client explicitly: a deny refuses naming the rule, an ask asks, an allow runs without a prompt;
// with no rule, the client's permission mode decides as the client documents it. hookctl's own
// judgement comes first, so a user's allow never widens what hookctl admits (read-only mode stays
// read-only), and what runs is still the rewrite, in hookctl's sandbox.
// Test: TestClientRulesOnRewrites; agents/claude's TestRealClientUserRules and its TUI twin.

// ClientRules is a client's own permission check, modelled by its adapter and loaded (with its
// I/O) before the policy asks it.
type ClientRules interface {
	Judge(q ClientQuery) ClientVerdict
}

// ClientQuery is what the client's check is asked about one call.
type ClientQuery struct {
	Call *hook.ToolCall
	// Line is the call's command, the one parse the policy judged.
	Line *lexer.CommandLine
	// Read says hookctl's read-only judge proved the command a read (or it is a web read the
	// retriever answers): the client runs its own read-only commands without asking, in every
	// mode, and hookctl's proof stands in for the client's list.
	Read bool
	// Reads are the files hookctl's judge found the command reads, for the client's Read rules.
	Reads []string
	// Rewrite is the command hookctl has the client run instead.
	Rewrite string
}

// Shell says whether the query is a shell call with its parsed command: what a client's command
// rules judge. Their Judge leaves any other call to the client (Pass).
func (q ClientQuery) Shell() bool {
	return q.Call != nil && q.Call.Kind == hook.KindShell && q.Line != nil
}

// ClientVerdict is what the client would do with the call as the agent wrote it.
type ClientVerdict struct {
	// Verdict is Deny, Ask or Allow; Pass leaves the rewrite to the client's own check (a mode
	// hookctl cannot model, such as Claude Code's auto mode and its classifier).
	Verdict hook.Verdict
	// Rule is the user's rule that decided, with its kind and where it is written ("deny
	// Bash(rm:*) in /p/.claude/settings.local.json"); "" when the permission mode decided.
	Rule string
	// By names what decided, for the decision log: "your permission rule", "the client's
	// default mode", ….
	By     string
	Reason string
}

// withClientRules settles a decision that carries a rewrite by the client's own check of the
// command as the agent wrote it. hookctl's refusal stands; its ask (a review-mode publish)
// stays an ask unless a rule denies; otherwise the client's verdict is the answer.
func (p *Policy) withClientRules(c *hook.ToolCall, cl *lexer.CommandLine, d hook.Decision) hook.Decision {
	if p.ClientRules == nil || d.Command == "" || d.Verdict == hook.Deny || c.Kind != hook.KindShell || cl == nil {
		return d
	}
	rules := p.ClientRules()
	if rules == nil {
		return d
	}
	q := ClientQuery{Call: c, Line: cl, Rewrite: d.Command}
	if _, j, r := judgeScript(cl, p.Config); r == nil {
		q.Read, q.Reads = true, readPaths(j.access)
	}
	q.Read = q.Read || d.Rule == "retriever"
	v := rules.Judge(q)
	d.ClientRule, d.ClientBy = v.Rule, v.By
	switch v.Verdict {
	case hook.Deny:
		return hook.Decision{Verdict: hook.Deny, Reason: v.Reason, Rule: d.Rule, ClientRule: v.Rule, ClientBy: v.By}
	case hook.Ask:
		if d.Verdict != hook.Ask {
			d.Verdict, d.Reason = hook.Ask, v.Reason
		} else {
			d.Reason += " " + v.Reason
		}
	case hook.Allow:
		if d.Verdict == hook.Pass {
			d.Verdict = hook.Allow
		}
		if d.Verdict == hook.Allow && v.Reason != "" {
			d.Reason = v.Reason
		}
	}
	return d
}

// readPaths are the paths a judged read opens, as the client's Read rules see them: the files it
// reads, the roots of its walks (a rule on a directory covers what is beneath), and its files of
// names.
func readPaths(a programs.Access) []string {
	paths := append([]string(nil), a.Files...)
	for _, w := range a.Walks {
		paths = append(paths, w.Roots...)
	}
	for _, l := range a.Lists {
		if l.Path != "-" {
			paths = append(paths, l.Path)
		}
	}
	return paths
}
