package policy

import (
	"errors"
	"fmt"
	"slices"
	"strings"
	"testing"

	"mvdan.cc/sh/v3/syntax"

	"github.com/hookctl/hookctl/config"
	"github.com/hookctl/hookctl/hook"
	"github.com/hookctl/hookctl/internal/corpus"
	"github.com/hookctl/hookctl/internal/shellglob"
	"github.com/hookctl/hookctl/lexer"
)

// FuzzJudge: the judge never panics, and what it allows (outright or for the sandbox only) is
// stable: judging the canonical form of an allowed command (without the hook's pins) allows it
// again with the same rewrite.
func FuzzJudge(f *testing.F) {
	corpus.Seed(f, "allow", "deny", "realistic")
	cfg := &config.Config{}
	f.Fuzz(func(t *testing.T, src string) {
		out, r := judgeInSandbox(src, cfg)
		if r != nil {
			if r.What == "" {
				t.Fatalf("%q refused without a reason", src)
			}
			return
		}
		sc, err := lexer.Parse(src)
		if err != nil {
			t.Fatalf("%q allowed but does not parse: %v", src, err)
		}
		canonical := lexer.Print(sc, nil)
		again, r := judgeInSandbox(canonical, cfg)
		if r != nil {
			t.Fatalf("%q allowed, its canonical form %q refused: %s", src, canonical, r.What)
		}
		if again != out {
			t.Fatalf("%q and its canonical form %q rewrite differently:\n%s\n%s", src, canonical, out, again)
		}
	})
}

// FuzzJudgeDifferential: whatever the judge allows (outright or for the sandbox only), the
// command the hook sends instead parses under mvdan.cc/sh, in bash and in zsh, to exactly the
// commands and words that were judged (with the hook's own pins): what runs is what was judged.
func FuzzJudgeDifferential(f *testing.F) {
	corpus.Seed(f, "allow", "deny", "realistic")
	cfg := &config.Config{}
	f.Fuzz(func(t *testing.T, src string) {
		out, r := judgeInSandbox(src, cfg)
		if r != nil {
			return
		}
		sc, err := lexer.Parse(src)
		if err != nil {
			t.Fatal(err)
		}
		want := judgedCalls(sc)
		for _, lang := range []syntax.LangVariant{syntax.LangBash, syntax.LangZsh} {
			got, err := mvdanCalls(out, lang)
			if err != nil {
				t.Fatalf("%q rewritten as %q: %s: %v", src, out, lang, err)
			}
			if !slices.Equal(got, want) {
				t.Fatalf("%q rewritten as %q: %s reads\n %q\nthe judge judged\n %q", src, out, lang, got, want)
			}
		}
	})
}

// judgedCalls lists, in source order, each command as the rewrite sends it: its environment
// pins and its words, the loop variable written as $NAME.
func judgedCalls(sc *lexer.Script) []string {
	var out []string
	if sc.Cd != nil {
		out = append(out, "cd\x1f"+sc.Cd.Value)
	}
	add := func(pl *lexer.Pipeline) {
		for _, c := range pl.Cmds {
			p := rewrite(c)
			var parts []string
			parts = append(parts, p.Env...)
			for _, w := range p.Words {
				switch {
				case w.Split:
					parts = append(parts, "u$"+w.Var)
				case w.Var != "":
					parts = append(parts, "$"+w.Var)
				case w.Parts != nil:
					var b strings.Builder
					for _, x := range w.Parts {
						if x.Var != "" {
							b.WriteString("$" + x.Var)
						} else {
							b.WriteString(x.Text)
						}
					}
					parts = append(parts, b.String())
				default:
					parts = append(parts, w.Value)
				}
			}
			for _, r := range c.Redirs {
				parts = append(parts, r.Kind.String()+r.File.Value)
			}
			out = append(out, strings.Join(parts, "\x1f"))
		}
	}
	sc.Visit(func(pl *lexer.Pipeline, _ *lexer.For) bool {
		add(pl)
		return true
	})
	return out
}

// mvdanCalls lists every simple command mvdan finds in src, in source order, as assignments then
// words, with redirections, in the notation of judgedCalls. Anything else it finds is an error.
func mvdanCalls(src string, lang syntax.LangVariant) ([]string, error) {
	f, err := syntax.NewParser(syntax.Variant(lang)).Parse(strings.NewReader(src), "")
	if err != nil {
		return nil, err
	}
	var out []string
	var bad error
	syntax.Walk(f, func(n syntax.Node) bool {
		if bad != nil {
			return false
		}
		switch n := n.(type) {
		case *syntax.CmdSubst, *syntax.ProcSubst, *syntax.ArithmExp, *syntax.ParamExp:
			if pe, ok := n.(*syntax.ParamExp); ok && pe.Exp == nil && pe.Index == nil && pe.Slice == nil && pe.Repl == nil && !pe.Length && !pe.Excl {
				return true // the loop variable, checked through the word values below
			}
			bad = fmt.Errorf("an expansion %T", n)
			return false
		case *syntax.Stmt:
			call, ok := n.Cmd.(*syntax.CallExpr)
			if !ok {
				return true
			}
			var parts []string
			for _, a := range call.Assigns {
				v := ""
				if a.Value != nil {
					v, _ = wordValue(a.Value)
				}
				parts = append(parts, a.Name.Value+"="+v)
			}
			for _, w := range call.Args {
				v, err := wordValue(w)
				if err != nil {
					bad = err
					return false
				}
				parts = append(parts, v)
			}
			for _, r := range n.Redirs {
				v, _ := wordValue(r.Word)
				n := ""
				if r.N != nil {
					n = r.N.Value
				}
				switch {
				case n == "2" && r.Op == syntax.DplOut && v == "1":
					parts = append(parts, "2>&1")
				case n == "2" && r.Op == syntax.RdrOut && v == "/dev/null":
					parts = append(parts, "2>/dev/null")
				case n == "" && r.Op == syntax.RdrOut && v == "/dev/null":
					parts = append(parts, ">/dev/null")
				case n == "" && r.Op == syntax.RdrAll && v == "/dev/null":
					parts = append(parts, "&>/dev/null")
				case n == "" && r.Op == syntax.RdrIn:
					parts = append(parts, "<"+v)
				default:
					bad = fmt.Errorf("a redirection %s", r.Op)
					return false
				}
			}
			out = append(out, strings.Join(parts, "\x1f"))
		}
		return true
	})
	return out, bad
}

func wordValue(w *syntax.Word) (string, error) {
	var b strings.Builder
	for _, p := range w.Parts {
		switch p := p.(type) {
		case *syntax.Lit:
			b.WriteString(p.Value)
		case *syntax.SglQuoted:
			b.WriteString(p.Value)
		case *syntax.ParamExp:
			if len(w.Parts) != 1 {
				return "", errors.New("an unquoted parameter inside a word")
			}
			b.WriteString("u$" + p.Param.Value) // unquoted: split and globbed
		case *syntax.DblQuoted:
			for _, q := range p.Parts {
				switch q := q.(type) {
				case *syntax.Lit:
					b.WriteString(q.Value)
				case *syntax.ParamExp:
					b.WriteString("$" + q.Param.Value)
				default:
					return "", fmt.Errorf("%T in double quotes", q)
				}
			}
		default:
			return "", fmt.Errorf("a word part %T", p)
		}
	}
	return b.String(), nil
}

// FuzzContainEdit: whatever an edit-mode agent sends, the rewrite either leaves it alone or
// starts the edit launcher on exactly the agent's own text, as bash reads the rewrite, with at
// most a leading literal `cd DIR &&` taken out to run before it.
func FuzzContainEdit(f *testing.F) {
	corpus.Seed(f, "edit-allow", "edit-deny")
	p := &Policy{World: shellglob.World{}, Config: &config.Config{}, Binary: "/bin/hook ctl", Sandbox: func() Isolation { return Isolation{Available: true, Edit: true} }}
	head := []string{"/bin/hook ctl", "sandbox", "--profile", "edit", "--session", "s'1", "--project", "/p q", "--", "bash", "--noprofile", "--norc", "-c"}
	f.Fuzz(func(t *testing.T, src string) {
		d := p.Decide(&hook.ToolCall{Tool: "Bash", Kind: hook.KindShell, Command: src, Session: "s'1", Cwd: "/elsewhere"}, SessionState{Mode: hook.ModeEdit, Project: "/p q"})
		if d.Verdict != hook.Pass || d.Command == "" || !strings.HasPrefix(d.Isolation, "edit sandbox") {
			return
		}
		cmds := shellWords(t, d.Command)
		launch := cmds[len(cmds)-1]
		if len(launch) != len(head)+1 || !slices.Equal(launch[:len(head)], head) {
			t.Fatalf("%q rewritten as %q: the launcher reads %q", src, d.Command, launch)
		}
		inner := launch[len(head)]
		switch {
		case inner == src && len(cmds) == 1:
		case len(cmds) == 2 && len(cmds[0]) == 2 && cmds[0][0] == "cd" && strings.HasSuffix(src, inner) && strings.HasPrefix(strings.TrimSpace(src), "cd"):
		default:
			t.Fatalf("%q rewritten as %q: the sandboxed shell runs %q after %q", src, d.Command, inner, cmds[:len(cmds)-1])
		}
	})
}
