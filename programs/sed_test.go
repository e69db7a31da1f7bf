package programs

import (
	"strings"
	"testing"
)

// TestSedRefusesWrites: sed is a printer only: -n with a print-only script. -i (and --in-place,
// its abbreviations, clusters such as -ni, BSD -I), -f, the w W r R e a i c v commands, the s
// flags w W e, unbalanced braces and a missing -n are refused.
func TestSedRefusesWrites(t *testing.T) {
	check(t, true,
		r("sed", "-n", "1,20p", "f"),
		r("sed", "-n", pat("$="), "f"),
		r("sed", "-n", "/re/,/end/p", "f"),
		r("sed", "-n", pat("/x/{p;q}"), "f"),
		r("sed", "-n", "s/a/b/gp", "f"),
		r("sed", "-n", "0,/re/p", "f"),
		r("sed", "-n", "1~2p", "f"),
		r("sed", "-n", "-e", "1p", "-e", pat("$p"), "f"),
		r("sed", "--quiet", "10p", "f"),
		r("sed", "-nE", pat("s/(a+)/\\1/p"), "f"),
		r("sed", "-n", pat("/foo/!p"), "f"),
		r("sed", "-n", "l", "f"),
		r("sed", "-n", "5q", "f"),
		r("sed", "-n", pat("y/abc/xyz/;p"), "f"),
		r("sed", "-n", "/a/Ip", "f"),
		r("sed", "-n", "2,+3p", "f"),
		r("sed", "-n", pat("\\,x,p"), "f"),
		r("sed", "-ne", "5p", "f"),
		r("sed", "-n", "1p", loopVar("a.txt")),
		r("sed", "-z", "-n", "1p"),
		r("sed", "-s", "-n", pat("$p"), "a", "b"),
		r("sed", "--silent", "--expression=1p", "f"),
		r("sed", "-n", pat("/start/,/end/{/x/p}"), "f"),
		r("sed", "-n", "swawbwp", "f"),
		r("sed", "-n", pat("$!N;P;D"), "f"),
	)
	check(t, false,
		r("sed", "-i", "s/a/b/", "f").because("edits files in place"),                                            // -i
		r("sed", "-n", "-i", "1p", "f").because("edits files in place"),                                          // -i with -n
		r("sed", "-ni", "1p", "f").because("edits files in place"),                                               // -i hidden in a cluster
		r("sed", "-n", "-i.bak", "1p", "f").because("edits files in place"),                                      // -iSUFFIX
		r("sed", "-nEi", "1p", "f").because("edits files in place"),                                              // -i at the end of a cluster
		r("sed", "-n", "1p", "f", "-i").because("edits files in place"),                                          // -i after the operands
		r("sed", "--in-place", "-n", "1p", "f").because("edits files in place"),                                  // --in-place
		r("sed", "--in-place=.bak", "-n", "1p", "f").because("edits files in place"),                             // --in-place=SUFFIX
		r("sed", "--in-pl", "-n", "1p", "f").because("abbreviates `--in-place`"),                                 // GNU abbreviation
		r("sed", "--in=.orig", "-n", "1p", "f").because("abbreviates `--in-place`"),                              // GNU abbreviation with a suffix
		r("sed", "-n", "-I", "1p", "f").because("edits files in place"),                                          // BSD -I
		r("sed", "-n", "-f", "script.sed", "f").because("reads a script from a file"),                            // -f FILE
		r("sed", "-nf", "script.sed", "f").because("reads a script from a file"),                                 // -f hidden in a cluster
		r("sed", "--file=script.sed", "-n", "f").because("reads a script from a file"),                           // --file
		r("sed", "--fi=x", "-n", "f").because("abbreviates `--file`"),                                            // GNU abbreviation
		r("sed", "--follow-symlinks", "-n", "1p", "f").because("only matters with -i"),                           // --follow-symlinks
		r("sed", "s/a/b/", "f").because("only with -n"),                                                          // no -n: sed prints every line
		r("sed", "-e", "1p", "f").because("only with -n"),                                                        // -e without -n
		r("sed", "-n").because("needs a script"),                                                                 // no script
		r("sed", "-n", "w out", "f").because("writes a file"),                                                    // w FILE
		r("sed", "-n", "1W out", "f").because("writes a file"),                                                   // W FILE
		r("sed", "-n", "r /etc/passwd", "f").because("reads another file"),                                       // r FILE
		r("sed", "-n", "R x", "f").because("reads another file"),                                                 // R FILE
		r("sed", "-n", "1e id", "f").because("runs a program"),                                                   // e COMMAND
		r("sed", "-n", "e", "f").because("runs a program"),                                                       // e: run the pattern space
		r("sed", "-n", "a foo", "f").because("print-only list"),                                                  // a TEXT
		r("sed", "-n", "1i foo", "f").because("print-only list"),                                                 // i TEXT
		r("sed", "-n", "c foo", "f").because("print-only list"),                                                  // c TEXT
		r("sed", "-n", "v", "f").because("print-only list"),                                                      // v
		r("sed", "-n", "b", "f").because("print-only list"),                                                      // a command not on the list
		r("sed", "-n", "s/a/b/w out", "f").because("writes a file"),                                              // s///w FILE
		r("sed", "-n", "s/a/b/gw out", "f").because("writes a file"),                                             // w after another flag
		r("sed", "-n", "s/a/b/W out", "f").because("writes a file"),                                              // s///W
		r("sed", "-n", "s/a/b/e", "f").because("runs the pattern space as a command"),                            // s///e
		r("sed", "-n", "s a b p", "f").because("bad delimiter after `s`"),                                        // GNU sed takes a space delimiter; the judge will not guess
		r("sed", "-n", pat(`s\a\b\p`), "f").because("bad delimiter after `s`"),                                   // backslash delimiter
		r("sed", "-n", "y a b ", "f").because("bad delimiter after `y`"),                                         // y shares the delimiter rule
		r("sed", "-n", "s", "f").because("bad delimiter after `s`"),                                              // s at the end of the script
		r("sed", "-n", "s/a/b/2pe", "f").because("runs the pattern space as a command"),                          // e after other flags
		r("sed", "-n", pat("p;w x"), "f").because("writes a file"),                                               // w after a print
		r("sed", "-n", pat("{w x}"), "f").because("writes a file"),                                               // w inside braces
		r("sed", "-n", pat("/x/{p;w x}"), "f").because("writes a file"),                                          // w inside an addressed block
		r("sed", "-n", pat("1p;s/a/b/;e"), "f").because("runs a program"),                                        // e at the end of a list
		r("sed", "-n", "-e", "1p", "-e", "w out", "f").because("writes a file"),                                  // a second -e script
		r("sed", "-n", pat("1{p"), "f").because("unclosed `{`"),                                                  // unbalanced braces
		r("sed", "-n", pat("p}"), "f").because("unexpected `}`"),                                                 // unbalanced braces
		r("sed", "-n", pat(strings.Repeat("{", 20)+"p"+strings.Repeat("}", 20)), "f").because("nested too deep"), // deep nesting
		r("sed", "-n", pat("# c"), "f").because("comments"),                                                      // a comment (#n turns -n off)
		r("sed", "-n", pat("1p\nw out"), "f").because("unexpected"),                                              // a newline as a separator
		r("sed", "-n", "s/a", "f").because("unterminated"),                                                       // s cut short
		r("sed", "-n", loopGlob("1p"), "f").because("glob"),                                                      // the loop variable as the script
		r("sed", "-n", "-e", loopGlob("1p"), "f").because("glob"),                                                // the loop variable as -e's value
		r("sed", "-n", "1p", pat("a|b")).because("shell syntax"),                                                 // pattern text as a file name
		r("sed", "-n", "-l", "w README.md", "1p").because("none in BSD sed"),                                     // BSD sed's -l takes no value: it would run 'w README.md' as the script
		r("sed", "-n", pat(`s/[/]/g;\./w src/foo.h`), "f").because("read differently by GNU and BSD"),            // BSD skips / inside [...]: it sees a w flag
		r("sed", "-n", "s/[[:alpha:]/]/x/p", "f").because("read differently by GNU and BSD"),                     // the delimiter after a [:class:] in a bracket
		r("sed", loopVar("-n"), "1p", "f").because("reads as an option"),                                         // a loop word that would be an option
	)
}

// TestSedBSDReading: BSD sed (macOS) and GNU sed under POSIXLY_CORRECT stop reading options at
// the first operand, so without an -e before it the first operand is the script, whatever -e
// follows; the script must be print-only in that reading too.
func TestSedBSDReading(t *testing.T) {
	check(t, true,
		r("sed", "-n", "-e", "1p", "w out"),           // -e came first: in both readings "w out" is a file to read
		r("sed", "-n", "-E", pat("s/(a)/\\1/p"), "f"), // -E means extended in both
		r("sed", "-n", "1p", "a", "b"),                // later operands are files in both
	)
	check(t, false,
		r("sed", "-n", "1w /tmp/x", "-e", "1p", "f").because("writes a file"),         // the issue: GNU takes the script from -e, BSD runs 1w /tmp/x
		r("sed", "-n", "1e id", "-e", "1p", "f").because("runs a program"),            // BSD runs the first operand's e command
		r("sed", "-n", "s/a/b/w out", "--expression=p", "f").because("writes a file"), // BSD has no long options, but stops at the script before it
		r("sed", "-n", "-s", "1w /tmp/x", "-e", "1p", "f").because("writes a file"),   // BSD stops at -s (usage), but GNU under POSIXLY_CORRECT runs 1w
		r("sed", "1p", "f", "-n").because("only with -n"),                             // BSD reads -n after the first operand as a file, so sed runs without -n
		r("sed", "-n", "r /etc/shadow", "-e", "p", "f").because("reads another file"), // BSD reads r FILE as the script
	)
}
