package programs

import (
	"strings"

	"github.com/hookctl/hookctl/internal/clip"
)

// ps lists processes. It prints every process's command line (a secret passed on one is in the
// output, as it is to anyone on the machine), but never their environment, where tokens live:
// procps prints it for the BSD letter `e`, FreeBSD's ps for -e, macOS's and FreeBSD's for -E,
// so all three are refused in every form (`ps eww`, `ps -ef`, `ps -E`); -A is every process in
// every build. ps has three grammars: BSD letters without a dash (`ps aux`, which macOS and
// FreeBSD read as -aux), UNIX options (-o FORMAT) and GNU long ones (--sort). The rule takes at
// most one word of BSD letters, first, from letters that only choose processes or columns in
// all three builds, then UNIX and GNU options from the table, and no operands (on BSD they are
// process ids). No form writes a file or runs anything; -o picks columns, none of which is the
// environment in any build.
//
// Nor their command lines (issue 23): another process's arguments are where a secret passed on
// one sits (`mysql -pPASS`, `--password=…`), and the read-only sandbox hides other processes
// altogether; so BSD words print the command's name (`c`: ps axc), and -f, -F and the args,
// cmd, command and cmdline columns are refused.
//
// Refuses: `e` among BSD letters, -e, -E, any BSD letter not listed, a BSD word after the
// first, a BSD word without `c`, -f, -F, an args column, an operand. Test:
// TestPsNeverPrintsEnvironments (ps_test.go); deny/readers2.txt; TestSecretsCorpus (hook).
var psRule = &Program{
	Name: "ps", Summary: "list processes (never their environment)", NamesOnly: true,
	BSD:    &BSD{Same: true, Note: "macOS and FreeBSD read a first word of letters as options (`ps aux` is -aux), and -e (FreeBSD) and -E print environments there: the rule refuses both and BSD `e` in every build"},
	Opts:   psOpts,
	Custom: judgePs,
}

// psLetters are the BSD letters allowed in ps's first word: each a flag in procps and in macOS's
// and FreeBSD's ps, choosing processes (a, x, r, T), columns or layout (u, j, l, v, w, f, c, h,
// m, S). e is not among them.
const psLetters = "auxwfjlvrchmST"

var psOpts = &Options{
	Flags:  "-A -a -d -H -j -l -w -y --forest --no-headers --headers",
	Valued: "-o -p -u -U -G -t -C --sort --pid --ppid --width --cols --columns --format",
	Refused: Refusals{
		{"-e", "prints every process's environment, tokens included, in FreeBSD's ps (all processes in procps): use -A"},
		{"-E", "prints every process's environment, tokens included (macOS, FreeBSD)"},
		{"-O", "adds its columns to a default that prints every process's command line; use -o"},
		{"-f", "prints every process's command line, where secrets are passed; ps -A -o pid,ppid,user,etime,comm prints its name"},
		{"-F", "prints every process's command line, where secrets are passed; ps -A -o pid,ppid,user,etime,comm prints its name"},
	},
}

func judgePs(args []Arg) *Refusal {
	if len(args) > 0 && !strings.HasPrefix(args[0].Value, "-") {
		w := args[0]
		if w.Var || w.Pattern || w.Glob || w.Value == "" {
			return refuse("ps", "the first word must be BSD letters written out (%s)", psLetters)
		}
		for i := 0; i < len(w.Value); i++ {
			switch c := w.Value[i]; {
			case c == 'e' || c == 'E':
				return refuse("ps", "`%c` prints every process's environment, tokens included; leave it out (ps aux, ps -A -o pid,args)", c)
			case strings.IndexByte(psLetters, c) < 0:
				return refuse("ps", "BSD letter `%c` is not on the read-only allowlist (only %s)", c, psLetters)
			}
		}
		if !strings.ContainsRune(w.Value, 'c') {
			return refuse("ps", "`%s` prints every process's command line, where secrets are passed; add c for the command's name only (ps %sc), or ps -A -o pid,ppid,user,%%cpu,%%mem,etime,comm", clip.Short(w.Value), clip.Short(w.Value))
		}
		args = args[1:]
	}
	c, r := psOpts.Parse("ps", args)
	if r != nil {
		return r
	}
	if len(c.Operands) > 0 {
		return refuse("ps", "takes BSD letters only as its first word, and no operands (`%s`)", clip.Short(c.Operands[0].Value))
	}
	for _, name := range []string{"-o", "--format"} {
		for _, v := range c.Values(name) {
			// The environ column (env, environ) is each process's environment on BSD and
			// macOS; procps prints `-` for it, which a red team could not get past, but the
			// column is refused wherever ps runs.
			for _, col := range strings.FieldsFunc(strings.ToLower(v), func(r rune) bool { return r == ',' || r == ' ' || r == ':' || r == '=' }) {
				switch col {
				case "env", "environ", "environment":
					return refuse("ps", "the `%s` column prints each process's environment, tokens included", col)
				case "args", "cmd", "command", "cmdline":
					return refuse("ps", "the `%s` column prints each process's command line, where secrets are passed; use comm", col)
				}
			}
		}
	}
	return nil
}
