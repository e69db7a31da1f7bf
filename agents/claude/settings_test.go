package claude

import (
	"bytes"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/hookctl/hookctl/internal/testrows"
)

// stripJSONC turns JSON with comments into plain JSON for encoding/json: it drops a leading byte
// order mark, blanks out comments and removes trailing commas. It is written apart from the
// reader under test, so that the two can check each other.
func stripJSONC(b []byte) []byte {
	b = bytes.TrimPrefix(b, utf8BOM)
	out := make([]byte, 0, len(b))
	for i := 0; i < len(b); i++ {
		switch {
		case b[i] == '"':
			j := stringEnd(b, i)
			out = append(out, b[i:j]...)
			i = j - 1
		case b[i] == '/' && i+1 < len(b) && b[i+1] == '/':
			for i < len(b) && b[i] != '\n' && b[i] != '\r' {
				i++
			}
			out = append(out, ' ')
			i--
		case b[i] == '/' && i+1 < len(b) && b[i+1] == '*':
			end := bytes.Index(b[i+2:], []byte("*/"))
			if end < 0 {
				return append(out, b[i:]...) // leave it for encoding/json to refuse
			}
			out = append(out, ' ')
			i += 2 + end + 1
		default:
			out = append(out, b[i])
		}
	}
	// A comma followed, past whitespace, by a closing bracket is a trailing comma. Strings are
	// skipped again so a comma inside one is kept.
	res := make([]byte, 0, len(out))
	for i := 0; i < len(out); i++ {
		if out[i] == '"' {
			j := stringEnd(out, i)
			res = append(res, out[i:j]...)
			i = j - 1
			continue
		}
		if out[i] == ',' {
			rest := bytes.TrimLeft(out[i+1:], " \t\r\n")
			if len(rest) > 0 && (rest[0] == '}' || rest[0] == ']') {
				continue
			}
		}
		res = append(res, out[i])
	}
	return res
}

// stringEnd returns the index just past the JSON string that opens at b[i] (len(b) if it is not
// closed).
func stringEnd(b []byte, i int) int {
	j := i + 1
	for j < len(b) && b[j] != '"' {
		if b[j] == '\\' {
			j++
		}
		j++
	}
	return min(j+1, len(b))
}

// mustBeJSON fails unless b, with comments and trailing commas stripped, is valid JSON.
func mustBeJSON(t testing.TB, what string, b []byte) {
	t.Helper()
	if isBlank(b) {
		return
	}
	if s := stripJSONC(b); !json.Valid(s) {
		var v any
		t.Fatalf("%s is not valid JSON: %v\n%s", what, json.Unmarshal(s, &v), b)
	}
}

func TestSettingsStripJSONC(t *testing.T) {
	for _, tc := range [][2]string{
		{"\ufeff{\"a\":1}", `{"a":1}`},
		{"{\"a\": \"//x\" // c\n}", "{\"a\": \"//x\"  \n}"},
		{`{"a": [1, 2,], /* x */ "b": "a,}",}`, `{"a": [1, 2],   "b": "a,}"}`},
		{`{"a\",": 1}`, `{"a\",": 1}`},
	} {
		if got := string(stripJSONC([]byte(tc[0]))); got != tc[1] {
			t.Errorf("stripJSONC(%q) = %q, want %q", tc[0], got, tc[1])
		}
	}
}

// settingsRefusal is one input the reader must refuse, and where.
type settingsRefusal struct {
	name, in string
	want     string // in the error, e.g. "line 2 column 3: unterminated comment"
}

func refuse(name, in, want string) settingsRefusal { return settingsRefusal{name, in, want} }

var settingsRefusals = []settingsRefusal{
	refuse("empty", "", "line 1 column 1: unexpected end of file"),
	refuse("truncated object", `{"hooks": {`, "line 1 column 12: unexpected end of file"),
	refuse("truncated string", `{"hooks`, "line 1 column 2: unterminated string"),
	refuse("truncated after colon", "{\n  \"a\":", "line 2 column 7: unexpected end of file, expected a value"),
	refuse("trailing garbage", `{"a": 1}}`, `line 1 column 9: unexpected '}', expected the end of the file`),
	refuse("two values", "{}\n{}", "line 2 column 1: unexpected '{'"),
	refuse("unterminated block comment", "{\n  /* hooks: {}\n}", "line 2 column 3: unterminated comment"),
	refuse("unterminated comment at end", "{}/*", "line 1 column 3: unterminated comment"),
	refuse("lone slash", "{/ }", `line 1 column 2: unexpected '/'`),
	refuse("NUL byte", "{\"a\": \"x\x00\"}", "line 1 column 9: NUL byte"),
	refuse("NUL in a comment", "{} // \x00", "NUL byte"),
	refuse("invalid UTF-8 in a string", "{\n\"a\": \"\xff\"}", "line 2 column 7: invalid UTF-8"),
	refuse("overlong UTF-8", "{\"a\": \"\xc0\xaf\"}", "invalid UTF-8"),
	refuse("UTF-16 surrogate as UTF-8", "{\"a\": \"\xed\xa0\x80\"}", "invalid UTF-8"),
	refuse("bare word key", `{hooks: {}}`, `unexpected 'h', expected a key in double quotes`),
	refuse("bare word value", `{"a": yes}`, `line 1 column 7: unexpected 'y', expected a value`),
	refuse("word after true", `{"a": truex}`, `unexpected 'x', expected ',' or '}'`),
	refuse("single quotes", `{'a': 1}`, `unexpected '\''`),
	refuse("NaN", `{"a": NaN}`, `unexpected 'N'`),
	refuse("leading zero", `{"a": 01}`, `unexpected '1', expected ',' or '}'`),
	refuse("plus sign", `{"a": +1}`, `unexpected '+'`),
	refuse("bare point", `{"a": 1.}`, "invalid number"),
	refuse("bare exponent", `{"a": 1e}`, "invalid number"),
	refuse("minus alone", `{"a": -}`, "invalid number"),
	refuse("hex number", `{"a": 0x10}`, `unexpected 'x'`),
	refuse("double comma", `{"a": 1,, "b": 2}`, `unexpected ','`),
	refuse("comma alone", `{,}`, `unexpected ','`),
	refuse("leading comma in array", `[,1]`, `unexpected ','`),
	refuse("missing comma", `{"a": 1 "b": 2}`, `unexpected '"', expected ',' or '}'`),
	refuse("missing colon", `{"a" 1}`, `unexpected '1', expected ":"`),
	refuse("raw newline in a string", "{\"a\": \"x\ny\"}", "line 1 column 9: control character U+000A in a string"),
	refuse("raw tab in a string", "{\"a\": \"x\ty\"}", "control character U+0009"),
	refuse("bad escape", `{"a": "\x41"}`, "line 1 column 8: invalid escape"),
	refuse("short unicode escape", `{"a": "\u12"}`, `invalid \u escape`),
	refuse("unicode escape with sign", `{"a": "\u+123"}`, `invalid \u escape`),
	refuse("duplicate hooks", `{"hooks": {}, "hooks": {}}`, `line 1 column 15: duplicate key "hooks"`),
	refuse("duplicate spelled with an escape", `{"hooks": {}, "\u0068ooks": {}}`, `duplicate key "hooks"`),
	refuse("duplicate deep down", `{"env": {"a": {"b": 1, "b": 2}}}`, `duplicate key "b"`),
	refuse("line separator in a comment", "{ // a\u2028\"hooks\": 1\n}", "line 1 column 7: line separator U+2028 in a comment"),
	refuse("paragraph separator in a comment", "{ // a\u2029\n}", "paragraph separator U+2029"),
	// JavaScript and VS Code end the comment at the CR and read a "hooks" member; hujson runs
	// the comment on to the LF and reads an empty object.
	refuse("lone CR ends a comment", "{ // a\r\"hooks\": 1\n}", "line 1 column 7: carriage return without a line feed after a comment"),
	refuse("lone CR at the end of the file", "{} // a\r", "carriage return without a line feed"),
	refuse("BOM in the middle", "{}\ufeff", `unexpected '\ufeff'`),
	refuse("two BOMs", "\ufeff\ufeff{}", `unexpected '\ufeff'`),
	refuse("non-breaking space", "{\u00a0}", `unexpected '\u00a0'`),
	refuse("form feed", "{\f}", `unexpected '\f'`),
	refuse("depth bomb", strings.Repeat("[", 100000), "line 1 column 65: nested deeper than 64 levels"),
	refuse("object depth bomb", strings.Repeat(`{"a":`, 65)+"1"+strings.Repeat("}", 65), "nested deeper than 64 levels"),
	refuse("over the size cap", `{"a": "`+strings.Repeat("x", maxSettingsSize)+`"}`, "settings file is larger than 4194304 bytes"),
}

func init() {
	testrows.Unique("settings refusal", settingsRefusals, func(r settingsRefusal) string { return r.name })
	testrows.Unique("settings refusal input", settingsRefusals, func(r settingsRefusal) string { return r.in })
}

func TestSettingsRefusals(t *testing.T) {
	for _, r := range settingsRefusals {
		_, err := parseSettings([]byte(r.in))
		if err == nil || !strings.Contains(err.Error(), r.want) {
			t.Errorf("%s: got error %v, want one containing %q", r.name, err, r.want)
		}
	}
}

func TestSettingsErrorsNameTheLine(t *testing.T) {
	_, err := parseSettings([]byte("{\n  \"a\": 1,\n  \"b\": nope\n}"))
	var se *SettingsError
	if !errors.As(err, &se) || se.Line != 3 || se.Column != 8 {
		t.Fatalf("got %#v, want a SettingsError at line 3 column 8", err)
	}
	// Columns count characters, not bytes.
	_, err = parseSettings([]byte("{\"é\": x}"))
	if !errors.As(err, &se) || se.Line != 1 || se.Column != 7 {
		t.Fatalf("got %#v, want a SettingsError at line 1 column 7", err)
	}
}

func TestSettingsAccepts(t *testing.T) {
	for _, in := range []string{
		`{}`,
		`[]`,
		`"just a string"`,
		` 1 `,
		`-0.5e+10`,
		`{"a": [true, false, null, 0, -1, 1.25, 1E3, "s"]}`,
		"\ufeff{\"a\": 1}",
		"{\r\n  \"a\": 1\r\n}\r\n",
		"\t{\n\t\"a\":\t1\n}",
		"// leading\n{/* a */\"a\" /* b */ : /* c */ 1 /* d */, // e\n\"b\": [ /* f */ 1, /* g */ ] /* h */ } // end",
		"{\"a\": 1, // comment with no line break at the end of the file\n}// last",
		`{"a": 1,}`,
		`{"a": [1, 2,],}`,
		`{"a": "\u2028\u2029 \" \\ \/ \b \f \n \r \t \ud83d\ude00 \ud800 lone"}`,
		"{\"raw \u2028 in a string\": \"é 日本 😀\"}",
		`{"\"quoted\" key": 1, "": 2}`,
		"{\"a\": 1 /* ** / */}",
		"{/**/}",
		"{\"a\": 1}\n\n  \t",
		strings.Repeat("[", 64) + strings.Repeat("]", 64),
	} {
		if _, err := parseSettings([]byte(in)); err != nil {
			t.Errorf("parseSettings(%q): %v", in, err)
		}
		mustBeJSON(t, "input", []byte(in))
	}
}

func TestSettingsSizeCap(t *testing.T) {
	body := `{"a": "` + strings.Repeat("x", maxSettingsSize-len(`{"a": ""}`)) + `"}`
	if len(body) != maxSettingsSize {
		t.Fatalf("test input is %d bytes, want %d", len(body), maxSettingsSize)
	}
	if _, err := parseSettings([]byte(body)); err != nil {
		t.Errorf("at the cap: %v", err)
	}
	if _, err := parseSettings([]byte(body + " ")); err == nil {
		t.Errorf("one byte past the cap: no error")
	}
}

func TestSettingsDepthCap(t *testing.T) {
	at := strings.Repeat(`{"a":`, maxSettingsDepth-1) + "[]" + strings.Repeat("}", maxSettingsDepth-1)
	if _, err := parseSettings([]byte(at)); err != nil {
		t.Errorf("at the cap: %v", err)
	}
	past := strings.Repeat(`{"a":`, maxSettingsDepth) + "[]" + strings.Repeat("}", maxSettingsDepth)
	if _, err := parseSettings([]byte(past)); err == nil {
		t.Errorf("one level past the cap: no error")
	}
}

// TestSettingsLinearTime parses files at the size cap built to be slow for a careless reader:
// many keys (duplicate detection), long runs of comments, escapes and unterminated things.
func TestSettingsLinearTime(t *testing.T) {
	var keys strings.Builder
	keys.WriteString("{")
	for i := 0; keys.Len() < maxSettingsSize-100; i++ {
		if i > 0 {
			keys.WriteString(",")
		}
		keys.WriteString(`"k` + strconv.Itoa(i) + `":1`)
	}
	keys.WriteString("}")
	fill := func(unit string) string {
		return strings.Repeat(unit, (maxSettingsSize-16)/len(unit))
	}
	for name, in := range map[string]string{
		"many keys":                  keys.String(),
		"many comments":              "{" + fill("/**/") + "}",
		"many line comments":         "{" + fill("//\n") + "}",
		"many escapes":               `{"a":"` + fill(`\u00e9`) + `"}`,
		"unterminated block comment": "{" + fill("/*/") + "}",
		"many open brackets":         fill("[]["),
		"many slashes":               "{" + fill("/") + "}",
		"many stars in a comment":    "{/*" + fill("*") + "*/}",
	} {
		start := time.Now()
		_, err := parseSettings([]byte(in))
		// Linear work takes a fraction of a second; quadratic work on 4 MiB, hours. The bound is
		// loose because the machine may be busy.
		if d := time.Since(start); d > 20*time.Second {
			t.Errorf("%s: took %v (err %v)", name, d, err)
		}
	}
}

func TestSettingsSpans(t *testing.T) {
	src := "\ufeff{ // c\n  \"a\" : [1, /* x */ \"two\",],\n  \"b\": {}\n}\n"
	d, err := parseSettings([]byte(src))
	if err != nil {
		t.Fatal(err)
	}
	text := func(a, b int) string { return src[a:b] }
	a := d.root.kids[0]
	if got := text(a.keyStart, a.keyEnd); got != `"a"` {
		t.Errorf("key span %q", got)
	}
	if got := text(a.val.start, a.val.end); got != `[1, /* x */ "two",]` {
		t.Errorf("value span %q", got)
	}
	if !a.afterLineComment || text(a.ws, a.keyStart) != "\n  " {
		t.Errorf("whitespace before a: %q after line comment %v", text(a.ws, a.keyStart), a.afterLineComment)
	}
	if a.comma < 0 || src[a.comma] != ',' || a.comma != a.val.end {
		t.Errorf("comma after a at %d", a.comma)
	}
	two := a.val.kids[1]
	if two.val.str != "two" || text(two.ws, two.start()) != " " || two.comma != two.val.end {
		t.Errorf("element two: %+v", two)
	}
	if text(a.val.closeWS, a.val.end) != "]" {
		t.Errorf("before ]: %q", text(a.val.closeWS, a.val.end))
	}
	if d.jsonc != strings.Index(src, "//") {
		t.Errorf("first JSONC feature at %d", d.jsonc)
	}
	b := d.root.kids[1]
	if b.comma != -1 || text(b.val.start, b.val.end) != "{}" || d.root.end != len(src)-1 {
		t.Errorf("b: %+v, root end %d", b, d.root.end)
	}
}

// TestSettingsDecodesStrings checks that keys and values are compared as decoded: a key spelled
// with escapes is the same key to Claude Code.
func TestSettingsDecodesStrings(t *testing.T) {
	d, err := parseSettings([]byte(`{"h\u006foks": "\ud83d\ude00\u2028\"\\\/\ud800x", "x": "\uDBFF\uDFFF"}`))
	if err != nil {
		t.Fatal(err)
	}
	if d.root.member("hooks") != 0 {
		t.Errorf("escaped key not decoded: %q", d.root.kids[0].key)
	}
	if got := d.root.kids[0].val.str; got != "😀\u2028\"\\/\ufffdx" {
		t.Errorf("value %q", got)
	}
	if got := d.root.kids[1].val.str; got != "\U0010ffff" {
		t.Errorf("value %q", got)
	}
}

// spliceRow appends a member (or element) at path, or removes children at path.
type spliceRow struct {
	in   string
	path []any // keys and indexes from the root to the container
	key  string
	val  any   // appended when set
	drop []int // removed when val is nil
	want string
}

func appendAt(in string, path []any, key string, val any, want string) spliceRow {
	return spliceRow{in: in, path: path, key: key, val: val, want: want}
}

func removeAt(in string, path []any, drop []int, want string) spliceRow {
	return spliceRow{in: in, path: path, drop: drop, want: want}
}

func nodeAt(t *testing.T, d *settingsDoc, path []any) *jsonNode {
	n := d.root
	for _, p := range path {
		switch p := p.(type) {
		case string:
			n = n.get(p)
		case int:
			n = n.kids[p].val
		}
		if n == nil {
			t.Fatalf("no node at %v", path)
		}
	}
	return n
}

var spliceRows = []spliceRow{
	appendAt(`{}`, nil, "a", 1, "{\n  \"a\": 1\n}"),
	appendAt(`{ }`, nil, "a", 1, "{\n  \"a\": 1\n }"),
	appendAt("{\n}", nil, "a", 1, "{\n  \"a\": 1\n\n}"),
	appendAt("{/* c */}", nil, "a", 1, "{\n  \"a\": 1\n/* c */}"),
	appendAt(`{"x":1}`, nil, "a", jsonObj{{"b", []any{"c"}}}, `{"x":1,"a":{"b":["c"]}}`),
	appendAt(`{"x": 1}`, nil, "a", jsonObj{{"b", []any{"c", 2}}}, `{"x": 1, "a": {"b": ["c", 2]}}`),
	appendAt(`{"x":1,"y":2}`, nil, "a", 1, `{"x":1,"y":2,"a":1}`),
	appendAt(`{"x": 1,  "y": 2}`, nil, "a", 1, `{"x": 1,  "y": 2,  "a": 1}`),
	appendAt(`{"x":1,}`, nil, "a", 1, `{"x":1,"a":1,}`),
	appendAt(`{"x":1 /* c */}`, nil, "a", 1, `{"x":1,"a":1 /* c */}`),
	appendAt("{\n  \"x\": 1\n}", nil, "a", jsonObj{{"b", []any{"c"}}},
		"{\n  \"x\": 1,\n  \"a\": {\n    \"b\": [\n      \"c\"\n    ]\n  }\n}"),
	appendAt("{\n  \"x\": 1, // c\n}", nil, "a", 1, "{\n  \"x\": 1, // c\n  \"a\": 1,\n}"),
	appendAt("{\n  \"x\": 1 // c\n}", nil, "a", 1, "{\n  \"x\": 1, // c\n  \"a\": 1\n}"),
	appendAt("{\n  \"x\": 1\n  // end\n}", nil, "a", 1, "{\n  \"x\": 1,\n  // end\n  \"a\": 1\n}"),
	appendAt("{\n  \"x\": 1\n  /* end */}", nil, "a", 1, "{\n  \"x\": 1,\n  /* end */\n  \"a\": 1}"),
	appendAt("{\n  \"x\": 1}", nil, "a", 1, "{\n  \"x\": 1,\n  \"a\": 1}"),
	appendAt("{\n\t\"x\": {\n\t\t\"y\": 1\n\t}\n}", []any{"x"}, "a", []any{1},
		"{\n\t\"x\": {\n\t\t\"y\": 1,\n\t\t\"a\": [\n\t\t\t1\n\t\t]\n\t}\n}"),
	appendAt("{\r\n  \"x\": 1\r\n}\r\n", nil, "a", []any{1}, "{\r\n  \"x\": 1,\r\n  \"a\": [\r\n    1\r\n  ]\r\n}\r\n"),
	appendAt("{\n    \"x\": {}\n}", []any{"x"}, "a", 1, "{\n    \"x\": {\n        \"a\": 1\n    }\n}"),
	appendAt(`{"x":1,"h":{}}`, []any{"h"}, "a", 1, `{"x":1,"h":{"a":1}}`),
	appendAt(`{"l":["a"]}`, []any{"l"}, "", "b", `{"l":["a","b"]}`),
	appendAt("{\n  \"l\": [\n    {\"a\": 1}\n  ]\n}", []any{"l"}, "", jsonObj{{"b", 2}},
		"{\n  \"l\": [\n    {\"a\": 1},\n    {\"b\": 2}\n  ]\n}"),
	appendAt("{\n  \"l\": [\n    1\n  ]\n}", []any{"l"}, "", jsonObj{{"b", 2}},
		"{\n  \"l\": [\n    1,\n    {\n      \"b\": 2\n    }\n  ]\n}"),
	appendAt("{\n  \"x\": 1, \"y\": 2\n}", nil, "a", 1, "{\n  \"x\": 1, \"y\": 2,\n  \"a\": 1\n}"),
	appendAt("{\"x\": 1,\n \"y\": 2}", nil, "a", 1, "{\"x\": 1,\n \"y\": 2,\n \"a\": 1}"),
	appendAt("{\"k\": \"<&>\u2028\"}", nil, "<&>", "\u2028\"", "{\"k\": \"<&>\u2028\", \"<&>\": \"\\u2028\\\"\"}"),

	removeAt(`{"l": [1, 2, 3]}`, []any{"l"}, []int{1}, `{"l": [1, 3]}`),
	removeAt(`{"l": [1, 2, 3]}`, []any{"l"}, []int{2}, `{"l": [1, 2]}`),
	removeAt(`{"l": [1, 2, 3]}`, []any{"l"}, []int{0}, `{"l": [2, 3]}`),
	removeAt(`{"l": [1, 2, 3]}`, []any{"l"}, []int{1, 2}, `{"l": [1]}`),
	removeAt(`{"l": [1, 2, 3]}`, []any{"l"}, []int{0, 2}, `{"l": [2]}`),
	removeAt(`{"l": [1, 2, 3]}`, []any{"l"}, []int{0, 1}, `{"l": [ 3]}`),
	removeAt(`{"l": [ /* c */ 1, 2]}`, []any{"l"}, []int{0}, `{"l": [ /* c */ 2]}`),
	removeAt("{\n  \"a\": 1,\n  \"b\": 2\n}", nil, []int{0}, "{\n  \"b\": 2\n}"),
	removeAt(`{"l": [1, 2, 3]}`, []any{"l"}, []int{0, 1, 2}, `{"l": []}`),
	removeAt(`{"l": [1, 2, 3,]}`, []any{"l"}, []int{2}, `{"l": [1, 2,]}`),
	removeAt(`{"l": [1, 2, 3,]}`, []any{"l"}, []int{1, 2}, `{"l": [1,]}`),
	removeAt(`{"l": [1 /* one */, 2 /* two */]}`, []any{"l"}, []int{1}, `{"l": [1 /* one */ /* two */]}`),
	removeAt("{\n  \"a\": 1,\n  // about b\n  \"b\": 2\n}", nil, []int{1}, "{\n  \"a\": 1\n  // about b\n}"),
	removeAt("{\n  \"a\": 1\n}", nil, []int{0}, "{}"),
	removeAt("{\n  \"a\": 1,\n}", nil, []int{0}, "{}"),
	removeAt("{ // keep\n  \"a\": 1\n}", nil, []int{0}, "{ // keep\n}"),
	// The line break that ends a // comment must survive when what follows it is not a line
	// break, or "c" would become part of the comment.
	removeAt("{\n  \"a\": 1, // note\n  \"b\": 2, \"c\": 3\n}", nil, []int{1}, "{\n  \"a\": 1, // note\n \"c\": 3\n}"),
	removeAt("{\"a\": 1, // note\n\"b\": 2,\"c\": 3}", nil, []int{1}, "{\"a\": 1, // note\n\"c\": 3}"),
	removeAt("{\r\n  \"a\": 1, // note\r\n  \"b\": 2,\"c\": 3}", nil, []int{1}, "{\r\n  \"a\": 1, // note\r\n\"c\": 3}"),
}

func TestSettingsSplice(t *testing.T) {
	for _, r := range spliceRows {
		d, err := parseSettings([]byte(r.in))
		if err != nil {
			t.Fatalf("%q: %v", r.in, err)
		}
		c := nodeAt(t, d, r.path)
		var edits []textEdit
		if r.val != nil {
			edits = d.appendChild(c, r.key, r.val)
		} else {
			drop := make([]bool, len(c.kids))
			for _, i := range r.drop {
				drop[i] = true
			}
			edits = d.removeChildren(c, drop)
		}
		out, err := splice(d.src, edits)
		if err != nil {
			t.Fatalf("%q: %v", r.in, err)
		}
		if string(out) != r.want {
			t.Errorf("%q %v %v %v:\n got %q\nwant %q", r.in, r.path, r.val, r.drop, out, r.want)
			continue
		}
		if _, err := parseSettings(out); err != nil {
			t.Errorf("%q: result does not parse: %v", out, err)
		}
		mustBeJSON(t, "splice result", out)
		if r.val == nil {
			continue
		}
		// Removing what was appended gives the input back, byte for byte.
		d2, err := parseSettings(out)
		if err != nil {
			t.Fatal(err)
		}
		c2 := nodeAt(t, d2, r.path)
		drop := make([]bool, len(c2.kids))
		drop[len(drop)-1] = true
		back, err := splice(out, d2.removeChildren(c2, drop))
		if err != nil || string(back) != r.in {
			t.Errorf("removing the appended item from %q: got %q (%v), want %q", out, back, err, r.in)
		}
	}
}

func TestSettingsReplaceValue(t *testing.T) {
	src := "{\n  \"s\": {\"type\": \"command\"} // c\n}"
	d, err := parseSettings([]byte(src))
	if err != nil {
		t.Fatal(err)
	}
	out, err := splice(d.src, []textEdit{replaceValue(d.root.get("s"), `"x"`)})
	if err != nil || string(out) != "{\n  \"s\": \"x\" // c\n}" {
		t.Errorf("got %q, %v", out, err)
	}
}

func TestSettingsSpliceRefusesOverlap(t *testing.T) {
	if _, err := splice([]byte("abcdef"), []textEdit{{start: 1, end: 4}, {start: 2, end: 3}}); err == nil {
		t.Error("overlapping edits were applied")
	}
}

// FuzzSettings checks that the reader never panics, that anything it accepts is JSON once
// comments are gone, and that install then uninstall leaves a clean file byte for byte as it
// was (and every output parses, and is JSON).
func FuzzSettings(f *testing.F) {
	for _, r := range settingsRefusals {
		if len(r.in) < 4096 {
			f.Add([]byte(r.in))
		}
	}
	for _, r := range spliceRows {
		f.Add([]byte(r.in))
		f.Add([]byte(r.want))
	}
	// Inputs the fuzzer once failed on.
	for _, s := range []string{
		`{"hooks":{},"statusLine":{}}`, // the old status line was read at its offset before the edit
	} {
		f.Add([]byte(s))
	}
	befores, _ := filepath.Glob(filepath.Join("testdata", "install", "*.json"))
	for _, p := range befores {
		if b, err := os.ReadFile(p); err == nil {
			f.Add(b)
		}
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		d, err := parseSettings(data)
		if err != nil {
			var se *SettingsError
			if !errors.As(err, &se) && len(data) <= maxSettingsSize {
				t.Fatalf("refusal without a line: %v", err)
			}
			return
		}
		mustBeJSON(t, "accepted input", data)
		checkInstallRoundTrip(t, data, d)
	})
}

// checkInstallRoundTrip installs into data and uninstalls again, checking every output.
func checkInstallRoundTrip(t *testing.T, data []byte, d *settingsDoc) {
	t.Helper()
	r := Registration{Binary: "/usr/local/bin/hookctl", StatusLine: true, AllowJSONC: true}
	v, shapeErr := readSettingsView(d, r.Binary)
	out, _, prev, err := Install(data, r)
	if err != nil {
		if shapeErr == nil && len(data) < maxSettingsSize/2 {
			t.Fatalf("Install refused a well-shaped file: %v\n%q", err, data)
		}
		return
	}
	if shapeErr != nil {
		t.Fatalf("Install accepted a file of the wrong shape (%v)", shapeErr)
	}
	mustBeJSON(t, "installed", out)
	again, changed, prev2, err := Install(out, r)
	if err != nil || changed || prev2 != "" || !bytes.Equal(again, out) {
		t.Fatalf("second install changed the file: %v %v %q\n%q\n%q", err, changed, prev2, out, again)
	}
	un, _, err := Uninstall(out, r.Binary, prev)
	if err != nil {
		t.Fatalf("Uninstall: %v\n%q", err, out)
	}
	mustBeJSON(t, "uninstalled", un)
	un2, changed, err := Uninstall(un, r.Binary, prev)
	if err != nil || changed || !bytes.Equal(un2, un) {
		t.Fatalf("second uninstall changed the file: %v %v\n%q\n%q", err, changed, un, un2)
	}
	if clean(v) && !isBlank(data) && !bytes.Equal(un, data) {
		t.Fatalf("install and uninstall did not give the file back:\n in  %q\n mid %q\n out %q", data, out, un)
	}
	out2, _, _, err := Install(un, r)
	if err != nil {
		t.Fatalf("install after uninstall: %v", err)
	}
	un3, _, err := Uninstall(out2, r.Binary, prev)
	if err != nil || !bytes.Equal(un3, un) {
		t.Fatalf("install, uninstall, install, uninstall is not stable: %v\n%q\n%q", err, un, un3)
	}
}

// clean says whether uninstall must give v's file back exactly after install: it holds no
// hookctl entry or status line, and no empty "hooks" object or empty array for an event install
// fills (install cannot tell those from ones it made).
func clean(v *settingsView) bool {
	if v.holdsHookctl() || v.status != nil && v.statusIsOurs() {
		return false
	}
	if v.hooks == nil {
		return true
	}
	if len(v.hooks.val.kids) == 0 {
		return false
	}
	for _, e := range Entries {
		if ev := v.event(e.Event); ev != nil && len(ev.m.val.kids) == 0 {
			return false
		}
	}
	return true
}
