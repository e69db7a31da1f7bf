package worker

// HTML to readable text, by hand: a linear tokenizer and a small model of the browser's tree
// builder, enough to know which text a human would see. The distiller should read what a person
// reading the page reads, because prompt injections are usually hidden text: a display:none div,
// a hidden attribute, a comment, a script. Every hidden subtree is dropped whole.
//
// The model errs on one side. Where this converter and a browser disagree about where an element
// ends, the converter keeps the element open longer, so text a browser would show may be dropped
// (it does not implement foster parenting, the full adoption agency or breakout from svg), but
// text a browser would hide is not shown. Hiding by stylesheet (a class whose CSS says
// display:none, off-screen positioning, text coloured like its background) is out of reach of a
// converter that loads no CSS; the distiller treats all text as untrusted data anyway.

import (
	"bytes"
	"html"
	"strconv"
	"strings"
	"unicode/utf8"
)

// Limits of HTMLToText.
const (
	// maxHTMLBytes caps the input read and the text written. A fetched body is capped before it
	// gets here; this bounds a direct call.
	maxHTMLBytes = 32 << 20
	// maxHTMLDepth caps element nesting. Browsers stop nesting at about 512 too; past it the rest
	// of the document is dropped, which only a hostile page reaches.
	maxHTMLDepth  = 512
	maxTitleBytes = 1 << 10
	// maxLinkTarget caps a link target appended to its text; a longer one is left out.
	maxLinkTarget = 256
)

// HTMLToText returns the page title and its readable text.
//
// Block elements become line breaks (paragraphs and headings a blank line), list items begin
// "- ", headings begin with "#" marks, table cells are joined by " | ", pre keeps its
// whitespace and other whitespace collapses. A link's text is followed by its target in markdown
// form, [text](target), when the target is an http(s) URL or a relative path no longer than 256
// bytes. Entities are decoded, and characters nobody sees (zero-width, bidi controls, Unicode
// tag characters) are removed from the text.
//
// Dropped with their whole subtree: script, style, noscript, template, svg, math, iframe,
// object, embed, applet, canvas, audio, video, noembed, noframes, frameset, select and datalist
// (a closed list shows one option), a dialog that is not open, and any element that is hidden:
// the hidden attribute, aria-hidden="true", an inline style with display:none,
// visibility:hidden or collapse, opacity:0, font-size:0 or color:transparent (any case or
// spacing; a style using CSS escapes counts as hidden), or a screen-reader-only class (sr-only,
// visually-hidden, screen-reader-text). Comments, the doctype, attributes and the head's
// metadata are dropped; the first title is returned as the title and never as text.
//
// Input past 32 MiB is ignored, and a document nested deeper than 512 elements, or one whose
// markup makes the tree model work more than a few steps per byte, is cut there: both are
// signs of a hostile page, and the cut keeps the conversion linear.
func HTMLToText(b []byte) (title, text string) {
	if len(b) > maxHTMLBytes {
		b = b[:maxHTMLBytes]
	}
	c := newHTMLConverter(b)
	c.run()
	return c.title, string(c.w.buf)
}

// --- tokenizer ---

type htmlTokKind int

const (
	htmlEOF   htmlTokKind = iota
	htmlText              // text: raw bytes, entities not decoded
	htmlStart             // start tag
	htmlEnd               // end tag
	htmlSkip              // comment, doctype, processing instruction, CDATA: dropped
)

type htmlAttr struct{ name, val string }

type htmlToken struct {
	kind        htmlTokKind
	name        []byte // tag name as written
	text        []byte
	selfClosing bool
	attrs       []htmlAttr // the attributes the converter reads; the first of a name wins
}

// attr returns the value of the attribute name and whether the tag has it.
func (t *htmlToken) attr(name string) (string, bool) {
	for _, a := range t.attrs {
		if a.name == name {
			return a.val, true
		}
	}
	return "", false
}

// htmlKeptAttrs are the attributes the converter reads. Others are scanned and discarded.
var htmlKeptAttrs = map[string]bool{
	"hidden": true, "aria-hidden": true, "style": true, "class": true, "href": true, "open": true,
}

// htmlScanner splits HTML into tokens following the HTML standard's tokenizer states closely
// enough to end tags, comments and raw text where a browser does. Only next, tag, comment,
// bogus, rawText and scriptData move off, and each either consumes input or returns htmlEOF, so
// a scan is linear in the input.
type htmlScanner struct {
	src []byte
	off int
	// foreign is set by the converter inside svg or math, where <![CDATA[ opens a CDATA section
	// rather than a bogus comment.
	foreign bool
}

func htmlIsSpace(c byte) bool {
	return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f'
}

func htmlIsLetter(c byte) bool { return 'a' <= c|0x20 && c|0x20 <= 'z' }

// htmlIsTagDelim reports whether c ends a tag name.
func htmlIsTagDelim(c byte) bool { return htmlIsSpace(c) || c == '/' || c == '>' }

// next scans one token into t.
func (s *htmlScanner) next(t *htmlToken) {
	t.kind, t.name, t.text, t.selfClosing, t.attrs = htmlEOF, nil, nil, false, t.attrs[:0]
	if s.off >= len(s.src) {
		return
	}
	rest := s.src[s.off:]
	if rest[0] != '<' {
		// Text runs to the next '<'; consumes at least one byte.
		i := bytes.IndexByte(rest, '<')
		if i < 0 {
			i = len(rest)
		}
		t.kind, t.text = htmlText, rest[:i]
		s.off += i
		return
	}
	switch {
	case len(rest) >= 2 && htmlIsLetter(rest[1]):
		s.off++
		s.tag(t, htmlStart)
	case len(rest) >= 3 && rest[1] == '/' && htmlIsLetter(rest[2]):
		s.off += 2
		s.tag(t, htmlEnd)
	case bytes.HasPrefix(rest, []byte("<!--")):
		t.kind = htmlSkip
		s.comment()
	case s.foreign && bytes.HasPrefix(rest, []byte("<![CDATA[")):
		// A CDATA section ends at "]]>" or the end of input.
		t.kind = htmlSkip
		if i := bytes.Index(rest[9:], []byte("]]>")); i >= 0 {
			s.off += 9 + i + 3
		} else {
			s.off = len(s.src)
		}
	case len(rest) >= 2 && (rest[1] == '!' || rest[1] == '?'):
		// Doctype, CDATA outside svg and math, processing instruction: a bogus comment to '>'.
		t.kind = htmlSkip
		s.bogus()
	case len(rest) >= 3 && rest[1] == '/':
		// "</>" is dropped; "</" and a non-letter opens a bogus comment.
		t.kind = htmlSkip
		if rest[2] == '>' {
			s.off += 3
		} else {
			s.bogus()
		}
	default:
		// A '<' that opens nothing is text; consumes it.
		t.kind, t.text = htmlText, rest[:1]
		s.off++
	}
}

// tag scans a tag from its name (off at the name's first letter) through its '>'. A tag cut off
// by the end of input is dropped, as the standard says.
func (s *htmlScanner) tag(t *htmlToken, kind htmlTokKind) {
	src := s.src
	start := s.off
	for s.off < len(src) && !htmlIsTagDelim(src[s.off]) {
		s.off++
	}
	name := src[start:s.off]
	for {
		// Before an attribute name: whitespace and a stray '/' are skipped; "/>" closes.
		for s.off < len(src) && (htmlIsSpace(src[s.off]) || src[s.off] == '/') {
			if src[s.off] == '/' && s.off+1 < len(src) && src[s.off+1] == '>' {
				s.off += 2
				t.kind, t.name, t.selfClosing = kind, name, true
				return
			}
			s.off++
		}
		if s.off >= len(src) {
			t.kind = htmlEOF
			return
		}
		if src[s.off] == '>' {
			s.off++
			t.kind, t.name = kind, name
			return
		}
		// An attribute name; its first byte may be '=' and is always consumed.
		an := s.off
		s.off++
		for s.off < len(src) && !htmlIsTagDelim(src[s.off]) && src[s.off] != '=' {
			s.off++
		}
		aname := src[an:s.off]
		for s.off < len(src) && htmlIsSpace(src[s.off]) {
			s.off++
		}
		var val []byte
		if s.off < len(src) && src[s.off] == '=' {
			s.off++
			for s.off < len(src) && htmlIsSpace(src[s.off]) {
				s.off++
			}
			if s.off >= len(src) {
				t.kind = htmlEOF
				return
			}
			switch q := src[s.off]; q {
			case '"', '\'':
				i := bytes.IndexByte(src[s.off+1:], q)
				if i < 0 {
					s.off = len(src)
					t.kind = htmlEOF
					return
				}
				val = src[s.off+1 : s.off+1+i]
				s.off += i + 2
			case '>':
				// "name=>": an empty value; the '>' ends the tag on the next turn.
			default:
				v := s.off
				for s.off < len(src) && !htmlIsSpace(src[s.off]) && src[s.off] != '>' {
					s.off++
				}
				val = src[v:s.off]
			}
		}
		if kind == htmlStart && len(aname) <= len("aria-hidden") {
			if n := htmlLower(aname); htmlKeptAttrs[n] {
				if _, dup := t.attr(n); !dup {
					t.attrs = append(t.attrs, htmlAttr{n, html.UnescapeString(string(val))})
				}
			}
		}
	}
}

// comment consumes a comment from its "<!--" through "-->", "--!>" or the end of input.
// "<!-->" and "<!--->" are empty comments.
func (s *htmlScanner) comment() {
	src := s.src
	p := s.off + 4
	if n := endsAt(src, p, ">", "->"); n > 0 {
		s.off = p + n
		return
	}
	for {
		i := bytes.Index(src[p:], []byte("--"))
		if i < 0 {
			s.off = len(src)
			return
		}
		q := p + i + 2
		if n := endsAt(src, q, ">", "!>"); n > 0 {
			s.off = q + n
			return
		}
		p += i + 1 // moves forward by at least one
	}
}

// endsAt is the length of the first of ends that src holds at p, or 0.
func endsAt(src []byte, p int, ends ...string) int {
	for _, e := range ends {
		if len(src)-p >= len(e) && string(src[p:p+len(e)]) == e {
			return len(e)
		}
	}
	return 0
}

// bogus consumes a bogus comment through the next '>' or the end of input.
func (s *htmlScanner) bogus() {
	if i := bytes.IndexByte(s.src[s.off:], '>'); i >= 0 {
		s.off += i + 1
	} else {
		s.off = len(s.src)
	}
}

// endTagAt reports whether b begins with the end tag of name ("</name" then a delimiter).
func htmlEndTagAt(b []byte, name string) bool {
	n := len(name)
	return len(b) > 2+n && b[0] == '<' && b[1] == '/' && bytes.EqualFold(b[2:2+n], []byte(name)) &&
		htmlIsTagDelim(b[2+n])
}

// skipEndTag consumes an end tag that starts at p, attributes and all.
func (s *htmlScanner) skipEndTag(p int) {
	s.off = p + 2
	var t htmlToken
	s.tag(&t, htmlEnd)
}

// rawText returns the content of a raw-text or RCDATA element (style, textarea, title, …) and
// consumes it and its end tag. Nothing but the end tag ends it; without one it runs to the end.
func (s *htmlScanner) rawText(name string) []byte {
	start, p := s.off, s.off
	for {
		i := bytes.Index(s.src[p:], []byte("</"))
		if i < 0 {
			s.off = len(s.src)
			return s.src[start:]
		}
		q := p + i
		if htmlEndTagAt(s.src[q:], name) {
			s.skipEndTag(q)
			return s.src[start:q]
		}
		p = q + 2
	}
}

// rest consumes and returns the rest of the input.
func (s *htmlScanner) rest() []byte {
	b := s.src[s.off:]
	s.off = len(s.src)
	return b
}

// scriptData consumes a script's content and its end tag. Inside "<!--", a "<script" opens a
// nested (double-escaped) state in which "</script>" does not end the element, so a browser keeps
// "<script><!--<script></script>text</script>" wholly inside the script; so does this.
func (s *htmlScanner) scriptData() {
	const (
		data = iota
		escaped
		doubleEscaped
	)
	src := s.src
	state, dashes := data, 0
	for i := s.off; i < len(src); i++ {
		c := src[i]
		switch {
		case c == '-' && state != data:
			dashes++
			continue
		case c == '>' && state != data && dashes >= 2:
			state = data
		case c == '<' && htmlEndTagAt(src[i:], "script"):
			if state != doubleEscaped {
				s.skipEndTag(i)
				return
			}
			state = escaped
			i += len("</script") - 1
		case c == '<' && state == data && bytes.HasPrefix(src[i:], []byte("<!--")):
			state, dashes = escaped, 2
			i += 3
			continue
		case c == '<' && state == escaped && len(src) > i+7 &&
			bytes.EqualFold(src[i+1:i+7], []byte("script")) && htmlIsTagDelim(src[i+7]):
			state = doubleEscaped
			i += 6
		}
		dashes = 0
	}
	s.off = len(src)
}

// htmlLower returns b in ASCII lower case.
func htmlLower(b []byte) string {
	for _, c := range b {
		if 'A' <= c && c <= 'Z' {
			return string(bytes.ToLower(b))
		}
	}
	return string(b)
}

// --- element classes ---

// htmlAtom numbers a tag name, so the tree model indexes slices rather than hashing strings.
// Names the converter knows get fixed atoms with fixed flags; others are numbered per document.
type htmlAtom int

type htmlFlags uint32

const (
	// Void elements have no content and are never on the stack.
	hfVoid htmlFlags = 1 << iota
	// Dropped elements render nothing a reader sees as text (or only when a feature is missing,
	// like noscript and video's fallback).
	hfDropped
	// Raw-text elements end only at their end tag. textarea, title, xmp and plaintext show
	// their content; the others are dropped.
	hfRaw
	// The standard's "special" category: an end tag for another element does not close them.
	hfSpecial
	// Special elements other than address, div and p: they stop an li, dd or dt from closing a
	// previous one.
	hfStrict
	// Scope boundaries: an end tag does not reach past them to close an ancestor.
	hfScope
	// Markers in the list of active formatting elements.
	hfMarker
	// Formatting elements are reopened after an element that closed them implicitly, so a hidden
	// <b> cut off by </p> goes on hiding the text that follows, as in a browser.
	hfFormatting
	// Start tags that close an open p.
	hfClosesP
	// Blocks start on a new line; paragraph-like blocks after a blank line.
	hfBlock
	hfParagraph
	// Table structure, which never reopens formatting elements.
	hfTable
)

var htmlClasses = []struct {
	flag  htmlFlags
	names string
}{
	{hfVoid, "area base basefont bgsound br col embed frame hr img input keygen link meta param source track wbr"},
	{hfDropped, "script style noscript template svg math iframe object embed canvas audio video noembed noframes applet frameset select datalist"},
	{hfRaw, "style xmp iframe noembed noframes noscript textarea title plaintext"},
	{hfSpecial, "address applet area article aside base basefont bgsound blockquote body br button caption center col colgroup dd details dir div dl dt embed fieldset figcaption figure footer form frame frameset h1 h2 h3 h4 h5 h6 head header hgroup hr html iframe img input keygen li link listing main marquee menu meta nav noembed noframes noscript object ol p param plaintext pre script search section select source style summary table tbody td template textarea tfoot th thead title tr track ul wbr xmp mi mo mn ms mtext annotation-xml foreignobject desc"},
	{hfScope, "applet caption html table td th marquee object template mi mo mn ms mtext annotation-xml foreignobject desc"},
	{hfMarker, "applet caption marquee object template td th"},
	{hfFormatting, "a b big code em font i nobr s small strike strong tt u"},
	{hfClosesP, "address article aside blockquote center details dialog dir div dl fieldset figcaption figure footer header hgroup main menu nav ol p search section summary ul h1 h2 h3 h4 h5 h6 pre listing form plaintext xmp table hr li dd dt"},
	{hfBlock, "address article aside caption center dd details dialog dir div dl dt fieldset figcaption figure footer form header hgroup legend li main menu nav ol option search section summary tbody tfoot thead tr ul body html"},
	{hfParagraph, "p h1 h2 h3 h4 h5 h6 pre blockquote table listing xmp plaintext"},
	{hfTable, "table caption colgroup col tbody thead tfoot tr td th"},
}

var (
	htmlAtoms     = map[string]htmlAtom{}
	htmlAtomNames []string
	htmlAtomFlags []htmlFlags
)

// htmlKnown returns the fixed atom of a name, adding it if new; used only while initialising.
func htmlKnown(name string) htmlAtom {
	if a, ok := htmlAtoms[name]; ok {
		return a
	}
	a := htmlAtom(len(htmlAtomNames))
	htmlAtoms[name] = a
	htmlAtomNames = append(htmlAtomNames, name)
	htmlAtomFlags = append(htmlAtomFlags, 0)
	return a
}

func init() {
	for _, c := range htmlClasses {
		for _, n := range strings.Fields(c.names) {
			htmlAtomFlags[htmlKnown(n)] |= c.flag
		}
	}
	for a, n := range htmlAtomNames {
		if htmlAtomFlags[a]&hfSpecial != 0 && n != "address" && n != "div" && n != "p" {
			htmlAtomFlags[a] |= hfStrict
		}
	}
}

// The atoms the tree model names. Package variables are initialised before init runs, which
// then finds these names already numbered and only adds their flags.
var (
	atomA, atomButton, atomDD, atomDT         = htmlKnown("a"), htmlKnown("button"), htmlKnown("dd"), htmlKnown("dt")
	atomBody, atomHead, atomHTML, atomLI      = htmlKnown("body"), htmlKnown("head"), htmlKnown("html"), htmlKnown("li")
	atomListing, atomMath, atomMenu, atomOL   = htmlKnown("listing"), htmlKnown("math"), htmlKnown("menu"), htmlKnown("ol")
	atomOption, atomOptgroup, atomP, atomPre  = htmlKnown("option"), htmlKnown("optgroup"), htmlKnown("p"), htmlKnown("pre")
	atomScript, atomSVG, atomTable, atomTBody = htmlKnown("script"), htmlKnown("svg"), htmlKnown("table"), htmlKnown("tbody")
	atomTD, atomTemplate, atomTFoot, atomTH   = htmlKnown("td"), htmlKnown("template"), htmlKnown("tfoot"), htmlKnown("th")
	atomTHead, atomTitle, atomTR, atomUL      = htmlKnown("thead"), htmlKnown("title"), htmlKnown("tr"), htmlKnown("ul")
	atomBR, atomHR, atomDialog, atomTextarea  = htmlKnown("br"), htmlKnown("hr"), htmlKnown("dialog"), htmlKnown("textarea")
	atomXMP, atomPlaintext                    = htmlKnown("xmp"), htmlKnown("plaintext")
	atomHeadings                              = [6]htmlAtom{htmlKnown("h1"), htmlKnown("h2"), htmlKnown("h3"), htmlKnown("h4"), htmlKnown("h5"), htmlKnown("h6")}
)

// htmlHeadingLevel returns 1 to 6 for h1 to h6, else 0.
func htmlHeadingLevel(a htmlAtom) int {
	for i, h := range atomHeadings {
		if a == h {
			return i + 1
		}
	}
	return 0
}

// htmlHidingClasses are classes that by convention hide text from sighted readers.
var htmlHidingClasses = map[string]bool{"sr-only": true, "visually-hidden": true,
	"visuallyhidden": true, "screen-reader-text": true, "screenreader-only": true, "a11y-hidden": true}

// htmlHides reports whether a start tag's own attributes hide it.
func htmlHides(t *htmlToken, atom htmlAtom) bool {
	if _, ok := t.attr("hidden"); ok {
		return true
	}
	if v, _ := t.attr("aria-hidden"); strings.EqualFold(strings.TrimSpace(v), "true") {
		return true
	}
	if atom == atomDialog {
		if _, open := t.attr("open"); !open {
			return true
		}
	}
	if v, ok := t.attr("style"); ok && htmlStyleHides(v) {
		return true
	}
	if v, ok := t.attr("class"); ok {
		for _, c := range strings.Fields(v) {
			if htmlHidingClasses[strings.ToLower(c)] {
				return true
			}
		}
	}
	return false
}

// htmlStyleHides reports whether an inline style hides its element. Comments and whitespace are
// removed and case folded first; a style with a backslash (a CSS escape can spell "none" as
// "n\6f ne") is treated as hiding, since visible text has no reason to use one.
func htmlStyleHides(style string) bool {
	if strings.ContainsRune(style, '\\') {
		return true
	}
	var b strings.Builder
	for i := 0; i < len(style); i++ {
		c := style[i]
		if c == '/' && i+1 < len(style) && style[i+1] == '*' {
			end := strings.Index(style[i+2:], "*/")
			if end < 0 {
				break
			}
			i += 2 + end + 1
			continue
		}
		if htmlIsSpace(c) {
			continue
		}
		if 'A' <= c && c <= 'Z' {
			c += 'a' - 'A'
		}
		b.WriteByte(c)
	}
	for _, decl := range strings.Split(b.String(), ";") {
		prop, val, ok := strings.Cut(decl, ":")
		if !ok {
			continue
		}
		val = strings.TrimSuffix(val, "!important")
		switch prop {
		case "display":
			if val == "none" {
				return true
			}
		case "visibility":
			if val == "hidden" || val == "collapse" {
				return true
			}
		case "opacity":
			if htmlCSSZero(val) {
				return true
			}
		case "font-size":
			if htmlCSSZero(val) {
				return true
			}
		case "color":
			if val == "transparent" {
				return true
			}
		}
	}
	return false
}

// htmlCSSZero reports whether a CSS number or length is zero: 0, 0.0, .0, 0px, 0em, 0%, -0 ….
func htmlCSSZero(v string) bool {
	i := 0
	for i < len(v) && (v[i] >= '0' && v[i] <= '9' || v[i] == '.' || v[i] == '-' || v[i] == '+') {
		i++
	}
	if i == 0 {
		return false
	}
	f, err := strconv.ParseFloat(v[:i], 64)
	return err == nil && f == 0
}

// --- tree model ---

// htmlElem is an open element.
type htmlElem struct {
	atom   htmlAtom
	id     int  // unique per element, to find a formatting entry's element on the stack
	hidden bool // this element or an ancestor is not rendered
	pre    bool // inside pre or listing: whitespace is kept
	href   string
	linkAt int // a: offset of the "[" written before its text, -1 before any text
	cells  int // tr: cells begun
}

// htmlFormat is an entry in the list of active formatting elements; id 0 is a marker.
type htmlFormat struct {
	atom   htmlAtom
	id     int
	at     int // index on the stack when opened
	hidden bool
}

// maxHTMLNames caps the distinct unknown tag names of one document; past it the rest is dropped.
const maxHTMLNames = 4096

type htmlConverter struct {
	s      htmlScanner
	tok    htmlToken
	w      htmlWriter
	title  string
	titled bool

	names map[string]htmlAtom // this document's unknown tag names

	stack   []htmlElem
	byAtom  [][]int // stack indexes of open elements, by atom
	special []int   // … of open special elements
	strict  []int   // … of special elements other than address, div and p
	scope   []int   // … of scope boundaries
	tables  []int   // … of table and template
	foreign int     // open svg and math elements
	active  []htmlFormat
	nextID  int

	// work counts steps of the tree model (pushes, pops, list walks). Past budget the rest of
	// the document is dropped: an ordinary page needs well under one step per byte, only a
	// hostile one gets there, and so the conversion is linear whatever the input.
	work, budget int
	stopped      bool
	afterPre     bool // the next text follows <pre> directly: its first newline is dropped
}

func newHTMLConverter(b []byte) *htmlConverter {
	return &htmlConverter{
		s:      htmlScanner{src: b},
		w:      htmlWriter{max: maxHTMLBytes, nl: 2},
		byAtom: make([][]int, len(htmlAtomNames)),
		budget: 4*len(b) + 1<<16,
	}
}

func (c *htmlConverter) run() {
	for !c.stopped {
		c.s.foreign = c.foreign > 0
		c.s.next(&c.tok)
		switch c.tok.kind {
		case htmlEOF:
			return
		case htmlText:
			c.text(c.tok.text)
		case htmlStart:
			if a, ok := c.atom(c.tok.name); ok {
				c.start(&c.tok, a)
			}
		case htmlEnd:
			if a, ok := c.atom(c.tok.name); ok {
				c.end(a)
			}
		}
		if c.work > c.budget || c.w.full {
			c.stopped = true
		}
	}
}

// atom returns the atom of a tag name (raw bytes, any case), numbering a new unknown name.
func (c *htmlConverter) atom(name []byte) (htmlAtom, bool) {
	var buf [32]byte
	lower := name
	for i, ch := range name {
		if 'A' <= ch && ch <= 'Z' {
			if len(name) <= len(buf) {
				lower = buf[:len(name)]
			} else {
				lower = make([]byte, len(name))
			}
			copy(lower, name[:i])
			for j := i; j < len(name); j++ {
				ch := name[j]
				if 'A' <= ch && ch <= 'Z' {
					ch += 'a' - 'A'
				}
				lower[j] = ch
			}
			break
		}
	}
	if a, ok := htmlAtoms[string(lower)]; ok {
		return a, true
	}
	if a, ok := c.names[string(lower)]; ok {
		return a, true
	}
	if len(c.names) >= maxHTMLNames {
		c.stopped = true
		return 0, false
	}
	if c.names == nil {
		c.names = map[string]htmlAtom{}
	}
	a := htmlAtom(len(c.byAtom))
	c.names[string(lower)] = a
	c.byAtom = append(c.byAtom, nil)
	return a, true
}

func htmlFlagsOf(a htmlAtom) htmlFlags {
	if int(a) < len(htmlAtomFlags) {
		return htmlAtomFlags[a]
	}
	return 0
}

func (c *htmlConverter) top(a htmlAtom) int { return htmlLast(c.byAtom[a]) }

func htmlLast(ix []int) int {
	if len(ix) > 0 {
		return ix[len(ix)-1]
	}
	return -1
}

func (c *htmlConverter) hidden() bool {
	return len(c.stack) > 0 && c.stack[len(c.stack)-1].hidden
}

func (c *htmlConverter) push(e htmlElem) {
	if len(c.stack) >= maxHTMLDepth {
		c.stopped = true
		return
	}
	c.work++
	i := len(c.stack)
	if i > 0 {
		p := &c.stack[i-1]
		e.hidden = e.hidden || p.hidden
		e.pre = e.pre || p.pre
	}
	c.nextID++
	e.id = c.nextID
	c.stack = append(c.stack, e)
	c.byAtom[e.atom] = append(c.byAtom[e.atom], i)
	f := htmlFlagsOf(e.atom)
	if f&hfSpecial != 0 {
		c.special = append(c.special, i)
	}
	if f&hfStrict != 0 {
		c.strict = append(c.strict, i)
	}
	if f&hfScope != 0 {
		c.scope = append(c.scope, i)
	}
	if e.atom == atomTable || e.atom == atomTemplate {
		c.tables = append(c.tables, i)
	}
	if e.atom == atomSVG || e.atom == atomMath {
		c.foreign++
	}
	if f&hfMarker != 0 {
		c.active = append(c.active, htmlFormat{})
	}
}

func (c *htmlConverter) pop() {
	c.work++
	i := len(c.stack) - 1
	e := c.stack[i]
	c.stack = c.stack[:i]
	ix := c.byAtom[e.atom]
	c.byAtom[e.atom] = ix[:len(ix)-1]
	if htmlLast(c.special) == i {
		c.special = c.special[:len(c.special)-1]
	}
	if htmlLast(c.strict) == i {
		c.strict = c.strict[:len(c.strict)-1]
	}
	if htmlLast(c.scope) == i {
		c.scope = c.scope[:len(c.scope)-1]
	}
	if htmlLast(c.tables) == i {
		c.tables = c.tables[:len(c.tables)-1]
	}
	if e.atom == atomSVG || e.atom == atomMath {
		c.foreign--
	}
	if htmlFlagsOf(e.atom)&hfMarker != 0 {
		// Clear the formatting list back to the last marker.
		for len(c.active) > 0 {
			c.work++
			f := c.active[len(c.active)-1]
			c.active = c.active[:len(c.active)-1]
			if f.id == 0 {
				break
			}
		}
	}
	c.closed(&e)
}

// popTo pops the stack down to and including index i.
func (c *htmlConverter) popTo(i int) {
	for len(c.stack) > i {
		c.pop()
	}
}

// isOpen reports whether a formatting entry's element is still on the stack.
func (c *htmlConverter) isOpen(f htmlFormat) bool {
	return f.at < len(c.stack) && c.stack[f.at].id == f.id
}

// reconstruct reopens the formatting elements closed implicitly since the last marker, so that
// text after "<p><b hidden>x</p>" is still inside a hidden b, as in a browser.
func (c *htmlConverter) reconstruct() {
	j := len(c.active)
	for j > 0 {
		c.work++
		f := c.active[j-1]
		if f.id == 0 || c.isOpen(f) {
			break
		}
		j--
	}
	for ; j < len(c.active); j++ {
		f := &c.active[j]
		// A reopened link is text only: repeating its target after each piece would let a
		// short page write long text.
		c.push(htmlElem{atom: f.atom, hidden: f.hidden, linkAt: -1})
		if c.stopped {
			return
		}
		f.at, f.id = len(c.stack)-1, c.stack[len(c.stack)-1].id
	}
}

// lastFormat returns the index in the formatting list of the last entry for a after the last
// marker, or -1.
func (c *htmlConverter) lastFormat(a htmlAtom) int {
	for j := len(c.active) - 1; j >= 0; j-- {
		c.work++
		if c.active[j].id == 0 {
			return -1
		}
		if c.active[j].atom == a {
			return j
		}
	}
	return -1
}

func (c *htmlConverter) removeFormat(j int) {
	c.work += len(c.active) - j
	c.active = append(c.active[:j], c.active[j+1:]...)
}

func (c *htmlConverter) text(raw []byte) {
	if c.foreign == 0 {
		c.reconstruct()
	}
	if c.hidden() || c.stopped {
		c.afterPre = false
		return
	}
	s := string(raw)
	if bytes.IndexByte(raw, '&') >= 0 {
		s = html.UnescapeString(s)
	}
	pre := len(c.stack) > 0 && c.stack[len(c.stack)-1].pre
	if c.afterPre {
		c.afterPre = false
		s = strings.TrimPrefix(strings.TrimPrefix(s, "\r"), "\n")
	}
	c.write(s, pre)
}

// write writes visible text, opening the innermost link's "[" before its first character.
func (c *htmlConverter) write(s string, pre bool) {
	lead := ""
	var link *htmlElem
	if k := c.top(atomA); k >= 0 && c.stack[k].href != "" && c.stack[k].linkAt < 0 {
		link, lead = &c.stack[k], "["
	}
	if at := c.w.text(s, pre, lead); at >= 0 && link != nil {
		link.linkAt = at
	}
}

func (c *htmlConverter) start(t *htmlToken, a htmlAtom) {
	if c.foreign > 0 {
		// Inside svg or math everything is dropped; only nesting is tracked. "/>" closes here.
		c.push(htmlElem{atom: a, hidden: true, linkAt: -1})
		if t.selfClosing && !c.stopped {
			c.pop()
		}
		return
	}
	switch a {
	case atomHTML, atomBody, atomHead:
		return // their attributes are ignored: pages hide the body until a script shows it
	case atomScript:
		c.s.scriptData()
		return
	}
	f := htmlFlagsOf(a)
	c.closeImplied(a, f)
	if a == atomXMP || f&(hfClosesP|hfBlock|hfParagraph|hfTable) == 0 {
		c.reconstruct()
	}
	hidden := f&hfDropped != 0 || htmlHides(t, a) || c.hidden()

	switch {
	case a == atomTitle:
		b := c.s.rawText("title")
		if !c.titled {
			c.titled = true
			c.title = htmlTitle(b)
		}
		return
	case f&hfRaw != 0:
		var b []byte
		if a == atomPlaintext {
			b = c.s.rest() // plaintext has no end tag
		} else {
			b = c.s.rawText(htmlAtomNames[a])
		}
		if hidden {
			return
		}
		// textarea, xmp and plaintext show their content; xmp and plaintext as preformatted.
		s := string(b)
		if a == atomTextarea {
			s = html.UnescapeString(s)
		}
		c.w.breakLine(1)
		c.w.text(s, a != atomTextarea, "")
		c.w.breakLine(1)
		return
	case f&hfVoid != 0:
		if !hidden && a == atomBR {
			c.w.newline()
		} else if !hidden && a == atomHR {
			c.w.breakLine(2)
		}
		return
	}

	e := htmlElem{atom: a, hidden: hidden, linkAt: -1, pre: a == atomPre || a == atomListing}
	if a == atomA {
		if c.lastFormat(atomA) >= 0 {
			c.endFormatting(atomA) // an a inside an a closes the outer one
		}
		if v, ok := t.attr("href"); ok {
			e.href = htmlLinkTarget(v)
		}
	}
	c.push(e)
	if c.stopped {
		return
	}
	top := &c.stack[len(c.stack)-1]
	if f&hfFormatting != 0 {
		c.active = append(c.active, htmlFormat{atom: a, id: top.id, at: len(c.stack) - 1,
			hidden: top.hidden})
	}
	if (a == atomSVG || a == atomMath) && t.selfClosing {
		c.pop()
		return
	}
	if !top.hidden {
		c.opened(a, f)
	}
}

// closeImplied closes what a start tag closes implicitly: an open p before a block, the previous
// li, dd or dt, the previous table cell, row or section, a heading inside a heading.
func (c *htmlConverter) closeImplied(a htmlAtom, f htmlFlags) {
	if f&hfClosesP != 0 {
		c.closeP()
	}
	switch {
	case a == atomLI:
		if k := c.top(atomLI); k >= 0 && k == htmlLast(c.strict) {
			c.popTo(k)
		}
	case a == atomDD || a == atomDT:
		if k := max(c.top(atomDD), c.top(atomDT)); k >= 0 && k == htmlLast(c.strict) {
			c.popTo(k)
		}
	case htmlHeadingLevel(a) > 0:
		if n := len(c.stack); n > 0 && htmlHeadingLevel(c.stack[n-1].atom) > 0 {
			c.popTo(n - 1)
		}
	case a == atomTD || a == atomTH:
		if k := max(c.top(atomTD), c.top(atomTH)); k > htmlLast(c.tables) {
			c.popTo(k)
		}
	case a == atomTR:
		if k := max(c.top(atomTR), c.top(atomTD), c.top(atomTH)); k > htmlLast(c.tables) {
			c.popTo(k)
		}
	case a == atomTBody || a == atomTHead || a == atomTFoot:
		k := max(c.top(atomTBody), c.top(atomTHead), c.top(atomTFoot), c.top(atomTR))
		if k > htmlLast(c.tables) {
			c.popTo(k)
		}
	case a == atomOption || a == atomOptgroup:
		if n := len(c.stack); n > 0 && c.stack[n-1].atom == atomOption {
			c.popTo(n - 1)
		}
	}
}

// closeP closes an open p in button scope.
func (c *htmlConverter) closeP() {
	if k := c.top(atomP); k >= 0 && k > htmlLast(c.scope) && k > c.top(atomButton) {
		c.popTo(k)
	}
}

func (c *htmlConverter) end(a htmlAtom) {
	if c.foreign > 0 {
		// Inside foreign content an end tag closes its own element if it is open there, else
		// the HTML rules below apply (and may close the svg itself).
		if k := c.top(a); k >= 0 && k >= c.foreignRoot() {
			c.popTo(k)
			return
		}
	}
	f := htmlFlagsOf(a)
	switch {
	case a == atomTemplate:
		// A template's end tag closes it whatever is open inside.
		if k := c.top(a); k >= 0 {
			c.popTo(k)
		}
	case a == atomBR:
		if !c.hidden() {
			c.w.newline()
		}
	case a == atomP:
		if c.top(atomP) < 0 && !c.hidden() {
			c.w.breakLine(2) // a stray </p> makes an empty paragraph
		}
		c.closeP()
	case f&hfFormatting != 0:
		c.endFormatting(a)
	case htmlHeadingLevel(a) > 0:
		k := -1
		for _, h := range atomHeadings {
			k = max(k, c.top(h))
		}
		if k >= 0 && k >= htmlLast(c.scope) {
			c.popTo(k)
		}
	case f&hfTable != 0:
		// Table scope: only table and template bound it.
		if k := c.top(a); k >= 0 && k >= htmlLast(c.tables) {
			c.popTo(k)
		}
	case f&hfSpecial != 0 || a == atomSVG || a == atomMath:
		if k := c.top(a); k >= 0 && k >= htmlLast(c.scope) {
			c.popTo(k)
		}
	default:
		if k := c.top(a); k >= 0 && k > htmlLast(c.special) {
			c.popTo(k)
		}
	}
}

// foreignRoot returns the stack index of the outermost open svg or math.
func (c *htmlConverter) foreignRoot() int {
	r := len(c.stack)
	for _, a := range []htmlAtom{atomSVG, atomMath} {
		if ix := c.byAtom[a]; len(ix) > 0 && ix[0] < r {
			r = ix[0]
		}
	}
	return r
}

// endFormatting handles the end tag of a formatting element: a simplified adoption agency. When
// a special element was opened inside it, the end tag is ignored and the formatting element stays
// open: a browser would move the inner block out, so this keeps more text inside it (hidden, if
// it is hidden) rather than less.
func (c *htmlConverter) endFormatting(a htmlAtom) {
	j := c.lastFormat(a)
	if j < 0 {
		if k := c.top(a); k >= 0 && k > htmlLast(c.special) {
			c.popTo(k)
		}
		return
	}
	f := c.active[j]
	if !c.isOpen(f) {
		c.removeFormat(j)
		return
	}
	if f.at < htmlLast(c.scope) || f.at < htmlLast(c.special) {
		return
	}
	c.removeFormat(j)
	c.popTo(f.at)
}

// opened writes what a visible element's start tag means: a line break, a list marker, a
// heading's marks, a cell separator.
func (c *htmlConverter) opened(a htmlAtom, f htmlFlags) {
	switch {
	case a == atomLI:
		depth := len(c.byAtom[atomUL]) + len(c.byAtom[atomOL]) + len(c.byAtom[atomMenu])
		c.w.breakLine(1)
		c.w.prefix = strings.Repeat("  ", min(max(depth-1, 0), 8)) + "- "
	case htmlHeadingLevel(a) > 0:
		c.w.breakLine(2)
		c.w.prefix = strings.Repeat("#", htmlHeadingLevel(a)) + " "
	case a == atomTD || a == atomTH:
		if k := c.top(atomTR); k >= 0 {
			c.stack[k].cells++
			if c.stack[k].cells > 1 {
				c.w.separate(" | ")
			}
		}
	case a == atomPre || a == atomListing:
		c.w.breakLine(2)
		c.afterPre = true
	case f&hfParagraph != 0:
		c.w.breakLine(2)
	case f&hfBlock != 0:
		c.w.breakLine(1)
	}
}

// closed writes what a visible element's end means: the break after a block, a link's target.
func (c *htmlConverter) closed(e *htmlElem) {
	if e.hidden {
		return
	}
	f := htmlFlagsOf(e.atom)
	switch {
	case e.atom == atomA && e.linkAt >= 0:
		c.w.closeLink(e.linkAt, e.href)
	case f&hfParagraph != 0 || htmlHeadingLevel(e.atom) > 0:
		c.w.breakLine(2)
	case f&hfBlock != 0:
		c.w.breakLine(1)
	}
}

// htmlLinkTarget returns the target to print after a link's text, or "" to print none: only
// http(s) URLs and relative paths, at most maxLinkTarget bytes, with no whitespace or controls.
func htmlLinkTarget(href string) string {
	href = strings.TrimSpace(strings.ReplaceAll(href, "&amp;", "&"))
	if href == "" || len(href) > maxLinkTarget || href[0] == '#' {
		return ""
	}
	for i := 0; i < len(href); i++ {
		if c := href[i]; c <= ' ' || c == 0x7f || c == '(' || c == ')' || c == '<' || c == '>' {
			return ""
		}
	}
	if !utf8.ValidString(href) {
		return ""
	}
	lower := strings.ToLower(href)
	if strings.HasPrefix(lower, "http://") || strings.HasPrefix(lower, "https://") {
		return href
	}
	// A relative reference: no scheme before the first '/', '?' or '#'.
	if i := strings.IndexAny(href, ":/?#"); i >= 0 && href[i] == ':' {
		return ""
	}
	return href
}

// htmlTitle decodes, cleans and caps a title element's text.
func htmlTitle(b []byte) string {
	var w htmlWriter
	w.max, w.nl = maxTitleBytes, 2
	w.text(html.UnescapeString(string(b)), false, "")
	return string(w.buf)
}

// htmlWriter accumulates the text. Breaks and prefixes are pending until the next visible text,
// so empty blocks leave no blank lines and the text never starts or ends with one.
type htmlWriter struct {
	buf    []byte
	max    int
	full   bool
	nl     int    // newlines ending buf; 2 while buf is empty
	want   int    // newlines due before the next text, at most 2
	space  bool   // a space is due before the next text on this line
	sep    string // a separator due instead of the space (table cells)
	prefix string // written at the start of the next text (list marker, heading marks)
}

// breakLine asks for at least n newlines (1 a line break, 2 a blank line) before the next text.
func (w *htmlWriter) breakLine(n int) {
	w.want = max(w.want, n)
	w.space, w.sep = false, ""
}

// newline is a <br>: one more newline, up to one blank line.
func (w *htmlWriter) newline() {
	w.want = min(max(w.want, w.nl)+1, 2)
	w.space, w.sep = false, ""
}

func (w *htmlWriter) separate(sep string) {
	if w.want == 0 {
		w.sep = sep
	}
}

// text writes s, collapsing whitespace unless pre, and writes lead just before its first
// visible character. It returns the offset of lead in buf, or -1 if lead was not written.
func (w *htmlWriter) text(s string, pre bool, lead string) int {
	at := -1
	for i := 0; i < len(s) && !w.full; {
		r, size := utf8.DecodeRuneInString(s[i:])
		i += size
		if htmlInvisible(r) {
			continue
		}
		if r == '\r' && pre {
			continue
		}
		if htmlIsSpaceRune(r) && !(pre && (r == '\n' || r == ' ' || r == '\t')) {
			if w.nl == 0 && w.want == 0 {
				w.space = true
			}
			continue
		}
		if pre && r == '\n' {
			if w.want == 0 && w.nl < 2 {
				w.put("\n")
				w.nl++
			}
			continue
		}
		// A visible character (or a kept space in pre): first what is pending.
		if w.want > 0 && len(w.buf) > 0 {
			for w.nl < w.want {
				w.put("\n")
				w.nl++
			}
		}
		if w.nl == 0 {
			if w.sep != "" {
				w.put(w.sep)
			} else if w.space {
				w.put(" ")
			}
		}
		w.want, w.space, w.sep = 0, false, ""
		if w.prefix != "" {
			w.put(w.prefix)
			w.prefix = ""
		}
		if lead != "" && !(pre && r == ' ') {
			at = len(w.buf)
			w.put(lead)
			lead = ""
		}
		if r == utf8.RuneError && size == 1 {
			w.put("\uFFFD")
		} else {
			w.put(s[i-size : i])
		}
		w.nl = 0
	}
	return at
}

func (w *htmlWriter) put(s string) {
	if len(w.buf)+len(s) > w.max {
		w.full = true
		return
	}
	w.buf = append(w.buf, s...)
}

// closeLink ends a link whose "[" is at offset at: "](target)" follows its text, unless the
// text is the target itself, when the "[" is taken back.
func (w *htmlWriter) closeLink(at int, href string) {
	if w.full || at >= len(w.buf) {
		return
	}
	if string(w.buf[at+1:]) == href {
		w.buf = append(w.buf[:at], w.buf[at+1:]...)
		return
	}
	w.put("](" + href + ")")
}

func htmlIsSpaceRune(r rune) bool {
	switch r {
	case ' ', '\t', '\n', '\r', '\f', '\v', 0x85, 0xA0, 0x1680, 0x2028, 0x2029, 0x202F, 0x205F, 0x3000:
		return true
	}
	return 0x2000 <= r && r <= 0x200A
}

// htmlInvisible reports whether r is a character nobody sees: controls (but whitespace), zero
// width and joiner characters, bidi controls, the soft hyphen, variation selectors and the
// Unicode tag characters used to smuggle ASCII past a reader.
func htmlInvisible(r rune) bool {
	switch {
	case r < 0x20:
		return r != '\t' && r != '\n' && r != '\r' && r != '\f' && r != '\v'
	case r == 0x7f, 0x80 <= r && r <= 0x9f && r != 0x85:
		return true
	case r == 0xAD, r == 0x034F, r == 0x061C, r == 0x115F, r == 0x1160, r == 0x17B4, r == 0x17B5,
		r == 0x180E, r == 0x3164, r == 0xFEFF, r == 0xFFA0:
		return true
	case 0x200B <= r && r <= 0x200F, 0x202A <= r && r <= 0x202E, 0x2060 <= r && r <= 0x206F:
		return true
	case 0xFE00 <= r && r <= 0xFE0F, 0xFFF0 <= r && r <= 0xFFF8:
		return true
	case 0xE0000 <= r && r <= 0xE0FFF: // tags and variation selectors supplement
		return true
	}
	return false
}

// htmlPlainText cleans plain text the way HTMLToText cleans HTML text, keeping its layout: invalid
// UTF-8 becomes U+FFFD, invisible characters are removed, CRLF becomes LF.
func htmlPlainText(b []byte) string {
	var sb strings.Builder
	sb.Grow(len(b))
	for i := 0; i < len(b); {
		r, size := utf8.DecodeRune(b[i:])
		switch {
		case r == utf8.RuneError && size == 1:
			sb.WriteString("\uFFFD")
		case r == '\r':
			if i+1 < len(b) && b[i+1] == '\n' {
				break
			}
			sb.WriteByte('\n')
		case htmlInvisible(r):
		default:
			sb.Write(b[i : i+size])
		}
		i += size
	}
	return sb.String()
}
