package worker

import (
	"bytes"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/hookctl/hookctl/internal/testrows"
)

// htmlRow is one HTMLToText case: the exact text wanted, or (hide rows) a page with INJECT
// tokens in hidden places and VISIBLE tokens in shown ones.
type htmlRow struct {
	name, in, want string
	hide           bool
}

// show is a row whose converted text must be exactly want.
func htmlShow(name, in, want string) htmlRow { return htmlRow{name: name, in: in, want: want} }

// hide is a row whose text must hold every VISIBLE token of in and no INJECT.
func htmlHide(name, in string) htmlRow { return htmlRow{name: name, in: in, hide: true} }

var htmlRows = []htmlRow{
	// Layout.
	htmlShow("paragraphs", "<p>a</p><p>b</p>", "a\n\nb"),
	htmlShow("unclosed paragraphs", "<p>one<p>two<div>three</div>", "one\n\ntwo\n\nthree"),
	htmlShow("list", "<ul><li>one<li>two</ul>", "- one\n- two"),
	htmlShow("nested list", "<ul><li>a<ul><li>b</ul><li>c</ul>", "- a\n  - b\n- c"),
	htmlShow("heading", "<h2>Title</h2>text", "## Title\n\ntext"),
	htmlShow("heading in heading", "<h1>a<h2>b</h2>", "# a\n\n## b"),
	htmlShow("pre keeps whitespace", "<pre>\n  x\n   y</pre>after", "  x\n   y\n\nafter"),
	htmlShow("br", "a<br>b<br/>c", "a\nb\nc"),
	htmlShow("br run is one blank line", "a<br><br><br><br>b", "a\n\nb"),
	htmlShow("stray </br> is a br", "a</br>b", "a\nb"),
	htmlShow("whitespace collapses", "a   \n\t b", "a b"),
	htmlShow("inline elements join", "Hello <b>bold</b> and <i>it</i>.", "Hello bold and it."),
	htmlShow("table", "<table><tr><th>k<th>v<tr><td>a<td>b</table>", "k | v\na | b"),
	htmlShow("definition list", "<dl><dt>term<dd>def</dl>", "term\ndef"),
	htmlShow("entities", "x&nbsp;y &amp;&lt;&gt;&quot;&#39;&#x41;&copy;", `x y &<>"'A©`),
	htmlShow("empty blocks leave no blank lines", "<p></p><p> </p><div></div>x<div></div>", "x"),
	htmlShow("hr", "a<hr>b", "a\n\nb"),
	htmlShow("text in head is shown", "<head>stray</head>", "stray"),
	htmlShow("title is not text", "<html><head><title>T</title></head><body>x</body></html>", "x"),
	htmlShow("textarea shows", "<textarea>a &amp; b</textarea>", "a & b"),
	htmlShow("xmp is raw", "<xmp><b>x</b></xmp>", "<b>x</b>"),
	htmlShow("lone less-than", "a < b <3", "a < b <3"),
	htmlShow("end tag with attributes", "<p>a</p x='>'>b", "a\n\nb"),
	htmlShow("duplicate attribute: first wins", `<div style="color:red" style="display:none">x</div>`, "x"),
	htmlShow("details stay", "<details><summary>s</summary>body</details>", "s\nbody"),
	htmlShow("open dialog", "<dialog open>x</dialog>", "x"),
	htmlShow("empty comment <!-->", "<!-->x", "x"),
	htmlShow("empty comment <!--->", "<!--->x", "x"),
	htmlShow("comment ends at --!>", "<!-- a --!>x", "x"),
	htmlShow("self-closing svg", "<svg/>x", "x"),
	htmlShow("svg closed past desc", "<svg><desc></svg>x", "x"),
	htmlShow("invisible characters", "a\u200bb\u202ec\U000E0041d\u00ade", "abcde"),
	htmlShow("invalid UTF-8", "a\xffb", "a\uFFFDb"),
	// Links.
	htmlShow("link", `<a href="https://e.com/x">docs</a> end`, "[docs](https://e.com/x) end"),
	htmlShow("link text is its target", `<a href="https://e.com/">https://e.com/</a>`, "https://e.com/"),
	htmlShow("relative link", `<a href="/rel?a=1&amp;b=2">x</a>`, "[x](/rel?a=1&b=2)"),
	htmlShow("javascript link", `<a href="javascript:alert(1)">x</a>`, "x"),
	htmlShow("fragment link", `<a href="#top">x</a>`, "x"),
	htmlShow("image link", `<a href="https://e.com/"><img src=x></a>y`, "y"),
	htmlShow("link with space", `<a href="https://e.com/a b">x</a>`, "x"),
	htmlShow("link in list", `<ul><li><a href="/a">A</a></ul>`, "- [A](/a)"),
	htmlShow("nested a closes outer", `<a href="/1">a<a href="/2">b</a>`, "[a](/1)[b](/2)"),
	htmlShow("reopened link is text", `<p><a href="/1">a</p>b</a>`, "[a](/1)\n\nb"),
	// Hidden: every one of these must show VISIBLE and never INJECT.
	htmlHide("display none", `<div style="display:none">INJECT</div>VISIBLE`),
	htmlHide("display none, case and spacing", `<div style="  DISPLAY :  None !important ">INJECT</div>VISIBLE`),
	htmlHide("display none, single quotes", `<div style='display:none'>INJECT</div>VISIBLE`),
	htmlHide("display none, unquoted", `<div style=display:none>INJECT</div>VISIBLE`),
	htmlHide("display none, CSS comment", `<div style="display:/**/none">INJECT</div>VISIBLE`),
	htmlHide("display none, entity", `<div style="display&colon;none">INJECT</div>VISIBLE`),
	htmlHide("display none, CSS escape", `<div style="disp\61 lay:none">INJECT</div>VISIBLE`),
	htmlHide("display none after other rules", `<div style="color:red; display:none">INJECT</div>VISIBLE`),
	htmlHide("visibility hidden", `<p style="visibility:hidden">INJECT</p>VISIBLE`),
	htmlHide("visibility collapse", `<p style="visibility:collapse">INJECT</p>VISIBLE`),
	htmlHide("opacity 0", `<p style="opacity:0">INJECT</p>VISIBLE`),
	htmlHide("opacity .0", `<p style="opacity: .0">INJECT</p>VISIBLE`),
	htmlHide("font-size 0", `<p style="font-size:0">INJECT</p>VISIBLE`),
	htmlHide("font-size 0em", `<p style="FONT-SIZE: 0EM">INJECT</p>VISIBLE`),
	htmlHide("transparent", `<p style="color:transparent">INJECT</p>VISIBLE`),
	htmlHide("hidden attribute", `<span hidden>INJECT</span>VISIBLE`),
	htmlHide("hidden attribute, upper case", `<SPAN HIDDEN>INJECT</SPAN>VISIBLE`),
	htmlHide("hidden=false is still hidden", `<span hidden="false">INJECT</span>VISIBLE`),
	htmlHide("hidden after slash", `<div/hidden>INJECT</div>VISIBLE`),
	htmlHide("aria-hidden", `<span aria-hidden="true">INJECT</span>VISIBLE`),
	htmlHide("aria-hidden upper case", `<span aria-hidden=" TRUE ">INJECT</span>VISIBLE`),
	htmlHide("sr-only class", `<span class="x sr-only">INJECT</span>VISIBLE`),
	htmlHide("closed dialog", `<dialog>INJECT</dialog>VISIBLE`),
	htmlHide("whole subtree", `<div hidden><p>INJECT</p><ul><li>INJECT</ul><div><b>INJECT</b></div></div>VISIBLE`),
	htmlHide("stray end tag inside", `<div hidden></p></span>INJECT</div>VISIBLE`),
	htmlHide("end tag does not cross a block", `<span hidden><div></span>INJECT</div></span>VISIBLE`),
	htmlHide("formatting reopened after </p>", `<p><b hidden>INJECT</p><p>INJECT</b><p>VISIBLE`),
	htmlHide("hidden to the end", `VISIBLE<div hidden>INJECT`),
	htmlHide("script", `<script>INJECT</script>VISIBLE`),
	htmlHide("script upper case", `<SCRIPT type="text/javascript">INJECT</SCRIPT >VISIBLE`),
	htmlHide("script with tags", `<script>"<div>INJECT</div>"</script>VISIBLE`),
	htmlHide("script double escaped", `<script><!--<script></script>INJECT</script>VISIBLE`),
	htmlHide("script escaped", `<script><!-- </script>VISIBLE`),
	htmlHide("style", `<style>INJECT</style>VISIBLE`),
	htmlHide("noscript", `<noscript><p>INJECT</p></noscript>VISIBLE`),
	htmlHide("template", `<template><p>INJECT</p></template>VISIBLE`),
	htmlHide("svg", `<svg><text>INJECT</text><foreignObject><p>INJECT</p></foreignObject></svg>VISIBLE`),
	htmlHide("svg CDATA", `<svg><![CDATA[</svg>INJECT]]></svg>VISIBLE`),
	htmlHide("math", `<math><mi>INJECT</mi></math>VISIBLE`),
	htmlHide("iframe", `<iframe><p>INJECT</p></iframe>VISIBLE`),
	htmlHide("object", `<object data=x>INJECT</object>VISIBLE`),
	htmlHide("canvas", `<canvas>INJECT</canvas>VISIBLE`),
	htmlHide("video fallback", `<video src=x>INJECT</video>VISIBLE`),
	htmlHide("select", `<select><option>INJECT</select>VISIBLE`),
	htmlHide("comment", `<!-- INJECT -->VISIBLE`),
	htmlHide("comment with dashes", `<!-- a -- INJECT - -->VISIBLE`),
	htmlHide("comment to the end", `VISIBLE<!-- INJECT`),
	htmlHide("doctype", `<!DOCTYPE html INJECT>VISIBLE`),
	htmlHide("CDATA outside svg", `<![CDATA[INJECT]]>VISIBLE`),
	htmlHide("processing instruction", `<?xml INJECT ?>VISIBLE`),
	htmlHide("bogus end tag", `</ INJECT>VISIBLE`),
	htmlHide("attributes", `<div title="INJECT" data-x='INJECT'>VISIBLE</div>`),
	htmlHide("input hidden", `<input type="hidden" value="INJECT">VISIBLE`),
	htmlHide("img alt", `<img alt="INJECT">VISIBLE`),
	htmlHide("unclosed tag", `VISIBLE<div title="INJECT`),
	htmlHide("title in svg is not the title", `<svg><title>INJECT</title></svg>VISIBLE`),
}

func init() { testrows.Unique("html", htmlRows, func(r htmlRow) string { return r.in }) }

func TestHTMLToText(t *testing.T) {
	for _, r := range htmlRows {
		title, got := HTMLToText([]byte(r.in))
		switch {
		case r.hide:
			if strings.Contains(got, "INJECT") || strings.Contains(title, "INJECT") {
				t.Errorf("%s: hidden text shown: %q → title %q, text %q", r.name, r.in, title, got)
			}
			if strings.Count(got, "VISIBLE") != strings.Count(r.in, "VISIBLE") {
				t.Errorf("%s: visible text lost: %q → %q", r.name, r.in, got)
			}
		case got != r.want:
			t.Errorf("%s: %q\n got %q\nwant %q", r.name, r.in, got, r.want)
		}
	}
}

func TestHTMLToTextTitle(t *testing.T) {
	for _, c := range []struct{ in, want string }{
		{"<title>A &amp; B</title>", "A & B"},
		{"<title>\n  spaced \n out </title>", "spaced out"},
		{"<TITLE>first</TITLE><title>second</title>", "first"},
		{"<title>a<b>c</b></title>", "a<b>c</b>"},
		{"<svg><title>icon</title></svg><title>page</title>", "page"},
		{"<title>" + strings.Repeat("x", 2*maxTitleBytes) + "</title>", strings.Repeat("x", maxTitleBytes)},
	} {
		if got, _ := HTMLToText([]byte(c.in)); got != c.want {
			t.Errorf("%q: title %q, want %q", c.in, got, c.want)
		}
	}
}

// TestHTMLToTextFixture reads a release-notes page salted with injections hidden every way the
// converter knows: each INJECT token must be gone and each VISIBLE token present.
func TestHTMLToTextFixture(t *testing.T) {
	b, err := os.ReadFile(filepath.Join("testdata", "html", "hidden.html"))
	if err != nil {
		t.Fatal(err)
	}
	title, text := HTMLToText(b)
	if title != "Release notes – widget 2.0" {
		t.Errorf("title %q", title)
	}
	if strings.Contains(text, "INJECT") {
		t.Errorf("hidden text shown:\n%s", text)
	}
	for _, tok := range regexp.MustCompile(`VISIBLE-[a-z0-9-]+`).FindAllString(string(b), -1) {
		if !strings.Contains(text, tok) {
			t.Errorf("%s missing from:\n%s", tok, text)
		}
	}
	for _, want := range []string{"# Widget 2.0", "- Faster start-up", "[API reference](https://widget.example/api)",
		"Version | Date", "  indented   VISIBLE-pre", "Zerowidth and tag characters"} {
		if !strings.Contains(text, want) {
			t.Errorf("%q missing from:\n%s", want, text)
		}
	}
}

// TestHTMLToTextLinear feeds hostile shapes at 2 MiB. The tree model counts its steps and stops
// past a budget linear in the input, so each must stay within it (and finish: the time limit only
// catches a hang), and an ordinary page of the same size must not come near it.
func TestHTMLToTextLinear(t *testing.T) {
	const n = 2 << 20
	rep := func(s string) []byte { return bytes.Repeat([]byte(s), n/len(s)) }
	cases := map[string][]byte{
		"deep nesting":         rep("<div>"),
		"stray end tags":       rep("</p>"),
		"end tags past blocks": append(rep("<b>")[:900], rep("<div></b>")...),
		"reopened formatting":  append(append([]byte("<div>"), rep("<b>")[:1500]...), rep("</div><div>x")...),
		"nested links":         rep(`<a href="/x">x`),
		"comments":             rep("<!--"),
		"dashes":               append([]byte("<!--"), rep("-")...),
		"script escapes":       append([]byte("<script>"), rep("<!--<script></script>")...),
		"raw text near misses": append([]byte("<style>"), rep("</styl</style")...),
		"unclosed quotes":      rep(`<a b='`),
		"attributes":           append([]byte("<div "), rep("a=b ")...),
		"entities":             rep("&amp;&#x41;&bogus;"),
		"tables":               rep("<table><tr><td>"),
		"lists":                rep("<li>x"),
		"ordinary page":        rep("<p>Some <b>text</b> and a <a href='/l'>link</a>.</p>\n"),
	}
	for name, in := range cases {
		start := time.Now()
		c := newHTMLConverter(in)
		c.run()
		if d := time.Since(start); d > 10*time.Second { // a hang detector; the budget is the proof
			t.Errorf("%s: %v for %d bytes", name, d, len(in))
		}
		if c.work > c.budget+maxHTMLDepth*4 {
			t.Errorf("%s: work %d over budget %d", name, c.work, c.budget)
		}
		if name == "ordinary page" && (c.stopped && !c.w.full || len(c.w.buf) < n/4) {
			t.Errorf("%s: stopped early: %d bytes of text", name, len(c.w.buf))
		}
	}
}

func TestHTMLToTextCaps(t *testing.T) {
	// The output cap is hit before the input cap only through expansion, which link targets
	// allow; check the writer stops cleanly at its cap.
	w := htmlWriter{max: 10, nl: 2}
	w.text("abcdefghijklmnop", false, "")
	if string(w.buf) != "abcdefghij" || !w.full {
		t.Errorf("writer cap: %q full=%v", w.buf, w.full)
	}
	w = htmlWriter{max: 4, nl: 2}
	w.text("ééé", false, "")
	if string(w.buf) != "éé" {
		t.Errorf("writer cap splits a rune: %q", w.buf)
	}
}

// FuzzHTMLToText: never panics, finishes, keeps its caps and leaves no invisible characters,
// no run of blank lines and no invalid UTF-8.
func FuzzHTMLToText(f *testing.F) {
	for _, r := range htmlRows {
		f.Add([]byte(r.in))
	}
	if b, err := os.ReadFile(filepath.Join("testdata", "html", "hidden.html")); err == nil {
		f.Add(b)
	}
	f.Fuzz(func(t *testing.T, in []byte) {
		c := newHTMLConverter(in)
		c.run()
		title, text := c.title, string(c.w.buf)
		if c.work > c.budget+maxHTMLDepth*4 {
			t.Fatalf("work %d over budget %d", c.work, c.budget)
		}
		if len(title) > maxTitleBytes || !utf8.ValidString(title) || !utf8.ValidString(text) {
			t.Fatalf("title %q or text not capped UTF-8", title)
		}
		if len(text) > 3*len(in)+maxLinkTarget+16 { // an invalid byte becomes a 3-byte U+FFFD
			t.Fatalf("text %d bytes from %d", len(text), len(in))
		}
		if strings.Contains(text, "\n\n\n") {
			t.Fatalf("run of blank lines in %q", text)
		}
		for _, r := range text + title {
			if htmlInvisible(r) {
				t.Fatalf("invisible %U in output", r)
			}
		}
		if strings.HasPrefix(text, "\n") {
			t.Fatalf("leading newline in %q", text)
		}
		// A hidden div after any input, once the tokenizer is back in its data state (the
		// suffix closes a quote, a tag, a comment, CDATA and every raw-text element), stays
		// hidden. Only plaintext never ends.
		lower := bytes.ToLower(in)
		if !bytes.Contains(lower, []byte("plaintext")) && !bytes.Contains(in, []byte("SECRETX")) {
			doc := append(append([]byte(nil), in...), htmlResetSuffix...)
			doc = append(doc, `<div hidden>SECRETX</div><p style="display:none">SECRETX`...)
			if _, tx := HTMLToText(doc); strings.Contains(tx, "SECRETX") {
				t.Fatalf("hidden text shown after %q: %q", in, tx)
			}
		}
	})
}

// htmlResetSuffix returns the tokenizer to its data state from wherever an input left it.
const htmlResetSuffix = `x"'>]]>-->` + `</script></style></title></textarea></xmp></iframe>` +
	`</noscript></noembed></noframes>`
