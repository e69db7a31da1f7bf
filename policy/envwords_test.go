package policy

import (
	"strings"
	"testing"
)

// TestEnvironmentWords: a variable that is not the loop's reaches only a program that takes any
// argument, never one named like a secret, and a loop variable inside quoted text is judged
// with each of the loop's words in its place.
func TestEnvironmentWords(t *testing.T) {
	for _, c := range []struct {
		cmd     string
		refused string // "" when allowed
		runs    string // the rewrite, when allowed and given
	}{
		{cmd: "echo $PATH", runs: "echo ${PATH}"},
		{cmd: `echo "PATH is $PATH"`, runs: `echo 'PATH is '"${PATH}"`},
		{cmd: `basename "$PWD"`, runs: `basename "$PWD"`},
		{cmd: `dirname "$PWD/x"`, runs: `dirname "${PWD}"/x`},
		{cmd: `for p in hook lexer; do echo "== $p"; done`, runs: `for p in hook lexer; do echo '== '"${p}"; done`},
		{cmd: `for e in go md; do find . -name "*.$e"; done`, runs: `for e in go md; do find . -name '*.'"${e}"; done`},
		{cmd: `cat "$FILE"`, refused: "`$FILE` comes from the environment"},
		{cmd: `for f in a; do grep "$f" "$X"; done`, refused: "`$X` comes from the environment"},
		{cmd: `echo "$GITHUB_TOKEN"`, refused: "`$GITHUB_TOKEN` is named like a secret"},
		{cmd: `for f in a; do echo "$f $AWS_SECRET_ACCESS_KEY"; done`, refused: "`$AWS_SECRET_ACCESS_KEY` is named like a secret"},
		{cmd: `for f in i x; do sed "-$f" y; done`, refused: "with f=i"},
		{cmd: `for f in .env a; do cat "$f.local"; done`, refused: ".env.local"},
		{cmd: `for f in a; do ls $f; done`, refused: "quote the loop variable"},
	} {
		got, ref := judgeText(c.cmd, corpusConfig())
		switch {
		case c.refused == "" && ref != nil:
			t.Errorf("%s refused: %s", c.cmd, ref.What)
		case c.refused == "" && c.runs != "" && got != c.runs:
			t.Errorf("%s runs %q, want %q", c.cmd, got, c.runs)
		case c.refused != "" && ref == nil:
			t.Errorf("%s allowed as %q", c.cmd, got)
		case c.refused != "" && !strings.Contains(ref.What, c.refused):
			t.Errorf("%s refused with %q, want %q", c.cmd, ref.What, c.refused)
		}
	}
}
