package programs

import (
	"os"
	"os/exec"
	"path/filepath"
	"testing"
)

// TestDumpers: od, hexdump and strings read files and print their bytes. hexdump's -f reads a
// format file whose text its errors print; strings expands @FILE into the words in that file
// (its errors print them) and parses objects with libbfd under -d and -T.
func TestDumpers(t *testing.T) {
	check(t, true,
		r("od", "-c", "go.mod"),
		r("od", "-An", "-tx1", "-N", "16", "f"),
		r("od", "-t", "x1z", "-v", "f"),
		r("od", "-w16", "f"),
		r("od", "--traditional", "f", "+16"),
		r("od", "-j", "0x10", "-"),
		r("hexdump", "-C", "go.mod"),
		r("hexdump", "-n", "64", "-s", "16", "-C", "f"),
		r("hexdump", "-e", pat(`16/1 "%02x " "\n"`), "f"),
		r("hexdump", "--format", pat(`"%x"`), "f"),
		r("hexdump", "-v", "-x", glob("./*.bin")),
		r("strings", "bin/hookctl"),
		r("strings", "-n", "8", "f"),
		r("strings", "-8", "f"),
		r("strings", "-a", "-t", "x", "f"),
		r("strings", "-f", glob("bin/*")),
		r("strings", "-e", "l", "f"),
		r("strings", "-s", pat("|"), "f"),
		r("strings", "-"),
		r("strings", loopVar("a.o")),
	)
	check(t, false,
		r("od", "-c", pat("a|b")).because("shell syntax"),                                  // pattern text as a file name
		r("od", "--skip=1", "f").because("not on the read-only allowlist"),                 // abbreviation of --skip-bytes
		r("hexdump", "-f", ".env", "f").because("reads its formats from a file"),           // the file's text in its errors
		r("hexdump", "--format-file", "fmt", "f").because("reads its formats from a file"), // the long form
		r("hexdump", "--format-f=x", "f").because("abbreviates `--format-file`"),           // an abbreviation of it
		r("hexdump", "-Cf", "fmt", "f").because("reads its formats from a file"),           // -f in a cluster
		r("hexdump", "f", "-f", "fmt").because("reads its formats from a file"),            // after the operand (GNU permutes)
		r("hexdump", "-n", pat("1;x"), "f").because("shell syntax in the value"),           // -n is a number
		r("strings", "@.env").because("response file"),                                     // the file's words as file names
		r("strings", "-n", "4", "@args").because("response file"),                          // anywhere
		r("strings", "-s", "@sep", "f").because("response file"),                           // even as an option's value
		r("strings", loopVar("@x")).because("response file"),                               // a loop word
		r("strings", "-d", "f").because("libbfd"),                                          // object parsing
		r("strings", "--data", "f").because("libbfd"),                                      // the long form
		r("strings", "-T", "elf64-x86-64", "f").because("libbfd"),                          // a target format
		r("strings", "--target=binary", "f").because("libbfd"),                             // the long form
		r("strings", "-ad", "f").because("libbfd"),                                         // -d in a cluster
		r("strings", "-4d", "f").because("obsolete"),                                       // a count then a letter
		r("strings", "--help").because("not on the read-only allowlist"),                   // an option not in the table
	)
}

// TestDumpersBSDReadings: BSD's od and hexdump stop reading options at the first operand;
// macOS's strings (cctools) reads options anywhere and knows only -a, -o, -n, -t and -NUM.
func TestDumpersBSDReadings(t *testing.T) {
	check(t, true,
		r("od", "f", "-c"),      // BSD: files f and -c
		r("od", "-w8", "f"),     // BSD has no -w: a usage error
		r("hexdump", "f", "-C"), // BSD: files f and -C
		r("hexdump", "-L", "f"), // BSD has no -L: a usage error
		r("strings", "-f", "f"), // cctools has no -f: a usage error
		r("strings", "f", "-a"), // cctools reads -a after the file too
		r("strings", "-o", "f"), // binutils: octal offsets; cctools: decimal offsets
	)
	check(t, false,
		r("hexdump", "-C", "-f", ".env").because("reads its formats from a file"), // BSD's -f reads the file too
		r("strings", "-a", "@.env").because("response file"),                      // binutils and LLVM expand it
	)
}

// TestXxdRules: xxd takes each option exactly, before at most one file, and never -r; any word
// after the file is the output file xxd would truncate and write.
func TestXxdRules(t *testing.T) {
	check(t, true,
		r("xxd", "go.mod"),
		r("xxd"),
		r("xxd", "-"),
		r("xxd", "-l", "64", "f"),
		r("xxd", "-c", "8", "-g", "1", "f"),
		r("xxd", "-c16", "f"),
		r("xxd", "-p", "f"),
		r("xxd", "-ps", "f"),
		r("xxd", "-i", "-n", "blob", "f"),
		r("xxd", "-s", "-512", "f"),
		r("xxd", "-s", "0x100", "-l", "32", "f"),
		r("xxd", "-R", "never", "f"),
		r("xxd", "-u", "-d", "f"),
		r("xxd", "--", "-f"),
		r("xxd", loopVar("a.bin")),
	)
	check(t, false,
		r("xxd", "in", "out").because("output file"),                          // xxd IN OUT truncates and writes OUT
		r("xxd", "in", "-c").because("output file"),                           // options end at the file: -c is OUT
		r("xxd", "-l", "8", "in", "out").because("output file"),               // after options
		r("xxd", "-", "out").because("output file"),                           // standard input to a file
		r("xxd", "--", "in", "out").because("output file"),                    // after --
		r("xxd", "in", loopVar("out")).because("output file"),                 // a loop word as OUT
		r("xxd", "-r", "dump").because("turns a dump back into bytes"),        // reverts
		r("xxd", "-r", "-p", "dump", "bin").because("turns a dump back"),      // reverts into a file (patches it)
		r("xxd", "-revert", "f").because("turns a dump back"),                 // any word starting with -r is -r
		r("xxd", "--r", "f").because("turns a dump back"),                     // xxd drops a leading - of --
		r("xxd", "-pr", "f").because("not on the read-only allowlist"),        // -p…: xxd reads it as -p; not exact
		r("xxd", "-autoskip", "f").because("not on the read-only allowlist"),  // -a…: not written exactly
		r("xxd", "-cols", "8", "f").because("not on the read-only allowlist"), // long spellings are not modelled
		r("xxd", "-c", "x", "f").because("must be a number"),                  // a value that is no number
		r("xxd", "-n", pat("a;b"), "f").because("must be a number"),           // a name with shell syntax
		r("xxd", "-l").because("needs a value"),                               // a value missing
		r("xxd", glob("./*.bin")).because("glob"),                             // two matches would write the second
		r("xxd", loopGlob("./a.bin")).because("glob"),                         // a loop over a glob, judged as a glob
		r("xxd", loopVar("-r")).because("reads as an option"),                 // a loop word that is an option
		r("xxd", pat("a|b")).because("shell syntax"),                          // pattern text as the file
	)
}

// TestXxdWritesItsSecondOperand runs the installed xxd: `xxd in out` and `xxd in -c` both write
// a file (out, -c), which is why the rule admits one operand and nothing after it.
func TestXxdWritesItsSecondOperand(t *testing.T) {
	if _, err := exec.LookPath("xxd"); err != nil {
		if os.Getenv("HOOKCTL_REQUIRE_ALL") == "1" {
			t.Fatal("xxd is not installed (HOOKCTL_REQUIRE_ALL=1)")
		}
		t.Skip("xxd is not installed")
	}
	for _, argv := range [][]string{{"in", "out"}, {"in", "-c"}} {
		dir := t.TempDir()
		if err := os.WriteFile(filepath.Join(dir, "in"), []byte("data\n"), 0o644); err != nil {
			t.Fatal(err)
		}
		cmd := exec.Command("xxd", argv...)
		cmd.Dir = dir
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("xxd %q: %v\n%s", argv, err, out)
		}
		if _, err := os.Stat(filepath.Join(dir, argv[1])); err != nil {
			t.Errorf("xxd %q wrote no %s: the rule models a writer that is not there", argv, argv[1])
		}
		args := []Arg{{Value: argv[0]}, {Value: argv[1]}}
		if Lookup("xxd").Judge(args) == nil {
			t.Errorf("xxd %q writes %s, yet the judge admits it", argv, argv[1])
		}
	}
}
