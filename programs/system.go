package programs

import (
	"strings"

	"github.com/hookctl/hookctl/internal/clip"
)

// date prints the date. Given an operand that is not a +FORMAT, or -s/--set, it sets the
// system clock instead (GNU and BSD date both read `date MMDDhhmm` as "set").
//
// Refuses: -s/--set, any operand other than one +FORMAT. Test: TestDateNeverSets
// (system_test.go).
var dateRule = &Program{
	Name: "date", Summary: "print the date (+FORMAT, -u, -d, -I, -R, -r; never set it)",
	Opts: &Options{
		Flags:    "-u -R --utc --universal --rfc-email",
		Valued:   "-d -r -f --date --reference --file --rfc-3339",
		Optional: "-I --iso-8601",
		Refused:  Refusals{{"-s", "sets the system clock"}, {"--set", "sets the system clock"}},
	},
	Check: func(c *ParsedArgs) *Refusal {
		for i, a := range c.Operands {
			if i > 0 || !strings.HasPrefix(a.Value, "+") {
				return refuse("date", "an operand that is not one +FORMAT sets the system clock")
			}
		}
		return nil
	},
}

// echo prints its arguments. It reads and writes nothing else; every argument is text to it.
//
// Test: TestSystemRules (system_test.go).
var echoRule = &Program{
	Name: "echo", Summary: "print text",
	Custom: func(args []Arg) *Refusal {
		for _, a := range args {
			if a.Pattern {
				return refuse("echo", "shell syntax in the argument `%s` is not allowed; quote plain text only", clip.Short(a.Value))
			}
		}
		return nil
	},
}

// noOperands is a Check for programs that take options only. It names the program from the
// parsed call rather than closing over the name: a closure per program would be allocated when
// the package starts, in every hook process.
func noOperands(c *ParsedArgs) *Refusal {
	if len(c.Operands) > 0 {
		return refuse(c.Prog.Name, "takes no operands")
	}
	return nil
}

// pwd, true, false, whoami, nproc and uname print facts about the process or machine.
//
// Test: TestSystemRules.
var (
	pwdRule    = &Program{Name: "pwd", Summary: "print the working directory", Opts: &Options{Flags: "-L -P"}, Check: noOperands}
	trueRule   = &Program{Name: "true", Summary: "succeed", Opts: &Options{}, Check: noOperands}
	falseRule  = &Program{Name: "false", Summary: "fail", Opts: &Options{}, Check: noOperands}
	whoamiRule = &Program{Name: "whoami", Summary: "print the user name", Opts: &Options{}, Check: noOperands}
	nprocRule  = &Program{Name: "nproc", Summary: "print the number of CPUs", Opts: &Options{Flags: "--all", Valued: "--ignore"}, Check: noOperands}
	unameRule  = &Program{
		Name: "uname", Summary: "print system information",
		Opts: &Options{Flags: "-a -s -n -r -v -m -p -i -o --all --kernel-name --nodename --kernel-release " +
			"--kernel-version --machine --processor --hardware-platform --operating-system"},
		Check: noOperands,
	}
)

// id prints user and group ids.
//
// Test: TestSystemRules.
var idRule = &Program{
	Name: "id", Summary: "print user and group ids",
	Opts: &Options{Flags: "-u -g -G -n -r -z -a -Z --user --group --groups --name --real --zero --context"},
	Check: func(c *ParsedArgs) *Refusal {
		if len(c.Operands) > 1 {
			return refuse("id", "takes at most one user")
		}
		return nil
	},
}

// which prints where programs are found on PATH.
//
// Test: TestSystemRules.
var whichRule = &Program{
	Name: "which", Summary: "locate programs",
	Opts: &Options{Flags: "-a -s"},
}
