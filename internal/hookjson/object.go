// Package hookjson writes and reads the JSON of hook protocols: the few fixed shapes of hook
// output, written by hand (reflection's first use cost more than the rest of a hook call's
// encoding), and the strict reading of payloads every adapter shares.
package hookjson

import (
	"unicode/utf8"
)

// Object builds one JSON object, members in the order written. Hook output is a few fixed
// shapes of strings and nested objects; writing them by hand keeps encoding/json's reflection
// off the hook's path.
type Object struct{ b []byte }

func (o *Object) key(k string) {
	if len(o.b) == 0 {
		o.b = append(o.b, '{')
	} else {
		o.b = append(o.b, ',')
	}
	o.b = AppendString(o.b, k)
	o.b = append(o.b, ':')
}

// Str adds a string member.
func (o *Object) Str(k, v string) {
	o.key(k)
	o.b = AppendString(o.b, v)
}

// Obj adds a nested object.
func (o *Object) Obj(k string, v Object) {
	o.key(k)
	o.b = append(o.b, v.Bytes()...)
}

// Raw adds a member whose value is JSON already (the client's own tool input).
func (o *Object) Raw(k string, v []byte) {
	o.key(k)
	o.b = append(o.b, v...)
}

// Bytes is the object.
func (o *Object) Bytes() []byte {
	if len(o.b) == 0 {
		return []byte("{}")
	}
	return append(o.b, '}')
}

// Line is the object and a newline: the whole of the hook's stdout.
func (o *Object) Line() []byte { return append(o.Bytes(), '\n') }

const hexDigits = "0123456789abcdef"

// AppendString appends s as a JSON string, escaped as encoding/json escapes it with HTML
// escaping off: quote, backslash and control characters, U+2028 and U+2029 (which end a line in
// JavaScript), and invalid UTF-8 as U+FFFD, so that the output is always valid JSON and valid
// UTF-8 whatever the reason quotes.
func AppendString(b []byte, s string) []byte {
	b = append(b, '"')
	start := 0
	for i := 0; i < len(s); {
		c := s[i]
		if c < utf8.RuneSelf {
			if c >= 0x20 && c != '"' && c != '\\' {
				i++
				continue
			}
			b = append(b, s[start:i]...)
			switch c {
			case '"', '\\':
				b = append(b, '\\', c)
			case '\n':
				b = append(b, '\\', 'n')
			case '\r':
				b = append(b, '\\', 'r')
			case '\t':
				b = append(b, '\\', 't')
			case '\b':
				b = append(b, '\\', 'b')
			case '\f':
				b = append(b, '\\', 'f')
			default:
				b = append(b, '\\', 'u', '0', '0', hexDigits[c>>4], hexDigits[c&0xf])
			}
			i++
			start = i
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError && size == 1 {
			b = append(b, s[start:i]...)
			b = append(b, `\ufffd`...)
			i += size
			start = i
			continue
		}
		if r == '\u2028' || r == '\u2029' {
			b = append(b, s[start:i]...)
			b = append(b, '\\', 'u', '2', '0', '2', hexDigits[r&0xf])
			i += size
			start = i
			continue
		}
		i += size
	}
	b = append(b, s[start:]...)
	return append(b, '"')
}
