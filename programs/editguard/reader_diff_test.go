package editguard

import (
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/hookctl/hookctl/internal/corpus"
	"github.com/hookctl/hookctl/lexer"

	"mvdan.cc/sh/v3/syntax"
)

// readerCommands are the commands the readers are compared on: every corpus and every
// committed fuzz seed of the tree.
func readerCommands(t *testing.T) []string {
	t.Helper()
	cmds, err := corpus.Commands("allow", "deny", "edit-allow", "edit-deny")
	if err != nil {
		t.Fatal(err)
	}
	var seeds int
	for _, dir := range []string{"../../lexer", "../../hook", "..", "."} {
		files, err := filepath.Glob(filepath.Join(dir, "testdata", "fuzz", "*", "*"))
		if err != nil {
			t.Fatal(err)
		}
		for _, f := range files {
			b, err := os.ReadFile(f)
			if err != nil {
				t.Fatal(err)
			}
			lines := strings.Split(string(b), "\n")
			if len(lines) == 0 || lines[0] != "go test fuzz v1" {
				t.Fatalf("%s: not a fuzz seed", f)
			}
			for _, l := range lines[1:] {
				body, ok := strings.CutPrefix(l, "string(")
				if !ok || !strings.HasSuffix(body, ")") {
					continue
				}
				if s, err := strconv.Unquote(strings.TrimSuffix(body, ")")); err == nil {
					cmds = append(cmds, s)
					seeds++
				}
			}
		}
	}
	if seeds == 0 {
		t.Fatal("no committed fuzz seed found: the test would compare the corpora only")
	}
	return cmds
}

// TestReadersAgree is the differential test of the shell word readers (house style, rule 8:
// two readers of the same word that can disagree are a security bug). Every command of the
// corpora and fuzz seeds is parsed once and judged; for every simple command the walker judges
// whose words are all literal, the argv it expanded must equal lexer.Literal of mvdan's words,
// and, where the hand lexer accepts the command, be one of the hand parser's commands with the
// same word values. For a command the guard allows, every command the hand parser found must
// also have been judged. Every disagreement is listed.
func TestReadersAgree(t *testing.T) {
	ctx := testContext()
	var problems []string
	judged, compared := 0, 0
	for _, cmd := range readerCommands(t) {
		var top [][]string // literal argvs judged at depth 1, in order
		observeCall = func(depth int, words []*syntax.Word, argv []word) {
			lits := make([]string, 0, len(words))
			for _, w := range words {
				v, ok := lexer.Literal(w)
				if !ok {
					return
				}
				lits = append(lits, v)
			}
			judged++
			if got := values(argv); !slices.Equal(got, lits) {
				problems = append(problems, "walker "+strconv.Quote(strings.Join(got, " "))+" vs lexer.Literal "+
					strconv.Quote(strings.Join(lits, " "))+" in "+strconv.Quote(clipCmd(cmd)))
			}
			if depth == 1 {
				top = append(top, lits)
			}
		}
		ref := judgeText(cmd, ctx)
		observeCall = nil
		sc, err := lexer.Parse(cmd)
		if err != nil {
			continue
		}
		hand := handCommands(sc)
		for _, argv := range top {
			compared++
			if !containsArgv(hand, argv) {
				problems = append(problems, "walker judged "+strconv.Quote(strings.Join(argv, " "))+
					", which the hand lexer does not read in "+strconv.Quote(clipCmd(cmd)))
			}
		}
		if ref == nil {
			for _, argv := range hand {
				if !containsArgv(top, argv) {
					problems = append(problems, "the hand lexer read "+strconv.Quote(strings.Join(argv, " "))+
						", which the walker never judged, in "+strconv.Quote(clipCmd(cmd)))
				}
			}
		}
	}
	t.Logf("%d literal commands judged, %d compared with the hand lexer", judged, compared)
	if judged < 1000 || compared < 500 {
		t.Errorf("only %d literal commands judged and %d compared with the hand lexer: the corpora have shrunk", judged, compared)
	}
	for _, p := range problems {
		t.Error(p)
	}
}

// handCommands lists the hand parser's simple commands without a variable, as argvs.
func handCommands(sc *lexer.Script) [][]string {
	var out [][]string
	add := func(pl *lexer.Pipeline) {
		for _, c := range pl.Cmds {
			argv := []string{c.Name.Value}
			ok := c.Name.Var == "" && !c.Name.Tilde
			for _, a := range c.Args {
				ok = ok && a.Var == "" && a.Parts == nil && !a.Tilde && a.Glob == "" && !a.Brace
				argv = append(argv, a.Value)
			}
			if ok {
				out = append(out, argv)
			}
		}
	}
	if sc.Cd != nil && sc.Cd.Var == "" && !sc.Cd.Tilde {
		out = append(out, []string{"cd", sc.Cd.Value})
	}
	sc.Visit(func(pl *lexer.Pipeline, _ *lexer.For) bool {
		add(pl)
		return true
	})
	return out
}

func containsArgv(list [][]string, argv []string) bool {
	for _, a := range list {
		if slices.Equal(a, argv) {
			return true
		}
	}
	return false
}

func clipCmd(s string) string {
	if len(s) > 80 {
		return s[:80] + "…"
	}
	return s
}
