package nested

import (
	"strings"
	"testing"
)

// TestInterpreters: where each interpreter finds its code, as argv → code and whether it reads
// its program from standard input.
func TestInterpreters(t *testing.T) {
	rows := []struct {
		argv  string // split on spaces
		code  string // the code found, joined with |
		stdin bool
	}{
		{"python3", "", true},
		{"python3 -", "", true},
		{"python3 -c code", "code", false},
		{"python3 -ccode", "code", false},
		{"python3 -m json.tool", "", false},
		{"python3 -W ignore -c code", "code", false},
		{"python3 script.py -c x", "", false},
		{"python3 -- -", "", true},
		{"python3.12 -u -", "", true},
		{"perl -e code -e more", "code|more", false},
		{"perl -ne code", "code", false},
		{"perl -I lib script.pl", "", false},
		{"perl -MEnglish -e code", "code", false}, // -M takes the rest of its word: E is not -e
		{"node --eval=code", "code", false},
		{"node --eval code", "code", false},
		{"node -p code", "code", false},
		{"node app.js", "", false},
		{"ruby -e code", "code", false},
		{"php -r code", "code", false},
		{"php -f file.php", "", false},
		{"awk prog file", "prog", false},
		{"awk -F : prog file", "prog", false},
		{"awk -v x=1 prog", "prog", false},
		{"awk -f prog.awk file", "", false},
		{"awk -f - file", "", true},
		{"gawk -e prog", "prog", false},
		{"awk", "", false},
		{"sh", "", true},
		{"sh -s -- a b", "", true},
		{"sh -c code", "code", false},
		{"bash -euo pipefail -c code", "code", false},
		{"bash script.sh", "", false},
		{"fish --command code", "code", false},
		{"expect -c code", "code", false},
		{"expect -f -", "", true},
		{"make", "", false},
		{"make -f -", "", true},
		{"make -f /dev/stdin all", "", true},
		{"make -C dir -f Makefile all", "", false},
		{"make --eval=rules all", "rules", false},
		{"lua -e code", "code", false},
		{"osascript -e code", "code", false},
	}
	for _, r := range rows {
		w := strings.Fields(r.argv)
		in := LookupInterpreter(w[0])
		if in == nil {
			t.Errorf("%s: not an interpreter", w[0])
			continue
		}
		code, stdin := in.CodeArgs(w[1:])
		var got []string
		for _, c := range code {
			got = append(got, c.Text)
		}
		if strings.Join(got, "|") != r.code || stdin != r.stdin {
			t.Errorf("%s: code %q, stdin %v; want %q, %v", r.argv, got, stdin, r.code, r.stdin)
		}
	}
	for _, n := range []string{"python3.12", "perl5.36", "pythonx", "make"} {
		if got := LookupInterpreter(n) != nil; got != (n != "pythonx") {
			t.Errorf("LookupInterpreter(%q) = %v", n, got)
		}
	}
}
