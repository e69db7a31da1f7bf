package sandbox

import (
	"strings"
	"testing"
)

func TestSeatbelt(t *testing.T) {
	p := ReadOnly([]string{"/Users/u/.config/hookctl", `/Users/u/odd "dir"\x`}, "/private/tmp/hookctl-sandbox-501/s")
	got := Seatbelt(p)
	for _, want := range []string{
		"(version 1)\n(deny default)\n",
		`(allow file-read* (require-all (subpath "/") (require-not (subpath "/Users/u/.config/hookctl")) (require-not (subpath "/Users/u/odd \"dir\"\\x"))))`,
		`(allow file-write* (subpath "/private/tmp/hookctl-sandbox-501/s"))`,
		`(allow file-write-data file-ioctl (literal "/dev/null"))`,
		`(allow file-write-data file-ioctl (literal "/dev/tty"))`,
		"(allow signal (target same-sandbox))",
	} {
		if !strings.Contains(got, want) {
			t.Errorf("missing %s in\n%s", want, got)
		}
	}
	// Nothing grants the network or writes elsewhere: every allow is one of these forms.
	for _, line := range strings.Split(strings.TrimSpace(got), "\n") {
		switch {
		case strings.Contains(line, "network"):
			t.Errorf("a network rule: %s", line)
		case strings.HasPrefix(line, "(allow file-write*") && !strings.Contains(line, p.Scratch):
			t.Errorf("a write outside the scratch directory: %s", line)
		}
	}
	// Parentheses balance, and every string is closed: sandbox-exec refuses a malformed profile.
	depth, inString := 0, false
	for i := 0; i < len(got); i++ {
		switch c := got[i]; {
		case inString && c == '\\':
			i++
		case c == '"':
			inString = !inString
		case !inString && c == '(':
			depth++
		case !inString && c == ')':
			depth--
			if depth < 0 {
				t.Fatalf("unbalanced at %d", i)
			}
		}
	}
	if depth != 0 || inString {
		t.Errorf("depth %d, open string %v", depth, inString)
	}
}
