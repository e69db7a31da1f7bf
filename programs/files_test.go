package programs

import "testing"

// TestFilesRules: the file readers (cat, head, wc, ls, stat, du, df, basename, dirname, realpath,
// readlink) take the listed options only; pattern text and the loop variable stay out of option
// values and non-pattern operands.
func TestFilesRules(t *testing.T) {
	check(t, true,
		r("cat", "README.md"),
		r("cat", "-n", "main.go"),
		r("cat", "-vet", "x.txt"),
		r("cat", "--number", "a", "b"),
		r("cat", "-"),
		r("cat", loopVar("a.go")),
		r("head", "-20", "f"),
		r("head", "-n", "5", "f"),
		r("head", "-n5", "f"),
		r("head", "--lines=5", "f"),
		r("head", "-c", "100", "f"),
		r("head", "f", "-n", "3"),
		r("head", "-n", "5", loopVar("a.go")),
		r("head", "-q", "a", "b"),
		r("wc", "-l", "f"),
		r("wc", "-lw", "a", "b"),
		r("wc", "--total=never", "a"),
		r("wc", "-c"),
		r("ls"),
		r("ls", "-la"),
		r("ls", "-lh", "--sort=size", "src"),
		r("ls", "--color=auto", "-1"),
		r("ls", "-I", "node_modules"),
		r("ls", "-R", "src"),
		r("ls", "-d", loopVar("dir")),
		r("stat", "f"),
		r("stat", "-c", "%n %s", "f"),
		r("stat", "-c", pat("%n|%s"), "f"),
		r("stat", pat("--printf=%s\\n"), "f"),
		r("du", "-sh", "."),
		r("du", "-h", "-d", "1"),
		r("du", "--max-depth=1", "src"),
		r("du", "-s", "--exclude=*.log", "."),
		r("du", "--time", "-s", "."),
		r("df", "-h"),
		r("df", "--output=source,size", "."),
		r("df", "-T", "/"),
		r("basename", "a/b.go", ".go"),
		r("basename", "-s", ".go", "a/b.go"),
		r("basename", "-a", "x/y", "z/w"),
		r("dirname", "a/b/c"),
		r("dirname", "-z", "x/y"),
		r("realpath", "."),
		r("realpath", "--relative-to=src", "src/a/b"),
		r("realpath", "-m", "x/../y"),
		r("readlink", "-f", "link"),
		r("readlink", "x"),
	)
	check(t, false,
		r("cat", pat("a;b")).because("shell syntax"),                              // quoted operator text as a file name
		r("cat", "--nu", "f").because("not on the read-only allowlist"),           // abbreviation of --number: exact names only
		r("cat", "-z", "f").because("not on the read-only allowlist"),             // an option not in the table
		r("head", "-n", "-5", "f").because("may not start with `-`"),              // a separate value that looks like an option
		r("head", "-n", loopGlob("5"), "f").because("glob"),                       // the loop variable as an option value
		r("head", "-n", pat("5|x"), "f").because("shell syntax in the value"),     // pattern text in a count
		r("head", "-n").because("needs a value"),                                  // a valued option at the end
		r("wc", "--files0-from", loopGlob("list")).because("glob"),                // the loop variable as an option value
		r("ls", "--dired").because("not on the read-only allowlist"),              // an option not in the table
		r("ls", "-w", "-1").because("may not start with `-`"),                     // a separate value that looks like an option
		r("stat", "-c", loopGlob("%s"), "f").because("glob"),                      // the loop variable as a format
		r("stat", pat("a|b")).because("shell syntax"),                             // pattern text outside a pattern slot
		r("du", "--exclude", pat("*.{a,b}")).because("shell syntax in the value"), // du declares no pattern slot
		r("df", "--sync").because("not on the read-only allowlist"),               // --sync, named in the rule
		r("basename", "-s", "-x", "f").because("may not start with `-`"),          // a separate value that looks like an option
		r("dirname", "--zero=1", "x").because("takes no value"),                   // a flag given a value
		r("realpath", "--relative-to", loopGlob("d"), "x").because("glob"),        // the loop variable as an option value
		r("readlink", "-x", "l").because("not on the read-only allowlist"),        // an option not in the table
	)
}

// TestTailNeverFollows: tail must never follow a file (the call would hang until the client gave
// up), in any spelling: -f, -F, --follow and abbreviations, --retry, -s, --pid, clusters, options
// after operands, and the obsolete -5f.
func TestTailNeverFollows(t *testing.T) {
	check(t, true,
		r("tail", "f"),
		r("tail", "-n", "50", "log"),
		r("tail", "-50", "log"),
		r("tail", "-n", "+10", "f"),
		r("tail", "-c", "1k", "f"),
		r("tail", "-q", "a", "b"),
		r("tail", "--lines=5", "f"),
		r("tail", "-n5", loopVar("a.log")),
	)
	check(t, false,
		r("tail", "-f", "log").because("follows the file"),                            // -f
		r("tail", "-F", "log").because("follows the file"),                            // -F (follow by name, retry)
		r("tail", "--follow", "log").because("follows the file"),                      // --follow
		r("tail", "--follow=name", "log").because("follows the file"),                 // --follow=name
		r("tail", "--retry", "log").because("retrying"),                               // --retry
		r("tail", "-s", "1", "log").because("only matters when following"),            // -s
		r("tail", "--sleep-interval=1", "log").because("only matters when following"), // --sleep-interval
		r("tail", "--pid=1", "log").because("only matters when following"),            // --pid
		r("tail", "-qf", "log").because("follows the file"),                           // -f hidden in a cluster
		r("tail", "-n", "5", "-f", "log").because("follows the file"),                 // -f after a valued option
		r("tail", "log", "-f").because("follows the file"),                            // -f after the operand (GNU permutation)
		r("tail", "-c", "5", "-F", "x").because("follows the file"),                   // -F after a valued option
		r("tail", "-5f", "log").because("obsolete form"),                              // obsolete -Nf: refused at -5, never read as a count
		r("tail", "--fol", "log").because("abbreviates `--follow`"),                   // GNU accepts --fol for --follow
		r("tail", "--f", "log").because("abbreviates `--follow`"),                     // shortest unique prefix
		r("tail", "--re", "log").because("abbreviates `--retry`"),                     // abbreviation of --retry
		r("tail", "--sl=1", "log").because("abbreviates `--sleep-interval`"),          // abbreviation of --sleep-interval
		r("tail", "--pi=1", "log").because("abbreviates `--pid`"),                     // abbreviation of --pid
		r("tail", pat("--follow=name;"), "log").because("follows the file"),           // quoted with shell characters: still --follow
		r("tail", "+5f", "log").because("obsolete +N form"),                           // GNU's obsolete +Nf follows (found by review; tail +1f hung)
		r("tail", "+f", "log").because("obsolete +N form"),                            // +f: follow from the start
	)
}

// TestTreeRefusesWrites: tree -o writes the listing to a file and -R (with -H) writes an HTML
// file into every directory; both are refused alone, attached, in clusters and after operands.
func TestTreeRefusesWrites(t *testing.T) {
	check(t, true,
		r("tree"),
		r("tree", "-L", "2"),
		r("tree", "-L", "2", "src"),
		r("tree", "-a", "-I", "node_modules"),
		r("tree", "-I", pat("node_modules|vendor")),
		r("tree", "-P", pat("*.go|*.md"), "--prune"),
		r("tree", "-d", "--noreport"),
		r("tree", "-J", "."),
		r("tree", "--dirsfirst", "-h"),
		r("tree", "-L", "1", loopVar("dir")),
		r("tree", "--filelimit", "50"),
	)
	check(t, false,
		r("tree", "-o", "out.txt").because("writes the listing to a file"),                     // -o FILE
		r("tree", "-oout.txt").because("writes the listing to a file"),                         // -oFILE attached
		r("tree", "-ao", "out.txt").because("writes the listing to a file"),                    // -o hidden in a cluster
		r("tree", "src", "-o", "out").because("writes the listing to a file"),                  // -o after the operand
		r("tree", "-R").because("writes an HTML file"),                                         // -R
		r("tree", "-dR", ".").because("writes an HTML file"),                                   // -R hidden in a cluster
		r("tree", "-H", "http://x").because("not on the read-only allowlist"),                  // -H, HTML output that -R spreads
		r("tree", "-I", loopGlob("x")).because("glob"),                                         // the loop variable as a pattern value
		r("tree", "-L", pat("2;x")).because("shell syntax in the value"),                       // pattern text in a level
		r("tree", pat("a|b")).because("shell syntax"),                                          // pattern text as a directory
		r("tree", "-L", "-o").because("may not start with `-`"),                                // a value that is the refused option
		r("tree", "-Lo", "1", "OUT", ".").because("writes the listing to a file"),              // tree gives -L and -o each the next word: -o hides in the cluster
		r("tree", "-LRH", "1", "URL", ".").because("writes an HTML file into every directory"), // -R in a cluster with valued letters
	)
}

// TestFileRefusesWrites: file -C writes a compiled magic file, -z/-Z run decompressors and -p
// changes access times; every spelling is refused, including GNU abbreviations and clusters.
func TestFileRefusesWrites(t *testing.T) {
	check(t, true,
		r("file", "x"),
		r("file", "-b", "x"),
		r("file", "--mime-type", "-b", "x"),
		r("file", "-i", "a", "b"),
		r("file", "-L", "link"),
		r("file", "-bi", "x"),
		r("file", "-m", "magic.mgc", "x"),
		r("file", loopVar("a.bin")),
		r("file", "-F", ":", "x"),
		r("file", "--extension", "x"),
	)
	check(t, false,
		r("file", "-C", "-m", "magic").because("writes a compiled magic file"),            // -C
		r("file", "--compile").because("writes a compiled magic file"),                    // --compile
		r("file", "--comp", "-m", "m").because("abbreviates `--compile`"),                 // abbreviation of --compile
		r("file", "-z", "a.gz").because("runs decompression programs"),                    // -z
		r("file", "-bz", "a.gz").because("runs decompression programs"),                   // -z hidden in a cluster
		r("file", "-Z", "a.gz").because("runs decompression programs"),                    // -Z
		r("file", "--uncompress", "a.gz").because("runs decompression programs"),          // --uncompress
		r("file", "--uncompress-noreport", "a.gz").because("runs decompression programs"), // --uncompress-noreport
		r("file", "--unc", "a.gz").because("abbreviates `--uncompress`"),                  // abbreviation of --uncompress
		r("file", "-p", "x").because("changes file access times"),                         // -p
		r("file", "--preserve-date", "x").because("changes file access times"),            // --preserve-date
		r("file", "--pres", "x").because("abbreviates `--preserve-date`"),                 // abbreviation of --preserve-date
		r("file", "x", "-z").because("runs decompression programs"),                       // -z after the operand
		r("file", "-ibZ", "x").because("runs decompression programs"),                     // -Z at the end of a cluster
		r("file", "-m", loopGlob("m"), "x").because("glob"),                               // the loop variable as an option value
	)
}

// TestFilesBSDReadings: the file readers' BSD builds (macOS) stop reading options at the first
// operand, where every later word is a file to read, and give some letters a value GNU's take
// none (stat -f FORMAT, df -T TYPES), or none where GNU's take one (ls -I, -T, -w). Each row is
// a read in every reading; a loop variable that a BSD letter would take as its value is not.
func TestFilesBSDReadings(t *testing.T) {
	check(t, true,
		r("ls", "dir", "-la"),         // BSD: lists dir and a file named -la, which does not exist
		r("ls", "-T", "4", "dir"),     // GNU: tab size 4; BSD: full times, of 4 and dir
		r("ls", "-w", "80", "-C"),     // GNU: width 80; BSD: raw output, of 80 and a file -C
		r("cat", "a", "-n"),           // BSD: files a and -n
		r("head", "a", "-c", "10"),    // BSD: files a, -c and 10
		r("tail", "log", "-n", "5"),   // BSD: files log, -n and 5
		r("wc", "a", "-l"),            // BSD: files a and -l
		r("stat", "-f", "%z", "f"),    // GNU: file-system status of %z and f; BSD: the size of f
		r("stat", "-t", "%F", "f"),    // GNU: terse; BSD: a time format
		r("stat", "-c", "%s", "f"),    // BSD has no -c: a usage error
		r("du", ".", "-sh"),           // BSD: paths . and -sh
		r("df", "/", "-h"),            // BSD: paths / and -h
		r("basename", "a/b.go", "-a"), // BSD: -a is the suffix to strip
		r("dirname", "a/b", "-z"),     // BSD: names a/b and -z
		r("realpath", "x", "-m"),      // BSD: paths x and -m
		r("readlink", "link", "-f"),   // BSD: links link and -f
		r("tree", "src", "-a"),        // the same program everywhere
		r("file", "x", "-b"),          // the same program everywhere
	)
	check(t, false,
		r("stat", "-f", loopGlob("%z"), "f").because("glob"),    // BSD -f would take the loop word as its format
		r("df", "-T", loopGlob("apfs")).because("glob"),         // BSD -T would take the loop word as its type list
		r("tail", "log", "-f").because("follows the file"),      // GNU permutes to -f; BSD would read a file -f: refused for GNU
		r("ls", "-l", pat("a|b"), "-d").because("shell syntax"), // pattern text is a file name in every reading
	)
}
