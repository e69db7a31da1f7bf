package programs

import (
	"strings"
	"testing"
)

// TestGawkSandboxed: gawk runs under --sandbox (the rewrite), and the rule refuses what the
// sandbox leaves open: ENVIRON, ARGV and ARGC, @include and @load, program files, and the
// options that write files.
func TestGawkSandboxed(t *testing.T) {
	check(t, true,
		r("gawk", pat("{print $1}"), "f"),
		r("gawk", "-F", pat(":"), pat("{print $1}"), "/etc/passwd"),
		r("gawk", "-v", "OFS=,", pat("{print $1,$2}"), "f"),
		r("gawk", "-e", pat("NR<5"), "f"),
		r("gawk", pat("END {print NR}")),
		r("gawk", "--posix", "NF", "f"),
		r("gawk", pat("$3 > 100"), "f"), // a comparison in a program that does not print
	)
	check(t, false,
		r("gawk", pat(`{print ENVIRON["AWS_SECRET_ACCESS_KEY"]}`)).because("reads the environment"),
		r("gawk", pat(`BEGIN {ARGV[ARGC++]=".env"} {print}`)).because("read files"), // a file the rule never saw
		r("gawk", pat(`@include "x.awk"`)).because("includes or loads code"),
		r("gawk", pat(`@load "filefuncs"`)).because("includes or loads code"),
		r("gawk", "-f", "prog.awk", "f").because("reads the program from a file"),
		r("gawk", "-o", "out", "1").because("writes the program to a file"),     // --pretty-print writes awkprof.out or the file named
		r("gawk", "-p", "1", "f").because("writes a profile file"),              // --profile
		r("gawk", "-d", "1", "f").because("writes the variables to a file"),     // --dump-variables
		r("gawk", "--dump", "1", "f").because("abbreviates `--dump-variables`"), // GNU getopt abbreviations
		r("gawk", "-W", "exec=x.awk").because("another spelling"),               // -W long options
		r("gawk", "-l", "readfile", "1").because("loads an extension"),          // extensions
		r("gawk", "-e", loopVar("1"), "f").because("loop variable"),             // the loop variable as a program
		r("gawk", "-v", pat("a b=1"), "1").because("not NAME=VALUE"),            // not an assignment
		// What --sandbox stops, refused as written too (a client may ignore the rewrite).
		r("gawk", pat(`BEGIN{system("id")}`)).because("runs a command"),
		r("gawk", pat(`{print > "out"}`), "f").because("redirects print to a file"),
		r("gawk", pat(`{printf("%s", $1) > "out"}`), "f").because("redirects print"),
		r("gawk", pat(`{print | "sh"}`), "f").because("pipes to or from a command"),
		r("gawk", pat(`BEGIN{"date" | getline d}`)).because("reads from a file or a command"),
		r("gawk", pat(`BEGIN{getline l < ".env"; print l}`)).because("reads from a file"),
		r("gawk", pat(`/a/{print}`), pat("x|y")).because("shell syntax"),
	)
	_, out := Lookup("gawk").RewriteArgs([]string{"{print}", "f"})
	if strings.Join(out, " ") != "--sandbox {print} f" {
		t.Errorf("gawk rewrite = %q, want --sandbox first", out)
	}
}
