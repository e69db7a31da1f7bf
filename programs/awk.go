package programs

import (
	"strings"

	"github.com/hookctl/hookctl/internal/clip"
)

// An awk program can run commands (system(), `print | "cmd"`, `"cmd" | getline`), write files
// (`print > f`) and read any file (getline < f, a name added to ARGV). The rules below admit a
// program only when the checker (awkprog.go) proves its text does none of that, for every awk
// the name may run: `awk` is mawk on Debian and Ubuntu, gawk on Fedora and Arch, BWK awk on
// macOS and FreeBSD and BusyBox awk on Alpine; `nawk` is mawk, gawk or BWK awk. The program
// then reads the files its operands name, which the sensitive-file rule judges, and standard
// input, so each may stand after a pipe.
//
// Every awk takes its options before the program and reads every later word as a file or a
// NAME=VALUE assignment (tried on all four: `awk PROG in -v x=1` opens a file named -v). So the
// rule refuses a word after the program that starts with `-` (but `-`, standard input):
// otherwise the judge, which reads options anywhere, would take `awk PROG -F .env` for a field
// separator while awk opened .env. An assignment's value is text; it never runs (awk only
// processes escapes in it). gawk opens an operand /inet/tcp/… as a network connection, even
// under --sandbox (tried against a local listener), so such operands are refused for every
// name.
//
// Refuses: -f (a program file), -e (gawk's and BusyBox's program text, an option BWK awk
// ignores, running the next word as the program instead), -W (mawk's -W exec and -W dump), and
// every other option but -F and -v; a program the checker does not prove a read; an option
// after the program; an operand starting with /inet. Test: TestAwkRules, TestAwkProgramChecker
// (awk_test.go, awkprog_test.go); deny/awk.txt; FuzzAwkProgram runs what the checker admits.
var awkRule = &Program{
	Name: "awk", Summary: awkSummary, Files: true, Filter: true,
	BSD: awkBSD, Opts: awkOptions, PatternOperand: awkProgramOperand, Check: checkAwk,
}

// mawk is Debian's and Ubuntu's awk, by its own name: the awk rule.
var mawkRule = &Program{
	Name: "mawk", Summary: awkSummary, Files: true, Filter: true,
	BSD: awkBSD, Opts: awkOptions, PatternOperand: awkProgramOperand, Check: checkAwk,
}

// nawk is mawk, gawk or BWK awk, whichever the system links it to: the awk rule.
var nawkRule = &Program{
	Name: "nawk", Summary: awkSummary, Files: true, Filter: true,
	BSD: awkBSD, Opts: awkOptions, PatternOperand: awkProgramOperand, Check: checkAwk,
}

const awkSummary = "run an awk program that only reads and prints (no system, getline, pipes, > in actions, ENVIRON, ARGV; no -f)"

var awkBSD = &BSD{Getopt: "F:v:", Note: "BWK awk reads -F and -v alike and, like every awk, stops reading options at the program text; later words are files or assignments"}

// awkOptions are the options every awk reads alike: a field separator and assignments.
var awkOptions = &Options{
	Valued:   "-F -v",
	Patterns: "-F -v",
	Refused: Refusals{
		{"-f", "reads the program from a file the gate cannot see"},
		{"-e", "is program text to gawk and BusyBox awk, but BWK awk ignores it and runs the next word as the program; use gawk -e"},
		{"-W", "takes mawk's and gawk's other options: -W exec reads a program file, -W dump writes the program out"},
		{"-d", "writes the variables to a file in gawk"},
		{"-o", "writes the program to a file in gawk"},
		{"-p", "writes a profile file in gawk"},
		{"-i", "includes program code from a file in gawk"},
		{"-l", "loads an extension in gawk"},
		{"-E", "reads the program from a file in gawk"},
		{"-D", "starts gawk's debugger"},
	},
}

func awkProgramOperand(c *ParsedArgs, i int) bool { return i == 0 }

// gawk is the awk rule with GNU awk's own options, and runs under --sandbox, which the rewrite
// puts first: it turns off system(), getline from files and commands, output redirection and
// extensions. The checker refuses all of that as written too (a client may ignore the rewrite),
// and what --sandbox leaves open: ENVIRON, ARGV and ARGC, @include and @load, /inet operands.
//
// Refuses: -f/--file, -i/--include, -l/--load, -E/--exec, -D/--debug, -o/--pretty-print,
// -p/--profile, -d/--dump-variables (these three write files), -W, and every program, option
// or operand the awk rule refuses. Test: TestGawkSandboxed (awk_test.go); deny/readers.txt,
// deny/awk.txt.
var gawkRule = &Program{
	Name: "gawk", Summary: "run an awk program under gawk --sandbox that only reads and prints (as awk; no ENVIRON, ARGV, @include; no -f)",
	Files: true, Filter: true,
	BSD: &BSD{Same: true, Note: "GNU awk everywhere it is installed under this name"},
	Opts: &Options{
		Flags: "-b -c -n -N -O -P -r -s -S -t --characters-as-bytes --traditional --non-decimal-data " +
			"--use-lc-numeric --optimize --posix --re-interval --no-optimize --sandbox --lint-old",
		Valued:   "-F -v -e --field-separator --assign --source",
		Patterns: "-F -v -e --field-separator --assign --source",
		Refused: Refusals{
			{"-f", "reads the program from a file the gate cannot see"}, {"--file", "reads the program from a file the gate cannot see"},
			{"-i", "includes program code from a file"}, {"--include", "includes program code from a file"},
			{"-l", "loads an extension"}, {"--load", "loads an extension"},
			{"-E", "reads the program from a file"}, {"--exec", "reads the program from a file"},
			{"-D", "starts the debugger"}, {"--debug", "starts the debugger"},
			{"-o", "writes the program to a file"}, {"--pretty-print", "writes the program to a file"},
			{"-p", "writes a profile file"}, {"--profile", "writes a profile file"},
			{"-d", "writes the variables to a file"}, {"--dump-variables", "writes the variables to a file"},
			{"-W", "takes gawk's long options in another spelling"},
		},
	},
	PatternOperand: func(c *ParsedArgs, i int) bool {
		return firstOperandUnless(c, i, "-e", "--source")
	},
	Check:        checkAwk,
	Rewrite:      func(args []string) ([]string, []string) { return nil, append([]string{"--sandbox"}, args...) },
	RewriteDepth: true,
}

// checkAwk applies the awk rules to a parsed call of any of the awk names.
func checkAwk(c *ParsedArgs) *Refusal {
	name := c.Prog.Name
	words := make([]string, len(c.Args))
	for i, a := range c.Args {
		words[i] = a.Value
	}
	inline := c.Has("-e", "--source")
	after := firstOperandAt(c.Prog.Opts, words) // the program, or with -e the first file
	if !inline {
		after++
	}
	for _, w := range words[min(after, len(words)):] {
		if strings.HasPrefix(w, "-") && w != "-" {
			return refuse(name, "awk reads every word after the program as a file or assignment, so `%s` would be a file; put options before the program", clip.Short(w))
		}
	}
	progs := c.Values("-e", "--source")
	files := c.Operands
	if !inline {
		if len(c.Operands) == 0 {
			return refuse(name, "needs a program")
		}
		progs, files = []string{c.Operands[0].Value}, c.Operands[1:]
	}
	if err := checkAwkProgram(progs...); err != nil {
		return &Refusal{Program: name, What: err.Error(),
			Hint: "awk may only read its input and print to standard output: patterns, print and printf without redirection, builtins without I/O"}
	}
	for _, f := range files {
		if strings.HasPrefix(f.Value, "/inet") {
			return refuse(name, "gawk opens `%s` as a network connection", clip.Short(f.Value))
		}
	}
	for _, v := range c.Values("-v", "--assign") {
		if n, _, ok := strings.Cut(v, "="); !ok || !isAwkName(n) {
			return refuse(name, "`-v %s` is not NAME=VALUE", clip.Short(v))
		}
	}
	return nil
}

// isAwkName reports whether s is an awk variable name.
func isAwkName(s string) bool {
	if s == "" || !isIdentStart(s[0]) {
		return false
	}
	for i := 1; i < len(s); i++ {
		if !isIdentChar(s[i]) {
			return false
		}
	}
	return true
}

// isAwkRule reports whether p is one of the awk rules, for the reference.
func isAwkRule(p *Program) bool {
	return p == awkRule || p == gawkRule || p == mawkRule || p == nawkRule
}

// writeAwkReference lists what the awk checker refuses in a program, from its tables.
func writeAwkReference(b *strings.Builder) {
	var names []string
	for _, r := range awkRefusedNames {
		names = append(names, "`"+r.Name+"`")
	}
	b.WriteString("- the program may not name " + strings.Join(names, " ") +
		", hold `|` (but `||`), `@` or `::`, hold `>`, `>>` or `>=` in an action outside parentheses, " +
		"print inside parentheses, call a function it does not define, or use a `/` that awks read differently\n")
	b.WriteString("- every word after the program is a file or NAME=VALUE assignment; none may start with `-` (but `-`) or `/inet`\n")
}
