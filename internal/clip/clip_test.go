package clip

import (
	"strings"
	"testing"
	"unicode/utf8"
)

func TestString(t *testing.T) {
	for _, tc := range []struct {
		in   string
		n    int
		want string
	}{
		{"short", 40, "short"},
		{"exactly", 7, "exactly"},
		{"one over", 7, "one ove…"},
		{"héllo", 2, "h…"}, // é is two bytes: never half of it
		{"héllo", 3, "hé…"},
		{"日本語", 4, "日…"},
		{"日本語", 2, "…"},
		{"", 0, ""},
		{"x", 0, "…"},
	} {
		if got := String(tc.in, tc.n); got != tc.want {
			t.Errorf("String(%q, %d) = %q, want %q", tc.in, tc.n, got, tc.want)
		}
	}
}

// TestNeverSplitsARune clips every prefix length of text full of multi-byte characters.
func TestNeverSplitsARune(t *testing.T) {
	s := strings.Repeat("aé日🙂", 20)
	for n := 0; n <= len(s)+1; n++ {
		for _, got := range []string{String(s, n), Prefix(s, n)} {
			if !utf8.ValidString(got) {
				t.Fatalf("clip at %d gave invalid UTF-8 %q", n, got)
			}
		}
		if p := Prefix(s, n); len(p) > n || !strings.HasPrefix(s, p) {
			t.Fatalf("Prefix(%d) = %q: not a prefix of at most %d bytes", n, p, n)
		}
	}
}
