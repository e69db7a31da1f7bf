package lexer

import (
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/hookctl/hookctl/internal/testrows"
)

// lexRow is a command and what Lex must make of it: the word values and operators in order
// (words as their values, operators as their spelling), or an error containing errSub.
type lexRow struct {
	in     string
	want   []string
	errSub string
}

func ok(in string, want ...string) lexRow { return lexRow{in: in, want: want} }
func bad(in, errSub string) lexRow        { return lexRow{in: in, errSub: errSub} }

var lexRows = []lexRow{
	ok("ls -la", "ls", "-la"),
	ok("  git\tlog  ", "git", "log"),
	ok("a|b", "a", "|", "b"),
	ok("a ; b", "a", ";", "b"),
	ok("cd x && ls", "cd", "x", "&&", "ls"),
	ok("a\nb", "a", "newline", "b"),
	ok("echo 'a b'", "echo", "a b"),
	ok(`echo "a b"`, "echo", "a b"),
	ok(`echo a'b'"c"`, "echo", "abc"),
	ok(`echo ''`, "echo", ""),
	ok(`rg 'a|b$'`, "rg", "a|b$"),
	ok(`ls 2>&1`, "ls", "2>&1"),
	ok(`ls 2>/dev/null | head`, "ls", "2>/dev/null", "|", "head"),
	ok(`git log HEAD~3 main^2`, "git", "log", "HEAD~3", "main^2"),
	ok(`for f in ~/a; do wc "$f"; done`, "for", "f", "in", "~/a", ";", "do", "wc", "$f", ";", "done"),
	ok(`head -n 5 a,b:c@d%e+f=g`, "head", "-n", "5", "a,b:c@d%e+f=g"),

	// The alphabet: one rule shuts out control bytes and everything non-ASCII.
	bad("ls\x00", "NUL"),
	bad("ls\r", "CR"),
	bad("ls\x0b", "vertical tab"),
	bad("ls\x0c", "form feed"),
	bad("ls \x1b[2J", "ESC"),
	bad("ls\x7f", "DEL"),
	bad("ls\u00a0-la", "U+00A0"),    // no-break space: looks like a space, is part of a word
	bad("ls\u200b", "U+200B"),       // zero-width space
	bad("ls\u202e", "U+202E"),       // right-to-left override
	bad("l\u0455", "U+0455"),        // Cyrillic dze, looks like s
	bad("ls \uff0dla", "U+FF0D"),    // fullwidth hyphen
	bad("ls\xff", "not valid text"), // invalid UTF-8

	// Expansions, substitutions, redirections, globs, comments, history.
	ok("echo $HOME $HOME/x \"$HOME/a b\"", "echo", "~", "~/x", "~/a b"),
	bad(`echo "$HOME"x`, "before a `/`"),
	bad("echo a$HOME", "`$`"),
	bad(`echo "$f[1]"`, "zsh reads [ and : after a variable"),
	bad(`echo "$f:h"`, "zsh reads [ and : after a variable"),
	bad(`echo "${f}[1]"`, "zsh reads [ and : after a variable"),
	bad(`echo "${x:-y}"`, "only allowed as ${NAME}"),
	bad(`echo "${#x}"`, "only allowed as ${NAME}"),
	bad(`echo "$_"`, "`$_`"),
	bad(`echo "$1"`, "`$` inside double quotes"),
	bad(`echo "$@"`, "`$` inside double quotes"),
	bad(`echo "a$f"*`, "may not also hold"),
	bad(`echo {a,b}"$f"`, "may not also hold"),
	bad(`echo ~/"$f"`, "may not also hold"),
	bad("echo $f/x", "`$`"),
	bad("echo $(id)", "`$(…)` (command substitution)"),
	bad("echo `id`", "backticks"),
	bad(`echo "$(id)"`, "`$(…)` (command substitution)"),
	bad(`echo "a`+"`id`"+`"`, "backticks"),
	ok(`echo "\x\"\\\$"`, "echo", `\x"\$`),
	bad(`echo "a\!"`, "`!` inside double quotes"),
	ok(`rg "foo$|bar$"`, "rg", "foo$|bar$"),
	bad(`echo a\ b`, "backslash outside single quotes"),
	bad("echo x > f", "`>` (redirection)"),
	bad("echo x >> f", "`>` (redirection)"),
	bad("diff <(git show HEAD~1:Makefile) Makefile", "(process substitution)"), // was named a redirection
	bad("tee >(cat) < f", "(process substitution)"),
	ok("cat < f", "cat", "<", "f"),
	ok("ls 2> /dev/null >/dev/null &>/dev/null 1> /dev/null", "ls", "2>/dev/null", ">/dev/null", "&>/dev/null", ">/dev/null"),
	bad("ls >/dev//null", "`>` (redirection)"),
	bad("ls <>f", "`<` (redirection)"),
	bad("ls &>f", "`&`"),
	bad("cat <<EOF", "`<` (redirection)"),
	bad("ls 2>/dev/nullx", "`>` (redirection)"),
	bad("ls 2>&1x", "`>` (redirection)"),
	bad("ls 2>&-", "`>` (redirection)"),
	bad("ls a2>/dev/null", "`>` (redirection)"),
	bad("ls 1>&2", "`>` (redirection)"),
	bad("ls &", "`&`"),
	bad("ls & rm x", "`&`"),
	ok("ls || rm x", "ls", "||", "rm", "x"),
	bad("ls |& cat", "`|&`"),
	bad("a;; b", "`;;`"),
	bad("(ls)", "subshell"),
	bad("{ ls; }", "brace"),
	ok("echo {a,b} x{1,2}y src/{a,b}/*.go", "echo", "a", "b", "x1y", "x2y", "src/a/*.go", "src/b/*.go"),
	ok("ls {*.md,*.txt}", "ls", "./*.md", "./*.txt"),
	ok(`find . \( -name a \) -exec cat {} \;`, "find", ".", "(", "-name", "a", ")", "-exec", "cat", "{}", ";"),
	ok("git show stash@{0} HEAD@{2.days.ago}", "git", "show", "stash@{0}", "HEAD@{2.days.ago}"),
	bad(`ls \|`, "backslash"),
	bad("git log HEAD@{1}x", "brace"),
	bad("echo {a}", "brace"),
	bad("echo {a,{b,c}}", "brace"),
	bad("echo {1..3}", "range"),
	bad("echo {a,}", "empty alternative"),
	bad("echo x{a,b}y{c,d}", "brace"),
	bad("echo \"x\"{a,b}", "unquoted word"),
	bad("echo ~/{a,b}", "unquoted word"),
	bad("echo {a,$x}", "brace"),
	ok("ls *.go src/?.go", "ls", "./*.go", "src/?.go"),
	bad("ls *.go~x", "glob operators"),
	bad("ls [ab]x", "glob bracket"),
	bad("ls [ab]", "glob bracket"),
	ok("[ -d hook ]", "[", "-d", "hook", "]"), // the test builtin: a lone bracket is no glob
	ok("echo [ ] x", "echo", "[", "]", "x"),
	ok("[;", "[", ";"),
	bad("[[ -f x ]]", "glob bracket"), // bash's keyword, which evaluates arithmetic: never
	bad("[ -f x]", "glob bracket"),
	bad("[ -f x ]]", "glob bracket"),
	bad("x[ a", "glob bracket"),
	bad("[a b", "glob bracket"),
	bad("ls # comment", "comment"),
	bad("ls a#b", "comment"),
	ok("! ls", "!", "ls"), // the parser refuses ! as a program (pipeline negation)
	ok("[ ! -f x ] && [ a = b ] && [ a != b ]", "[", "!", "-f", "x", "]", "&&", "[", "a", "=", "b", "]", "&&", "[", "a", "!=", "b", "]"),
	bad("ls !x", "`!`"),
	bad("ls x!", "`!`"),
	bad("ls !!", "`!`"),
	bad("ls ==", "starting with `=`"),
	bad("ls =x", "starting with `=`"),
	bad(`echo "hi!"`, "`!` inside double quotes"),
	bad("echo =ls", "starting with `=`"),
	ok("ls ~", "ls", "~"),
	bad("ls ~+", "`~`"),
	bad("ls ~root", "`~`"),
	bad("ls ^x", "`^`"),
	bad("ls a=~/x", "`~`"),
	bad("ls a:~/x", "`~`"),

	// Quotes.
	bad("echo 'abc", "unterminated single quote"),
	bad(`echo "abc`, "unterminated double quote"),
	bad("echo 'a\nb'", "newline inside quotes"),
	bad("echo \"a\nb\"", "newline inside quotes"),
}

func init() { testrows.Unique("lexer", lexRows, func(r lexRow) string { return r.in }) }

func render(toks []Token) []string {
	var out []string
	for _, t := range toks {
		switch t.Kind {
		case TokEOF:
		case TokWord:
			if t.Word.Var != "" {
				out = append(out, "$"+t.Word.Var)
			} else {
				out = append(out, t.Word.Value)
			}
		default:
			out = append(out, t.Kind.String())
		}
	}
	return out
}

func TestLex(t *testing.T) {
	for _, r := range lexRows {
		toks, err := Lex(r.in)
		switch {
		case r.errSub != "" && err == nil:
			t.Errorf("Lex(%q) = %q, want an error containing %q", r.in, render(toks), r.errSub)
		case r.errSub != "" && !strings.Contains(err.Error(), r.errSub):
			t.Errorf("Lex(%q) error %q, want it to contain %q", r.in, err, r.errSub)
		case r.errSub == "" && err != nil:
			t.Errorf("Lex(%q) error %v", r.in, err)
		case r.errSub == "" && strings.Join(render(toks), "\x00") != strings.Join(r.want, "\x00"):
			t.Errorf("Lex(%q) = %q, want %q", r.in, render(toks), r.want)
		}
	}
}

// TestWordRecordsHowItWasWritten: only a bare word names a program.
func TestWordRecordsHowItWasWritten(t *testing.T) {
	for _, c := range []struct {
		in                 string
		bare, quoted, patt bool
		loopVar            string
	}{
		{"sed", true, false, false, ""},
		{`"s"ed`, false, true, false, ""},
		{`'sed'`, false, true, false, ""},
		{`/usr/bin/sed`, true, false, false, ""},
		{`'a|b'`, false, true, true, ""},
		{`'a*b'`, false, true, false, ""}, // glob characters are not pattern text
		{`"it's"`, false, true, true, ""},
		{`'say "hi"'`, false, true, true, ""},
		{`"$f"`, false, true, false, "f"},
	} {
		toks, err := Lex(c.in)
		if err != nil {
			t.Errorf("Lex(%q): %v", c.in, err)
			continue
		}
		w := toks[0].Word
		if w.IsBare() != c.bare || w.Quoted != c.quoted || w.Pattern != c.patt || w.Var != c.loopVar {
			t.Errorf("Lex(%q) word = %+v, want bare=%v quoted=%v pattern=%v var=%q", c.in, w, c.bare, c.quoted, c.patt, c.loopVar)
		}
	}
}

// TestLexCap checks the size cap at the limit and one past it.
func TestLexCap(t *testing.T) {
	at := "echo " + strings.Repeat("a", MaxLen-5)
	if _, err := Lex(at); err != nil {
		t.Errorf("a command of exactly %d bytes: %v", MaxLen, err)
	}
	if _, err := Lex(at + "a"); err == nil || !strings.Contains(err.Error(), "limit") {
		t.Errorf("a command of %d bytes: error %v, want the limit", MaxLen+1, err)
	}
}

// TestErrorsArePositioned: the error says where.
func TestErrorsArePositioned(t *testing.T) {
	_, err := Lex("ls -la | grep x > out")
	var le *Error
	if !errors.As(err, &le) || le.Pos != 16 {
		t.Fatalf("error %v, want a *lexer.Error at byte 16", err)
	}
}

// adversarial returns inputs built to make a careless scanner backtrack or loop, each at the
// size cap.
func adversarial() map[string]string {
	fill := func(unit string) string {
		return strings.Repeat(unit, MaxLen/len(unit))[:MaxLen-MaxLen%len(unit)]
	}
	return map[string]string{
		"$( repeated":          fill("$("),
		"quote runs":           fill(`'"`),
		"single quotes":        fill("''"),
		"open single quote":    "'" + fill("a")[1:],
		"open double quote":    `"` + fill("a")[1:],
		"backslash runs":       fill(`\`),
		"loop var near-misses": fill(`"$f`),
		"loop var words":       "for f in a; do echo" + strings.Repeat(` "$f"`, (MaxLen-40)/5) + "; done",
		"pipes":                "ls" + strings.Repeat(" | cat", (MaxLen-2)/6),
		"newlines":             fill("\n"),
		"redirect near-misses": fill("2>/dev/nul "),
		"many words":           "echo" + strings.Repeat(" a", (MaxLen-4)/2),
		"one long word":        fill("a"),
		"one long quoted word": "'" + fill("a")[2:] + "'",
		"semicolons":           fill("a;"),
		"nested ifs":           fill("if a; then "),
		"for items":            "for f in" + strings.Repeat(" a", (MaxLen-30)/2) + "; do ls; done",
		"tilde and caret":      "git log " + fill("HEAD~^")[8:],
	}
}

// TestLinearTermination judges adversarial inputs at the cap; each must finish in well under
// the hook's budget. The bound is generous (the 5 ms) so that the test measures
// termination and linearity, not machine speed; the benchmark gives the real figure.
func TestLinearTermination(t *testing.T) {
	for name, in := range adversarial() {
		if len(in) > MaxLen {
			t.Fatalf("%s: %d bytes, over the cap", name, len(in))
		}
		best := time.Hour
		for i := 0; i < 5; i++ {
			start := time.Now()
			sc, err := Parse(in)
			if err == nil {
				CrossCheck(in, sc)
				Print(sc, nil)
			}
			if d := time.Since(start); d < best {
				best = d
			}
		}
		if best > 5*time.Millisecond {
			t.Errorf("%s: %v, want under 5ms", name, best)
		}
	}
}

func BenchmarkLexAdversarial(b *testing.B) {
	in := adversarial()
	names := make([]string, 0, len(in))
	for n := range in {
		names = append(names, n)
	}
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		Parse(in[names[i%len(names)]])
	}
}
