package clip

import "testing"

// TestVisible: each kind of invisible character, and a byte that is not UTF-8, is shown.
func TestVisible(t *testing.T) {
	for in, want := range map[string]string{
		"a\u202Eb":         "a⟨U+202E⟩b",
		"\u2067x":          "⟨U+2067⟩x",
		"z\u200Cw":         "z⟨U+200C⟩w",
		"\u00ADsoft":       "⟨U+00AD⟩soft",
		"l\u2028s":         "l⟨U+2028⟩s",
		"bad\xffbyte":      "bad⟨0xFF⟩byte",
		"nl\n\ttab":        "nl\n\ttab",
		"cr\r":             "cr⟨U+000D⟩",
		"🔒 ✏ 👁 ⚠":          "🔒 ✏ 👁 ⚠",
		"\x1b]52;c;aGk=\a": "⟨U+001B⟩]52;c;aGk=⟨U+0007⟩", // OSC 52 writes the clipboard
		"plain":            "plain",
	} {
		if got := Visible(in); got != want {
			t.Errorf("Visible(%q) = %q, want %q", in, got, want)
		}
	}
}
