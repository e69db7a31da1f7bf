package proxy

import (
	"bytes"
	"strconv"
	"unicode/utf16"
	"unicode/utf8"
)

// scanner reads a model request's JSON once, for checkBody's shapes: it holds the text and an
// offset, and only its primitives move the offset. It validates as it goes (RFC 8259), so
// that a value the shapes skip is still one value the provider reads the same way; strings
// are skipped with a byte search, not decoded, unless a shape needs their text (keys, types):
// one pass, where a general JSON library rescans each nested value to find its end.
type scanner struct {
	data  []byte
	pos   int
	depth int
	// model is the request's model, as modelName kept it.
	model string
}

func (s *scanner) bad(at, why string) *bodyRefusal {
	if at == "" {
		at = "the body"
	}
	return &bodyRefusal{at, why}
}

// space skips white space.
func (s *scanner) space() {
	for s.pos < len(s.data) {
		switch s.data[s.pos] {
		case ' ', '\t', '\n', '\r':
			s.pos++
		default:
			return
		}
	}
}

// peek is the next byte after white space, or 0 at the end.
func (s *scanner) peek() byte {
	s.space()
	if s.pos < len(s.data) {
		return s.data[s.pos]
	}
	return 0
}

// enter counts a level of nesting, refusing past maxJSONDepth; leave undoes it.
func (s *scanner) enter(at string) *bodyRefusal {
	if s.depth++; s.depth > maxJSONDepth {
		return s.bad(at, "nested more than "+strconv.Itoa(maxJSONDepth)+" levels")
	}
	return nil
}

func (s *scanner) leave() { s.depth-- }

// open consumes the opening bracket of the container at (what, in the refusal), one level
// deeper; once it has succeeded the caller defers s.leave().
func (s *scanner) open(at string, bracket byte, what string) *bodyRefusal {
	if s.peek() != bracket {
		return s.bad(at, "not "+what)
	}
	if bad := s.enter(at); bad != nil {
		return bad
	}
	s.pos++
	return nil
}

// object reads an object, calling each for every key with the scanner at its value (which each
// must consume). A key twice is refused.
func (s *scanner) object(at string, each func(key, where string) *bodyRefusal) *bodyRefusal {
	if bad := s.open(at, '{', "an object"); bad != nil {
		return bad
	}
	defer s.leave()
	var keys []string
	if s.peek() == '}' {
		s.pos++
		return nil
	}
	for {
		if s.peek() != '"' {
			return s.bad(at, "not JSON (an object's key)")
		}
		key, bad := s.stringValue(at)
		if bad != nil {
			return bad
		}
		where := join(at, key)
		for _, k := range keys {
			if k == key {
				return s.bad(where, "appears twice in its object (the provider would read one, the broker the other)")
			}
		}
		keys = append(keys, key)
		if s.peek() != ':' {
			return s.bad(where, "not JSON (no colon after the key)")
		}
		s.pos++
		s.space()
		if bad := each(key, where); bad != nil {
			return bad
		}
		switch s.peek() {
		case ',':
			s.pos++
		case '}':
			s.pos++
			return nil
		default:
			return s.bad(where, "not JSON (after the value)")
		}
	}
}

// array reads an array, calling each with the scanner at every element.
func (s *scanner) array(at string, each func(where string) *bodyRefusal) *bodyRefusal {
	if bad := s.open(at, '[', "a list"); bad != nil {
		return bad
	}
	defer s.leave()
	if s.peek() == ']' {
		s.pos++
		return nil
	}
	for i := 0; ; i++ {
		where := at + "[" + strconv.Itoa(i) + "]"
		s.space()
		if bad := each(where); bad != nil {
			return bad
		}
		switch s.peek() {
		case ',':
			s.pos++
		case ']':
			s.pos++
			return nil
		default:
			return s.bad(where, "not JSON (after the element)")
		}
	}
}

// skipValue reads any one value, validating it.
func (s *scanner) skipValue(at string) *bodyRefusal {
	switch c := s.peek(); {
	case c == '{':
		return s.object(at, func(_, where string) *bodyRefusal { return s.skipValue(where) })
	case c == '[':
		return s.array(at, func(where string) *bodyRefusal { return s.skipValue(where) })
	case c == '"':
		_, _, bad := s.stringSpan(at)
		return bad
	case c == '-' || c >= '0' && c <= '9':
		return s.number(at)
	}
	for _, lit := range []string{"true", "false", "null"} {
		if bytes.HasPrefix(s.data[s.pos:], []byte(lit)) {
			s.pos += len(lit)
			return nil
		}
	}
	return s.bad(at, "not JSON")
}

// stringSpan reads a string and returns its content as written (escapes not decoded), and
// whether it has escapes. It finds the closing quote with a byte search.
func (s *scanner) stringSpan(at string) ([]byte, bool, *bodyRefusal) {
	start := s.pos + 1
	i := start
	escaped := false
	for {
		q := bytes.IndexByte(s.data[i:], '"')
		if q < 0 {
			return nil, false, s.bad(at, "not JSON (an unterminated string)")
		}
		seg := s.data[i : i+q]
		b := bytes.IndexByte(seg, '\\')
		if b < 0 {
			i += q
			break
		}
		// An escape before the quote: read escapes from there, one by one.
		escaped = true
		i += b
		for i < len(s.data) && s.data[i] != '"' {
			if s.data[i] != '\\' {
				i++
				continue
			}
			if i+1 >= len(s.data) {
				return nil, false, s.bad(at, "not JSON (an unterminated string)")
			}
			switch s.data[i+1] {
			case '"', '\\', '/', 'b', 'f', 'n', 'r', 't':
				i += 2
			case 'u':
				if i+6 > len(s.data) || !isHex4(s.data[i+2:i+6]) {
					return nil, false, s.bad(at, "not JSON (a bad \\u escape)")
				}
				i += 6
			default:
				return nil, false, s.bad(at, "not JSON (a bad escape)")
			}
		}
		if i >= len(s.data) {
			return nil, false, s.bad(at, "not JSON (an unterminated string)")
		}
		break
	}
	// A raw control character in a string is not checked for: it changes nothing of the
	// structure (the closing quote is found the same way), and the provider refuses it.
	s.pos = i + 1
	return s.data[start:i], escaped, nil
}

func isHex4(b []byte) bool {
	for _, c := range b {
		if !(c >= '0' && c <= '9' || c >= 'a' && c <= 'f' || c >= 'A' && c <= 'F') {
			return false
		}
	}
	return true
}

// stringValue reads a string and decodes it as a JSON decoder would (a lone surrogate becomes
// U+FFFD).
func (s *scanner) stringValue(at string) (string, *bodyRefusal) {
	raw, escaped, bad := s.stringSpan(at)
	if bad != nil || !escaped {
		return string(raw), bad
	}
	out := make([]byte, 0, len(raw))
	for i := 0; i < len(raw); {
		c := raw[i]
		if c != '\\' {
			out = append(out, c)
			i++
			continue
		}
		switch raw[i+1] {
		case 'b':
			out = append(out, '\b')
		case 'f':
			out = append(out, '\f')
		case 'n':
			out = append(out, '\n')
		case 'r':
			out = append(out, '\r')
		case 't':
			out = append(out, '\t')
		case 'u':
			r := rune(hex4(raw[i+2 : i+6]))
			i += 6
			if utf16.IsSurrogate(r) && i+6 <= len(raw) && raw[i] == '\\' && raw[i+1] == 'u' {
				if r2 := utf16.DecodeRune(r, rune(hex4(raw[i+2:i+6]))); r2 != utf8.RuneError {
					out = utf8.AppendRune(out, r2)
					i += 6
					continue
				}
			}
			if utf16.IsSurrogate(r) {
				r = utf8.RuneError
			}
			out = utf8.AppendRune(out, r)
			continue
		default: // " \ /
			out = append(out, raw[i+1])
		}
		i += 2
	}
	return string(out), nil
}

func hex4(b []byte) int {
	v := 0
	for _, c := range b {
		switch {
		case c >= '0' && c <= '9':
			v = v<<4 | int(c-'0')
		case c >= 'a' && c <= 'f':
			v = v<<4 | int(c-'a'+10)
		default:
			v = v<<4 | int(c-'A'+10)
		}
	}
	return v
}

// number reads a JSON number: -? int frac? exp?.
func (s *scanner) number(at string) *bodyRefusal {
	d, i := s.data, s.pos
	digits := func() int {
		n := 0
		for i < len(d) && d[i] >= '0' && d[i] <= '9' {
			i++
			n++
		}
		return n
	}
	if i < len(d) && d[i] == '-' {
		i++
	}
	switch {
	case i < len(d) && d[i] == '0':
		i++
	case digits() == 0:
		return s.bad(at, "not JSON (a number)")
	}
	if i < len(d) && d[i] == '.' {
		i++
		if digits() == 0 {
			return s.bad(at, "not JSON (a number)")
		}
	}
	if i < len(d) && (d[i] == 'e' || d[i] == 'E') {
		i++
		if i < len(d) && (d[i] == '+' || d[i] == '-') {
			i++
		}
		if digits() == 0 {
			return s.bad(at, "not JSON (a number)")
		}
	}
	s.pos = i
	return nil
}
