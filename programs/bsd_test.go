package programs

import (
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// TestBSDTables: every program parsed by a table says how its BSD build reads the same words,
// with a well-formed getopt string that, with Lacks, accounts for every short option of the
// table, so that no program or letter is judged in the GNU reading only by omission. (git is modelled in git.go; the other Custom judges read their words themselves.)
func TestBSDTables(t *testing.T) {
	for _, p := range all {
		switch {
		case p.BSD == nil && p.Opts != nil && p.Custom == nil:
			t.Errorf("%s: no BSD reading", p.Name)
		case p.BSD == nil:
		default:
			if err := p.BSD.validate(p.Opts); err != nil {
				t.Errorf("%s: %v", p.Name, err)
			}
		}
	}
}

// TestBSDValidate: validate catches the table errors TestBSDTables relies on it to find.
func TestBSDValidate(t *testing.T) {
	o := &Options{Flags: "-a -b --long", Valued: "-c"}
	cases := []struct {
		name string
		b    BSD
		ok   bool
	}{
		{"every letter accounted for", BSD{Getopt: "ac:", Lacks: "b", Note: "n"}, true},
		{"a letter neither parsed nor lacked", BSD{Getopt: "a", Lacks: "b", Note: "n"}, false},
		{"a letter both parsed and lacked", BSD{Getopt: "abc:", Lacks: "b", Note: "n"}, false},
		{"a lacked letter the table does not have", BSD{Getopt: "ac:", Lacks: "bz", Note: "n"}, false},
		{"no note", BSD{Getopt: "abc:"}, false},
		{"a letter listed twice", BSD{Getopt: "abca", Note: "n"}, false},
		{"a leading colon", BSD{Getopt: ":abc", Note: "n"}, false},
		{"the same program with a getopt string", BSD{Same: true, Getopt: "a", Note: "n"}, false},
	}
	for _, c := range cases {
		if err := c.b.validate(o); (err == nil) != c.ok {
			t.Errorf("%s: validate = %v, want ok %v", c.name, err, c.ok)
		}
	}
}

// TestBSDReadings: the shared parser reads one argv as each build does. GNU permutes; BSD
// getopt(3) and GNU under POSIXLY_CORRECT stop at the first operand; a letter the BSD build
// does not know ends its reading as a usage error; a BSD letter takes a value where its getopt
// string says so, whatever the GNU table says.
func TestBSDReadings(t *testing.T) {
	bsd := func(p *Program, stop bool) reading { return reading{bsd: p.BSD, stop: stop} }
	cases := []struct {
		prog     *Program
		args     []string
		rd       reading
		operands []string // nil with usage
		usage    bool
	}{
		{sedRule, []string{"-n", "1w /tmp/x", "-e", "1p", "f"}, gnuReading, []string{"1w /tmp/x", "f"}, false},
		{sedRule, []string{"-n", "1w /tmp/x", "-e", "1p", "f"}, bsd(sedRule, true), []string{"1w /tmp/x", "-e", "1p", "f"}, false},
		{sedRule, []string{"-n", "1w /tmp/x", "-e", "1p", "f"}, reading{stop: true}, []string{"1w /tmp/x", "-e", "1p", "f"}, false},
		{sedRule, []string{"-n", "--expression=1p", "f"}, bsd(sedRule, true), nil, true},   // BSD sed has no long options
		{sedRule, []string{"-s", "-n", "1p", "f"}, bsd(sedRule, true), nil, true},          // nor -s
		{lsRule, []string{"dir", "-la"}, bsd(lsRule, true), []string{"dir", "-la"}, false}, // a read of dir and of a file named -la
		{lsRule, []string{"dir", "-la"}, gnuReading, []string{"dir"}, false},
		{statRule, []string{"-f", "%z", "f"}, bsd(statRule, true), []string{"f"}, false}, // BSD -f takes a format
		{statRule, []string{"-f", "%z", "f"}, gnuReading, []string{"%z", "f"}, false},    // GNU -f is a flag
		{dfRule, []string{"-T", "/"}, bsd(dfRule, true), []string{}, false},              // BSD -T takes a type list
		{uniqRule, []string{"in", "-c"}, bsd(uniqRule, true), []string{"in", "-c"}, false},
		{grepRule, []string{"-n", "foo", "-r", "."}, bsd(grepRule, false), []string{"foo", "."}, false}, // BSD grep permutes
		{grepRule, []string{"-n", "foo", "-r", "."}, bsd(grepRule, true), []string{"foo", "-r", "."}, false},
		{dateRule, []string{"+%s", "--", "0101"}, bsd(dateRule, true), []string{"+%s", "--", "0101"}, false},
		{dateRule, []string{"-d", "yesterday"}, bsd(dateRule, true), nil, true}, // BSD date has no -d
	}
	for _, c := range cases {
		args := make([]Arg, len(c.args))
		for i, s := range c.args {
			args[i] = Arg{Value: s}
		}
		got, r := c.prog.Opts.parse(c.prog.Name, args, c.rd)
		if r != nil {
			t.Errorf("%s %q (%+v): refused: %v", c.prog.Name, c.args, c.rd, r)
			continue
		}
		var ops []string
		for _, a := range got.Operands {
			ops = append(ops, a.Value)
		}
		if got.Usage != c.usage || !c.usage && !slices.Equal(ops, c.operands) {
			t.Errorf("%s %q (stop %v, bsd %v): operands %q usage %v, want %q usage %v",
				c.prog.Name, c.args, c.rd.stop, c.rd.bsd != nil, ops, got.Usage, c.operands, c.usage)
		}
	}
}

// TestStopReadingIsReal: GNU sed and uniq under POSIXLY_CORRECT stop at the first operand, as
// BSD's do: the argv the GNU reading admits writes a file. BSD cannot run here; GNU in this mode
// reads the same words the same way, so the judge's stop reading is checked against a real
// program. The judge refuses both.
func TestStopReadingIsReal(t *testing.T) {
	for _, name := range []string{"sed", "uniq"} {
		if _, err := exec.LookPath(name); err != nil {
			if os.Getenv("HOOKCTL_REQUIRE_ALL") == "1" {
				t.Fatalf("%s is not installed (HOOKCTL_REQUIRE_ALL=1)", name)
			}
			t.Logf("%s is not installed: its stop reading is not run for real", name)
			return
		}
	}
	cases := []struct {
		argv    []string
		written string
	}{
		{[]string{"sed", "-n", "1w out", "-e", "1p", "in"}, "out"},
		{[]string{"uniq", "in", "-c"}, "-c"},
	}
	for _, c := range cases {
		dir := t.TempDir()
		if err := os.WriteFile(filepath.Join(dir, "in"), []byte("a\nb\n"), 0o644); err != nil {
			t.Fatal(err)
		}
		cmd := exec.Command(c.argv[0], c.argv[1:]...)
		cmd.Dir, cmd.Env = dir, append(os.Environ(), "POSIXLY_CORRECT=1")
		cmd.Run() // sed also fails to read the files -e and 1p; the write is the answer
		if _, err := os.Stat(filepath.Join(dir, c.written)); err != nil {
			t.Errorf("%q under POSIXLY_CORRECT did not write %s: the stop reading is not what it models", c.argv, c.written)
		}
		args := make([]Arg, 0, len(c.argv)-1)
		for _, s := range c.argv[1:] {
			args = append(args, Arg{Value: s})
		}
		if Lookup(c.argv[0]).Judge(args) == nil {
			t.Errorf("%q writes %s in the stop reading, yet the judge admits it", c.argv, c.written)
		}
		// Permuting, the same words only read: the refusal comes from the stop reading.
		os.Remove(filepath.Join(dir, c.written))
		cmd = exec.Command(c.argv[0], c.argv[1:]...)
		cmd.Dir, cmd.Env = dir, withoutPosixlyCorrect(os.Environ())
		cmd.Run()
		if _, err := os.Stat(filepath.Join(dir, c.written)); err == nil {
			t.Errorf("%q wrote %s even permuting: the row does not isolate the stop reading", c.argv, c.written)
		}
	}
}

func withoutPosixlyCorrect(env []string) []string {
	return slices.DeleteFunc(slices.Clone(env), func(kv string) bool { return strings.HasPrefix(kv, "POSIXLY_CORRECT=") })
}
