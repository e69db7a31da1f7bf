package policy

import (
	"errors"
	"strings"

	"github.com/hookctl/hookctl/config"
	"github.com/hookctl/hookctl/internal/clip"
	"github.com/hookctl/hookctl/lexer"
	"github.com/hookctl/hookctl/programs"
)

// Step is one stage of the read-only judge as `hookctl check --explain` shows it: what the
// stage saw and whether it let the command through.
type Step struct {
	Stage  string `json:"stage"`
	OK     bool   `json:"ok"`
	Detail string `json:"detail"`
}

// ExplainReadOnly runs the stages judgeReadOnly runs, in its order and with its functions,
// and says what each one saw: the lexer's tokens, the shape parser's structure, the second
// parser's agreement, each command's rule, the sensitive-file rule over the words read, and
// the rewrite. It stops at the first stage that refuses, as the judge does; the verdict it
// implies is judgeReadOnly's (TestExplainAgreesWithTheJudge).
func ExplainReadOnly(cl *lexer.CommandLine, cfg *config.Config, w World) []Step {
	var steps []Step
	add := func(stage string, ok bool, detail string) bool {
		steps = append(steps, Step{Stage: stage, OK: ok, Detail: detail})
		return ok
	}
	toks, err := lexer.Lex(cl.Src)
	if err != nil {
		add("tokens", false, refusalText(err))
		return steps
	}
	add("tokens", true, describeTokens(toks))
	sc, err := lexer.Parse(cl.Src)
	if err != nil {
		add("shape", false, refusalText(err))
		return steps
	}
	add("shape", true, lexer.Shape(sc))
	if _, err := cl.Shape(); err != nil {
		add("second parser", false, err.Error())
		return steps
	}
	add("second parser", true, "mvdan.cc/sh reads the same structure and words, as bash and as zsh")

	var j judged
	if len(sc.Items) == 1 && sc.Items[0].Pipeline != nil && isRunner(cfg, sc.Items[0].Pipeline.Cmds[0]) {
		j.need.runner = true
		add("program", true, commandText(sc.Items[0].Pipeline.Cmds[0])+
			": one of your read_only_runners (it runs the repository's code, so only in the sandbox)")
		cmds := sc.Items[0].Pipeline.Cmds
		for k, c := range cmds[1:] {
			if !explainStage(add, c, cmds[k], k+1, nil, cfg, &j) {
				return steps
			}
		}
	} else {
		ok := true
		sc.Visit(func(pl *lexer.Pipeline, loop *lexer.For) bool {
			for i, c := range pl.Cmds {
				var prev *lexer.SimpleCommand
				if i > 0 {
					prev = pl.Cmds[i-1]
				}
				if ok = explainStage(add, c, prev, i, loop, cfg, &j); !ok {
					return false
				}
			}
			return true
		})
		if !ok {
			return steps
		}
	}
	if sc.Cd != nil {
		j.cd = sc.Cd.Value
	}
	p := &Policy{Config: cfg, World: w}
	if h := p.sensitiveAccess(j.access, readContext{dir: j.cd, projectToo: true, rewritten: true, launched: true}); h != nil {
		add("files read", false, h.reason(p.allowReadHint()).What)
		return steps
	}
	if len(j.access.Files) == 0 {
		add("files read", true, "no program reads a file the command names")
	} else {
		add("files read", true, "none of these is a secret or credential store: "+clip.Short(strings.Join(unique(j.access.Files), " ")))
	}
	add("rewrite", true, lexer.Print(sc, rewriteFor(cfg)))
	switch {
	case j.need.runner:
		add("sandbox", true, "required: a read-only runner runs only in the sandbox")
	case j.need.why != "":
		add("sandbox", true, "required: "+j.need.why)
	case j.need.launcher != "":
		add("sandbox", true, "required: hookctl's launcher, sandboxed or not: "+j.need.launcher)
	default:
		add("sandbox", true, "wanted, not required: where it cannot apply, the policy alone holds the command")
	}
	return steps
}

// explainStage is judgeStage with what it decided added as a step.
func explainStage(add func(string, bool, string) bool, c, prev *lexer.SimpleCommand, i int, loop *lexer.For, cfg *config.Config, j *judged) bool {
	where := commandText(c)
	if loop != nil {
		where += " (for each " + loop.Var + ")"
	}
	if r := judgeStage(c, prev, i, loop, cfg, j); r != nil {
		what := r.What
		if r.Hint != "" {
			what += "; " + r.Hint
		}
		return add("program", false, where+": "+what)
	}
	prog := programs.Lookup(c.Name.Value)
	detail := where + ": " + prog.Name + " may " + prog.Summary
	if i > 0 {
		detail += "; a filter, so it may read the pipe"
	}
	return add("program", true, detail)
}

// describeTokens lists the tokens, each word with how the lexer read it.
func describeTokens(toks []lexer.Token) string {
	var b strings.Builder
	for i, t := range toks {
		if t.Kind == lexer.TokEOF {
			break
		}
		if i > 0 {
			b.WriteString(" · ")
		}
		if t.Kind != lexer.TokWord {
			b.WriteString(t.Kind.String())
			continue
		}
		w := t.Word
		b.WriteString(clip.Short(w.Raw))
		var notes []string
		switch {
		case w.Var != "":
			notes = append(notes, "loop variable "+w.Var)
		case w.Glob != "":
			notes = append(notes, "glob "+w.Glob)
		case w.Brace:
			notes = append(notes, "brace word "+w.Value)
		case w.Quoted && w.Raw != w.Value:
			notes = append(notes, "literal "+lexer.Quote(w.Value))
		}
		if w.Tilde {
			notes = append(notes, "home")
		}
		if len(notes) > 0 {
			b.WriteString(" (" + strings.Join(notes, ", ") + ")")
		}
	}
	return b.String()
}

// refusalText is the lexer's or parser's message, without the byte offset a user does not need.
func refusalText(err error) string {
	var le *lexer.Error
	if errors.As(err, &le) {
		return le.Msg
	}
	return err.Error()
}

// commandText is c as written, in backquotes, for a step.
func commandText(c *lexer.SimpleCommand) string {
	sc := &lexer.Script{Items: []*lexer.Item{{Pipeline: &lexer.Pipeline{Cmds: []*lexer.SimpleCommand{c}}}}}
	return "`" + clip.Short(lexer.Print(sc, nil)) + "`"
}

// unique is words without repeats (a loop judges its body once per item), in first order.
func unique(words []string) []string {
	seen := make(map[string]bool, len(words))
	out := words[:0:0]
	for _, w := range words {
		if !seen[w] {
			seen[w] = true
			out = append(out, w)
		}
	}
	return out
}
