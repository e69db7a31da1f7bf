package claude

// Claude Code settings files are edited in place, never re-encoded: install and uninstall
// change the bytes of the entries they own and nothing else, so a user's comments, key order,
// indentation, line ends and byte order mark survive.
//
// Threat model: the file may have been written by the user, by another tool, or by a model
// that was able to write files. The reader caps size and nesting, runs in linear time, and
// refuses anything it does not fully understand (bad UTF-8, NUL, duplicate keys, ambiguous line
// ends in comments: U+2028, U+2029, a lone CR), naming the line. A refused file is never
// written. Every edit is re-parsed and, in install.go, checked to have changed nothing but
// hookctl's own entries.
//
// Out of scope: what the values mean to Claude Code, beyond the shape of "hooks".

import (
	"bytes"
	"encoding/json"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"unicode/utf16"
	"unicode/utf8"

	"github.com/hookctl/hookctl/internal/clip"
)

const (
	maxSettingsSize  = 4 << 20 // bytes; real settings files are a few kilobytes
	maxSettingsDepth = 64      // nested objects and arrays
)

// utf8BOM is skipped at the start of a file, as Claude Code does (live, 2.1.328).
var utf8BOM = []byte("\xef\xbb\xbf")

// SettingsError points at the line and column (1-based, in characters) of a settings file where
// something is wrong.
type SettingsError struct {
	Line, Column int
	Msg          string
}

func (e *SettingsError) Error() string {
	return fmt.Sprintf("line %d column %d: %s", e.Line, e.Column, e.Msg)
}

// errorAt makes a SettingsError for byte offset off of src.
func errorAt(src []byte, off int, format string, args ...any) error {
	off = min(off, len(src))
	line := 1 + bytes.Count(src[:off], []byte("\n"))
	lineStart := bytes.LastIndexByte(src[:off], '\n') + 1
	return &SettingsError{Line: line, Column: 1 + utf8.RuneCount(src[lineStart:off]), Msg: fmt.Sprintf(format, args...)}
}

type jsonKind uint8

const (
	kindObject jsonKind = iota + 1
	kindArray
	kindString
	kindNumber
	kindLiteral // true, false, null
)

// jsonNode is one value of a parsed file. Offsets are into the source bytes.
type jsonNode struct {
	kind       jsonKind
	start, end int    // the value's own bytes, src[start:end]
	str        string // kindString: the decoded value
	kids       []jsonChild

	// Objects and arrays: where the whitespace before the closing bracket starts (after any
	// comment), and whether a // comment ends there.
	closeWS               int
	closeAfterLineComment bool
}

// jsonChild is a member of an object or an element of an array.
type jsonChild struct {
	key              string // members: the decoded key
	keyStart, keyEnd int    // members: the quoted key; elements: both val.start
	val              *jsonNode
	ws               int  // where the whitespace run just before the child starts (after any comment)
	afterLineComment bool // that run starts where a // comment ends, at its line break
	comma            int  // the comma after the child, or -1
}

func (c *jsonChild) start() int { return c.keyStart }

// member returns the index of the member called key, or -1.
func (n *jsonNode) member(key string) int {
	if n.kind != kindObject {
		return -1
	}
	return slices.IndexFunc(n.kids, func(c jsonChild) bool { return c.key == key })
}

// get returns the value of member key, or nil.
func (n *jsonNode) get(key string) *jsonNode {
	if i := n.member(key); i >= 0 {
		return n.kids[i].val
	}
	return nil
}

// settingsDoc is a parsed settings file.
type settingsDoc struct {
	src   []byte
	root  *jsonNode
	jsonc int // offset of the first comment or trailing comma, -1 if there is none
}

// settingsParser reads JSON with comments. Only next-level helpers (space, str, number, literal,
// container) move off, and each consumes input or returns an error.
type settingsParser struct {
	src   []byte
	off   int
	depth int
	jsonc int

	// Set by space: where the last whitespace run began and whether a // comment ended there.
	ws               int
	afterLineComment bool
}

// parseSettings parses src: size cap first, then the alphabet, then the scan.
func parseSettings(src []byte) (*settingsDoc, error) {
	if len(src) > maxSettingsSize {
		return nil, fmt.Errorf("settings file is larger than %d bytes", maxSettingsSize)
	}
	if i := bytes.IndexByte(src, 0); i >= 0 {
		return nil, errorAt(src, i, "NUL byte")
	}
	if !utf8.Valid(src) {
		return nil, errorAt(src, firstInvalidUTF8(src), "invalid UTF-8")
	}
	p := &settingsParser{src: src, jsonc: -1}
	if bytes.HasPrefix(src, utf8BOM) {
		p.off = len(utf8BOM)
	}
	if err := p.space(); err != nil {
		return nil, err
	}
	root, err := p.value()
	if err != nil {
		return nil, err
	}
	if err := p.space(); err != nil {
		return nil, err
	}
	if p.off < len(src) {
		return nil, p.unexpected("the end of the file")
	}
	return &settingsDoc{src: src, root: root, jsonc: p.jsonc}, nil
}

// ignored is the error of a file the client ignores whole (it holds a comment or a trailing
// comma), wrapping ErrIgnoredByClient; nil for one it reads.
func (d *settingsDoc) ignored() error {
	if d.jsonc < 0 {
		return nil
	}
	return fmt.Errorf("%w: %w", ErrIgnoredByClient, errorAt(d.src, d.jsonc, "comment or trailing comma"))
}

// isTrue reports whether the top-level key is the literal true.
func (d *settingsDoc) isTrue(key string) bool {
	n := d.root.get(key)
	return n != nil && n.kind == kindLiteral && string(d.src[n.start:n.end]) == "true"
}

func firstInvalidUTF8(b []byte) int {
	for i := 0; i < len(b); {
		r, n := utf8.DecodeRune(b[i:])
		if r == utf8.RuneError && n == 1 {
			return i
		}
		i += n
	}
	return len(b)
}

func (p *settingsParser) at(c byte) bool { return p.off < len(p.src) && p.src[p.off] == c }

func (p *settingsParser) peek(i int) byte {
	if p.off+i < len(p.src) {
		return p.src[p.off+i]
	}
	return 0
}

// unexpected reports what was found at the current offset instead of want.
func (p *settingsParser) unexpected(want string) error {
	if p.off >= len(p.src) {
		return errorAt(p.src, p.off, "unexpected end of file, expected %s", want)
	}
	r, _ := utf8.DecodeRune(p.src[p.off:])
	return errorAt(p.src, p.off, "unexpected %q, expected %s", r, want)
}

func (p *settingsParser) markJSONC(off int) {
	if p.jsonc < 0 || off < p.jsonc { // a trailing comma is seen after the comments that follow it
		p.jsonc = off
	}
}

// space skips whitespace and comments, recording where the final whitespace run began.
func (p *settingsParser) space() error {
	p.ws, p.afterLineComment = p.off, false
	for p.off < len(p.src) {
		switch c := p.src[p.off]; {
		case c == ' ' || c == '\t' || c == '\n' || c == '\r':
			p.off++ // consumes one whitespace byte
		case c == '/' && p.peek(1) == '/':
			// Consumes the comment up to, not including, its line break. U+2028 and U+2029 end a
			// line in JavaScript but not in every JSONC reader, so a comment holding one is
			// refused rather than guessed at; so is a carriage return without a line feed,
			// which ends the comment for JavaScript and VS Code but not for JWCC readers such
			// as github.com/tailscale/hujson, which would read what follows as comment.
			p.markJSONC(p.off)
			end := bytes.IndexAny(p.src[p.off:], "\r\n")
			if end < 0 {
				end = len(p.src) - p.off
			}
			if cr := p.off + end; cr < len(p.src) && p.src[cr] == '\r' && (cr+1 == len(p.src) || p.src[cr+1] != '\n') {
				return errorAt(p.src, cr, "carriage return without a line feed after a comment")
			}
			comment := p.src[p.off : p.off+end]
			if i := bytes.Index(comment, []byte("\u2028")); i >= 0 {
				return errorAt(p.src, p.off+i, "line separator U+2028 in a comment")
			}
			if i := bytes.Index(comment, []byte("\u2029")); i >= 0 {
				return errorAt(p.src, p.off+i, "paragraph separator U+2029 in a comment")
			}
			p.off += end
			p.ws, p.afterLineComment = p.off, true
		case c == '/' && p.peek(1) == '*':
			p.markJSONC(p.off)
			end := bytes.Index(p.src[p.off+2:], []byte("*/"))
			if end < 0 {
				return errorAt(p.src, p.off, "unterminated comment")
			}
			p.off += 2 + end + 2 // consumes the whole comment
			p.ws, p.afterLineComment = p.off, false
		default:
			return nil // a token: the caller consumes it
		}
	}
	return nil
}

// value parses one value; it consumes input or returns an error.
func (p *settingsParser) value() (*jsonNode, error) {
	if p.off >= len(p.src) {
		return nil, p.unexpected("a value")
	}
	switch c := p.src[p.off]; {
	case c == '{':
		return p.container(kindObject, '}')
	case c == '[':
		return p.container(kindArray, ']')
	case c == '"':
		n := &jsonNode{kind: kindString, start: p.off}
		s, err := p.str()
		if err != nil {
			return nil, err
		}
		n.str, n.end = s, p.off
		return n, nil
	case c == '-' || ('0' <= c && c <= '9'):
		return p.number()
	default:
		return p.literal()
	}
}

// container parses an object or an array, with comments and trailing commas.
func (p *settingsParser) container(k jsonKind, closer byte) (*jsonNode, error) {
	n := &jsonNode{kind: k, start: p.off}
	if p.depth++; p.depth > maxSettingsDepth {
		return nil, errorAt(p.src, p.off, "nested deeper than %d levels", maxSettingsDepth)
	}
	var seen map[string]bool
	if k == kindObject {
		seen = map[string]bool{}
	}
	p.off++ // consumes the opening bracket
	if err := p.space(); err != nil {
		return nil, err
	}
	for !p.at(closer) {
		c := jsonChild{ws: p.ws, afterLineComment: p.afterLineComment, comma: -1}
		if k == kindObject {
			if !p.at('"') {
				return nil, p.unexpected(`a key in double quotes or "}"`)
			}
			c.keyStart = p.off
			key, err := p.str()
			if err != nil {
				return nil, err
			}
			// JSON.parse keeps the last of two equal keys and a reader that keeps the first
			// would see another file, so a duplicate is refused wherever it is.
			if seen[key] {
				return nil, errorAt(p.src, c.keyStart, "duplicate key %s", clipKey(key))
			}
			seen[key] = true
			c.key, c.keyEnd = key, p.off
			if err := p.space(); err != nil {
				return nil, err
			}
			if !p.at(':') {
				return nil, p.unexpected(`":"`)
			}
			p.off++ // consumes the colon
			if err := p.space(); err != nil {
				return nil, err
			}
		}
		v, err := p.value()
		if err != nil {
			return nil, err
		}
		c.val = v
		if k == kindArray {
			c.keyStart, c.keyEnd = v.start, v.start
		}
		if err := p.space(); err != nil {
			return nil, err
		}
		if !p.at(',') {
			n.kids = append(n.kids, c)
			if !p.at(closer) {
				return nil, p.unexpected(fmt.Sprintf("%q or %q", ',', closer))
			}
			break
		}
		c.comma = p.off
		p.off++ // consumes the comma
		n.kids = append(n.kids, c)
		if err := p.space(); err != nil {
			return nil, err
		}
		if p.at(closer) {
			p.markJSONC(c.comma) // a trailing comma
		}
	}
	n.closeWS, n.closeAfterLineComment = p.ws, p.afterLineComment
	p.off++ // consumes the closing bracket
	n.end = p.off
	p.depth--
	return n, nil
}

// clipKey quotes a key for an error message, shortened: keys are not secrets, but a message
// should stay one readable line.
func clipKey(k string) string {
	return strconv.Quote(clip.Short(k))
}

// str parses a JSON string at the opening quote and returns its decoded value.
func (p *settingsParser) str() (string, error) {
	start := p.off
	p.off++ // consumes the opening quote
	var b strings.Builder
	for {
		if p.off >= len(p.src) {
			return "", errorAt(p.src, start, "unterminated string")
		}
		c := p.src[p.off]
		switch {
		case c == '"':
			p.off++ // consumes the closing quote
			return b.String(), nil
		case c < 0x20:
			return "", errorAt(p.src, p.off, "control character %U in a string", rune(c))
		case c != '\\':
			b.WriteByte(c) // consumes one byte; the whole file is valid UTF-8
			p.off++
			continue
		}
		esc := p.peek(1)
		switch k := strings.IndexByte(jsonEscapes, esc); {
		case k >= 0:
			b.WriteByte(jsonEscaped[k])
		case esc == 'u':
			r, ok := p.hex4(p.off + 2)
			if !ok {
				return "", errorAt(p.src, p.off, `invalid \u escape`)
			}
			if utf16.IsSurrogate(r) {
				// A pair is one character; a lone half becomes U+FFFD, as in encoding/json.
				if r2, ok := p.hex4(p.off + 8); ok && p.peek(6) == '\\' && p.peek(7) == 'u' {
					if pair := utf16.DecodeRune(r, r2); pair != utf8.RuneError {
						b.WriteRune(pair)
						p.off += 12 // consumes both escapes
						continue
					}
				}
				r = utf8.RuneError
			}
			b.WriteRune(r)
			p.off += 6 // consumes \uXXXX
			continue
		default:
			return "", errorAt(p.src, p.off, "invalid escape in a string")
		}
		p.off += 2 // consumes the two-byte escape
	}
}

// jsonEscapes are JSON's one-letter escapes (after a backslash), and jsonEscaped the bytes they
// stand for, in the same order.
const jsonEscapes, jsonEscaped = "\"\\/bfnrt", "\"\\/\b\f\n\r\t"

// hex4 reads four hex digits at off without moving.
func (p *settingsParser) hex4(off int) (rune, bool) {
	if off+4 > len(p.src) {
		return 0, false
	}
	var r rune
	for _, c := range p.src[off : off+4] {
		switch {
		case '0' <= c && c <= '9':
			r = r<<4 | rune(c-'0')
		case 'a' <= c && c <= 'f':
			r = r<<4 | rune(c-'a'+10)
		case 'A' <= c && c <= 'F':
			r = r<<4 | rune(c-'A'+10)
		default:
			return 0, false
		}
	}
	return r, true
}

// number parses a JSON number: -?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)?
func (p *settingsParser) number() (*jsonNode, error) {
	start := p.off
	digits := func() int {
		n := 0
		for p.off < len(p.src) && '0' <= p.src[p.off] && p.src[p.off] <= '9' {
			p.off++ // consumes a digit
			n++
		}
		return n
	}
	if p.at('-') {
		p.off++ // consumes the sign
	}
	if p.at('0') {
		p.off++ // consumes a lone leading zero
	} else if digits() == 0 {
		return nil, errorAt(p.src, start, "invalid number")
	}
	if p.at('.') {
		p.off++ // consumes the point
		if digits() == 0 {
			return nil, errorAt(p.src, start, "invalid number")
		}
	}
	if p.at('e') || p.at('E') {
		p.off++ // consumes the exponent mark
		if p.at('+') || p.at('-') {
			p.off++ // consumes its sign
		}
		if digits() == 0 {
			return nil, errorAt(p.src, start, "invalid number")
		}
	}
	return &jsonNode{kind: kindNumber, start: start, end: p.off}, nil
}

// literal parses true, false or null; anything else is a bare word and refused.
func (p *settingsParser) literal() (*jsonNode, error) {
	for _, w := range []string{"true", "false", "null"} {
		if bytes.HasPrefix(p.src[p.off:], []byte(w)) {
			n := &jsonNode{kind: kindLiteral, start: p.off, end: p.off + len(w)}
			p.off += len(w) // consumes the word; what follows is checked by the caller
			return n, nil
		}
	}
	return nil, p.unexpected("a value")
}

// ---- Formatting of inserted text ----

// settingsStyle is how a file lays out its JSON, so inserted text looks like its neighbours.
type settingsStyle struct {
	nl      string // line break: "\n" or "\r\n"
	unit    string // one level of indentation
	colon   string // between a key and its value: ": " or ":"
	comma   string // between compact items: ", " or ","
	compact bool   // the whole file is on one line, so insertions are too
}

func (d *settingsDoc) style() settingsStyle {
	st := settingsStyle{nl: "\n", unit: "  ", colon: ": ", comma: ", "}
	if i := bytes.IndexByte(d.src, '\n'); i > 0 && d.src[i-1] == '\r' {
		st.nl = "\r\n"
	}
	root := d.root
	if root.kind != kindObject || len(root.kids) == 0 {
		return st // an empty file becomes a pretty one
	}
	st.compact = !hasLineBreak(d.src[root.start:root.end])
	// Nothing between the first colon and its value: the file writes "a":1,"b":2.
	if first := root.kids[0]; d.src[first.val.start-1] == ':' {
		st.colon, st.comma = ":", ","
	}
	// The first member on a line of its own gives the unit. The whitespace just before a
	// member holds a line break exactly when the member starts a line; looking only there keeps
	// this linear on a file of many members on one line.
	for _, c := range root.kids {
		if gap := d.src[c.ws:c.start()]; hasLineBreak(gap) {
			ind := strings.TrimPrefix(string(gap[bytes.LastIndexAny(gap, "\r\n")+1:]), lineIndent(d.src, root.start))
			if ind != "" && strings.Trim(ind, " \t") == "" {
				st.unit = ind
			}
			break
		}
	}
	return st
}

func hasLineBreak(b []byte) bool { return bytes.ContainsAny(b, "\r\n") }

// lineStart is the offset just after the line break before off.
func lineStart(src []byte, off int) int {
	return bytes.LastIndexAny(src[:off], "\r\n") + 1
}

// lineIndent is the spaces and tabs that begin the line holding off.
func lineIndent(src []byte, off int) string {
	s := lineStart(src, off)
	e := s
	for e < off && (src[e] == ' ' || src[e] == '\t') {
		e++
	}
	return string(src[s:e])
}

// startsLine says whether only spaces and tabs come before off on its line.
func startsLine(src []byte, off int) bool {
	return len(lineIndent(src, off)) == off-lineStart(src, off)
}

// jsonObj is an object to insert, with its keys in order. Values are string, int, []any or
// jsonObj.
type jsonObj []jsonField

type jsonField struct {
	key string
	val any
}

// quoteJSON writes s as a JSON string, leaving <, > and & alone as JSON.stringify does.
func quoteJSON(s string) string {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(s); err != nil {
		panic(err) // a string always encodes
	}
	return strings.TrimSuffix(b.String(), "\n")
}

// render lays v out as the file would: pretty (one item a line, as JSON.stringify(v, null, 2)
// with the file's indentation) starting at indent, or compact on one line.
func (st settingsStyle) render(v any, pretty bool, indent string) string {
	var b strings.Builder
	st.write(&b, v, pretty, indent)
	return b.String()
}

func (st settingsStyle) write(b *strings.Builder, v any, pretty bool, indent string) {
	list := func(open, close string, n int, item func(i int, indent string)) {
		b.WriteString(open)
		inner := indent + st.unit
		for i := range n {
			switch {
			case pretty && i > 0:
				b.WriteString("," + st.nl + inner)
			case pretty:
				b.WriteString(st.nl + inner)
			case i > 0:
				b.WriteString(st.comma)
			}
			item(i, inner)
		}
		if pretty && n > 0 {
			b.WriteString(st.nl + indent)
		}
		b.WriteString(close)
	}
	switch v := v.(type) {
	case string:
		b.WriteString(quoteJSON(v))
	case int:
		b.WriteString(strconv.Itoa(v))
	case []any:
		list("[", "]", len(v), func(i int, in string) { st.write(b, v[i], pretty, in) })
	case jsonObj:
		list("{", "}", len(v), func(i int, in string) {
			b.WriteString(quoteJSON(v[i].key) + st.colon)
			st.write(b, v[i].val, pretty, in)
		})
	default:
		panic(fmt.Sprintf("claude: cannot render %T", v))
	}
}

// ---- Splicing ----

// textEdit replaces src[start:end] with text.
type textEdit struct {
	start, end int
	text       string
}

// splice applies edits, which must not overlap; insertions at one offset keep their order.
func splice(src []byte, edits []textEdit) ([]byte, error) {
	slices.SortStableFunc(edits, func(a, b textEdit) int { return a.start - b.start })
	var out []byte
	at := 0
	for _, e := range edits {
		if e.start < at || e.end < e.start || e.end > len(src) {
			return nil, fmt.Errorf("failed to edit settings: overlapping edits at byte %d", e.start)
		}
		out = append(out, src[at:e.start]...)
		out = append(out, e.text...)
		at = e.end
	}
	return append(out, src[at:]...), nil
}

// replaceValue replaces the bytes of v.
func replaceValue(v *jsonNode, text string) textEdit {
	return textEdit{start: v.start, end: v.end, text: text}
}

// appendChild adds a member called key (an element when key is "") at the end of c. The new
// text follows the container's own layout: a container on one line gets a compact item after
// a comma; one spread over lines gets a line of its own, indented like the last item, after
// any comment that ends the container; an empty one is opened up unless the file is compact.
// A trailing comma stays trailing.
func (d *settingsDoc) appendChild(c *jsonNode, key string, v any) []textEdit {
	st, src := d.style(), d.src
	item := func(pretty bool, indent string) string {
		s := st.render(v, pretty, indent)
		if c.kind == kindObject {
			s = quoteJSON(key) + st.colon + s
		}
		return s
	}
	open := lineIndent(src, c.start)
	if len(c.kids) == 0 {
		if st.compact {
			return []textEdit{{start: c.start + 1, end: c.start + 1, text: item(false, "")}}
		}
		in := open + st.unit
		return []textEdit{{start: c.start + 1, end: c.start + 1, text: st.nl + in + item(true, in) + st.nl + open}}
	}
	last := c.kids[len(c.kids)-1]
	if !hasLineBreak(src[c.start:c.end]) {
		// One line, so no // comment inside: insert right after the last item.
		sep := st.comma[1:]
		if len(c.kids) > 1 {
			if s := string(src[c.kids[0].comma+1 : c.kids[1].start()]); strings.Trim(s, " \t") == "" {
				sep = s // the spacing after the container's first comma; not when a comment sits there
			}
		}
		if last.comma >= 0 {
			return []textEdit{{start: last.comma + 1, end: last.comma + 1, text: sep + item(false, "") + ","}}
		}
		return []textEdit{{start: last.val.end, end: last.val.end, text: "," + sep + item(false, "")}}
	}
	in := open + st.unit
	if startsLine(src, last.start()) {
		in = lineIndent(src, last.start())
	}
	// Array items follow the last one's layout when it is a one-line object or array, as in
	// a list of one-line hook groups.
	pretty := c.kind == kindObject || !isOneLineContainer(src, last.val)
	// The insertion starts with a line break, so it can follow a // comment without joining it.
	text := st.nl + in + item(pretty, in)
	if last.comma >= 0 {
		return []textEdit{{start: c.closeWS, end: c.closeWS, text: text + ","}}
	}
	return []textEdit{
		{start: last.val.end, end: last.val.end, text: ","},
		{start: c.closeWS, end: c.closeWS, text: text},
	}
}

func isOneLineContainer(src []byte, v *jsonNode) bool {
	return (v.kind == kindObject || v.kind == kindArray) && len(v.kids) > 0 && !hasLineBreak(src[v.start:v.end])
}

// removeChildren removes the children of c marked in drop, each with the whitespace before
// it and its comma. When the last child goes and the container had no trailing comma, the
// comma of the last child kept goes too, so no trailing comma appears. Comments between
// children stay. When every child goes, the line break appendChild put before the closing
// bracket goes as well, so removing what appendChild added gives the original bytes back.
func (d *settingsDoc) removeChildren(c *jsonNode, drop []bool) []textEdit {
	src := d.src
	lastKept := -1
	for i := range c.kids {
		if !drop[i] {
			lastKept = i
		}
	}
	var edits []textEdit
	for i, k := range c.kids {
		if !drop[i] {
			continue
		}
		end := k.val.end
		if k.comma >= 0 {
			end = k.comma + 1
		} else if lastKept >= 0 {
			lc := c.kids[lastKept].comma
			edits = append(edits, textEdit{start: lc, end: lc + 1})
		}
		if lastKept < 0 && i == len(c.kids)-1 {
			for _, lb := range []string{"\r\n", "\n"} {
				if tail := lb + lineIndent(src, c.start); bytes.HasPrefix(src[end:c.end], []byte(tail)) {
					end += len(tail)
					break
				}
			}
		}
		start := k.ws
		if i == 0 && k.comma >= 0 && len(c.kids) > 1 && !drop[1] && !hasLineBreak(src[k.ws:k.start()]) {
			// The first item of a one-line list: take the space after its comma rather than
			// before it, so [1, 2] becomes [2] and not [ 2].
			start = k.start()
			for end < c.end && (src[end] == ' ' || src[end] == '\t') {
				end++
			}
		}
		if k.afterLineComment && end < len(src) && src[end] != '\n' && src[end] != '\r' {
			// The cut would start at the line break that ends a // comment, and what follows it
			// would join the comment: keep that line break.
			start++
			if src[start-1] == '\r' && src[start] == '\n' {
				start++
			}
		}
		edits = append(edits, textEdit{start: start, end: end})
	}
	return edits
}
