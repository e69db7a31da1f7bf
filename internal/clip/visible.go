package clip

import (
	"fmt"
	"strings"
	"unicode"
	"unicode/utf8"
)

// Visible shows format characters (bidi controls, zero-width ones, the byte-order mark),
// control characters other than newline and tab, the line and paragraph separators, and bytes
// that are not UTF-8, as ⟨U+XXXX⟩ (⟨0xXX⟩ for a byte). Text the model or a web page wrote goes
// through it before it reaches a terminal or a page: an escape sequence in a logged command
// would otherwise retitle the user's terminal, write their clipboard (OSC 52) or hide a line,
// and a bidi control would make what is shown differ from what was run.
func Visible(s string) string {
	clean := true
	for _, r := range s {
		if r == utf8.RuneError || needsShowing(r) {
			clean = false
			break
		}
	}
	if clean {
		return s
	}
	var b strings.Builder
	for i := 0; i < len(s); {
		r, n := utf8.DecodeRuneInString(s[i:])
		switch {
		case r == utf8.RuneError && n == 1:
			fmt.Fprintf(&b, "⟨0x%02X⟩", s[i])
		case needsShowing(r):
			fmt.Fprintf(&b, "⟨U+%04X⟩", r)
		default:
			b.WriteString(s[i : i+n])
		}
		i += n
	}
	return b.String()
}

func needsShowing(r rune) bool {
	if r == '\n' || r == '\t' {
		return false
	}
	return unicode.Is(unicode.Cf, r) || unicode.IsControl(r) || r == '\u2028' || r == '\u2029'
}
