package programs

import "testing"

// TestTextRules: cut, tr, diff and cmp. Delimiters and character sets are pattern slots; diff's
// -l/--paginate runs pr; tr takes one or two sets and cmp at most four operands.
func TestTextRules(t *testing.T) {
	check(t, true,
		r("cut", "-d:", "-f1", "/etc/passwd"),
		r("cut", "-d", pat("|"), "-f2", "f"),
		r("cut", pat("-d|"), "-f2", "f"),
		r("cut", "-c1-10", "f"),
		r("cut", "-f", "1,3", "--output-delimiter", pat(";"), "f"),
		r("cut", "-f2", loopVar("a.tsv")),
		r("cut", "-d", pat(";"), "-f", "2"),
		r("tr", "a-z", "A-Z"),
		r("tr", "-d", pat("\\r")),
		r("tr", "-s", " "),
		r("tr", "-cd", "[:alnum:]"),
		r("tr", pat("{}"), pat("()")),
		r("diff", "a", "b"),
		r("diff", "-u", "a", "b"),
		r("diff", "-ru", "old", "new"),
		r("diff", "--color=always", "-u", "a", "b"),
		r("diff", "-I", pat("^#"), "a", "b"),
		r("diff", "-U", "5", "a", "b"),
		r("diff", "--brief", "-r", "x", "y"),
		r("diff", "a", loopVar("b")),
		r("diff", "-u", "a", "-"),
		r("diff", "--label", "old", "a", "b"),
		r("cmp", "a", "b"),
		r("cmp", "-l", "a", "b"),
		r("cmp", "-n", "100", "a", "b"),
		r("cmp", "a", "b", "10", "20"),
		r("cmp", "-s", "a", "b"),
	)
	check(t, false,
		r("cut", "-f", pat("1|2"), "f").because("shell syntax in the value"),           // -f is not a pattern slot
		r("cut", "-f1", pat("a;b")).because("shell syntax"),                            // pattern text as a file name
		r("cut", "-d", loopGlob(","), "-f1").because("glob"),                           // the loop variable as a delimiter
		r("cut", "-d", "-f1").because("may not start with `-`"),                        // a separate value that is an option
		r("cut", "--output-d=,", "-f1", "f").because("not on the read-only allowlist"), // abbreviations are not matched
		r("tr").because("one or two character sets"),                                   // no set
		r("tr", "a", "b", "c").because("one or two character sets"),                    // a third operand
		r("tr", loopGlob("a"), "b").because("glob"),                                    // the loop variable as a set
		r("diff", "-l", "a", "b").because("runs the pr program"),                       // -l
		r("diff", "--paginate", "a", "b").because("runs the pr program"),               // --paginate
		r("diff", "--pag", "a", "b").because("abbreviates `--paginate`"),               // abbreviation of --paginate
		r("diff", "-ul", "a", "b").because("runs the pr program"),                      // -l hidden in a cluster
		r("diff", "a", "b", "-l").because("runs the pr program"),                       // -l after the operands
		r("diff", "-I", loopGlob("x"), "a", "b").because("glob"),                       // the loop variable as a pattern value
		r("diff", pat("a|b"), "c").because("shell syntax"),                             // pattern text as a file name
		r("diff", "-U", "-1", "a", "b").because("may not start with `-`"),              // a separate value that looks like an option
		r("cmp", "a", "b", "1", "2", "3").because("at most two files"),                 // a fifth operand
		r("cmp", "-i", pat("1;2"), "a", "b").because("shell syntax in the value"),      // pattern text in an offset
	)
}

// TestUniqRefusesOutputOperand: uniq IN OUT writes OUT, so at most one operand is allowed,
// wherever the options stand and whatever the second operand looks like.
func TestUniqRefusesOutputOperand(t *testing.T) {
	check(t, true,
		r("uniq"),
		r("uniq", "-c"),
		r("uniq", "f"),
		r("uniq", "-c", "f"),
		r("uniq", "-d", "-"),
		r("uniq", "--group=separate", "f"),
		r("uniq", "-f", "1", "f"),
		r("uniq", loopVar("a.txt")),
		r("uniq", "--all-repeated", "f"),
	)
	check(t, false,
		r("uniq", "in", "out").because("output file"),            // uniq IN OUT
		r("uniq", "-c", "in", "out").because("output file"),      // with an option first
		r("uniq", "in", "-c", "out").because("output file"),      // options between the operands (GNU permutation)
		r("uniq", "f", "-c").because("output file"),              // BSD stops at f: -c is the output file (was allowed, GNU-only)
		r("uniq", "-", "out").because("output file"),             // standard input to a file
		r("uniq", "in", loopVar("out")).because("output file"),   // the loop variable as the output file
		r("uniq", "--", "in", "out").because("output file"),      // after --
		r("uniq", "--", "-c", "out").because("output file"),      // after --, -c is a file name
		r("uniq", "-f", "1", "in", "out").because("output file"), // after a valued option
		r("uniq", "in", "out", "extra").because("output file"),   // a third operand
	)
}

// TestJqRules: jq may filter JSON but not load filter code the gate cannot see (-f, -L) or read
// the environment (env, $ENV); --arg and friends take two plain words.
func TestJqRules(t *testing.T) {
	check(t, true,
		r("jq", "."),
		r("jq", ".", "f.json"),
		r("jq", "-r", ".name", "f.json"),
		r("jq", pat(".[] | .x"), "f.json"),
		r("jq", "-c", pat(".items[] | select(.ok)"), "f"),
		r("jq", "--arg", "name", "val", pat(".x == $name"), "f"),
		r("jq", "-n", "--argjson", "n", "1", pat("$n + 1")),
		r("jq", "--slurpfile", "a", "a.json", "-n", pat("$a")),
		r("jq", "--rawfile", "t", "t.txt", "-n", pat("$t")),
		r("jq", "-nr", pat("\"x\"")),
		r("jq", "--indent", "4", ".", "f"),
		r("jq", ".env", "f"),
		r("jq", pat(".environment | keys"), "f"),
		r("jq", "-s", "length", "a", "b"),
		r("jq", ".", loopVar("a.json")),
		r("jq", "-e", ".ok"),
		r("jq", "--tab", "."),
		r("jq", "-n", "--args", pat("$ARGS.positional"), "a", "b"),
		r("jq", "--version"),
	)
	check(t, false,
		r("jq", "-f", "prog.jq", "f").because("reads the filter from a file"),           // -f FILE
		r("jq", "--from-file", "prog.jq").because("reads the filter from a file"),       // --from-file
		r("jq", "-rf", "prog.jq", "f").because("reads the filter from a file"),          // -f hidden in a cluster
		r("jq", "--from", "prog.jq").because("abbreviates `--from-file`"),               // abbreviation of --from-file
		r("jq", "-L", "lib", ".").because("loads filter modules"),                       // -L DIR
		r("jq", "-Llib", ".").because("loads filter modules"),                           // -LDIR attached
		r("jq", "env").because("reads the environment"),                                 // env
		r("jq", "-n", pat("$ENV.HOME")).because("reads the environment"),                // $ENV
		r("jq", pat(".x | env.SECRET"), "f").because("reads the environment"),           // env inside a pipeline
		r("jq", "-n", pat("\"\\(env)\"")).because("reads the environment"),              // env inside string interpolation
		r("jq", "-n", "--", pat("$ENV")).because("reads the environment"),               // the filter after --
		r("jq", "--arg", "-x", "v", ".").because("plain words"),                         // a pair name that is an option
		r("jq", "--arg", "x", "--from-file", ".").because("plain words"),                // a pair value that is an option
		r("jq", "--arg", "x", loopVar("v"), ".").because("plain words"),                 // the loop variable as a pair value
		r("jq", "--arg", "x", pat("a|b"), ".").because("plain words"),                   // pattern text as a pair value
		r("jq", ".", "--arg", "x").because("needs a name and a value"),                  // a pair cut short
		r("jq", loopGlob(".x"), "f").because("glob"),                                    // the loop variable as the filter
		r("jq", ".", pat("a|b.json")).because("shell syntax in the file name"),          // pattern text as a file name
		r("jq", "--indent", "-1", ".").because("may not start with `-`"),                // a separate value that looks like an option
		r("jq", "-n", "$ ENV").because("reads the environment"),                         // jq 1.6 accepts a space after $
		r("jq", "-n", pat(`include "./m"; x`)).because("loads filter code from a file"), // include loads a module file
		r("jq", "-n", pat(`import "./m" as m; m::x`)).because("loads filter code"),      // import loads a module file
		r("jq", "-n", "modulemeta").because("loads filter code"),                        // modulemeta reads module files
	)
}

// TestTextBSDReadings: cut, tr, uniq and cmp's BSD builds stop reading options at the first
// operand; FreeBSD diff permutes as GNU does; jq is the same program everywhere. Where a later
// word would be an operand with a meaning (uniq's output file, tr's third set, cmp's offsets),
// the BSD reading must hold too.
func TestTextBSDReadings(t *testing.T) {
	check(t, true,
		r("cut", "-f1", "f", "-d,"),  // BSD: files f and -d,
		r("diff", "a", "b", "-u"),    // FreeBSD diff permutes; stopping, -u is a third name (an error)
		r("cmp", "a", "b", "-l"),     // BSD: -l is a skip count (an error)
		r("tr", "-d", "x"),           // options first: the same in both
		r("uniq", "-c", "-d", "in"),  // options first: one input in both
		r("jq", ".", "f.json", "-r"), // jq's own parser, everywhere
	)
	check(t, false,
		r("uniq", "in", "-c").because("output file"),                    // BSD (and GNU under POSIXLY_CORRECT) writes the file -c
		r("uniq", "in", "-d", "-u").because("output file"),              // BSD: input in, output -d
		r("tr", "a", "b", "-d").because("one or two character sets"),    // BSD reads -d as a third set
		r("cmp", "a", "b", "1", "2", "-l").because("at most two files"), // BSD reads -l as a fifth operand
	)
}

// TestTextReaders: column, nl, paste, rev and comm read files and print; separators, delimiter
// lists and nl's pBRE styles are pattern slots; no option writes, reads a file named by its
// value or runs anything, so every option outside the tables is refused.
func TestTextReaders(t *testing.T) {
	check(t, true,
		r("column", "-t", "data.tsv"),
		r("column", "-t", "-s", pat("|"), "f"),
		r("column", "-ts,", "f"),
		r("column", "-t", "-N", "a,b", "-o", pat(" | "), "f"),
		r("column", "-c", "80", "-x", "f"),
		r("column", "--table", "--separator=:", "f"),
		r("column", glob("./*.tsv")),
		r("nl", "-ba", "lexer/lexer.go"),
		r("nl", "-b", pat("p^#"), "f"),
		r("nl", "-w3", "-s", pat(": "), "f"),
		r("nl", "--body-numbering=a", loopVar("a.go")),
		r("nl"),
		r("paste", "-sd,", "list.txt"),
		r("paste", "-d", pat("\\t"), "a", "b"),
		r("paste", "-s", "-"),
		r("paste", "a", "b", "c"),
		r("rev", "go.mod"),
		r("rev"),
		r("comm", "-12", "a.txt", "b.txt"),
		r("comm", "-3", "a", "-"),
		r("comm", "--output-delimiter", pat("|"), "a", "b"),
		r("comm", "--nocheck-order", "-23", "a", "b"),
	)
	check(t, false,
		r("column", "-t", pat("a;b")).because("shell syntax"),                          // pattern text as a file name
		r("column", "--table-col", "x", "f").because("not on the read-only allowlist"), // abbreviations are not matched
		r("column", "-C", "name=x", "f").because("not on the read-only allowlist"),     // util-linux 2.40's -C, not modelled
		r("column", "-N", pat("a|b"), "f").because("shell syntax in the value"),        // -N is not a pattern slot
		r("nl", "-i", pat("1;x"), "f").because("shell syntax in the value"),            // -i is a number
		r("nl", "-ba", "-s", loopGlob("x"), "f").because("glob"),                       // a loop variable over a glob as a separator
		r("nl", "--help").because("not on the read-only allowlist"),                    // an option not in the table
		r("paste", "-d", "-s", "f").because("may not start with `-`"),                  // a separate value that reads as an option
		r("paste", "--delim=,", "f").because("not on the read-only allowlist"),         // abbreviation
		r("rev", "-r", "f").because("not on the read-only allowlist"),                  // an option not in the table
		r("comm", "-12", glob("./*.txt")).because("glob"),                              // two files exactly
		r("comm", "-i", "a", "b").because("not on the read-only allowlist"),            // BSD's -i, not GNU's
		r("comm", "--output-delimiter", loopGlob("x"), "a", "b").because("glob"),       // a loop variable over a glob as a value
	)
}

// TestTextReadersBSDReadings: the 4.4BSD column, nl, paste, rev and comm stop reading options at
// the first operand, where every later word is a file to read; FreeBSD's column -l is a flag
// where util-linux's takes a count. Each row is a read in every reading.
func TestTextReadersBSDReadings(t *testing.T) {
	check(t, true,
		r("column", "f", "-t"),       // BSD: files f and -t
		r("column", "-l", "3", "f"),  // util-linux: at most 3 columns; FreeBSD: -l, then files 3 and f
		r("column", "-J", "-N", "a"), // BSD has no -J: a usage error
		r("nl", "f", "-ba"),          // BSD: files f and -ba
		r("paste", "a", "-s"),        // BSD: files a and -s
		r("paste", "-z", "a"),        // BSD has no -z: a usage error
		r("rev", "-0", "f"),          // BSD rev takes no options: a usage error
		r("comm", "a", "b", "-3"),    // BSD: a third operand, a usage error
		r("comm", "-z", "a", "b"),    // BSD has no -z: a usage error
	)
	check(t, false,
		r("nl", "-s", loopGlob("x"), "f").because("glob"), // BSD -s takes the loop word as its separator too
	)
}
