package programs

import (
	"strings"

	"github.com/hookctl/hookctl/internal/clip"
	"github.com/hookctl/hookctl/internal/wordlist"
)

// The dumpers print the bytes of files: in octal, hex or characters, or the printable strings in
// them. Each reads its operands (standard input without one) and prints to standard output;
// what each could otherwise do is named in its rule.

// od dumps files in octal, hex, characters or other formats (coreutils 9.1). With two operands
// the second may be an offset (`od f +16`), which is only where to start reading.
//
// Refuses: every option not listed (none writes or runs anything). Test: TestDumpers,
// TestDumpersBSDReadings (dumps_test.go).
var odRule = &Program{
	Name: "od", Summary: "dump files in octal, hex or characters", Files: true, Filter: true,
	BSD: &BSD{Getopt: "A:aBbcDdeFfHhIij:LlN:Oost:vXx", Lacks: "Sw", Note: "hexdump(1) as od, getopt(3) `A:aBbcDdeFfHhIij:LlN:Oost:vXx`: options end at the first operand; -S and -w are a usage error"},
	Opts: &Options{
		Flags:    "-a -b -c -d -f -i -l -o -s -x -v -B -D -e -F -h -H -I -L -O -X --output-duplicates --traditional",
		Valued:   "-A -j -N -t -S --address-radix --skip-bytes --read-bytes --format --endian",
		Optional: "-w --width --strings",
	},
}

// hexdump dumps files in hex, octal or characters (util-linux 2.38 on Linux; BSD's on macOS).
// Its -f names a file of format strings, which it reads and echoes in its errors, so the file's
// content could reach the output: refused, with -e FORMAT for a format written out.
//
// Refuses: -f/--format-file. Test: TestDumpers, TestDumpersBSDReadings (dumps_test.go);
// deny/readers2.txt.
var hexdumpRule = &Program{
	Name: "hexdump", Summary: "dump files in hex, octal or characters (no -f)", Files: true, Filter: true,
	BSD: &BSD{Getopt: "bcCde:f:n:os:vx", Lacks: "L", Note: "getopt(3) `bcCde:f:n:os:vx`: options end at the first operand; -f reads a format file there too"},
	Opts: &Options{
		Flags: "-b -c -C -d -o -x -v --one-byte-octal --one-byte-char --canonical --two-bytes-decimal " +
			"--two-bytes-octal --two-bytes-hex --no-squeezing",
		Valued:   "-e -n -s --format --length --skip",
		Optional: "-L --color",
		Patterns: "-e --format",
		Refused:  Refusals{{"-f", "reads its formats from a file, whose text its errors print"}, {"--format-file", "reads its formats from a file, whose text its errors print"}},
	},
}

// strings prints the printable strings in files (binutils 2.40; cctools' on macOS). binutils
// expands any argument `@FILE` into the words written in FILE (expandargv, before its options
// are parsed; LLVM's strings does the same): the file's text becomes file names whose errors
// print it, and options the judge never saw. So no word may start with @. -d/--data and
// -T/--target parse the file as an object with libbfd, whose bugs crafted files have exploited
// (CVE-2014-8485); without them strings scans the bytes (the default since 2.26).
//
// Refuses: a word starting with @, -d/--data, -T/--target. Test: TestDumpers,
// TestDumpersBSDReadings (dumps_test.go); deny/readers2.txt.
var stringsRule = &Program{
	Name: "strings", Summary: "print the printable strings in files (no @FILE, no -d)", Files: true, Filter: true,
	BSD: &BSD{Getopt: "an:ot:", Lacks: "fwesU", Permute: true, Note: "cctools strings (macOS) reads options anywhere before `--`: -a, -o, -n N, -t FORMAT and -NUM; any other letter is a usage error before it reads a file"},
	Opts: &Options{
		Flags:    "-a -f -w -o --all --print-file-name --include-all-whitespace",
		Valued:   "-n -t -e -s -U --bytes --radix --encoding --output-separator --unicode",
		Patterns: "-s --output-separator",
		Digits:   true,
		Refused: Refusals{
			{"-d", "parses the file as an object with libbfd, whose bugs crafted files have exploited"},
			{"--data", "parses the file as an object with libbfd, whose bugs crafted files have exploited"},
			{"-T", "parses the file as an object with libbfd, whose bugs crafted files have exploited"},
			{"--target", "parses the file as an object with libbfd, whose bugs crafted files have exploited"},
		},
	},
	Check: func(c *ParsedArgs) *Refusal {
		return refusePrefixed(c, c.Args, "@", "is a response file: strings reads its words from that file, whose text its errors would print")
	},
}

// xxd dumps a file in hex (vim's xxd, the same on macOS). Its parser is its own: options end at
// the first word that is not one, any word that starts with an option's letter is that option
// (`-rev` is -r), and after the options `xxd IN OUT` truncates and writes OUT, `-r` turns a dump
// back into bytes (and with OUT patches that file). So the rule takes each option exactly, before
// at most one operand, and never -r: a word after the operand would be the file xxd writes.
//
// Refuses: -r, a second operand, any word after the operand, an option not written exactly.
// Test: TestXxdRules, TestXxdWritesItsSecondOperand (dumps_test.go); deny/readers2.txt.
var xxdRule = &Program{
	Name: "xxd", Summary: "dump a file in hex (one input, no -r)", Filter: true,
	BSD:    &BSD{Same: true, Note: "vim's xxd everywhere, with its own parser (macOS ships an older one, without -d and -R, which are a usage error there)"},
	Custom: judgeXxd,
	Reads:  xxdReads,
}

// xxd's options: the flags, and the options taking a value, in the next word or, for the
// numeric ones, attached (-c16).
const (
	xxdFlags   = "-a -b -C -d -e -E -i -p -ps -u"
	xxdValued  = "-c -g -l -n -o -s -R"
	xxdNumeric = "-c -g -l -o -s"
)

// xxdOperand reads args as xxd does and returns the index of its operand (len(args) if none):
// the first word that is not an option, or the word after `--`. A glob never gets here (judge
// refuses it: it could name two files, and xxd writes the second).
func xxdOperand(args []Arg) (int, *Refusal) {
	for i := 0; i < len(args); i++ {
		v := args[i].Value
		switch {
		case v == "--":
			return i + 1, nil
		case v == "-" || !strings.HasPrefix(v, "-"):
			return i, nil
		case args[i].Var:
			return 0, refuse("xxd", "a loop variable may only be the file to dump, and `%s` reads as an option", clip.Short(v))
		case v == "-r" || strings.HasPrefix(v, "-r") || strings.HasPrefix(v, "--r"):
			return 0, refuse("xxd", "`%s` turns a dump back into bytes (with a second operand it patches that file)", clip.Short(v))
		case wordlist.Has(xxdFlags, v):
		case wordlist.Has(xxdValued, v):
			if i+1 == len(args) {
				return 0, refuse("xxd", "option `%s` needs a value", v)
			}
			i++
			if next := args[i]; next.Var || next.Pattern || !xxdValue(v, next.Value) {
				return 0, refuse("xxd", "the value of `%s` must be a number (a name for -n, always|never|auto for -R)", v)
			}
		case len(v) > 2 && wordlist.Has(xxdNumeric, v[:2]) && xxdValue(v[:2], v[2:]):
			// -c16: a numeric value attached
		default:
			return 0, refuse("xxd", "option `%s` is not on the read-only allowlist (xxd reads any word starting with an option's letter as that option; write them exactly: %s, and %s with a value)", clip.Short(v), xxdFlags, xxdValued)
		}
	}
	return len(args), nil
}

// xxdValue reports whether v is a value option takes as judged: a number (decimal, or hex or
// octal as strtol reads them; -s and -o take a sign), a plain name for -n, a color mode for -R.
func xxdValue(option, v string) bool {
	switch option {
	case "-n":
		return v != "" && strings.Trim(v, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_") == ""
	case "-R":
		return v == "always" || v == "never" || v == "auto"
	case "-s", "-o":
		v = strings.TrimPrefix(strings.TrimPrefix(v, "+"), "-")
	}
	if strings.HasPrefix(v, "0x") || strings.HasPrefix(v, "0X") {
		v = v[2:]
		return v != "" && strings.Trim(v, "0123456789abcdefABCDEF") == ""
	}
	return allDigits(v)
}

func judgeXxd(args []Arg) *Refusal {
	at, r := xxdOperand(args)
	if r != nil {
		return r
	}
	switch rest := args[at:]; {
	case len(rest) > 1:
		return &Refusal{Program: "xxd", What: "a word after the file (`" + clip.Short(rest[1].Value) + "`) is the output file xxd would truncate and write",
			Hint: "give one file, options before it: xxd -l 64 FILE"}
	case len(rest) == 1 && rest[0].Pattern:
		return refuse("xxd", "shell syntax in the file name `%s` is not allowed", clip.Short(rest[0].Value))
	}
	return nil
}

// xxdReads is the file xxd opens: its one operand.
func xxdReads(args []Arg) []string {
	at, r := xxdOperand(args)
	if r != nil || at >= len(args) {
		return nil
	}
	return []string{args[at].Value}
}
