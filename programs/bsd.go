package programs

import (
	"fmt"
	"strings"

	"github.com/hookctl/hookctl/internal/wordlist"
)

// The judge cannot know which build of a program runs: macOS and FreeBSD ship BSD tools, Linux
// ships GNU ones, and either may run with POSIXLY_CORRECT set. They read the same words
// differently. GNU getopt_long permutes: options may follow operands. BSD getopt(3), GNU
// getopt_long with a leading '+' in its option string, and any getopt_long under
// POSIXLY_CORRECT stop at the first operand: every later word is an operand, so `sed -n
// '1w /tmp/x' -e 1p f`, whose script GNU takes from -e, is on macOS a script that writes
// /tmp/x. And a BSD build's letters may take a value where GNU's take none (stat -f FORMAT).
//
// So a program's rule is applied to every reading of its words, and a call is admitted only if
// each is a read. The BSD readings parse with the BSD build's getopt string: a letter of the
// table it lacks makes the program print its usage and exit before it reads anything, which is
// a read; a letter it has must also be allowed by the program's table, so no BSD meaning the
// table has not named is ever admitted.
//
// Test: TestBSDTables, TestBSDReadings, TestStopReadingIsReal (bsd_test.go) and the BSD rows
// of each program's tests (TestSedBSDReading, TestFilesBSDReadings, …).

// BSD is how a program's BSD build parses its words, checked against the macOS sources
// (apple-oss-distributions text_cmds, file_cmds, shell_cmds) and FreeBSD's.
type BSD struct {
	// Getopt is the BSD build's short options, in getopt(3) syntax, the union of the macOS and
	// FreeBSD builds: a letter followed by ':' takes a value, attached or the next word whatever
	// it starts with; by '::' an attached value only.
	Getopt string
	// Lacks are the letters of the GNU table the BSD build does not have: there they are a
	// usage error, which reads nothing. Every short option of the table is in Getopt or here
	// (TestBSDTables), so a letter added to the table needs a BSD answer too.
	Lacks string
	// Long: the BSD build also takes long options (getopt_long), assumed to take values as the
	// GNU table says. Without it "--name" is an unknown option and the build exits.
	Long bool
	// Permute: the BSD build's getopt_long has no leading '+', so FreeBSD's and macOS's libc
	// permute as GNU does (unless POSIXLY_CORRECT is set): it is read both ways.
	Permute bool
	// Same: the BSD build is this same program with its own parser (ripgrep, tree, file, jq,
	// hookctl): the GNU reading is the only one.
	Same bool
	// Note says in a line how the BSD build reads its words, for the allowlist reference.
	Note string
}

// reading is one way a build of a program parses its words.
type reading struct {
	bsd  *BSD // nil: the GNU table's letters
	stop bool // options end at the first operand
}

var gnuReading = reading{}

// says names the reading in a refusal, so the agent sees why a call GNU would run is refused.
func (rd reading) says() string {
	switch {
	case rd.bsd != nil && rd.stop && rd.bsd.Permute:
		return "as BSD/macOS reads it under POSIXLY_CORRECT: options end at the first operand"
	case rd.bsd != nil && rd.stop:
		return "as BSD/macOS reads it: options end at the first operand"
	case rd.bsd != nil:
		return "as BSD/macOS reads its options"
	}
	return "as GNU reads it under POSIXLY_CORRECT: options end at the first operand"
}

// readings lists the ways the program's builds may parse its words: GNU permuting first, so
// that a call GNU refuses is refused for GNU's reason.
func (p *Program) readings() []reading {
	if p.BSD == nil || p.BSD.Same {
		return []reading{gnuReading}
	}
	rs := []reading{gnuReading, {bsd: p.BSD, stop: true}}
	if p.BSD.Permute {
		rs = append(rs, reading{bsd: p.BSD})
	}
	return append(rs, reading{stop: true})
}

// bsdKind says how the BSD build takes letter l: optNone if it does not know it.
func (b *BSD) kind(l byte) optKind {
	i := strings.IndexByte(b.Getopt, l)
	switch {
	case i < 0 || l == ':' || l == '+':
		return optNone
	case strings.HasPrefix(b.Getopt[i+1:], "::"):
		return optOptional
	case strings.HasPrefix(b.Getopt[i+1:], ":"):
		return optValued
	}
	return optFlag
}

// bsdCluster reads the short-option word args[i] as the BSD build's getopt(3) does and returns
// how many following words it took as values. A letter of the table the build lacks sets
// c.Usage; any other letter the table does not allow is refused, named as the table names it.
func (o *Options) bsdCluster(prog string, c *ParsedArgs, args []Arg, i int, b *BSD) (int, *Refusal) {
	a := args[i]
	v := a.Value
	for j := 1; j < len(v); j++ {
		name := "-" + v[j:j+1]
		k := b.kind(v[j])
		if k == optNone && strings.IndexByte(b.Lacks, v[j]) >= 0 {
			c.Usage = true
			return 0, nil
		}
		if k == optNone || o.kind(name) == optNone {
			return 0, o.unknown(prog, name)
		}
		switch k {
		case optFlag:
			c.Opts = append(c.Opts, Opt{Name: name})
			continue
		case optOptional:
			if a.Pattern && !wordlist.Has(o.Patterns, name) {
				return 0, refuse(prog, "shell syntax in the value of `%s` is not allowed", name)
			}
			c.Opts = append(c.Opts, Opt{Name: name, Value: v[j+1:], HasValue: j+1 < len(v)})
			return 0, nil
		}
		// A valued letter takes the rest of the word, or the next word whatever it starts with.
		opt, src, took := Opt{Name: name, Value: v[j+1:], HasValue: true}, a, 0
		if j+1 == len(v) {
			if i+1 >= len(args) {
				return 0, refuse(prog, "option `%s` needs a value", name)
			}
			src, took = args[i+1], 1
			opt.Value = src.Value
		}
		if src.Glob {
			return 0, refuse(prog, "a glob may not be the value of `%s`; quote the pattern", name)
		}
		if src.Pattern && !wordlist.Has(o.Patterns, name) {
			return 0, refuse(prog, "shell syntax in the value of `%s` is not allowed", name)
		}
		c.Opts = append(c.Opts, opt)
		return took, nil
	}
	return 0, nil
}

// validate reports a malformed getopt string, a BSD entry without a note, or a short option of
// the table o that the entry neither parses nor lacks, or both.
func (b *BSD) validate(o *Options) error {
	if b.Note == "" {
		return fmt.Errorf("no note")
	}
	if b.Same && (b.Getopt != "" || b.Long || b.Permute) {
		return fmt.Errorf("the same program has no BSD getopt string")
	}
	seen := map[byte]bool{}
	for i := 0; i < len(b.Getopt); i++ {
		l := b.Getopt[i]
		if l == ':' {
			if i == 0 {
				return fmt.Errorf("getopt string starts with ':'")
			}
			continue
		}
		if l <= ' ' || l == '-' || l == '+' || seen[l] {
			return fmt.Errorf("getopt letter %q malformed or listed twice", l)
		}
		seen[l] = true
	}
	if o == nil || b.Same {
		return nil
	}
	for _, list := range []string{o.Flags, o.Valued, o.Optional} {
		for _, n := range strings.Fields(list) {
			if len(n) != 2 {
				continue
			}
			has, lacks := seen[n[1]], strings.IndexByte(b.Lacks, n[1]) >= 0
			if has == lacks {
				return fmt.Errorf("%s must be in exactly one of Getopt and Lacks", n)
			}
		}
	}
	for i := 0; i < len(b.Lacks); i++ {
		if o.kind("-"+b.Lacks[i:i+1]) == optNone {
			return fmt.Errorf("Lacks names -%c, which the table does not allow", b.Lacks[i])
		}
	}
	return nil
}
