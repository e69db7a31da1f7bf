package programs

import (
	"strings"

	"github.com/hookctl/hookctl/internal/clip"
	"github.com/hookctl/hookctl/internal/secrets"
	"github.com/hookctl/hookctl/internal/wordlist"
)

// cut prints selected fields or columns. Its delimiters may be any character, so they are
// pattern slots (cut -d'|' -f2).
//
// Test: TestTextRules (text_test.go).
var cutRule = &Program{
	Name: "cut", Summary: "print selected fields", Filter: true,
	BSD: &BSD{Getopt: "b:c:d:f:snw", Lacks: "z", Note: "getopt(3) `b:c:d:f:snw`: options end at the first operand; later words are files"},
	Opts: &Options{
		Flags:    "-n -s -z --complement --only-delimited --zero-terminated",
		Valued:   "-b -c -f -d --bytes --characters --fields --delimiter --output-delimiter",
		Patterns: "-d --delimiter --output-delimiter",
	},
}

// tr translates characters from standard input. Its operands are character sets, never files.
//
// Test: TestTextRules.
var trRule = &Program{
	Name: "tr", Summary: "translate characters", Filter: true,
	BSD:            &BSD{Getopt: "Ccdsu", Lacks: "t", Note: "getopt(3) `Ccdsu`: options end at the first operand, so a later -d is a third character set"},
	Opts:           &Options{Flags: "-c -C -d -s -t --complement --delete --squeeze-repeats --truncate-set1"},
	PatternOperand: func(*ParsedArgs, int) bool { return true },
	Check:          func(c *ParsedArgs) *Refusal { return operandCount(c, 1, 2, "takes one or two character sets") },
}

// uniq filters repeated lines. Its second operand is an output file it would write, so at most
// one operand is allowed. BSD uniq stops reading options at the first operand, so in `uniq IN -c`
// the -c is that output file.
//
// Refuses: a second operand (uniq IN OUT writes OUT), in either reading. Test:
// TestUniqRefusesOutputOperand, TestTextBSDReadings (text_test.go), TestStopReadingIsReal.
var uniqRule = &Program{
	Name: "uniq", Summary: "filter repeated lines (one input, no output file)", Filter: true,
	BSD: &BSD{Getopt: "D::cdif:s:u", Lacks: "zw", Long: true, Note: "getopt_long `+D::cdif:s:u`: options end at the first operand, so in `uniq in -c` the -c is the output file it would write"},
	Opts: &Options{
		Flags:    "-c -d -D -i -u -z --count --repeated --ignore-case --unique --zero-terminated",
		Valued:   "-f -s -w --skip-fields --skip-chars --check-chars",
		Optional: "--all-repeated --group",
	},
	Check: func(c *ParsedArgs) *Refusal {
		return operandCount(c, 0, 1, "a second operand is an output file uniq would write; give at most one input file")
	},
}

// diff compares files. A recursive diff (-r) prints the differing lines of every file it walks
// into, secret files too, so the rewrite excludes their names (secrets.ExcludeGlobs and
// ExcludeDirs, as --exclude=PAT, which diff matches against base names) before the first
// operand; diff's exclusions do not depend on order.
//
// Refuses: -l/--paginate (runs pr). Test: TestTextRules, TestDiffRecursiveExcludesSecrets
// (rewrite_test.go).
var diffRule = &Program{
	Name: "diff", Summary: "compare files",
	BSD:          &BSD{Getopt: "0123456789aBbC:cdD:efF:HhI:iL:lnNPpqrS:sTtU:uwW:X:x:y", Lacks: "EZ", Long: true, Permute: true, Note: "FreeBSD diff (macOS 13 and later), getopt_long without `+`: permutes like GNU; -l runs pr there too"},
	Rewrite:      diffRewrite,
	RewriteDepth: true,
	Opts:         diffOpts,
	Walks:        diffWalks,
}

// diffWalks is a recursive diff's walk of both its operands: GNU diff follows every link unless
// --no-dereference (issue 23, item 5).
func diffWalks(args []Arg) []Walk {
	c, r := diffOpts.Parse("diff", args)
	if r != nil || !c.Has("-r", "--recursive") {
		return nil
	}
	follow := FollowAll
	if c.Has("--no-dereference") {
		follow = FollowRoots
	}
	return []Walk{{Roots: operandRoots(c, nil), Follow: follow, Excluded: true}}
}

// diffOpts is diff's table, a variable of its own so that the rewrite can parse with it.
var diffOpts = &Options{
	Flags: "-q -s -i -E -Z -b -w -B -a -r -N -u -c -y -t -T -p -d -e -n " +
		"--brief --report-identical-files --ignore-case --ignore-tab-expansion --ignore-trailing-space " +
		"--ignore-space-change --ignore-all-space --ignore-blank-lines --text --recursive --new-file " +
		"--unidirectional-new-file --side-by-side --expand-tabs --initial-tab --show-c-function --minimal " +
		"--speed-large-files --strip-trailing-cr --suppress-common-lines --left-column --suppress-blank-empty " +
		"--no-dereference --normal --ed --rcs",
	Valued: "-U -C -W -I -x -X -S -F --unified --context --width --ignore-matching-lines --exclude --exclude-from " +
		"--starting-file --label --from-file --to-file --show-function-line --tabsize --horizon-lines",
	Optional: "--color",
	Patterns: "-I -F --ignore-matching-lines --show-function-line",
	Refused:  Refusals{{"-l", "runs the pr program"}, {"--paginate", "runs the pr program"}},
}

// diffRewrite adds an --exclude for each secret name before a recursive diff's first operand.
func diffRewrite(args []string) ([]string, []string) {
	parsed := make([]Arg, len(args))
	for i, a := range args {
		parsed[i] = Arg{Value: a}
	}
	c, r := diffOpts.Parse("diff", parsed)
	if r != nil || !c.Has("-r", "--recursive") {
		return nil, args
	}
	at := firstOperandAt(diffOpts, args)
	if at > 0 && args[at-1] == "--" {
		at--
	}
	out := make([]string, 0, len(args)+len(secrets.ExcludeGlobs)+len(secrets.ExcludeDirs))
	out = append(out, args[:at]...)
	for _, g := range secrets.ExcludeGlobs {
		out = append(out, "--exclude="+g)
	}
	for _, d := range secrets.ExcludeDirs {
		out = append(out, "--exclude="+d)
	}
	return nil, append(out, args[at:]...)
}

// cmp compares files byte by byte.
//
// Test: TestTextRules.
var cmpRule = &Program{
	Name: "cmp", Summary: "compare files byte by byte",
	BSD: &BSD{Getopt: "bhi:ln:sxz", Long: true, Note: "getopt_long `+bhi:ln:sxz`: options end at the first operand; later words are files and skip counts"},
	Opts: &Options{
		Flags:  "-b -l -s --print-bytes --verbose --quiet --silent",
		Valued: "-i -n --ignore-initial --bytes",
	},
	Check: func(c *ParsedArgs) *Refusal { return operandCount(c, 0, 4, "takes at most two files and two offsets") },
}

// jq filters JSON. Its filter language cannot write files or run programs; the rule also keeps
// it from reading the environment (env, $ENV), where secrets live, and from loading filter code
// the gate cannot see.
//
// Refuses: -f/--from-file and -L, and in filters env, $ENV (also `$ ENV`), include, import and
// modulemeta. Test: TestJqRules (text_test.go).
var jqRule = &Program{
	Name: "jq", Summary: "filter JSON", Filter: true,
	BSD:  &BSD{Same: true, Note: "the same program everywhere, with its own parser"},
	Opts: jqOpts, Custom: judgeJq, Reads: jqReads,
}

// jqReads are the files jq opens: its operands after the filter, and the files of --slurpfile
// and --rawfile.
func jqReads(args []Arg) []string {
	var out []string
	filter := true
	for i := 0; i < len(args); i++ {
		v := args[i].Value
		switch {
		case (v == "--slurpfile" || v == "--rawfile") && i+2 < len(args):
			out = append(out, args[i+2].Value)
			i += 2
		case wordlist.Has(jqPairs, v):
			i += 2
		case v == "--indent":
			i++
		case strings.HasPrefix(v, "-") && v != "-":
		case filter:
			filter = false
		default:
			out = append(out, v)
		}
	}
	return out
}

var jqOpts = &Options{
	Flags: "-r -j -a -c -n -e -s -S -C -M -R --raw-output --join-output --ascii-output --compact-output --null-input " +
		"--exit-status --slurp --sort-keys --color-output --monochrome-output --raw-input --tab --seq --stream " +
		"--stream-errors --raw-output0 --unbuffered --args --jsonargs --version",
	Valued:  "--indent",
	Refused: Refusals{{"-f", "reads the filter from a file"}, {"--from-file", "reads the filter from a file"}, {"-L", "loads filter modules from a directory"}},
}

// jqPairs are jq's options that take two values: a name and a value or file. A space-separated
// list, read with listed, so that nothing is built when the hook starts.
const jqPairs = "--arg --argjson --slurpfile --rawfile"

func judgeJq(args []Arg) *Refusal {
	var rest []Arg
	for i := 0; i < len(args); i++ {
		if args[i].Value == "--" {
			rest = append(rest, args[i:]...)
			break
		}
		if !wordlist.Has(jqPairs, args[i].Value) {
			rest = append(rest, args[i])
			continue
		}
		if i+2 >= len(args) {
			return refuse("jq", "`%s` needs a name and a value", args[i].Value)
		}
		for _, v := range args[i+1 : i+3] {
			if strings.HasPrefix(v.Value, "-") || v.Pattern || v.Var {
				return refuse("jq", "the name and value of `%s` must be plain words not starting with `-`", args[i].Value)
			}
		}
		i += 2
	}
	c, r := jqOpts.Parse("jq", rest)
	if r != nil {
		return r
	}
	for i, a := range c.Operands {
		if a.Pattern && i != 0 {
			return refuse("jq", "shell syntax in the file name `%s` is not allowed", clip.Short(a.Value))
		}
		if a.Var && i == 0 {
			return refuse("jq", "a loop variable may not be the filter")
		}
	}
	if len(c.Operands) > 0 {
		switch id := jqForbidden(c.Operands[0].Value); id {
		case "":
		case "env", "$ENV":
			return refuse("jq", "the filter reads the environment (`%s`), which may hold secrets", id)
		default:
			return refuse("jq", "the filter loads filter code from a file (`%s`), which the gate cannot see", id)
		}
	}
	return nil
}

// jqForbidden returns the first thing in a filter that reads the environment or loads filter
// code from a file: the env builtin, $ENV (jq 1.6 allows a space after $), include, import and
// modulemeta. It errs towards refusing: the words are refused even inside string literals.
func jqForbidden(filter string) string {
	for i := 0; i < len(filter); i++ {
		c := filter[i]
		if c == '$' {
			j := i + 1
			for j < len(filter) && (filter[j] == ' ' || filter[j] == '\t') {
				j++
			}
			if strings.HasPrefix(filter[j:], "ENV") && (j+3 == len(filter) || !isIdentChar(filter[j+3])) {
				return "$ENV"
			}
			continue
		}
		if !isIdentChar(c) || i > 0 && (isIdentChar(filter[i-1]) || filter[i-1] == '.' || filter[i-1] == '$') {
			continue
		}
		end := i
		for end < len(filter) && isIdentChar(filter[end]) {
			end++
		}
		switch id := filter[i:end]; id {
		case "env", "include", "import", "modulemeta", "get_search_list":
			return id
		}
		i = end - 1
	}
	return ""
}

func isIdentChar(c byte) bool {
	return 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9' || c == '_'
}

// The text readers below print their input rearranged: into columns, numbered, joined, reversed
// or compared. None of them has an option that writes a file, reads a file named by an option's
// value, or runs anything; their operands are files they read, `-` standard input. Separators,
// delimiter lists and nl's `pBRE` styles may be any character, so they are pattern slots.
//
// Refuses: every option not listed. Test: TestTextReaders, TestTextReadersBSDReadings
// (text_test.go); the write and exec forms are the options no table lists.

// column lays its input out in columns or a table (util-linux 2.38; macOS and FreeBSD have the
// 4.4BSD column, with -c -s -t -x and FreeBSD's -l).
var columnRule = &Program{
	Name: "column", Summary: "lay text out in columns or a table", Files: true, Filter: true,
	BSD: &BSD{Getopt: "c:ls:tx", Lacks: "nONEdeHRTWLJripo", Note: "getopt(3) `c:ls:tx` (FreeBSD adds the flag -l, which util-linux reads as a column count): options end at the first operand; later words are files to read"},
	Opts: &Options{
		Flags: "-t -d -e -L -J -x --table --table-noheadings --table-header-repeat --keep-empty-lines --json --fillrows",
		Valued: "-n -O -N -l -E -H -R -T -W -r -i -p -c -o -s --table-name --table-order --table-columns " +
			"--table-columns-limit --table-noextreme --table-hide --table-right --table-truncate --table-wrap " +
			"--tree --tree-id --tree-parent --output-width --output-separator --separator",
		Patterns: "-o -s --output-separator --separator",
	},
}

// nl numbers the lines of files (coreutils 9.1). A style `pBRE` numbers the lines a regular
// expression matches.
var nlRule = &Program{
	Name: "nl", Summary: "number lines", Files: true, Filter: true,
	BSD: &BSD{Getopt: "pb:d:f:h:i:l:n:s:v:w:", Note: "getopt(3) `pb:d:f:h:i:l:n:s:v:w:`: the same letters; options end at the first operand"},
	Opts: &Options{
		Flags: "-p --no-renumber",
		Valued: "-b -d -f -h -i -l -n -s -v -w --body-numbering --section-delimiter --footer-numbering " +
			"--header-numbering --line-increment --join-blank-lines --number-format --number-separator " +
			"--starting-line-number --number-width",
		Patterns: "-b -d -f -h -s --body-numbering --section-delimiter --footer-numbering --header-numbering --number-separator",
	},
}

// paste joins corresponding lines of files (coreutils 9.1).
var pasteRule = &Program{
	Name: "paste", Summary: "join lines of files", Files: true, Filter: true,
	BSD:  &BSD{Getopt: "d:s", Lacks: "z", Note: "getopt(3) `d:s`: options end at the first operand; later words are files to read"},
	Opts: &Options{Flags: "-s -z --serial --zero-terminated", Valued: "-d --delimiters", Patterns: "-d --delimiters"},
}

// rev reverses the characters of each line (util-linux; -0 since 2.39, a usage error before).
var revRule = &Program{
	Name: "rev", Summary: "reverse lines", Files: true, Filter: true,
	BSD:  &BSD{Getopt: "", Lacks: "0", Note: "takes no options: any option is a usage error; every operand is a file to read"},
	Opts: &Options{Flags: "-0 --zero"},
}

// comm compares two sorted files line by line (coreutils 9.1). It reads standard input as the
// operand `-`, so it may stand after a pipe.
var commRule = &Program{
	Name: "comm", Summary: "compare two sorted files", Filter: true,
	BSD: &BSD{Getopt: "123i", Lacks: "z", Note: "getopt(3) `123i`: options end at the first operand; it takes exactly two files"},
	Opts: &Options{
		Flags:    "-1 -2 -3 -z --check-order --nocheck-order --total --zero-terminated",
		Valued:   "--output-delimiter",
		Patterns: "--output-delimiter",
	},
}
