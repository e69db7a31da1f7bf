package lexer

// The one reader of shell words in mvdan.cc/sh trees. Every judge that reads a parsed command —
// the cross-check of the hand lexer, the network router, the edit-mode guard and its
// self-protection rules — gets a word's value from here, so that two judges can never read the
// same word differently: `cu\rl`, `"cu"rl`, `c''url` and `$'\x63url'` are all curl, to all of
// them.
//
// A value is given only when the text alone fixes it and bash and zsh agree on it. Where they
// differ (a NUL in $'…', which bash cuts the string at; `\c` and unknown escapes; $"…", which
// zsh reads as a literal `$`; a leading `=`, which zsh expands to a program's path) the word is
// not literal: a judge cannot know which shell will run the command, and treats it as it treats
// any word it cannot know.

import (
	"strconv"
	"strings"
	"unicode/utf8"

	"mvdan.cc/sh/v3/syntax"
)

// Literal returns the value the shell gives w when the text alone fixes it: only plain, quoted
// and $'…' text, no expansion of any kind (parameters, substitutions, arithmetic, tilde, brace
// or pathname expansion), and read alike by bash and zsh. Otherwise it returns false.
func Literal(w *syntax.Word) (string, bool) {
	v, glob, ok := Text(w)
	if !ok || glob {
		return "", false
	}
	return v, true
}

// Text is Literal for a word that may hold unquoted glob characters: it returns the word's text
// with quotes removed and reports whether an unquoted *, ? or [ stands in it, which the shell
// would expand to file names. A judge that runs the text itself, quoted (the network router
// rewrites the command), may read such a word as text; every other expansion still makes the
// word not literal.
func Text(w *syntax.Word) (value string, glob, ok bool) {
	if w == nil {
		return "", false, false
	}
	if len(w.Parts) == 0 {
		return "", false, true
	}
	if len(w.Parts) == 1 {
		if l, ok := w.Parts[0].(*syntax.Lit); ok && (plainBare(l.Value) || l.Value == "[") {
			// The common case: no copy. A word that is exactly `[` has no bracket pair, so
			// neither bash nor zsh expands it (the test builtin's name, `[ -f x ]`).
			return l.Value, false, true
		}
	}
	var b strings.Builder
	for i, part := range w.Parts {
		v, g, ok := textPart(part, i == 0)
		if !ok {
			return "", false, false
		}
		glob = glob || g
		b.WriteString(v)
	}
	if hasBraceExpansion(w) {
		return "", false, false
	}
	return b.String(), glob, true
}

// GlobPattern returns w as a shell pattern, in the notation of Word.Glob, when it is literal text
// with at least one unquoted * or ?: the glob characters bare, every quoted or escaped *, ?, [, ]
// and \ escaped. An unquoted [ or ], which the shells read differently, makes it not a pattern.
func GlobPattern(w *syntax.Word) (string, bool) {
	if len(w.Parts) > 0 {
		if l, ok := w.Parts[0].(*syntax.Lit); ok && strings.HasPrefix(l.Value, "~/") {
			// ~/…: the tilde is the shell's (Word.Tilde); the rest is the pattern.
			rest := &syntax.Word{Parts: append([]syntax.WordPart{&syntax.Lit{Value: l.Value[1:]}}, w.Parts[1:]...)}
			pat, ok := GlobPattern(rest)
			return "~" + pat, ok
		}
	}
	if _, glob, ok := Text(w); !ok || !glob {
		return "", false
	}
	var b strings.Builder
	escape := func(s string) {
		for i := 0; i < len(s); i++ {
			if strings.IndexByte(`*?[]\`, s[i]) >= 0 {
				b.WriteByte('\\')
			}
			b.WriteByte(s[i])
		}
	}
	for i, part := range w.Parts {
		if l, ok := part.(*syntax.Lit); ok {
			v := l.Value
			for j := 0; j < len(v); j++ {
				switch c := v[j]; c {
				case '\\':
					if j+1 < len(v) {
						j++
						escape(v[j : j+1])
					}
				case '*', '?':
					b.WriteByte(c)
				case '[', ']':
					return "", false
				default:
					b.WriteByte(c)
				}
			}
			continue
		}
		v, _, ok := textPart(part, i == 0)
		if !ok {
			return "", false
		}
		escape(v)
	}
	return b.String(), true
}

func textPart(part syntax.WordPart, first bool) (value string, glob, ok bool) {
	switch p := part.(type) {
	case *syntax.Lit:
		v := p.Value
		if first && v != "" && (v[0] == '~' || v[0] == '=' && v != "=") {
			return "", false, false // tilde expansion; zsh's =cmd (a lone = is itself)
		}
		if unquotedTildeAfterAssign(v) {
			return "", false, false
		}
		return UnescapeBare(v), unquotedGlob(v), true
	case *syntax.SglQuoted:
		if p.Dollar {
			v, ok := DecodeANSIC(p.Value)
			return v, false, ok
		}
		return p.Value, false, true
	case *syntax.DblQuoted:
		if p.Dollar {
			return "", false, false // bash: a translated string; zsh: a `$` then a string
		}
		var b strings.Builder
		for _, q := range p.Parts {
			l, ok := q.(*syntax.Lit)
			if !ok {
				return "", false, false
			}
			b.WriteString(UnescapeDouble(l.Value))
		}
		return b.String(), false, true
	}
	return "", false, false
}

// plainBare reports whether an unquoted literal is its own value: no escape, glob, brace,
// tilde or leading `=`.
func plainBare(s string) bool {
	if s == "" || s[0] == '~' || s[0] == '=' {
		return s == ""
	}
	return strings.IndexAny(s, "\\*?[]{}~") < 0
}

// unquotedGlob reports whether unquoted text holds a pathname-expansion character that is not
// escaped.
func unquotedGlob(s string) bool {
	for i := 0; i < len(s); i++ {
		switch s[i] {
		case '\\':
			i++ // the next byte is escaped
		case '*', '?', '[':
			return true
		}
	}
	return false
}

// unquotedTildeAfterAssign reports an unescaped `~` right after `=` or `:` in unquoted text:
// bash expands it in words that look like assignments, even as a command's arguments.
func unquotedTildeAfterAssign(s string) bool {
	for i := 1; i < len(s); i++ {
		if s[i-1] == '\\' {
			i++
			continue
		}
		if s[i] == '~' && (s[i-1] == '=' || s[i-1] == ':') {
			return true
		}
	}
	return false
}

// hasBraceExpansion reports whether the shell would brace-expand w ({a,b}, {1..3}).
func hasBraceExpansion(w *syntax.Word) bool {
	seen := false
	for _, p := range w.Parts {
		if l, ok := p.(*syntax.Lit); ok && strings.IndexByte(l.Value, '{') >= 0 {
			seen = true
			break
		}
	}
	if !seen {
		return false
	}
	// SplitBraces rewrites the word it is given: split a shallow copy.
	split := &syntax.Word{Parts: append([]syntax.WordPart(nil), w.Parts...)}
	syntax.SplitBraces(split)
	for _, p := range split.Parts {
		if _, ok := p.(*syntax.BraceExp); ok {
			return true
		}
	}
	return false
}

// UnescapeBare removes the backslashes of unquoted text: `\x` is x. (mvdan has already removed
// each backslash-newline, a line continuation.)
func UnescapeBare(s string) string {
	if strings.IndexByte(s, '\\') < 0 {
		return s
	}
	var b strings.Builder
	b.Grow(len(s))
	for i := 0; i < len(s); i++ {
		if s[i] == '\\' && i+1 < len(s) {
			i++
		}
		b.WriteByte(s[i])
	}
	return b.String()
}

// UnescapeDouble removes the backslashes that double quotes honour: before $ ` " \ and newline.
// Any other backslash is kept.
func UnescapeDouble(s string) string {
	if strings.IndexByte(s, '\\') < 0 {
		return s
	}
	var b strings.Builder
	b.Grow(len(s))
	for i := 0; i < len(s); i++ {
		if s[i] == '\\' && i+1 < len(s) && strings.IndexByte("$`\"\\\n", s[i+1]) >= 0 {
			i++
			if s[i] == '\n' {
				continue
			}
		}
		b.WriteByte(s[i])
	}
	return b.String()
}

// UnescapeHeredoc removes the backslashes the body of a here-document with an unquoted
// delimiter honours: before $ ` \ and newline (a line continuation). Unlike double quotes, a
// backslash before `"` is kept.
func UnescapeHeredoc(s string) string {
	if strings.IndexByte(s, '\\') < 0 {
		return s
	}
	var b strings.Builder
	b.Grow(len(s))
	for i := 0; i < len(s); i++ {
		if s[i] == '\\' && i+1 < len(s) && strings.IndexByte("$`\\\n", s[i+1]) >= 0 {
			i++
			if s[i] == '\n' {
				continue
			}
		}
		b.WriteByte(s[i])
	}
	return b.String()
}

// ansiCEscapes are the one-letter escapes of $'…' on which bash and zsh agree, and ansiCEscaped
// the bytes they stand for, in the same order.
const ansiCEscapes, ansiCEscaped = "abeEfnrtv\\'\"", "\a\b\x1b\x1b\f\n\r\t\v\\'\""

// DecodeANSIC decodes the body of a $'…' string. It reports false where bash and zsh decode it
// differently or where the result holds a NUL (bash ends the string there, zsh keeps it): an
// unknown escape, `\c`, `\x` without digits, and any escape that makes a NUL.
func DecodeANSIC(s string) (string, bool) {
	if strings.IndexByte(s, '\\') < 0 {
		return s, true
	}
	var b strings.Builder
	b.Grow(len(s))
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c != '\\' {
			b.WriteByte(c)
			continue
		}
		if i+1 >= len(s) {
			return "", false
		}
		i++
		switch e, k := s[i], strings.IndexByte(ansiCEscapes, s[i]); {
		case k >= 0:
			b.WriteByte(ansiCEscaped[k])
		case e == 'x' || e == 'u' || e == 'U':
			digits := map[byte]int{'x': 2, 'u': 4, 'U': 8}[e]
			k := i + 1
			for k < len(s) && k-i-1 < digits && isHex(s[k]) {
				k++
			}
			if k == i+1 {
				return "", false
			}
			n, err := strconv.ParseUint(s[i+1:k], 16, 32)
			if err != nil || n == 0 {
				return "", false
			}
			if e == 'x' {
				b.WriteByte(byte(n))
			} else {
				if n > utf8.MaxRune || 0xd800 <= n && n <= 0xdfff {
					return "", false
				}
				b.WriteRune(rune(n))
			}
			i = k - 1
		case '0' <= e && e <= '7':
			k := i
			for k < len(s) && k-i < 3 && s[k] >= '0' && s[k] <= '7' {
				k++
			}
			n, _ := strconv.ParseUint(s[i:k], 8, 16)
			if n == 0 || n > 0xff {
				return "", false
			}
			b.WriteByte(byte(n))
			i = k - 1
		default:
			return "", false
		}
	}
	return b.String(), true
}

func isHex(c byte) bool {
	return '0' <= c && c <= '9' || 'a' <= c && c <= 'f' || 'A' <= c && c <= 'F'
}
