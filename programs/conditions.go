package programs

import (
	"strings"

	"github.com/hookctl/hookctl/internal/clip"
	"github.com/hookctl/hookctl/internal/wordlist"
)

// test and [ evaluate one condition and exit 0 or 1: whether a file exists or is a directory,
// whether two strings or two numbers compare. They are builtins of bash and zsh and read only
// the metadata of the files they name (stat, access), never their content: whether
// ~/.ssh/id_rsa exists is not its key, so their operands are not words the sensitive-file rule
// reads (NamesOnly).
//
// Some conditions run code. bash's `test -v 'a[$(cmd)]'` evaluates the array subscript, running
// cmd, and so does zsh's `-v`, and zsh's `-t FD` evaluates FD as arithmetic, subscripts
// included (measured: both made a file in a scratch directory); bash's [[ evaluates arithmetic
// in -eq (the lexer refuses [[). So the rule admits only: a unary file test, -n or -z of a
// string, two strings compared (= == !=), two files compared (-nt -ot -ef), two decimal
// integer literals compared (-eq … -ge, where bash's test and zsh's take integers only), and
// -t of a decimal literal; each optionally after one !. Never -v, -o, -a, -R, parentheses or
// more than one condition. No operand may look like an operator (start with -, or be !, ( or
// =), so that every shell's test parses the words as the rule did.
//
// A loop variable may be an operand (judged once for each word of the loop); over a glob, only
// of a string or file test, and only where the pattern starts with a letter, digit or one of
// ./_~, so that no name it becomes reads as an operator. A glob itself may not: it would
// change the number of words.
//
// Refuses: every other form. Test: TestTestConditions, TestTestEvaluatesSubscripts
// (conditions_test.go); deny/readers2.txt.
var (
	testRule = &Program{
		Name: "test", Summary: "test one condition (file tests, string and integer comparisons; never -v)", NamesOnly: true, Files: true,
		BSD:    &BSD{Same: true, Note: "a builtin of bash and zsh (and /bin/test); one condition, as the rule reads it in every shell"},
		Custom: func(args []Arg) *Refusal { return judgeCondition("test", args) },
	}
	bracketRule = &Program{
		Name: "[", Summary: "test one condition, closed by ] (as test)", NamesOnly: true, Files: true,
		BSD: &BSD{Same: true, Note: "a builtin of bash and zsh: test with a closing ]"},
		Custom: func(args []Arg) *Refusal {
			if len(args) == 0 || args[len(args)-1].Value != "]" || args[len(args)-1].Var || args[len(args)-1].Glob {
				return refuse("[", "needs a closing `]` as its last word")
			}
			return judgeCondition("[", args[:len(args)-1])
		},
	}
)

// The operators of one condition, by the operands they take.
const (
	fileTests    = "-e -f -d -r -w -x -s -L -h -p -S -b -c -g -u -k -O -G -N"
	stringTests  = "-n -z"
	stringCompar = "= == !="
	fileCompar   = "-nt -ot -ef"
	intCompar    = "-eq -ne -lt -le -gt -ge"
)

// judgeCondition judges test's arguments (without ['s closing ]): one condition, optionally
// negated.
func judgeCondition(prog string, args []Arg) *Refusal {
	for _, a := range args {
		if a.Glob && !a.Var {
			return refuse(prog, "a glob (`%s`) would change the number of words test reads; name the file, or loop over the glob", clip.Short(a.Value))
		}
	}
	if len(args) > 0 && args[0].Value == "!" && !args[0].Var {
		args = args[1:]
	}
	op := func(i int) string {
		if args[i].Var {
			return ""
		}
		return args[i].Value
	}
	switch {
	case len(args) == 2 && op(0) == "-t":
		return intOperand(prog, args[1])
	case len(args) == 2 && (wordlist.Has(fileTests, op(0)) || wordlist.Has(stringTests, op(0))):
		return operand(prog, args[1])
	case len(args) == 3 && (wordlist.Has(stringCompar, op(1)) || wordlist.Has(fileCompar, op(1))):
		if r := operand(prog, args[0]); r != nil {
			return r
		}
		return operand(prog, args[2])
	case len(args) == 3 && wordlist.Has(intCompar, op(1)):
		if r := intOperand(prog, args[0]); r != nil {
			return r
		}
		return intOperand(prog, args[2])
	}
	for _, a := range args {
		switch v := a.Value; {
		case a.Var:
		case v == "-v" || v == "-R":
			return refuse(prog, "`%s` evaluates an array subscript, which may run a command (`-v 'a[$(cmd)]'`)", v)
		case v == "-o" || v == "-a" || v == "(" || v == ")":
			return refuse(prog, "`%s` joins conditions; write one test per command, joined by && or ||", v)
		}
	}
	return &Refusal{Program: prog, What: "takes one condition here: OP FILE, -n|-z STRING, A = B, A != B, N -eq M (…), each optionally after !",
		Hint: "[ -f go.mod ], [ -d hook ], [ \"$f\" = x ], [ 3 -gt 2 ]"}
}

// operand judges a string or file operand: plain text that no shell's test reads as an operator.
func operand(prog string, a Arg) *Refusal {
	v := a.Value
	switch {
	case a.Pattern:
		return refuse(prog, "shell syntax in the operand `%s` is not allowed", clip.Short(v))
	case a.Var && a.Glob && (v == "" || !isIdentChar(v[0]) && strings.IndexByte("./~", v[0]) < 0):
		return refuse(prog, "a loop variable over the glob `%s` could be a name that reads as an operator", clip.Short(v))
	case strings.HasPrefix(v, "-") || v == "!" || v == "(" || v == ")" || strings.HasPrefix(v, "="):
		return refuse(prog, "the operand `%s` reads as an operator", clip.Short(v))
	}
	return nil
}

// intOperand judges an integer operand: a decimal literal, which bash's test and zsh's compare
// without evaluating (an arithmetic expression could hold a subscript that runs a command).
func intOperand(prog string, a Arg) *Refusal {
	v := strings.TrimPrefix(a.Value, "-")
	if a.Glob || !allDigits(v) {
		return refuse(prog, "`%s` is not a decimal integer: only literal numbers are compared (an expression could run a command)", clip.Short(a.Value))
	}
	return nil
}
