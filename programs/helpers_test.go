package programs

import (
	"fmt"
	"strconv"
	"strings"
	"testing"

	"github.com/hookctl/hookctl/internal/testrows"
)

// row is one judged argument list: a program, its arguments as the program receives them, and
// for a hostile row the phrase its refusal must contain.
type row struct {
	prog string
	args []Arg
	// why is a phrase the refusal's What must contain, so that a hostile row cannot pass
	// because of an unrelated refusal. Required on refused rows, forbidden on allowed ones.
	why string
}

// r builds a row on one line. Each word is a plain string (a bare or plainly quoted word), or an
// Arg made by pat (quoted text holding shell-operator characters) or loopVar (the loop variable).
func r(prog string, words ...any) row {
	x := row{prog: prog}
	for _, w := range words {
		switch w := w.(type) {
		case string:
			x.args = append(x.args, Arg{Value: w})
		case Arg:
			x.args = append(x.args, w)
		default:
			panic(fmt.Sprintf("row %s: a word must be a string or an Arg, not %T", prog, w))
		}
	}
	return x
}

// pat is quoted text with shell-operator characters inside, such as 'a|b' (Arg.Pattern).
func pat(s string) Arg { return Arg{Value: s, Pattern: true} }

// loopVar is the loop variable ("$f") standing for the loop word s (Arg.Var).
func loopVar(s string) Arg { return Arg{Value: s, Var: true} }

// loopGlob is the loop variable over a glob word s: one file name the judge has not seen.
func loopGlob(s string) Arg { return Arg{Value: s, Var: true, Glob: true} }

// because names the phrase the refusal must contain.
func (x row) because(phrase string) row {
	x.why = phrase
	return x
}

// String renders the row for messages and duplicate detection: pattern text in single quotes,
// the loop variable as $f=WORD.
func (x row) String() string {
	parts := []string{x.prog}
	for _, a := range x.args {
		switch {
		case a.Var:
			parts = append(parts, "$f="+strconv.Quote(a.Value))
		case a.Pattern:
			parts = append(parts, "'"+a.Value+"'")
		case a.Value == "" || strings.ContainsAny(a.Value, " \t\n\"'"):
			parts = append(parts, strconv.Quote(a.Value))
		default:
			parts = append(parts, a.Value)
		}
	}
	return strings.Join(parts, " ")
}

// reporter is the part of *testing.T that check uses (testrows.Reporter).
type reporter = testrows.Reporter

// check judges every row with Lookup(prog).Judge and reports every miss, not only the first.
// An allowed row must be allowed; a refused row must be refused by its own program's rule with a
// What that contains the row's phrase. A row judged twice in one test is an error.
func check(t reporter, wantAllow bool, rows ...row) {
	t.Helper()
	for _, x := range rows {
		key := x.String()
		if testrows.Twice(t, key) {
			t.Errorf("duplicate row: %s", key)
			continue
		}
		p := Lookup(x.prog)
		if p == nil {
			t.Errorf("%s: %q is not on the allowlist", key, x.prog)
			continue
		}
		ref := p.Judge(x.args)
		switch {
		case wantAllow && x.why != "":
			t.Errorf("%s: an allowed row may not name a refusal phrase", key)
		case wantAllow && ref != nil:
			t.Errorf("%s: refused (%s), want allowed", key, ref.Error())
		case wantAllow:
		case x.why == "":
			t.Errorf("%s: a hostile row must name the phrase its refusal contains (.because)", key)
		case ref == nil:
			t.Errorf("%s: ALLOWED, want refused because %q", key, x.why)
		case !strings.HasPrefix(ref.Program, x.prog):
			t.Errorf("%s: refused by %q, not by the %s rule: %s", key, ref.Program, x.prog, ref.What)
		case !strings.Contains(ref.What, x.why):
			t.Errorf("%s: refused for another reason: %q, want it to say %q", key, ref.What, x.why)
		}
	}
}

// TestCheckReportsMisses keeps the helper honest: it must report a row judged the wrong way, a
// refusal for another reason, a hostile row without a phrase, an unknown program and a
// duplicate, and it must report every miss rather than stop at the first.
func TestCheckReportsMisses(t *testing.T) {
	cases := []struct {
		name  string
		allow bool
		rows  []row
		want  int
	}{
		{"refused row listed as allowed", true, []row{r("sort", "-o", "out")}, 1},
		{"allowed row listed as refused", false, []row{r("sort", "f").because("writes")}, 1},
		{"wrong reason", false, []row{r("sort", "-T", "/tmp").because("writes the result")}, 1},
		{"no phrase", false, []row{r("sort", "-o", "out")}, 1},
		{"phrase on an allowed row", true, []row{r("sort", "f").because("writes")}, 1},
		{"unknown program", true, []row{r("rm", "f")}, 1},
		{"duplicate", true, []row{r("sort", "f"), r("sort", "f")}, 1},
		{"pattern and plain words differ", true, []row{r("sort", "-t", ","), r("sort", "-t", pat(","))}, 0},
		{"every miss", true, []row{r("sort", "-o", "a"), r("sort", "-T", "b"), r("sort", "-n")}, 2},
	}
	for _, c := range cases {
		rec := &testrows.Recorder{}
		check(rec, c.allow, c.rows...)
		rec.Finish()
		if len(rec.Errors) != c.want {
			t.Errorf("%s: check reported %d misses, want %d: %q", c.name, len(rec.Errors), c.want, rec.Errors)
		}
	}
}
