package programs

import (
	"slices"
	"strings"
	"testing"
)

// TestAwkRules: awk, mawk and nawk run a program the checker proves a read, with -F and -v
// only, options before the program only, and no /inet operand. The program rows are
// TestAwkProgramChecker's; these are the calls around them.
func TestAwkRules(t *testing.T) {
	for _, name := range []string{"awk", "mawk", "nawk"} {
		check(t, true,
			r(name, pat("{print $1}"), "go.sum"),
			r(name, "-F:", pat("{print $1}"), "/etc/passwd"),
			r(name, "-F", ":", pat("{print $1}"), "/etc/passwd"),
			r(name, "-F", pat("|"), pat("{print $2}"), "t.md"), // a separator is a pattern slot
			r(name, "-v", "OFS=,", pat("{print $1, $2}"), "f"),
			r(name, "-vn=3", pat("NR<=n"), "f"),
			r(name, pat("NR<=10"), "README.md"),
			r(name, "NF", "f"),
			r(name, pat("END {print NR}")),        // standard input
			r(name, pat("{print}"), "-", "f"),     // - is standard input
			r(name, pat("{print}"), "FS=:", "f"),  // an operand assignment
			r(name, "--", pat("{print $1}"), "f"), // -- ends the options
			r(name, pat("$3 > 100"), "f"),         // a pattern compares
			r(name, pat("{ if ($3 > 100) print $1 }"), "f"),
		)
		check(t, false,
			r(name, "-f", "prog.awk", "f").because("reads the program from a file"),
			r(name, "-e", pat("{print}"), "f").because("BWK awk ignores it"),                 // BWK: the next word is the program
			r(name, "-W", "exec", "prog.awk").because("-W exec reads a program file"),        // mawk
			r(name, "-Wdump", pat("{print}")).because("-W exec"),                             // mawk -W dump writes the program out
			r(name, "--version").because("not on the read-only allowlist"),                   // mawk reads --NAME as -W NAME
			r(name, "-d", pat("{print}"), "f").because("writes the variables"),               // gawk --dump-variables, as awk
			r(name, "-o", "x", pat("{print}")).because("writes the program"),                 // gawk --pretty-print
			r(name, "-p", pat("{print}"), "f").because("profile"),                            // gawk --profile writes awkprof.out
			r(name, pat("{print}"), "-v", "x=1").because("would be a file"),                  // every awk opens a file named -v
			r(name, pat("{print}"), "f", "-F", ".env").because("would be a file"),            // the judge would read -F's value as a separator
			r(name, pat("{print}"), "/inet/tcp/0/example.com/80").because("network"),         // gawk connects
			r(name, pat("{print}"), "/inet6/udp/0/example.com/53").because("network"),        // gawk connects
			r(name, "-v", pat("a b=1"), pat("{print}")).because("not NAME=VALUE"),            // not an assignment
			r(name, "-v", "1x=1", pat("{print}")).because("not NAME=VALUE"),                  // not a name
			r(name).because("needs a program"),                                               // awk alone prints its usage
			r(name, pat(`BEGIN{system("touch x")}`)).because("runs a command"),               // the program's refusals reach the rule
			r(name, pat(`{print > "x"}`), "f").because("redirects print to a file"),          // print > file
			r(name, loopGlob("./x*"), "f").because("may stand only for files"),               // a program nobody has seen
			r(name, pat("{print}"), pat("x|y")).because("shell syntax in the argument"),      // a second pattern
			r(name, pat(`{print ENVIRON["GITHUB_TOKEN"]}`)).because("reads the environment"), // secrets
		)
	}
}

// TestGawkSandboxed: gawk runs under --sandbox (the rewrite), and the rule refuses what the
// sandbox leaves open: ENVIRON, ARGV and ARGC, @include and @load, program files, the options
// that write files, and /inet operands, which gawk opens as connections even under --sandbox.
func TestGawkSandboxed(t *testing.T) {
	check(t, true,
		r("gawk", pat("{print $1}"), "f"),
		r("gawk", "-F", pat(":"), pat("{print $1}"), "/etc/passwd"),
		r("gawk", "-v", "OFS=,", pat("{print $1,$2}"), "f"),
		r("gawk", "-e", pat("NR<5"), "f"),
		r("gawk", "-e", pat("function f(x) { return x * 2 }"), "-e", pat("{ print f($1) }"), "f"), // a function from another piece
		r("gawk", pat("END {print NR}")),
		r("gawk", "--posix", "NF", "f"),
		r("gawk", pat("$3 > 100"), "f"),
		r("gawk", pat(`/a|b/ {print}`), "f"), // | inside a regular expression is data
		r("gawk", "--sandbox", pat(`{print $2}`), "f"),
	)
	check(t, false,
		r("gawk", pat(`{print ENVIRON["AWS_SECRET_ACCESS_KEY"]}`)).because("reads the environment"),
		r("gawk", pat(`BEGIN {ARGV[ARGC++]=".env"} {print}`)).because("read files"), // a file the rule never saw
		r("gawk", pat(`@include "x.awk"`)).because("includes or loads code"),
		r("gawk", pat(`@load "filefuncs"`)).because("includes or loads code"),
		r("gawk", pat(`BEGIN{f="system"; @f("id")}`)).because("calls a function by name"),
		r("gawk", "-f", "prog.awk", "f").because("reads the program from a file"),
		r("gawk", "-o", "out", "1").because("writes the program to a file"),     // --pretty-print writes awkprof.out or the file named
		r("gawk", "-p", "1", "f").because("writes a profile file"),              // --profile
		r("gawk", "-d", "1", "f").because("writes the variables to a file"),     // --dump-variables
		r("gawk", "--dump", "1", "f").because("abbreviates `--dump-variables`"), // GNU getopt abbreviations
		r("gawk", "-W", "exec=x.awk").because("another spelling"),               // -W long options
		r("gawk", "-l", "readfile", "1").because("loads an extension"),          // extensions
		r("gawk", "-e", loopGlob("./x*"), "f").because("glob"),                  // a loop variable over a glob as a program
		r("gawk", "-v", pat("a b=1"), "1").because("not NAME=VALUE"),            // not an assignment
		r("gawk", pat("{print}"), "/inet/tcp/0/example.com/80").because("network connection"),
		r("gawk", pat("{print}"), "f", "-v", "x=1").because("would be a file"),      // gawk stops at the first operand
		r("gawk", "-e", pat("BEGIN {"), "-e", pat("print 1 }")).because("unclosed"), // gawk wants each piece complete
		// What --sandbox stops, refused as written too (a client may ignore the rewrite).
		r("gawk", pat(`BEGIN{system("id")}`)).because("runs a command"),
		r("gawk", pat(`{print > "out"}`), "f").because("redirects print to a file"),
		r("gawk", pat(`{printf("%s", $1) > "out"}`), "f").because("redirects print"),
		r("gawk", pat(`{print | "sh"}`), "f").because("pipes to or from a command"),
		r("gawk", pat(`{print |& "sh"}`), "f").because("pipes to or from a command"), // a coprocess
		r("gawk", pat(`BEGIN{"date" | getline d}`)).because("pipes to or from a command"),
		r("gawk", pat(`BEGIN{getline l < ".env"; print l}`)).because("reads from a file"),
		r("gawk", pat(`/a/{print}`), pat("x|y")).because("shell syntax"),
	)
	_, out := Lookup("gawk").RewriteArgs([]string{"{print}", "f"})
	if strings.Join(out, " ") != "--sandbox {print} f" {
		t.Errorf("gawk rewrite = %q, want --sandbox first", out)
	}
}

// TestAwkReads: the sensitive-file rule sees every file an awk call opens: its operands after
// the program, never the program, a separator or an assignment's value as a file.
func TestAwkReads(t *testing.T) {
	cases := []struct {
		call row
		want []string
	}{
		{r("awk", pat("{print}"), ".env"), []string{".env"}},
		{r("mawk", "-F:", pat("{print $1}"), "/etc/passwd", "x.txt"), []string{"/etc/passwd", "x.txt"}},
		{r("gawk", "-e", pat("{print}"), "a", "b"), []string{"a", "b"}},
	}
	for _, c := range cases {
		var reads []string
		if ref := Lookup(c.call.prog).JudgeReads(c.call.args, &reads); ref != nil {
			t.Errorf("%s: refused: %s", c.call, ref.Error())
			continue
		}
		for _, w := range c.want {
			if !slices.Contains(reads, w) {
				t.Errorf("%s: reads %q, want it to hold %q", c.call, reads, w)
			}
		}
	}
}
