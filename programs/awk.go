package programs

import (
	"strings"

	"github.com/hookctl/hookctl/internal/clip"
)

// gawk runs an awk program, which can run commands (system(), `print | "cmd"`, `"cmd" |
// getline`), write files (`print > f`) and read any file (getline < f). GNU awk's --sandbox
// turns all of that off, and loading extensions; the rewrite adds it first, before gawk's
// options end at the program text.
//
// The command as written must be a read too (a client may ignore the rewrite), so the rule
// also refuses in the program text what --sandbox stops: system and getline, every `|`, and a
// `>` in a program that prints (only print and printf redirect; a program without them may
// compare: '$3 > 100'). And what --sandbox leaves: ENVIRON (secrets live in the environment),
// ARGV and ARGC (a program that adds a name to ARGV reads a file the sensitive-file rule never
// saw) and every @ directive (@include and @load bring code the gate cannot see). Like jq's
// filter check it errs towards refusing: nothing is parsed, so the names and characters are
// refused inside string literals and regular expressions too (a `|` alternation included).
//
// Plain `awk` is not on the list: mawk (Debian's and Ubuntu's awk) and the BSD awk of macOS
// have no sandbox switch, and a program for one of them is code the gate would have to prove
// safe in full (hook/bash.go's programHint says so).
//
// Refuses: -f/--file, -i/--include, -l/--load, -E/--exec, -D/--debug, -o/--pretty-print,
// -p/--profile, -d/--dump-variables (these three write files), -W, and in the program ENVIRON,
// ARGV, ARGC and @. Test: TestGawkSandboxed (awk_test.go); deny/readers.txt.
var gawkRule = &Program{
	Name: "gawk", Summary: "run an awk program under gawk --sandbox (no ENVIRON, ARGV, @include; no -f)", Filter: true,
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
	Check:   checkGawk,
	Rewrite: func(args []string) ([]string, []string) { return nil, append([]string{"--sandbox"}, args...) },
}

func checkGawk(c *ParsedArgs) *Refusal {
	progs := c.Values("-e", "--source")
	if !c.Has("-e", "--source") {
		if len(c.Operands) == 0 {
			return refuse("gawk", "needs a program")
		}
		progs = append(progs, c.Operands[0].Value)
	}
	for _, p := range progs {
		if id := awkForbidden(p); id != "" {
			return refuse("gawk", "the program uses `%s`, which %s", id, awkWhy(id))
		}
		if strings.Contains(p, "|") {
			return refuse("gawk", "the program holds `|`, which pipes to or from a command (refused inside a regular expression too)")
		}
		if strings.Contains(p, ">") && awkPrints(p) {
			return refuse("gawk", "the program prints and holds `>`, which redirects print to a file; compare in a pattern without print ('$3 > 100') or use sort and cut")
		}
	}
	for _, v := range c.Values("-v", "--assign") {
		if name, _, _ := strings.Cut(v, "="); name == "" || strings.ContainsAny(name, " \t") {
			return refuse("gawk", "`-v %s` is not NAME=VALUE", clip.Short(v))
		}
	}
	return nil
}

func awkWhy(id string) string {
	switch id {
	case "ENVIRON":
		return "reads the environment, which may hold secrets"
	case "@":
		return "includes or loads code the gate cannot see"
	case "system":
		return "runs a command"
	case "getline":
		return "reads from a file or a command"
	}
	return "can make gawk read files the gate never saw named"
}

// awkPrints reports whether an awk program names print or printf, the statements whose `>`
// redirects.
func awkPrints(prog string) bool {
	for i := strings.Index(prog, "print"); i >= 0; i = strings.Index(prog, "print") {
		if i == 0 || !isIdentChar(prog[i-1]) {
			return true
		}
		prog = prog[i+5:]
	}
	return false
}

// awkForbidden returns the first ENVIRON, ARGV, ARGC, system, getline or @ in an awk program, as
// whole names.
func awkForbidden(prog string) string {
	if strings.Contains(prog, "@") {
		return "@"
	}
	for i := 0; i < len(prog); i++ {
		if !isIdentChar(prog[i]) || i > 0 && isIdentChar(prog[i-1]) {
			continue
		}
		end := i
		for end < len(prog) && isIdentChar(prog[end]) {
			end++
		}
		switch id := prog[i:end]; id {
		case "ENVIRON", "ARGV", "ARGC", "system", "getline":
			return id
		}
		i = end - 1
	}
	return ""
}
