package programs

import "testing"

// TestGrepRules: grep takes the listed options; its pattern (the first operand, or -e) and the
// --include/--exclude globs are pattern slots, and nothing else is.
func TestGrepRules(t *testing.T) {
	check(t, true,
		r("grep", "foo", "f"),
		r("grep", "-rn", "TODO", "."),
		r("grep", "-i", pat("a|b"), "f"),
		r("grep", "-E", pat("(foo|bar)"), "-r", "src"),
		r("grep", "-e", pat("x;y"), "-e", "z", "f"),
		r("grep", "-c", "foo", "f"),
		r("grep", "foo", "f", "-n"),
		r("grep", "-A", "3", "foo", "f"),
		r("grep", "-5", "foo", "f"),
		r("grep", "--include=*.go", "-r", "foo", "."),
		r("grep", pat("--include=*.{go,md}"), "-r", "foo"),
		r("grep", pat("--exclude-dir={a,b}"), "-rn", "foo"),
		r("grep", "-l", "foo", loopVar("a.go")),
		r("grep", "-f", "pats.txt", "f"),
		r("grep", "--", "-x", "f"),
		r("grep", "--color=auto", "foo"),
		r("grep", "-F", pat("a(b"), "f"),
		r("grep", "-v", pat("^#"), "f"),
		r("grep", "-q", "x"),
	)
	check(t, false,
		r("grep", "foo", pat("a|b")).because("shell syntax"),                          // pattern text as a file name
		r("grep", loopGlob("foo"), "f").because("glob"),                               // the loop variable as the pattern
		r("grep", "-e", loopGlob("foo"), "f").because("glob"),                         // the loop variable as -e's value
		r("grep", "-e", "foo", pat("x|y")).because("shell syntax"),                    // with -e, the first operand is a file
		r("grep", "-f", "p", pat("(x)")).because("shell syntax"),                      // with -f, the first operand is a file
		r("grep", "-m", pat("1;2"), "x").because("shell syntax in the value of `-m`"), // -m is not a pattern slot
		r("grep", "-A", "-1", "x").because("may not start with `-`"),                  // a separate value that looks like an option
		r("grep", "-e", "-x", "f").because("may not start with `-`"),                  // a separate value that looks like an option
		r("grep", "--line-buffer", "x").because("not on the read-only allowlist"),     // abbreviation of --line-buffered
		r("grep", "--include", loopGlob("*.go"), "x").because("glob"),                 // the loop variable as a glob
		r("grep", "--label", pat("a|b"), "x").because("shell syntax in the value"),    // --label is not a pattern slot
	)
}

// TestRgRefusesExec: rg's --pre, --pre-glob, --hostname-bin and -z/--search-zip run programs;
// every spelling is refused, including clusters, options after operands and prefixes.
func TestRgRefusesExec(t *testing.T) {
	check(t, true,
		r("rg", "foo"),
		r("rg", "-n", "foo", "src"),
		r("rg", "-i", pat("a|b")),
		r("rg", "-g", "*.go", "foo"),
		r("rg", "-g", pat("!vendor"), "foo"),
		r("rg", "--type", "go", "foo"),
		r("rg", "-t", "go", "-l", "foo"),
		r("rg", "--files"),
		r("rg", "--files", "src"),
		r("rg", "--files", loopVar("src")),
		r("rg", "-e", "foo", "-e", "bar"),
		r("rg", "-F", pat("a(b")),
		r("rg", "-r", pat("$1"), pat("f(o)o")),
		r("rg", "--json", "foo"),
		r("rg", "-uu", "foo"),
		r("rg", "-A2", "foo"),
		r("rg", "foo", "-n"),
		r("rg", "--no-config", "foo"),
		r("rg", "--type-list"),
		r("rg", "--color", "never", "foo"),
		r("rg", "-w", "foo", loopVar("a.go")),
	)
	check(t, false,
		r("rg", "--pre", "cat", "foo").because("runs a program on every file"),          // --pre CMD
		r("rg", "--pre=cat", "foo").because("runs a program on every file"),             // --pre=CMD
		r("rg", "foo", "--pre", "sh").because("runs a program on every file"),           // --pre after the operand
		r("rg", pat("--pre=sh -c 'id'"), "foo").because("runs a program on every file"), // quoted with shell characters: still --pre
		r("rg", "--pre-glob", "*.pdf", "foo").because("chooses files for --pre"),        // --pre-glob
		r("rg", "--pr", "cat", "foo").because("abbreviates `--pre`"),                    // a prefix of --pre
		r("rg", "--hostname-bin=/bin/sh", "foo").because("runs a program"),              // --hostname-bin
		r("rg", "--hostname", "x", "foo").because("abbreviates `--hostname-bin`"),       // a prefix of --hostname-bin
		r("rg", "-z", "foo").because("runs decompression programs"),                     // -z
		r("rg", "-nz", "foo").because("runs decompression programs"),                    // -z hidden in a cluster
		r("rg", "--search-zip", "foo").because("runs decompression programs"),           // --search-zip
		r("rg", "--search", "foo").because("abbreviates `--search-zip`"),                // a prefix of --search-zip
		r("rg", loopGlob("foo")).because("glob"),                                        // the loop variable as the pattern
		r("rg", "foo", pat("a|b")).because("shell syntax"),                              // pattern text as a path
		r("rg", "-e", "foo", pat("x;y")).because("shell syntax"),                        // with -e, the first operand is a path
		r("rg", "-g", loopGlob("*.go"), "foo").because("glob"),                          // the loop variable as a glob
		r("rg", "-t", pat("go|rs"), "foo").because("shell syntax in the value"),         // -t is not a pattern slot
		r("rg", "--files", pat("a|b")).because("shell syntax"),                          // with --files there is no pattern
		r("rg", "-m", "-1", "x").because("may not start with `-`"),                      // a separate value that looks like an option
	)
}

// TestGrepBSDReadings: BSD grep (macOS) permutes as GNU does, so options after the pattern mean
// the same, but under POSIXLY_CORRECT either stops at the first operand, where the pattern is
// the first operand unless an -e or -f came before it.
func TestGrepBSDReadings(t *testing.T) {
	check(t, true,
		r("grep", "-n", "foo", "-r", "."),           // permuting: -r; stopping: a file named -r
		r("grep", "foo", "-e", "bar", "f"),          // permuting: -e gives the pattern; stopping: foo is it
		r("grep", "-Z", "foo", "f"),                 // GNU: NUL after names; BSD: decompress, in the process
		r("grep", "--null", "-l", "foo", "-r", "."), // --null in both
		r("rg", "foo", "src", "-n"),                 // ripgrep is the same program everywhere
	)
	check(t, false,
		r("grep", loopGlob("x"), "-e", "foo", "f").because("glob"), // stopping, the loop word is the pattern
	)
}
