package programs

import "testing"

// TestSortRefusesWrites: sort -o writes its result, -T writes temporary files and
// --compress-program runs a program; every spelling is refused, including the GNU abbreviations
// (--out, --outp, --temp, --compress-prog), clusters and options after operands.
func TestSortRefusesWrites(t *testing.T) {
	check(t, true,
		r("sort", "f"),
		r("sort", "-n", "f"),
		r("sort", "-rn", "f"),
		r("sort", "-k2,2n", "f"),
		r("sort", "-k", "3", "-t", ":", "/etc/passwd"),
		r("sort", "-t", pat("|"), "-k2", "f"),
		r("sort", pat("-t;"), "-k1", "f"),
		r("sort", "-u", "a", "b"),
		r("sort", "--sort=version", "f"),
		r("sort", "-S", "50M", "f"),
		r("sort", "--parallel=2", "f"),
		r("sort", "-c", "f"),
		r("sort", "-m", "a", "b"),
		r("sort", "f", "-r"),
		r("sort", loopVar("a.txt")),
		r("sort", "-h", "--reverse"),
		r("sort", "--debug", "-V", "f"),
		r("sort", "-z"),
	)
	check(t, false,
		r("sort", "-o", "out", "f").because("writes the result to a file"),                 // -o FILE
		r("sort", "-oout", "f").because("writes the result to a file"),                     // -oFILE attached
		r("sort", "-ro", "out", "f").because("writes the result to a file"),                // -o hidden in a cluster
		r("sort", "-nro", "f", "f").because("writes the result to a file"),                 // sort in place, -o last in a cluster
		r("sort", "f", "-o", "f").because("writes the result to a file"),                   // -o after the operand
		r("sort", "--output=out", "f").because("writes the result to a file"),              // --output=FILE
		r("sort", "--output", "out", "f").because("writes the result to a file"),           // --output FILE
		r("sort", "--out=x", "f").because("abbreviates `--output`"),                        // GNU abbreviation
		r("sort", "--outp", "x", "f").because("abbreviates `--output`"),                    // GNU abbreviation, value in the next word
		r("sort", "--o=x", "f").because("abbreviates `--output`"),                          // shortest unique prefix
		r("sort", pat("--output=$HOME/x"), "f").because("writes the result to a file"),     // quoted with shell characters: still --output
		r("sort", "-T", "/tmp", "f").because("writes temporary files"),                     // -T DIR
		r("sort", "-T/tmp", "f").because("writes temporary files"),                         // -TDIR attached
		r("sort", "-uT", "/tmp", "f").because("writes temporary files"),                    // -T hidden in a cluster
		r("sort", "--temporary-directory=/tmp", "f").because("writes temporary files"),     // --temporary-directory
		r("sort", "--temp=/tmp", "f").because("abbreviates `--temporary-directory`"),       // GNU abbreviation
		r("sort", "--compress-program=gzip", "f").because("runs a program"),                // --compress-program
		r("sort", "--compress-prog=gzip", "f").because("abbreviates `--compress-program`"), // GNU abbreviation
		r("sort", "--comp", "sh", "f").because("abbreviates `--compress-program`"),         // GNU abbreviation, value in the next word
		r("sort", "-k", "-2", "f").because("may not start with `-`"),                       // a separate value that looks like an option
		r("sort", "-t", loopGlob(","), "f").because("glob"),                                // the loop variable as an option value
		r("sort", "-k", pat("1;2"), "f").because("shell syntax in the value"),              // -k is not a pattern slot
		r("sort", pat("a|b")).because("shell syntax"),                                      // pattern text as a file name
	)
}

// TestSortBSDReadings: BSD sort (macOS) permutes as GNU does and writes with the same -o and -T;
// stopping at the first operand (POSIXLY_CORRECT) every later word is a file to read.
func TestSortBSDReadings(t *testing.T) {
	check(t, true,
		r("sort", "f", "-r"),      // permuting: -r; stopping: a file named -r
		r("sort", "f", "-k", "2"), // stopping: files f, -k and 2
		r("sort", "-t", ",", "-k2", "f", "-n"),
	)
	check(t, false,
		r("sort", "f", "-o", "out").because("writes the result"), // permuting, in GNU and BSD alike
		r("sort", "f", "-T", "/tmp").because("writes temporary files"),
	)
}
