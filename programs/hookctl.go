package programs

import (
	"github.com/hookctl/hookctl/internal/clip"
	"github.com/hookctl/hookctl/internal/wordlist"
)

// hookctl itself, for its read-only verbs: the agent may judge a command with `hookctl check`,
// read a session's mode with `hookctl readonly status`, and ask the quarantined retriever with
// `hookctl retrieve` — the command every refused web read points it to, and what the hook
// rewrites a plain `curl URL` into: the agent receives a distilled answer, never raw content, and
// the retrieval writes nothing but hookctl's own audit. The attribution flags the rewrite adds
// (--session, --tool, --agent-type) are hookctl's, not the agent's. Every verb that changes
// anything — readonly on/off/toggle, install, uninstall — is the user's act and is refused, as
// is hook (it would judge a payload the agent wrote, to no purpose), doctor (it runs claude) and
// audit (it shows what servers sent, which the quarantine keeps from the agent).
//
// Refuses: every verb but check, readonly status, retrieve, version and help. Test:
// TestHookctlRule (hookctl_test.go); TestAdmittedRetrieveRunsForReal (cmd/hookctl) runs the
// admitted retrieve from a hostile project and finds nothing changed but hookctl's audit.
var hookctlReadOnlyRule = &Program{
	Name: "hookctl", Summary: "judge a command (check), show a session's mode (readonly status) or ask the quarantined retriever (retrieve); never change the mode",
	BSD:       &BSD{Same: true, Note: "this program, the same everywhere"},
	Custom:    judgeHookctl,
	NamesOnly: true, // it judges, shows and fetches; it opens no file the agent names
}

var (
	hookctlCheckOpts    = &Options{Flags: "--json -h --help", Valued: "--agent-type --payload"}
	hookctlReadonlyOpts = &Options{Flags: "--all -h --help", Valued: "--session"}
	// The need is text for the distiller, quoted however the agent likes; no shell reads it.
	hookctlRetrieveOpts = &Options{Flags: "-h --help", Valued: "--need --ref --host", Patterns: "--need",
		Refused: Refusals{{"--session", "attributes the retrieval to a session; hookctl sets it"},
			{"--tool", "attributes the retrieval to a tool; hookctl sets it"},
			{"--agent-type", "attributes the retrieval to an agent type; hookctl sets it"}}}
	hookctlPlainOpts = &Options{Flags: "-h --help"}
)

func judgeHookctl(args []Arg) *Refusal {
	if len(args) == 0 {
		return refuse("hookctl", "needs a verb: check, readonly status or version")
	}
	if args[0].Var || args[0].Pattern {
		return refuse("hookctl", "the verb must be written out")
	}
	verb, rest := args[0].Value, args[1:]
	switch verb {
	case "check":
		c, r := hookctlCheckOpts.Parse("hookctl check", rest)
		if r != nil {
			return r
		}
		if len(c.Operands) > 1 {
			return refuse("hookctl check", "takes one command, quoted")
		}
		return nil // the operand is the text of a command to judge: data, whatever it holds
	case "readonly":
		c, r := hookctlReadonlyOpts.Parse("hookctl readonly", rest)
		if r != nil {
			return r
		}
		// Bare, readonly shows the status as `readonly status` does (it changes nothing).
		if len(c.Operands) > 1 || len(c.Operands) == 1 && (c.Operands[0].Value != "status" || c.Operands[0].Var) {
			return &Refusal{Program: "hookctl", What: "only the user may change the session's mode",
				Hint: "ask the user; they type /readonly off in Claude Code"}
		}
		return nil
	case "retrieve":
		c, r := hookctlRetrieveOpts.Parse("hookctl retrieve", rest)
		if r != nil {
			return r
		}
		if len(c.Operands) < 2 || c.Operands[0].Var || !wordlist.Has("fetch search github", c.Operands[0].Value) {
			return refuse("hookctl retrieve", "takes fetch URL, search 'QUERY' or github OP ARGS…")
		}
		if len(c.Values("--need")) != 1 {
			return refuse("hookctl retrieve", "needs one --need 'what you need from it'")
		}
		return nil // the operands are a URL, a query or GitHub names: data for the retriever
	case "version", "help", "-h", "--help":
		c, r := hookctlPlainOpts.Parse("hookctl "+verb, rest)
		if r != nil {
			return r
		}
		for _, a := range c.Operands {
			if a.Pattern {
				return refuse("hookctl", "shell syntax in `%s` is not allowed", clip.Short(a.Value))
			}
		}
		return nil
	}
	return &Refusal{Program: "hookctl", What: "`hookctl " + clip.Short(verb) + "` is the user's to run", Hint: "the agent may run hookctl check, hookctl readonly status and hookctl retrieve"}
}
