package lexer

import (
	"strings"
	"testing"

	"github.com/hookctl/hookctl/internal/testrows"
)

type parseRow struct {
	in     string
	shape  string // Shape of the result, or
	errSub string // an error containing this
}

func shape(in, want string) parseRow { return parseRow{in: in, shape: want} }
func refused(in, errSub string) parseRow {
	return parseRow{in: in, errSub: errSub}
}

var parseRows = []parseRow{
	shape("ls", `["ls"]`),
	shape("\n\nls\n", `["ls"]`),
	shape("git log | head -3", `["git" "log"] | ["head" "-3"]`),
	shape("ls |\n head", `["ls"] | ["head"]`),
	shape("cd src && ls", `cd "src" && ["ls"]`),
	shape("cd src &&\n ls 2>&1 | wc", `cd "src" && ["ls" 2>&1] | ["wc"]`),
	shape("if git diff --quiet; then echo a; fi", `if(["git" "diff" "--quiet"])then(["echo" "a"])`),
	shape("if a\nthen\n b\n c\nelse\n d\nfi", `if(["a"])then(["b"]; ["c"])else(["d"])`),
	shape(`for f in a 'b c'; do wc "$f"; head "$f"; done`, `for f in("a" "b c")do(["wc" $f]; ["head" $f])`),
	shape("for f in ~/x\ndo\n ls \"$f\"\ndone", `for f in("~/x")do(["ls" $f])`),
	shape("cd d && for x in a; do ls \"$x\"; done", `cd "d" && for x in("a")do(["ls" $x])`),
	shape("echo fi done then", `["echo" "fi" "done" "then"]`),                   // keywords are words outside command position
	shape("[ -d hook ] && echo dir", `["[" "-d" "hook" "]"] && ["echo" "dir"]`), // `[` names the test builtin
	shape(`for f in a b; do [ -f "$f" ]; done`, `for f in("a" "b")do(["[" "-f" $f "]"])`),
	refused("] x", "plain word"),

	shape("ls; ls", `["ls"]; ["ls"]`),
	shape("ls\nls", `["ls"]; ["ls"]`),
	shape("ls && ls || echo x", `["ls"] && ["ls"] || ["echo" "x"]`),
	shape("cd d && ls && wc; if a; then b && c; d; fi || e", `cd "d" && ["ls"] && ["wc"]; if(["a"])then(["b"] && ["c"]; ["d"]) || ["e"]`),
	shape("ls 2> /dev/null || true", `["ls" 2>/dev/null] || ["true"]`),
	shape("wc -l < go.mod >/dev/null", `["wc" "-l" <"go.mod" >/dev/null]`),
	shape(`for f in *.go; do wc "${f}"; done`, `for f in(g"./*.go")do(["wc" $f])`),
	shape("for item2 in a; do ls; done", `for item2 in("a")do(["ls"])`),
	refused("ls &&", "must be followed by a command"),
	refused("if a; then b &&\nfi", "must be followed by a command"),
	refused("ls && cd x && ls", "`cd` is allowed only once"),
	refused("cat < /dev/tcp/h/80", "network"),
	refused("cat < //dev/tcp/h/80", "network"),
	refused("cat < ../../dev/tcp/h/80", "network"),
	refused("cat < *.go", "literally"),
	refused("cat <", "file name"),
	refused("for zshexit_functions in rm; do ls; done", "loop variable"),
	refused("for prompt in x; do ls; done", "loop variable"),
	refused("for http_proxy in x; do ls; done", "loop variable"),
	refused("for Path in x; do ls; done", "loop variable"),
	refused("cd a && cd b && ls", "only one leading `cd`"),
	refused("cd && ls", "one literal directory"),
	refused("cd -P x && ls", "not an option"),
	refused("cd a b && ls", "must be followed by `&&`"),
	refused("cd a", "must be followed by `&&`"),
	refused("cd ~/x && ls", "written out literally"),
	refused("cd 'a;b' && ls", "shell syntax"),
	refused("FOO=1 ls", "assignment"),
	refused("PATH=/tmp ls", "assignment"),
	refused("a+=1 ls", "assignment"),
	refused(`"ls"`, "plain word"),
	refused(`l"s"`, "plain word"),
	refused("while true; do ls; done", "`while`"),
	refused("until a; do b; done", "`until`"),
	refused("case x in a) ;; esac", "`)`"),
	refused("select x in a; do b; done", "`select`"),
	refused("function f { ls; }", "`{`"),
	refused("function f", "`function`"),
	refused("time ls", "`time`"),
	refused("coproc ls", "`coproc`"),
	refused("repeat 3 ls", "`repeat`"),
	refused("noglob ls", "`noglob`"),
	refused("if a; then b; elif c; then d; fi", "`elif`"),
	shape("if a; then b; fi; ls", `if(["a"])then(["b"]); ["ls"]`),
	refused("if a; then b; fi | head", "a pipe after"),
	refused("if a; then; b; fi", "expected a command"),
	refused("if a; then b; fi 2>&1", "unexpected"),
	refused("if a; then fi", "empty body"),
	refused("if a then b fi", "expected `;`"),
	refused("if a; then if b; then c; fi; fi", "nested `if`"),
	refused("if a; then cd x; fi", "`cd` is allowed only once"),
	refused("for f in a; do for g in b; do ls; done; done", "nested `for`"),
	refused("for path in a; do ls; done", "loop variable `path`"),
	refused("for PATH in a; do ls; done", "loop variable `PATH`"),
	refused("for IFS in a; do ls; done", "loop variable `IFS`"),
	refused("for f; do ls; done", "expected `in`"),
	refused("for f in; do ls; done", "at least one literal word"),
	refused("for f in -rf; do ls; done", "start with `-`"),
	refused("for f in ''; do ls; done", "empty"),
	refused("for f in 'a|b'; do ls; done", "without shell syntax"),
	refused(`for f in a; do "$f"; done`, "a variable cannot name the program"),
	refused(`for f in a; do "x$f"; done`, "a variable cannot name the program"),
	refused(`$X`, "a variable cannot name the program"),
	refused(`! ls`, "plain word"),
	refused(`=`, "plain word"),
	refused(`ls && = x`, "plain word"),
	refused(`ls && ! ls`, "plain word"),
	refused(`for f in a; do ls $f; done`, `quote the loop variable: "$f"`),
	refused(`for f in "a$b"; do ls; done`, "must be literal"),
	refused(`cd "$d" && ls`, "written out literally"),
	refused(`cat < "$f"`, "written out literally"),
	// A variable that is not the loop's is the environment's (Word.Env): the judge decides.
	shape(`for f in a; do ls "$g"; done`, `for f in("a")do(["ls" $g])`),
	shape(`ls "$f"`, `["ls" $f]`),
	shape(`for f in a; do ls; done; ls "$f"`, `for f in("a")do(["ls"]); ["ls" $f]`),
	shape(`echo $HOMEx ${x} "a$HOME" "a$b"`, `["echo" u$HOMEx u$x t("a" $HOME) t("a" $b)]`),
	shape(`for p in a b; do echo "== $p: ${p}s"'!'; done`, `for p in("a" "b")do(["echo" t("== " $p ": " $p "s!")])`),
	shape("ls ~/x ~ $HOME/y", `["ls" "~/x" "~" "~/y"]`),
	refused("cat < ~/x", "literally"),
	refused("ls |", "expected a command"),
	refused("| ls", "expected a command"),
	refused("", "expected a command"),
	shape("ls ;", `["ls"]`),
}

func init() { testrows.Unique("parse", parseRows, func(r parseRow) string { return r.in }) }

func TestParse(t *testing.T) {
	for _, r := range parseRows {
		sc, err := Parse(r.in)
		switch {
		case r.errSub != "" && err == nil:
			t.Errorf("Parse(%q) = %s, want an error containing %q", r.in, Shape(sc), r.errSub)
		case r.errSub != "" && !strings.Contains(err.Error(), r.errSub):
			t.Errorf("Parse(%q) error %q, want %q", r.in, err, r.errSub)
		case r.errSub == "" && err != nil:
			t.Errorf("Parse(%q) error %v", r.in, err)
		case r.errSub == "" && Shape(sc) != r.shape:
			t.Errorf("Parse(%q) = %s, want %s", r.in, Shape(sc), r.shape)
		}
	}
}

// TestLoopWorkCap refuses loops whose judging would cost too much.
func TestLoopWorkCap(t *testing.T) {
	items := strings.Repeat(" a", MaxLoopItems)
	if _, err := Parse("for f in" + items + "; do ls; ls; done"); err != nil {
		t.Errorf("a loop of %d commands: %v", 2*MaxLoopItems, err)
	}
	if _, err := Parse("for f in" + items + " a; do ls; done"); err == nil || !strings.Contains(err.Error(), "at most") {
		t.Errorf("a loop of %d words: %v", MaxLoopItems+1, err)
	}
	body := strings.Repeat("ls; ", MaxLoopWork/MaxLoopItems+1)
	if _, err := Parse("for f in" + items + "; do " + body + "done"); err == nil || !strings.Contains(err.Error(), "the limit") {
		t.Errorf("a loop over the work cap: %v", err)
	}
}

func TestQuote(t *testing.T) {
	for in, want := range map[string]string{
		"abc": "abc", "a b": "'a b'", "": "''", "it's": `'it'"'"'s'`, "'": `"'"`,
		"=x": "'=x'", "~/x": "'~/x'", "a|b": "'a|b'", "HEAD~3": "'HEAD~3'", "$HOME": "'$HOME'",
		`a"b`: `'a"b'`, "a\\b": `'a\b'`, "[": "[", "]": "]", "[[": "'[['",
	} {
		if got := Quote(in); got != want {
			t.Errorf("Quote(%q) = %s, want %s", in, got, want)
		}
		sc, err := Parse("echo " + Quote(in))
		if err != nil || sc.Items[0].Pipeline.Cmds[0].Args[0].Value != in {
			t.Errorf("echo %s does not read back as %q: %v", Quote(in), in, err)
		}
	}
}

// TestCrossCheckCatchesDisagreement feeds CrossCheck a script that does not match the text, as
// a lexer bug would, and expects a refusal.
func TestCrossCheckCatchesDisagreement(t *testing.T) {
	sc, err := Parse("ls a")
	if err != nil {
		t.Fatal(err)
	}
	for _, src := range []string{"ls b", "ls a b", "ls a | cat", "ls a; rm x", "ls 'a' >x", "ls $(a)", "ls \"$a\""} {
		if err := CrossCheck(src, sc); err == nil {
			t.Errorf("CrossCheck(%q, <ls a>) agreed", src)
		}
	}
	if err := CrossCheck("ls a", sc); err != nil {
		t.Errorf("CrossCheck(ls a, <ls a>): %v", err)
	}
}
