package programs

import (
	"strings"

	"github.com/hookctl/hookctl/internal/clip"
	"github.com/hookctl/hookctl/internal/wordlist"
)

// xargs runs a program on the words it reads from its standard input, which the judge cannot
// see: in general any word, an option included. It is admitted in one form only, after find:
//
//	find START… EXPR -print0 | xargs -0 [-r] [-n N] [-P N] [-t] PROG ARGS…
//
// which runs what `find START… EXPR -exec PROG ARGS… {} +` runs, and is judged as that
// (judgeFind, judgeFindExec: PROG on the allowlist, its words by its own rule, a -name that keeps
// secret files out when PROG reads content). With -print0 and -0 each word xargs reads is one
// whole name find printed, which starts with a starting point, so never with `-`. Without them
// xargs splits names at blanks and quotes (`./a -i b.go` gives it `-i`, `a .env b.go` gives it
// `.env`), so the newline forms, -d, -I, -a FILE, -E, -p, -o and every other option are refused,
// and so is find printing anything but -print0 (-printf, -ls, -print, -exec of a reader: text
// that xargs would read as names).
//
// Test: TestXargsOptions (xargs_test.go); TestXargsGetsWholeNames (hook) runs both forms over
// names made to split; TestCorpusRefused (deny/find.txt), TestExecuteAdmittedRows
// (allow/find.txt, run in the hostile world).
var xargsRule = &Program{
	Name: "xargs", Summary: "run an allowed read on the names find … -print0 gives it (xargs -0 after find only)",
	Filter: true, NamesOnly: true,
	BSD:    &BSD{Same: true, Note: "-0, -n, -P, -r and -t mean the same in BSD xargs; options end at the first operand there too"},
	Custom: func(args []Arg) *Refusal { return xargsAlone },
}

var xargsAlone = &Refusal{Program: "xargs", What: "xargs runs a program on words from its input, which the judge cannot see",
	Hint: "after find, use find … -print0 | xargs -0 PROG …, or find … -exec PROG … {} +"}

// xargsOptions are the options admitted before the program: -0 (required), and those that
// change only how many names go to each run or what xargs prints.
var xargsOptions = &Options{Flags: "-0 --null -r --no-run-if-empty -t --verbose", Valued: "-n --max-args -P --max-procs"}

// XargsProgram returns where the program xargs runs starts in args (xargs's own words), after
// the options xargsOptions admits, -0 among them. xargs stops reading options at its first
// operand, the program, as getopt does with a leading `+` (GNU) and as BSD's does.
func XargsProgram(args []string) (int, *Refusal) {
	null := false
	i := 0
	for i < len(args) {
		a := args[i]
		if a == "--" {
			i++
			break
		}
		if !strings.HasPrefix(a, "-") || a == "-" {
			break
		}
		name, _, attached := strings.Cut(a, "=")
		switch {
		case wordlist.Has(xargsOptions.Flags, a):
			null = null || a == "-0" || a == "--null"
			i++
		case wordlist.Has(xargsOptions.Valued, name) && attached:
			i++
		case wordlist.Has(xargsOptions.Valued, a) && i+1 < len(args):
			i += 2
		case len(a) > 2 && a[1] != '-' && wordlist.Has(xargsOptions.Valued, a[:2]):
			i++ // -n5
		default:
			return 0, &Refusal{Program: "xargs", What: "option `" + clip.Short(a) + "` is not on the read-only allowlist",
				Hint: "xargs may take -0, -r, -n N, -P N and -t, after find … -print0"}
		}
	}
	switch {
	case !null:
		return 0, &Refusal{Program: "xargs", What: "without -0, xargs splits file names at blanks and quotes, so a name can become an option or another file",
			Hint: "use find … -print0 | xargs -0 PROG …"}
	case i >= len(args):
		return 0, &Refusal{Program: "xargs", What: "needs a program to run (alone, it runs echo)", Hint: "find … -print0 | xargs -0 wc -l"}
	}
	return i, nil
}

// FindPrintsNames reports whether a find's words print nothing but NUL-ended names: -print0,
// and no other primary that prints or runs (-print, -printf, -ls, -exec).
func FindPrintsNames(args []string) bool {
	print0 := false
	for _, a := range args {
		switch a {
		case "-print0":
			print0 = true
		case "-print", "-printf", "-ls", "-exec", "-execdir", "-ok", "-okdir", "-fprint", "-fprint0", "-fprintf", "-fls":
			return false
		}
	}
	return print0
}
