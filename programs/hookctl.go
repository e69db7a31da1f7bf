package programs

import "github.com/hookctl/hookctl/internal/clip"

// hookctl itself, for its read-only verbs: the agent may judge a command with `hookctl check`
// and read a session's mode with `hookctl readonly status`. Every verb that changes anything —
// readonly on/off/toggle, install, uninstall — is the user's act and is refused, as is hook
// (it would judge a payload the agent wrote, to no purpose) and doctor (it runs claude).
//
// Refuses: every verb but check, readonly status, version and help. Test: TestHookctlRule
// (hookctl_test.go).
var hookctlReadOnlyRule = &Program{
	Name: "hookctl", Summary: "judge a command (check) or show a session's mode (readonly status); never change it",
	Custom: judgeHookctl,
}

var (
	hookctlCheckOpts    = &Options{Flags: "--json -h --help", Valued: "--agent-type --payload"}
	hookctlReadonlyOpts = &Options{Flags: "--all -h --help", Valued: "--session"}
	hookctlPlainOpts    = &Options{Flags: "-h --help"}
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
		if len(c.Operands) != 1 || c.Operands[0].Value != "status" || c.Operands[0].Var {
			return &Refusal{Program: "hookctl", What: "only the user may change the session's mode",
				Hint: "ask the user; they type /readonly off in Claude Code"}
		}
		return nil
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
	return &Refusal{Program: "hookctl", What: "`hookctl " + clip.Short(verb) + "` is the user's to run", Hint: "the agent may run hookctl check and hookctl readonly status"}
}
