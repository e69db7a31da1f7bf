package lexer

import (
	"bytes"
	"iter"
	"os"
	"os/exec"
	"strings"
	"testing"

	"mvdan.cc/sh/v3/syntax"

	"github.com/hookctl/hookctl/internal/testrows"
)

// wordRows are shell words and the value Literal must give, or "" with literal false. Every row
// with a value is also run through bash and zsh (TestLiteralAgreesWithShells), so the table
// cannot claim a value a real shell does not produce.
var wordRows = []struct {
	src     string
	value   string
	literal bool
}{
	// Spellings of curl: the quarantine hole of issue 7 (the router read them as other programs).
	{`curl`, "curl", true},
	{`cu\rl`, "curl", true},
	{`"cu"rl`, "curl", true},
	{`c''url`, "curl", true},
	{`$'curl'`, "curl", true},
	{`$'\x63url'`, "curl", true},
	{`$'\143url'`, "curl", true},
	{`$'\u0063url'`, "curl", true},
	{`wg\et`, "wget", true},
	{"cu\\\nrl", "curl", true}, // a line continuation
	{`"c\url"`, `c\url`, true}, // double quotes keep a backslash before an ordinary character
	{`"a\"b"`, `a"b`, true},
	{`"a\\b"`, `a\b`, true},
	{`"a\$b"`, `a$b`, true},
	{`'a'\''b'`, `a'b`, true},
	{`$'a\'b'`, `a'b`, true},
	{`$'\e[0m'`, "\x1b[0m", true},
	{`$'\t'`, "\t", true},
	{`$'\U0001F600'`, "😀", true},
	{`\*`, "*", true}, // an escaped glob character is text
	{`"*"`, "*", true},
	{`{}`, "{}", true}, // find's placeholder: no expansion
	{`a=b`, "a=b", true},
	{`--x=1`, "--x=1", true},
	{`''`, "", true},
	{`[`, "[", true}, // the test builtin's name: no bracket pair, no glob
	{`]`, "]", true}, // its closing word

	// Not literal: expansions, and what bash and zsh read differently.
	{`$x`, "", false},
	{`"$x"`, "", false},
	{`$(curl)`, "", false},
	{"`curl`", "", false},
	{`$((1))`, "", false},
	{`~/x`, "", false},
	{`a=~/x`, "", false},
	{`*.go`, "", false},
	{`cur?`, "", false},
	{`[c]url`, "", false},
	{`[[`, "", false}, // a glob bracket to this reader (bash's keyword in command position)
	{`[a`, "", false}, // zsh: a bad pattern
	{`{cu,}rl`, "", false},
	{`{1..3}`, "", false},
	{`=curl`, "", false},       // zsh: the path of curl
	{`$"curl"`, "", false},     // zsh: a literal $
	{`$'cu\0rl'`, "", false},   // bash ends the string at the NUL, zsh does not
	{`$'cu\x00rl'`, "", false}, // the same
	{`$'\cA'`, "", false},      // bash: a control character; zsh: text
	{`$'\q'`, "", false},       // bash keeps the backslash, zsh drops it
	{`$'\x'`, "", false},       // bash: \x; zsh: NUL
	{`$'\ud800'`, "", false},   // a surrogate
	{`$'\777'`, "", false},     // an octal escape past a byte
	{`"a"$'\x'"b"`, "", false}, // one bad part spoils the word
	{`<(curl x)`, "", false},
}

func parseWord(t *testing.T, src string) *syntax.Word {
	t.Helper()
	f, err := syntax.NewParser(syntax.Variant(syntax.LangBash)).Parse(strings.NewReader("echo "+src), "")
	if err != nil {
		t.Fatalf("%q does not parse: %v", src, err)
	}
	call, ok := f.Stmts[0].Cmd.(*syntax.CallExpr)
	if !ok || len(call.Args) != 2 {
		t.Fatalf("%q is not one word", src)
	}
	return call.Args[1]
}

func TestLiteral(t *testing.T) {
	testrows.Distinct(t, "word row", len(wordRows), func(i int) string { return wordRows[i].src })
	for _, r := range wordRows {
		got, ok := Literal(parseWord(t, r.src))
		if ok != r.literal || got != r.value {
			t.Errorf("Literal(%q) = %q, %v; want %q, %v", r.src, got, ok, r.value, r.literal)
		}
	}
}

// TestLiteralAgreesWithShells runs every word the table calls literal through bash and zsh and
// compares what each prints with Literal's value: the reader's claims are the shells' own.
func TestLiteralAgreesWithShells(t *testing.T) {
	for sh, path := range shells(t) {
		var script strings.Builder
		var want []string
		for _, r := range wordRows {
			if r.literal {
				script.WriteString("printf '%s\\0' " + r.src + "\n")
				want = append(want, r.value)
			}
		}
		out, err := exec.Command(path, "-c", script.String()).Output()
		if err != nil {
			t.Fatalf("%s: %v", sh, err)
		}
		got := strings.Split(strings.TrimSuffix(string(out), "\x00"), "\x00")
		if len(got) != len(want) {
			t.Fatalf("%s printed %d words, want %d: %q", sh, len(got), len(want), out)
		}
		for i := range want {
			if !bytes.Equal([]byte(got[i]), []byte(want[i])) {
				t.Errorf("%s reads a word as %q; Literal says %q", sh, got[i], want[i])
			}
		}
	}
}

// TestUnescapeHeredocAgreesWithShells: the body of a here-document with an unquoted delimiter,
// as bash and zsh print it, is what UnescapeHeredoc gives (the edit guard reads code piped into
// an interpreter this way).
func TestUnescapeHeredocAgreesWithShells(t *testing.T) {
	bodies := []string{`plain`, `a\$b`, "a\\`b", `a\\b`, `a\"b`, `a\zb`, "line\\\ncontinued", `'single' "double"`, `tab\	x`}
	for sh, path := range shells(t) {
		for _, b := range bodies {
			out, err := exec.Command(path, "-c", "cat <<EOF\n"+b+"\nEOF\n").Output()
			if err != nil {
				t.Fatalf("%s: %v", sh, err)
			}
			if got, want := strings.TrimSuffix(string(out), "\n"), UnescapeHeredoc(b); got != want {
				t.Errorf("%s prints the here-document body %q as %q; UnescapeHeredoc says %q", sh, b, got, want)
			}
		}
	}
}

// shells yields bash and zsh with their paths; one not installed is skipped with a note, or fails
// the test under HOOKCTL_REQUIRE_ALL=1.
func shells(t *testing.T) iter.Seq2[string, string] {
	return func(yield func(string, string) bool) {
		for _, sh := range []string{"bash", "zsh"} {
			path, err := exec.LookPath(sh)
			if err != nil {
				if os.Getenv("HOOKCTL_REQUIRE_ALL") == "1" {
					t.Fatalf("%s is not installed (HOOKCTL_REQUIRE_ALL=1)", sh)
				}
				t.Logf("%s is not installed: skipped", sh)
				continue
			}
			if !yield(sh, path) {
				return
			}
		}
	}
}
