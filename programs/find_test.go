package programs

import "testing"

// TestFindRefusesExecAndWrites: find may test and print; -exec, -execdir, -ok, -okdir run
// programs, -delete deletes and -fprint* and -fls write, and so are refused anywhere in the
// expression, as is every primary not on the list and the loop variable anywhere but a
// starting point.
func TestFindRefusesExecAndWrites(t *testing.T) {
	check(t, true,
		// -exec of an allowed read, {} a file name find found (issue 10)
		r("find", ".", "-name", pat("*.go"), "-exec", "grep", "-n", "TODO", pat("{}"), "+"),
		r("find", ".", "-name", "*.go", "-exec", "cat", pat("{}"), "+"),
		r("find", ".", "-type", "f", "-name", pat("*.rs"), "-exec", "wc", "-l", pat("{}"), pat(";")),
		r("find", "src", "-name", "x", "-o", "-exec", "id", pat(";")),
		r("find", "docs", "-iname", pat("*.md"), "-exec", "head", "-n", "3", pat("{}"), pat(";"), "-print"),
		r("find", Arg{Value: "./*", Glob: true}, "-maxdepth", "0", "-type", "d"),
		r("find"),
		r("find", "."),
		r("find", ".", "-name", "*.go"),
		r("find", ".", "-type", "f", "-name", "*.go"),
		r("find", "src", "-maxdepth", "2", "-type", "d"),
		r("find", ".", pat("("), "-name", "*.go", "-o", "-name", "*.md", pat(")"), "-print"),
		r("find", ".", "-newermt", "2024-01-01"),
		r("find", ".", "-mtime", "-7"),
		r("find", ".", "-size", "+1M"),
		r("find", ".", "-path", "./vendor", "-prune", "-o", "-print"),
		r("find", "-L", ".", "-name", "x"),
		r("find", ".", "-printf", pat("%p\\n")),
		r("find", loopVar("src"), "-name", "*.go"),
		r("find", ".", pat("!"), "-name", "*.go"),
		r("find", ".", "-not", "-name", "x"),
		r("find", ".", "-regex", pat(".*\\.(go|md)")),
		r("find", "a", "b", "-empty"),
		r("find", ".", "-perm", "-u+x", "-type", "f"),
		r("find", ".", "-newer", "go.mod"),
		r("find", ".", "-name", "-exec"),
		r("find", ".", "-type", "f", "-print0"),
		r("find", ".", "-ls"),
		r("find", "-H", "-L", "."),
		r("find", ".", "-user", "me", "-quit"),
	)
	check(t, false,
		// -exec of a program that reads files reads every file find yields: secret files must be
		// kept out by a -name, in a plain conjunction, below the working directory
		r("find", ".", "-type", "f", "-exec", "wc", "-l", pat("{}"), pat(";")).because("secret files"),
		r("find", ".", "-exec", "head", "-n", "3", pat("{}"), pat(";"), "-print").because("secret files"),
		r("find", ".", "-name", pat(".e*"), "-exec", "cat", pat("{}"), "+").because("secret files"),
		r("find", ".", "-iname", pat("*.PEM"), "-exec", "cat", pat("{}"), "+").because("secret files"),
		r("find", ".", "-name", pat("id_*"), "-exec", "cat", pat("{}"), "+").because("secret files"),
		r("find", ".", "-name", pat(".env"), "-exec", "cat", pat("{}"), "+").because("secret files"),
		r("find", ".", "-name", pat("*.go"), "-o", "-name", "x", "-exec", "cat", pat("{}"), "+").because("parentheses"),
		r("find", ".", pat("!"), "-name", pat("*.go"), "-exec", "cat", pat("{}"), "+").because("parentheses"),
		r("find", "/", "-name", pat("*.go"), "-exec", "cat", pat("{}"), "+").because("outside the working directory"),
		r("find", "../other", "-name", pat("*.go"), "-exec", "cat", pat("{}"), "+").because("outside the working directory"),
		r("find", "-L", ".", "-name", pat("*.go"), "-exec", "cat", pat("{}"), "+", "-o", "-print").because("parentheses"),
		r("find", ".", "-exec", "rm", pat("{}"), pat(";")).because("runs a program"),                                     // -exec CMD {} ;
		r("find", ".", "-name", "*.go", "-exec", "cp", pat("{}"), "/tmp", "+").because("not on the read-only allowlist"), // -exec of a writer, {} +
		r("find", ".", "-exec", "sh", "-c", "rm x", pat(";")).because("not on the read-only allowlist"),                  // -exec of a shell
		r("find", ".", "-exec", "sed", "-i", "s/a/b/", pat("{}"), "+").because("in -exec"),                               // an allowed program's writing form
		r("find", ".", "-exec", "sort", "-o", "out", pat("{}"), pat(";")).because("in -exec"),                            // sort -o writes
		r("find", ".", "-exec", "grep", pat("{}"), "x", pat(";")).because("in -exec"),                                    // {} as grep's pattern
		r("find", ".", "-exec", "git", "log", pat("{}"), pat(";")).because("without the hook's pins"),                    // git without its pins
		r("find", ".", "-exec", "rg", "x", pat("{}"), "+").because("without the hook's pins"),                            // rg without --no-config
		r("find", ".", "-exec", "find", pat("{}"), "-delete", pat(";")).because("without the hook's pins"),               // find inside find
		r("find", ".", "-exec", "cat", "x{}", pat(";")).because("inside the word"),                                       // {} inside a word
		r("find", ".", "-exec", "cat", pat("{}")).because("must end"),                                                    // no terminator
		r("find", ".", "-exec", "uniq", pat("{}"), pat("{}"), pat(";")).because("in -exec"),                              // uniq writes its second operand
		r("find", ".", "-execdir", "sh", "-c", "x", pat(";")).because("runs a program"),                                  // -execdir
		r("find", ".", "-ok", "rm", pat("{}"), pat(";")).because("runs a program"),                                       // -ok
		r("find", ".", "-okdir", "rm", pat("{}"), pat(";")).because("runs a program"),                                    // -okdir
		r("find", ".", pat("("), "-exec", "rm", pat("{}"), pat(";"), pat(")")).because("runs a program"),                 // -exec inside a group
		r("find", ".", "-name", "x", "-o", "-exec", "id", "-u", pat("{}"), pat(";")).because("in -exec"),                 // {} where id reads a user name
		r("find", ".", "-delete").because("deletes files"),                                                               // -delete
		r("find", ".", "-name", "*.tmp", "-delete").because("deletes files"),                                             // -delete after a test
		r("find", loopVar("-delete")).because("deletes files"),                                                           // a loop word that is a primary
		r("find", ".", "-fprint", "out").because("writes to a file"),                                                     // -fprint
		r("find", ".", "-fprint0", "out").because("writes to a file"),                                                    // -fprint0
		r("find", ".", "-fprintf", "out", pat("%p\\n")).because("writes to a file"),                                      // -fprintf
		r("find", ".", "-fls", "out").because("writes to a file"),                                                        // -fls
		r("find", "-D", "exec", ".").because("not on the read-only allowlist"),                                           // -D debug options
		r("find", "-O3", ".").because("not on the read-only allowlist"),                                                  // -O optimisation level
		r("find", ".", "-files0-from", "x").because("not on the read-only allowlist"),                                    // an unknown primary
		r("find", ".", "-exe", "x").because("not on the read-only allowlist"),                                            // find has no abbreviations
		r("find", ".", "-newerXY", "x").because("not on the read-only allowlist"),                                        // not a -newerXY pair
		r("find", ".", "-name", loopGlob("x")).because("glob"),                                                           // the loop variable as a value
		r("find", ".", loopGlob("-name"), "x").because("glob"),                                                           // the loop variable as a primary
		r("find", ".", "-name", "x", loopVar("y")).because("a starting point must come before"),                          // a loop word after the expression
		r("find", ".", "-type", pat("f|d")).because("shell syntax in the value"),                                         // -type is not a pattern slot
		r("find", pat("a;b"), "-name", "x").because("shell syntax in the starting point"),                                // pattern text as a starting point
		r("find", ".", "-name").because("needs a value"),                                                                 // a primary cut short
		r("find", ".", "-printf", loopGlob("%p")).because("glob"),                                                        // the loop variable as a format
	)
}

// TestFindBSDReadings: BSD find (macOS) reads getopt(3) options before the paths, -E -H -L -P -X
// -d -f PATH -s -x, clustered or not, and its -depth takes a number when one follows. The judge
// admits only -E -H -L -P -s -x, each as its own word, so -f PATH and -depth N are refused.
func TestFindBSDReadings(t *testing.T) {
	check(t, true,
		r("find", "-E", ".", "-regex", pat(".*[.](go|md)")), // BSD extended regular expressions
		r("find", "-s", ".", "-name", "*.go"),               // BSD sorted walk
		r("find", "-x", ".", "-type", "f"),                  // BSD -x: do not cross mounts
		r("find", ".", "-depth", "-name", "x"),              // -depth as the flag in both
	)
	check(t, false,
		r("find", "-f", "/etc", "-name", "x").because("not on the read-only allowlist"), // BSD -f PATH: a path GNU reads as an expression
		r("find", "-sx", ".").because("not on the read-only allowlist"),                 // a BSD cluster: refused, not modelled
		r("find", "-d", ".", "-name", "x").because("not on the read-only allowlist"),    // BSD -d: depth first
		r("find", ".", "-depth", "2", "-print").because("unexpected `2`"),               // BSD: -depth 2 is a test
		r("find", "-X", ".").because("not on the read-only allowlist"),                  // BSD -X: xargs-safe warnings
	)
}
