package editguard

// The edit guard (see doc.go): the environment variables that move hookctl and Claude Code.

import (
	"strings"

	"github.com/hookctl/hookctl/lexer"
	"github.com/hookctl/hookctl/programs"

	"mvdan.cc/sh/v3/syntax"
)

// envRule: hookctl's variables, and the homes hookctl and Claude Code read their configuration
// from.
//
// Why: HOOKCTL_HOME moves hookctl's configuration, session state and audit out from under the
// user (`HOOKCTL_HOME=/tmp/h hookctl retrieve …` runs with a configuration the agent wrote), and
// HOOKCTL_IN_RETRIEVER=1 makes a hook act as the retriever's guard instead of the session's;
// HOME, XDG_CONFIG_HOME and CLAUDE_CONFIG_DIR move hookctl's home and Claude Code's settings, and
// with them the hook (`CLAUDE_CONFIG_DIR=/tmp/c claude -p …` starts an agent no hook guards).
// What: any command that assigns, exports or unsets a variable whose name starts with HOOKCTL_
// is refused: NAME=VALUE before a command or alone, export, declare, typeset, local, readonly
// (and a nameref to one), unset, read, mapfile, readarray, printf -v, getopts, a for or select
// loop variable, ${NAME:=…}, an arithmetic assignment, env NAME=VALUE and env -u NAME, and a
// wrapper's environment options (systemd-run -E, strace -E, bwrap --setenv and --unsetenv,
// tmux setenv and -e), inside sh -c and eval strings too. Assigning, exporting or unsetting
// HOME, XDG_CONFIG_HOME or CLAUDE_CONFIG_DIR is refused when the same command line also runs
// hookctl or claude (by name, through a wrapper, or named in an interpreter's code). A name that
// is not a literal (`export "$X=1"`, `export $(cat .env)`) is not seen (TestKnownGaps).
// Test: TestEnvironment.
var movedHomes = []string{"HOME", "XDG_CONFIG_HOME", "CLAUDE_CONFIG_DIR"}

// setsVariable judges one variable that a command assigns, exports or unsets; how says how, as
// "`export` of".
func (j *judge) setsVariable(name, how string) *programs.Refusal {
	switch {
	case strings.HasPrefix(name, "HOOKCTL_"):
		return refuse("", hintAsk, "%s `%s`, one of hookctl's variables: they move its configuration, state and audit, and are the user's to set", how, name)
	case containsString(movedHomes, name) && j.movedHome == "":
		j.movedHome = name
	}
	return nil
}

// movedHomeRefusal is the refusal of a command line that both moves a home and runs hookctl or
// claude, once the whole line has been judged.
func (j *judge) movedHomeRefusal() *programs.Refusal {
	if j.movedHome == "" || !j.runsGuard {
		return nil
	}
	return refuse("", hintAsk, "the command sets `%s` and runs hookctl or claude: that moves hookctl's configuration or Claude Code's settings, and the hook with them", j.movedHome)
}

// treeVariables judges every variable a parsed script assigns in its syntax: prefix and bare
// assignments, declarations, loop variables, ${NAME:=…} and arithmetic. Commands that assign
// (unset, read, env, …) are judged where they run (varsRule, declRule, the wrappers).
func (j *judge) treeVariables(f *syntax.File) *programs.Refusal {
	var ref *programs.Refusal
	check := func(name, how string) {
		if ref == nil && name != "" {
			ref = j.setsVariable(name, how)
		}
	}
	syntax.Walk(f, func(n syntax.Node) bool {
		if ref != nil {
			return false
		}
		switch n := n.(type) {
		case *syntax.DeclClause:
			how := "`" + n.Variant.Value + "` of"
			nameref := false
			for _, a := range n.Args {
				if a.Naked && a.Name == nil {
					if v, ok := lexer.Literal(a.Value); ok && strings.HasPrefix(v, "-") {
						nameref = nameref || strings.Contains(v, "n")
						continue
					}
				}
				check(declName(a), how)
				if nameref && a.Value != nil {
					if v, ok := lexer.Literal(a.Value); ok {
						check(v, how+" a reference to")
					}
				}
			}
			return false
		case *syntax.Assign:
			check(declName(n), "assigning")
		case *syntax.WordIter:
			check(n.Name.Value, "a loop over")
		case *syntax.ParamExp:
			if n.Exp != nil && (n.Exp.Op == syntax.AssignUnset || n.Exp.Op == syntax.AssignUnsetOrNull) && n.Param != nil {
				check(n.Param.Value, "assigning")
			}
		case *syntax.BinaryArithm:
			if isArithmAssign(n.Op) {
				if w, ok := n.X.(*syntax.Word); ok {
					check(literal(w), "assigning")
				}
			}
		case *syntax.UnaryArithm:
			if n.Op == syntax.Inc || n.Op == syntax.Dec {
				if w, ok := n.X.(*syntax.Word); ok {
					check(literal(w), "assigning")
				}
			}
		}
		return true
	})
	return ref
}

// mayAssign reports whether a script's text can hold an assignment the syntax shows, so that
// most commands skip treeVariables' walk: each form needs an `=`, ++ or --, or a keyword the
// parser only recognises when it is written out plainly (a quoted or escaped `export` is a
// command, judged by declRule).
func mayAssign(src string) bool {
	for _, s := range assignMarks {
		if strings.Contains(src, s) {
			return true
		}
	}
	return false
}

var assignMarks = []string{"=", "++", "--", "for", "select", "export", "declare", "typeset", "local", "readonly", "nameref"}

// declName is the variable an assignment names: NAME=…, or a declaration's literal NAME or
// "NAME=…" word.
func declName(a *syntax.Assign) string {
	if a.Name != nil {
		return a.Name.Value
	}
	if a.Value == nil {
		return ""
	}
	v, ok := lexer.Literal(a.Value)
	if !ok || strings.HasPrefix(v, "-") {
		return ""
	}
	name, _, _ := strings.Cut(v, "=")
	return strings.TrimSuffix(name, "+")
}

// wordName is the variable a NAME or NAME=VALUE word names, or "" when it names none.
func wordName(w word) string {
	if !w.known() {
		return ""
	}
	name, _, _ := strings.Cut(w.s, "=")
	name = strings.TrimSuffix(name, "+")
	if !isName(name) {
		return ""
	}
	return name
}

// declRule: export, declare, typeset, local and readonly run as commands (through builtin,
// command or a wrapper), where the shell's grammar does not see them as declarations.
//
// Why: `builtin export HOOKCTL_HOME=/tmp/h`: see envRule.
// What: each NAME or NAME=VALUE operand is judged by envRule. Never refuses otherwise.
// Test: TestEnvironment.
var declRule = &rule{
	names: []string{"export", "declare", "typeset", "local", "readonly"},
	judge: func(j *judge, c *invocation) *programs.Refusal {
		for _, a := range c.args {
			if strings.HasPrefix(a.s, "-") {
				continue
			}
			if r := j.setsVariable(wordName(a), "`"+c.prog+"` of"); r != nil {
				return r
			}
		}
		return nil
	},
}
