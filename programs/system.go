package programs

import (
	"strings"

	"github.com/hookctl/hookctl/internal/clip"
)

// date prints the date. Given an operand that is not a +FORMAT, or -s/--set, it sets the
// system clock instead (GNU and BSD date both read `date MMDDhhmm` as "set"). BSD date stops
// reading options at the first operand and takes the operand after a +FORMAT as the time to
// set, so `date +%s -u` sets the clock there.
//
// Refuses: -s/--set, any operand other than one +FORMAT, in either reading. Test:
// TestDateNeverSets, TestDateBSDReading (system_test.go).
var dateRule = &Program{
	Name: "date", Summary: "print the date (+FORMAT, -u, -d, -I, -R, -r; never set it)",
	BSD: &BSD{Getopt: "f:I::jnRr:uv:z:", Lacks: "d", Note: "getopt(3) `f:I::jnRr:uv:z:`: options end at the first operand; after a +FORMAT the next operand sets the clock, -f FORMAT parses it (GNU: a file of dates), -r takes seconds, -d is unknown (usage)"},
	Opts: &Options{
		// -j is BSD's "do not set the clock" (date -j -u -R); GNU date has no -j and exits
		// with a usage error, which reads nothing.
		Flags:    "-u -R -j --utc --universal --rfc-email",
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

// echo prints its arguments. It reads and writes nothing else; every argument is text to it, so
// quoted text holding shell syntax (`echo 'Done: $(date)'`, `echo '{a,b}'`) is printed, never
// run: the two parsers have agreed it is one quoted word. Backslash escapes (echo -e, or zsh's
// echo by default) change only what is printed. A glob becomes names starting with its literal
// prefix (./ at least), which echo prints. For the same reason it may take a variable from the
// environment ($PATH, "x $PWD": AnyArgument), whose value the judge cannot see, unless its name
// says it holds a secret.
//
// Test: TestSystemRules (system_test.go), TestCorpusAllowed (allow/quoting.txt,
// allow/shellinfo.txt), TestEnvironmentWords (hook); deny/expansion.txt.
var echoRule = &Program{
	Name: "echo", Summary: "print text", Files: true, NamesOnly: true, AnyArgument: true,
	BSD:    &BSD{Same: true, Note: "takes only a leading -n; every other word is text to print"},
	Custom: func(args []Arg) *Refusal { return nil },
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
	pwdRule    = &Program{NamesOnly: true, Name: "pwd", Summary: "print the working directory", Opts: &Options{Flags: "-L -P"}, Check: noOperands, BSD: &BSD{Getopt: "LP", Note: "getopt(3) `LP`"}}
	trueRule   = &Program{NamesOnly: true, Name: "true", Summary: "succeed", Opts: &Options{}, Check: noOperands, BSD: &BSD{Getopt: "", Note: "ignores its arguments"}}
	falseRule  = &Program{NamesOnly: true, Name: "false", Summary: "fail", Opts: &Options{}, Check: noOperands, BSD: &BSD{Getopt: "", Note: "ignores its arguments"}}
	whoamiRule = &Program{NamesOnly: true, Name: "whoami", Summary: "print the user name", Opts: &Options{}, Check: noOperands, BSD: &BSD{Getopt: "", Note: "id(1) as whoami takes no options"}}
	nprocRule  = &Program{NamesOnly: true, Name: "nproc", Summary: "print the number of CPUs", Opts: &Options{Flags: "--all", Valued: "--ignore"}, Check: noOperands, BSD: &BSD{Getopt: "", Long: true, Note: "FreeBSD nproc, getopt_long: --all and --ignore only (macOS has none)"}}
	unameRule  = &Program{
		Name: "uname", Summary: "print system information", NamesOnly: true,
		BSD: &BSD{Getopt: "abiKmnoprsUv", Note: "getopt(3) `amnoprsv` (macOS) or `abiKmnoprsUv` (FreeBSD); long options are a usage error"},
		Opts: &Options{Flags: "-a -s -n -r -v -m -p -i -o --all --kernel-name --nodename --kernel-release " +
			"--kernel-version --machine --processor --hardware-platform --operating-system"},
		Check: noOperands,
	}
)

// id prints user and group ids.
//
// Test: TestSystemRules.
var idRule = &Program{
	Name: "id", Summary: "print user and group ids", NamesOnly: true,
	BSD:   &BSD{Getopt: "AFPGMacgnpru", Lacks: "zZ", Note: "getopt(3) `AFPGagnpru` (macOS) or `APGMacgnpru` (FreeBSD): options end at the first operand, so `id user -u` names two users"},
	Opts:  &Options{Flags: "-u -g -G -n -r -z -a -Z --user --group --groups --name --real --zero --context"},
	Check: func(c *ParsedArgs) *Refusal { return operandCount(c, 0, 1, "takes at most one user") },
}

// which prints where programs are found on PATH.
//
// Test: TestSystemRules.
var whichRule = &Program{
	Name: "which", Summary: "locate programs", NamesOnly: true,
	BSD:  &BSD{Getopt: "as", Note: "getopt(3) `as`: options end at the first operand"},
	Opts: &Options{Flags: "-a -s"},
}

// hostname prints the host's names (Debian's hostname 3.23; BSD's on macOS). An operand, -b or
// -F FILE sets the host name instead, so it takes display options only and no operand, in
// every reading (it permutes on Linux: `hostname -s NAME` sets NAME).
//
// Refuses: any operand, -b/--boot, -F/--file. Test: TestMachineRules, TestMachineBSDReadings
// (system_test.go); deny/readers2.txt.
var hostnameRule = &Program{
	Name: "hostname", Summary: "print the host name (never set it)", NamesOnly: true,
	BSD: &BSD{Getopt: "dfs", Lacks: "aAiI", Note: "getopt(3) `fs` (macOS) or `dfs` (FreeBSD): an operand sets the host name there too; -a, -A, -i and -I are a usage error"},
	Opts: &Options{
		Flags: "-a -A -d -f -i -I -s --alias --all-fqdns --domain --fqdn --long --ip-address --all-ip-addresses --short",
		Refused: Refusals{{"-b", "sets the host name"}, {"--boot", "sets the host name"},
			{"-F", "sets the host name from a file"}, {"--file", "sets the host name from a file"}},
	},
	Check: func(c *ParsedArgs) *Refusal {
		if len(c.Operands) > 0 {
			return refuse("hostname", "an operand (`%s`) sets the host name", clip.Short(c.Operands[0].Value))
		}
		return nil
	},
}

// uptime prints how long the system has run and its load (procps 4). free prints memory use,
// once: -s repeats it every N seconds until killed, and -c N times, so both are refused (the
// agent's call would hang).
//
// Refuses: operands; free's -s/--seconds and -c/--count. Test: TestMachineRules.
var (
	uptimeRule = &Program{
		Name: "uptime", Summary: "print how long the system has run", NamesOnly: true, Check: noOperands,
		BSD:  &BSD{Getopt: "", Lacks: "ps", Note: "w(1) as uptime takes no options: -p and -s are a usage error"},
		Opts: &Options{Flags: "-p -s --pretty --since"},
	}
	freeRule = &Program{
		Name: "free", Summary: "print memory use (once)", NamesOnly: true, Check: noOperands,
		BSD: &BSD{Same: true, Note: "procps free only: macOS and FreeBSD have none"},
		Opts: &Options{
			Flags: "-b -k -m -g -h -l -t -v -w --bytes --kilo --mega --giga --tera --peta --kibi --mebi --gibi " +
				"--tebi --pebi --human --si --lohi --total --committed --wide",
			Refused: Refusals{{"-s", "repeats every N seconds until killed"}, {"--seconds", "repeats every N seconds until killed"},
				{"-c", "repeats N times, a second apart"}, {"--count", "repeats N times, a second apart"}},
		},
	}
)

// locale prints the locale settings, the locales or character maps installed (-a, -m), or the
// values of the categories and keywords it names (glibc; BSD's on macOS). It reads no file a
// word names.
//
// Refuses: an operand that is not a plain name. Test: TestMachineRules.
var localeRule = &Program{
	Name: "locale", Summary: "print locale settings", NamesOnly: true,
	BSD:  &BSD{Getopt: "ackms:", Lacks: "v", Note: "getopt(3) `ackm` (macOS) or `ackms:` (FreeBSD): options end at the first operand; later words are keyword names"},
	Opts: &Options{Flags: "-a -m -c -k -v --all-locales --charmaps --category-name --keyword-name --verbose"},
	Check: func(c *ParsedArgs) *Refusal {
		for _, a := range c.Operands {
			if a.Value == "" || strings.Trim(a.Value, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_-") != "" {
				return refuse("locale", "`%s` is not a category or keyword name", clip.Short(a.Value))
			}
		}
		return nil
	},
}
