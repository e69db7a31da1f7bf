package programs

import (
	"strings"

	"github.com/hookctl/hookctl/internal/clip"
	"github.com/hookctl/hookctl/internal/secrets"
)

// The shell's own questions: what a name would run (command -v, type), a variable's value
// (printenv NAME) and formatted text (printf). Each is a builtin of bash and zsh or a small
// program; none reads a file or runs what it names. Each takes names or text, never an option
// after the first operand.

// command -v and -V say what a name would run. Any other use of `command` runs the command it
// names (command rm -rf x), so only those two are admitted, each followed by names alone.
//
// Test: TestShellInfoRules (shellinfo_test.go); TestCorpusRefused (deny/shellinfo.txt).
var commandRule = &Program{
	Name: "command", Summary: "say what a name runs (command -v NAME, command -V NAME)", NamesOnly: true,
	BSD:    &BSD{Same: true, Note: "a builtin of bash and zsh: only -v and -V, then names"},
	Custom: func(args []Arg) *Refusal { return judgeNames("command", args, "-v -V", true) },
}

// type says what a name is (alias, builtin, function, file). bash takes -a -f -p -P -t; zsh's
// type is whence -v, with -a -f -p -s -S -w and more, each only printing.
//
// Test: TestShellInfoRules; TestCorpusRefused (deny/shellinfo.txt).
var typeRule = &Program{
	Name: "type", Summary: "say what a name is", NamesOnly: true,
	BSD:    &BSD{Same: true, Note: "a builtin of bash and zsh: printing options, then names"},
	Custom: func(args []Arg) *Refusal { return judgeNames("type", args, "-a -f -p -P -t -s -S -w -m", false) },
}

// printenv prints the variables it names, none whose name says it holds a secret (a TOKEN, KEY,
// SECRET, PASSWORD, …). Bare, it prints the whole environment: only through hookctl's launcher,
// whose environment is an allowlist without a secret (LauncherOnly; issue 23), never where the
// client runs the text as written.
//
// Test: TestShellInfoRules; TestCorpusRefused (deny/shellinfo.txt, deny/secrets.txt).
var printenvRule = &Program{
	Name: "printenv", Summary: "print named environment variables (not secret ones; all only through hookctl's launcher)", NamesOnly: true,
	BSD:          &BSD{Same: true, Note: "GNU: -0 and --null; BSD printenv takes one name and no options"},
	LauncherOnly: wholeEnvironment,
	Custom: func(args []Arg) *Refusal {
		if r := judgeNames("printenv", args, "-0 --null", false); r != nil {
			return r
		}
		for _, a := range args {
			if strings.HasPrefix(a.Value, "-") {
				continue
			}
			if secrets.Variable(a.Value) {
				return &Refusal{Program: "printenv", What: "`" + clip.Short(a.Value) + "` is named like a secret, whose value would enter the model's context",
					Hint: "ask the user whether it is set; never print a secret's value"}
			}
		}
		return nil
	},
}

// wholeEnvironment is why printenv or env without names needs the launcher.
func wholeEnvironment(args []Arg) string {
	for _, a := range args {
		if !strings.HasPrefix(a.Value, "-") {
			return ""
		}
	}
	return "it prints the whole environment, which only hookctl's launcher reduces to variables that hold no secret"
}

// env, bare, prints the environment (env -0 with NUL ends): through hookctl's launcher only,
// as printenv. With anything else it runs a program (env NAME=VALUE PROG), which the allowlist
// never admits: wrappers run anything.
//
// Test: TestShellInfoRules; TestSecretsCorpus (hook).
var envRule = &Program{
	Name: "env", Summary: "print the environment (bare; only through hookctl's launcher)", NamesOnly: true,
	BSD:          &BSD{Same: true, Note: "env alone prints the environment in every build"},
	LauncherOnly: wholeEnvironment,
	Custom: func(args []Arg) *Refusal {
		for _, a := range args {
			if a.Value != "-0" && a.Value != "--null" {
				return &Refusal{Program: "env", What: "env with arguments runs a program with a changed environment, which can run anything",
					Hint: "bare env prints the environment; run the program itself"}
			}
		}
		return nil
	},
}

// printf prints formatted text. bash's -v VAR assigns instead (a variable of the shell that
// runs the command), so it is refused; the format and the arguments are text, never files.
//
// Test: TestShellInfoRules; TestCorpusRefused (deny/shellinfo.txt).
var printfRule = &Program{
	Name: "printf", Summary: "print formatted text (no -v)", NamesOnly: true,
	BSD: &BSD{Same: true, Note: "a builtin of bash and zsh, and /usr/bin/printf: the first word is the format"},
	Custom: func(args []Arg) *Refusal {
		if len(args) == 0 {
			return refuse("printf", "needs a format")
		}
		if args[0].Value == "-v" || strings.HasPrefix(args[0].Value, "-v") {
			return refuse("printf", "`-v` assigns a shell variable instead of printing")
		}
		for _, a := range args {
			if a.Glob {
				return refuse("printf", "a glob (`%s`) is not allowed here; write the text", clip.Short(a.Value))
			}
		}
		return nil
	},
}

// judgeNames admits options from flags (each its own word, before the first name) followed by
// plain names; with need, one of flags must be given.
func judgeNames(prog string, args []Arg, flags string, need bool) *Refusal {
	given, i := false, 0
	for ; i < len(args) && strings.HasPrefix(args[i].Value, "-") && args[i].Value != "--"; i++ {
		if args[i].Pattern || !strings.Contains(" "+flags+" ", " "+args[i].Value+" ") {
			return refuse(prog, "option `%s` is not on the read-only allowlist (only %s)", clip.Short(args[i].Value), flags)
		}
		given = true
	}
	if i < len(args) && args[i].Value == "--" {
		i++
	}
	switch {
	case need && !given:
		return refuse(prog, "only %s: any other use runs the command it names", flags)
	case i == len(args) && prog != "printenv":
		return refuse(prog, "needs a name")
	}
	for _, a := range args[i:] {
		if a.Pattern || a.Glob || a.Value == "" || strings.HasPrefix(a.Value, "-") {
			return refuse(prog, "`%s` is not a plain name", clip.Short(a.Value))
		}
	}
	return nil
}

// ulimit prints the shell's resource limits: all of them (-a), or those its letters name, soft
// (-S) or hard (-H). Given a value it sets the limit instead, and bash takes the value attached
// too (`ulimit -n1` sets the open-files limit to 1; `ulimit -nu` reads u as a value), so the
// rule takes each word as -, then H, S or a, and at most one resource letter, last; and no
// operand.
//
// Refuses: any operand, a value attached or a resource letter before another letter, zsh's -N.
// Test: TestShellInfoRules; deny/readers2.txt.
var ulimitRule = &Program{
	Name: "ulimit", Summary: "print resource limits (never set one)", NamesOnly: true,
	BSD: &BSD{Same: true, Note: "a builtin of bash and zsh: options only, so it prints and never sets"},
	Custom: func(args []Arg) *Refusal {
		for _, a := range args {
			v := a.Value
			if a.Var || a.Pattern || a.Glob || !strings.HasPrefix(v, "-") || len(v) < 2 {
				return refuse("ulimit", "an operand (`%s`) sets a limit; ulimit here only prints (ulimit -a, ulimit -n)", clip.Short(v))
			}
			for i := 1; i < len(v); i++ {
				switch {
				case strings.IndexByte("HSa", v[i]) >= 0:
				case strings.IndexByte(ulimitResources, v[i]) < 0:
					return refuse("ulimit", "`%s` is not a printing form: only -a, -H, -S and one resource letter (%s)", clip.Short(v), ulimitResources)
				case i < len(v)-1:
					return refuse("ulimit", "`%s` is not a printing form: what follows a resource letter is its value, which sets the limit", clip.Short(v))
				}
			}
		}
		return nil
	},
}

// ulimitResources are bash's resource letters; zsh knows most of them, and an unknown one is
// an error there, which prints nothing.
const ulimitResources = "bcdefiklmnpqrstuvxPRT"
