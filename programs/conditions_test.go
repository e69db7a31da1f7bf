package programs

import (
	"os"
	"os/exec"
	"path/filepath"
	"testing"
)

// TestTestConditions: test and [ admit one condition: a unary file test, -n or -z, a string or
// file comparison, a comparison of two decimal literals, -t of a literal; optionally negated.
// -v, -o, -a, parentheses, arithmetic and operands that look like operators are refused.
func TestTestConditions(t *testing.T) {
	check(t, true,
		r("test", "-f", "go.mod"),
		r("test", "-d", "hook"),
		r("test", "-e", "~/.ssh/id_rsa"), // metadata: that it exists, not the key
		r("test", "-s", "f"),
		r("test", "-L", "link"),
		r("test", "-x", "bin/hookctl"),
		r("test", "!", "-f", "x"),
		r("test", pat("!"), "-d", "x"), // '!' quoted: the lexer marks it pattern text
		r("test", "-n", "abc"),
		r("test", "-z", ""),
		r("test", "a", "=", "a"),
		r("test", "a", pat("!="), "b"),
		r("test", "a", "==", "b"),
		r("test", "a", "-nt", "b"),
		r("test", "3", "-gt", "2"),
		r("test", "-1", "-lt", "0"),
		r("test", "!", "10", "-eq", "11"),
		r("test", "-t", "1"),
		r("test", "-f", loopVar("README.md")),
		r("test", "-f", loopGlob("src/a.go")), // one name under src/
		r("test", loopVar("x"), "=", "y"),
		r("test", loopVar("3"), "-eq", "3"),
		r("[", "-d", "hook", "]"),
		r("[", "!", "-f", "x", "]"),
		r("[", "-f", loopVar("Makefile"), "]"),
		r("[", "a", "=", "b", "]"),
		r("test", "-f", "]"), // test has no closing bracket: ] is a file name
	)
	check(t, false,
		r("test", "-v", "a[$(touch x)]").because("evaluates an array subscript"),             // bash runs touch
		r("test", "-v", "HOME").because("evaluates an array subscript"),                      // -v in any form
		r("[", "-v", pat("a[$(id)]"), "]").because("evaluates an array subscript"),           // [ too
		r("test", "!", "-v", "x").because("evaluates an array subscript"),                    // negated
		r("test", "-R", "x").because("evaluates an array subscript"),                         // bash's nameref test
		r("test", "-t", "a[$(touch x)]").because("not a decimal integer"),                    // zsh evaluates -t's operand
		r("test", "-t", "1+1").because("not a decimal integer"),                              // arithmetic
		r("test", "a[$(id)]", "-eq", "1").because("not a decimal integer"),                   // an expression as an integer
		r("test", "1", "-eq", "0x10").because("not a decimal integer"),                       // not decimal
		r("test", "1", "-eq", loopVar("x")).because("not a decimal integer"),                 // a loop word that is no number
		r("test", "1", "-eq", loopGlob("./a")).because("not a decimal integer"),              // a name nobody has seen
		r("test", "-f", "a", "-a", "-d", "b").because("joins conditions"),                    // -a
		r("test", "-f", "a", "-o", "-d", "b").because("joins conditions"),                    // -o
		r("test", "-o", "noclobber").because("joins conditions"),                             // bash: a shell option; zsh differs
		r("test", pat("("), "-f", "a", pat(")")).because("joins conditions"),                 // parentheses
		r("test", "-f", "-v").because("reads as an operator"),                                // an operand like an operator
		r("test", "-n", "!").because("reads as an operator"),                                 // the same
		r("test", "-f", "--").because("reads as an operator"),                                // the same
		r("test", "-f", loopVar("-v")).because("reads as an operator"),                       // a loop word like an operator
		r("test", "-f", loopGlob("-*")).because("reads as an operator"),                      // a glob whose names start with -
		r("test", "-f", loopGlob("=*")).because("could be a name that reads as an operator"), // names like =
		r("test", "-f", glob("./*.go")).because("number of words"),                           // a glob: any number of words
		r("test", "-f", pat("a;b")).because("shell syntax"),                                  // quoted shell syntax
		r("test", "-q", "x").because("one condition"),                                        // not an operator
		r("test", "x").because("one condition"),                                              // the one-word form
		r("test").because("one condition"),                                                   // nothing
		r("test", "!", "!", "-f", "x").because("one condition"),                              // one ! only
		r("test", "a", "<", "b").because("one condition"),                                    // bash's < (a redirection unquoted)
		r("[", "-d", "hook").because("closing `]`"),                                          // [ without ]
		r("[", "-d", "hook", loopVar("]")).because("closing `]`"),                            // a loop word as ]
		r("[", "]").because("one condition"),                                                 // empty
	)
}

// TestTestEvaluatesSubscripts runs bash's and zsh's test in a scratch directory: `-v` with a
// subscript runs the command in it (bash, and zsh with the array set), and zsh's -t evaluates
// its operand as arithmetic, subscripts included, where `-eq` in test compares integers only.
// That is why the rule refuses -v and takes decimal literals for -t and the comparisons.
func TestTestEvaluatesSubscripts(t *testing.T) {
	cases := []struct {
		shell, script string
		runs          bool
	}{
		{"bash", `test -v "a[\$(touch ran)]"`, true},
		{"zsh", `a=(1 2); test -v "a[\$(touch ran)]"`, true},
		{"zsh", `a=(1 2); test -t "a[\$(touch ran)]"`, true},
		{"bash", `a=(1 2); test "a[\$(touch ran)]" -eq 1`, false},
		{"zsh", `a=(1 2); test "a[\$(touch ran)]" -eq 1`, false},
		{"bash", `a=(1 2); test -t "a[\$(touch ran)]"`, false},
	}
	for _, c := range cases {
		path, err := exec.LookPath(c.shell)
		if err != nil {
			if os.Getenv("HOOKCTL_REQUIRE_ALL") == "1" {
				t.Fatalf("%s is not installed (HOOKCTL_REQUIRE_ALL=1)", c.shell)
			}
			t.Logf("%s is not installed: skipped", c.shell)
			continue
		}
		dir := t.TempDir()
		argv := []string{"-c", c.script}
		if c.shell == "zsh" {
			argv = []string{"-f", "-c", c.script}
		}
		cmd := exec.Command(path, argv...)
		cmd.Dir = dir
		cmd.Run() // the exit status does not matter; whether the command ran does
		_, err = os.Stat(filepath.Join(dir, "ran"))
		if ran := err == nil; ran != c.runs {
			t.Errorf("%s -c %s: ran the subscript's command = %v, want %v", c.shell, c.script, ran, c.runs)
		}
	}
	if Lookup("test").Judge([]Arg{{Value: "-v"}, {Value: "a[$(touch ran)]"}}) == nil ||
		Lookup("test").Judge([]Arg{{Value: "-t"}, {Value: "a[$(touch ran)]"}}) == nil {
		t.Error("the judge admits a test that runs a command")
	}
}
