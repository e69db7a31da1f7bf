package programs

import (
	"strings"
	"testing"
)

// TestXargsOptions: xargs's own words end at the program, and only -0 with the counting and
// printing options gets there; alone, xargs is refused.
func TestXargsOptions(t *testing.T) {
	for _, c := range []struct {
		args    string
		at      int
		refused string
	}{
		{args: "-0 wc -l", at: 1},
		{args: "-0 -r -n 5 -P 2 -t grep -n x", at: 7},
		{args: "--null --no-run-if-empty --max-args=3 --max-procs 2 cat", at: 5},
		{args: "-0 -n5 cat", at: 2},
		{args: "-0 -- cat -n", at: 2},
		{args: "-0 cat -I x", at: 1}, // -I after the program is the program's
		{args: "wc -l", refused: "without -0"},
		{args: "-0", refused: "needs a program"},
		{args: "-0 -I{} wc {}", refused: "`-I{}`"},
		{args: "-0 -a .env cat", refused: "`-a`"},
		{args: "-0 -d x cat", refused: "`-d`"},
		{args: "-0 -p cat", refused: "`-p`"},
		{args: "-0 -o cat", refused: "`-o`"},
		{args: "-0 -E x cat", refused: "`-E`"},
		{args: "-0r cat", refused: "`-0r`"},
		{args: "-0 --arg-file=x cat", refused: "`--arg-file=x`"},
		{args: "-0 -n", refused: "`-n`"},
	} {
		at, r := XargsProgram(strings.Fields(c.args))
		switch {
		case c.refused == "" && r != nil:
			t.Errorf("xargs %s refused: %v", c.args, r)
		case c.refused == "" && at != c.at:
			t.Errorf("xargs %s: program at %d, want %d", c.args, at, c.at)
		case c.refused != "" && r == nil:
			t.Errorf("xargs %s admitted (program at %d)", c.args, at)
		case c.refused != "" && !strings.Contains(r.Error(), c.refused):
			t.Errorf("xargs %s refused with %q, want %q", c.args, r.Error(), c.refused)
		}
	}
	if r := xargsRule.Judge(nil); r == nil {
		t.Error("xargs alone admitted")
	}
	for _, c := range []struct {
		find string
		ok   bool
	}{
		{". -name *.go -print0", true},
		{". -type f -print0 -prune", true},
		{". -name *.go", false},
		{". -print0 -print", false},
		{". -printf %p\\0", false},
		{". -print0 -ls", false},
		{". -print0 -exec cat {} +", false},
	} {
		if got := FindPrintsNames(strings.Fields(c.find)); got != c.ok {
			t.Errorf("FindPrintsNames(%s) = %v", c.find, got)
		}
	}
}
