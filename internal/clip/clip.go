// Package clip shortens text for messages without ever cutting inside a UTF-8 sequence.
//
// Every message hookctl writes that quotes the model's input, a server's reply or a file goes
// through here: a cut in the middle of a multi-byte character would put invalid UTF-8 into JSON
// the client parses, and a reason the client cannot parse lets the call run.
package clip

import "unicode/utf8"

// Quote is how many bytes of the model's own text a refusal quotes back.
const Quote = 40

// String returns s if it is at most n bytes, otherwise its longest prefix of at most n bytes
// that ends on a character boundary, followed by "…".
func String(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return Prefix(s, n) + "…"
}

// Short is String(s, Quote).
func Short(s string) string { return String(s, Quote) }

// Prefix returns the longest prefix of s of at most n bytes that ends on a character boundary.
func Prefix(s string, n int) string {
	if n <= 0 {
		return ""
	}
	if len(s) <= n {
		return s
	}
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	return s[:n]
}
