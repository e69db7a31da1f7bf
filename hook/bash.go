package hook

import (
	"errors"
	"strings"

	"github.com/hookctl/hookctl/internal/clip"
	"github.com/hookctl/hookctl/lexer"
	"github.com/hookctl/hookctl/programs"
)

// Refusal is a typed deny reason: what was refused and a hint, rendered in one place (render).
type Refusal struct {
	What string // what was refused and why
	Hint string // what to do instead; may be empty

	shape bool // the command's syntax or shape was refused
	tool  bool // a whole tool was refused
}

// shapesHint says in brief what the read-only shell accepts.
const shapesHint = "Read-only shell accepts one pipeline of read-only programs (git status/log/diff/show/grep/blame, " +
	"rg, grep, find, ls, cat, head, tail, sed -n, wc, sort, jq, …), or `if CMD; then CMD; [else CMD;] fi`, " +
	"or `for f in a b; do CMD \"$f\"; done`, optionally after one `cd DIR &&`; redirections only 2>&1 and 2>/dev/null."

// render writes the reason the agent reads.
func (p *Policy) render(r *Refusal, sc scope) string {
	var b strings.Builder
	b.WriteString("hookctl read-only: ")
	b.WriteString(r.What)
	if r.Hint != "" {
		b.WriteString("; ")
		b.WriteString(r.Hint)
	}
	b.WriteString(".")
	if r.shape {
		b.WriteString(" ")
		b.WriteString(shapesHint)
	}
	switch sc {
	case scopeAgent:
		b.WriteString(" This agent type is read-only in every mode: read and report; leave changes to the main agent.")
	case scopePlan:
		b.WriteString(" " + PlanModeRule + " Present the plan (ExitPlanMode's plan) and leave the changes until the user approves it.")
	case scopeReview:
		b.WriteString(" This session is in review mode: read-only, except for " + programs.PublishForms() +
			", which the user confirms. To change anything else, ask the user to leave review mode (they " + p.Client.toEdit() + ").")
	default:
		b.WriteString(" To change anything, ask the user to leave read-only mode (they " + p.Client.toEdit() + ").")
	}
	return b.String()
}

// JudgeReadOnly decides whether a shell command may run in read-only mode. On success it
// returns the command to run instead: the canonical form of exactly what was parsed and judged,
// with the hook's own pins for programs whose configuration can run code.
//
// A command is allowed only if the hand-written lexer and shape parser accept it, mvdan.cc/sh
// parses it to the same structure and words in bash and zsh, every command is on the allowlist
// with arguments its rule accepts, and every stage after a pipe is a filter.
//
// JudgeReadOnly never admits the user's read-only runners (Config.ReadOnlyRunners): they run
// repository code, which only the sandbox can hold (Policy.Decide admits them under it).
func JudgeReadOnly(cl *lexer.CommandLine, cfg *Config) (string, *Refusal) {
	sc, j, r := judgeScript(cl, cfg)
	need := j.need
	if r == nil {
		p := &Policy{Config: cfg}
		if h := p.sensitiveRead(j.reads, j.cd, true); h != nil {
			r = h.reason()
		}
	}
	switch {
	case r != nil:
		return "", r
	case need.runner:
		return "", &Refusal{What: "a read-only runner runs only in the sandbox"}
	case need.why != "":
		return "", &Refusal{What: need.why + ", so it runs only in the sandbox"}
	}
	return lexer.Print(sc, rewrite), nil
}

// sandboxNeed says why an admitted script may run only inside the OS sandbox: it starts one of
// the user's read-only runners, or a program whose rule says it runs what no rule can see
// (programs.Program.SandboxOnly). The zero value: it may run on the policy alone.
type sandboxNeed struct {
	runner bool
	why    string // "`cargo`: …"
}

// judged is what judging an admitted script learned besides its verdict.
type judged struct {
	need sandboxNeed
	// reads are the words its programs may open and read (programs.Program.JudgeReads),
	// relative to cd when the script starts with `cd DIR &&`, for the sensitive-file rule.
	reads []string
	cd    string
}

// judgeScript is JudgeReadOnly before printing: the admitted script, or why not, and whether it
// starts one of the user's read-only runners.
func judgeScript(cl *lexer.CommandLine, cfg *Config) (sc *lexer.Script, j judged, r *Refusal) {
	sc, err := cl.Shape()
	if err != nil {
		var le *lexer.Error
		if errors.As(err, &le) {
			return nil, j, &Refusal{What: le.Msg, shape: true}
		}
		return nil, j, &Refusal{What: err.Error(), Hint: "write the command more plainly", shape: true}
	}
	if sc.Pipeline != nil && cfg.runner(sc.Pipeline.Cmds[0]) {
		// The runner is matched whole; the stages after it are judged as filters.
		j.need.runner = true
		r = judgePipeline(&lexer.Pipeline{Cmds: sc.Pipeline.Cmds[1:]}, nil, cfg, 1, &j)
	} else {
		visit(sc, func(pl *lexer.Pipeline, loop *lexer.For) bool {
			r = judgePipeline(pl, loop, cfg, 0, &j)
			return r == nil
		})
	}
	if r != nil {
		return nil, j, r
	}
	if sc.Cd != nil {
		j.cd = sc.Cd.Value
	}
	return sc, j, nil
}

// visit calls f for every pipeline in the script, with the enclosing loop if any, until f
// returns false.
func visit(sc *lexer.Script, f func(*lexer.Pipeline, *lexer.For) bool) {
	switch {
	case sc.Pipeline != nil:
		f(sc.Pipeline, nil)
	case sc.If != nil:
		if !f(sc.If.Cond, nil) {
			return
		}
		for _, pl := range append(append([]*lexer.Pipeline(nil), sc.If.Then...), sc.If.Else...) {
			if !f(pl, nil) {
				return
			}
		}
	case sc.For != nil:
		for _, pl := range sc.For.Body {
			if !f(pl, sc.For) {
				return
			}
		}
	}
}

// judgePipeline judges each command of pl; first is the position of pl's first command in
// its pipeline (1 when a runner came before it).
func judgePipeline(pl *lexer.Pipeline, loop *lexer.For, cfg *Config, first int, j *judged) *Refusal {
	for k, c := range pl.Cmds {
		i := first + k
		name := c.Name.Value
		prog := programs.Lookup(name)
		if prog == nil || cfg.ProgramDenied(name) {
			return &Refusal{What: "`" + clip.Short(name) + "` is not on the read-only allowlist", Hint: programHint(name), shape: true}
		}
		if prog.SandboxOnly != "" && j.need.why == "" {
			j.need.why = "`" + name + "`: " + prog.SandboxOnly
		}
		if i > 0 && !prog.Filter {
			return &Refusal{What: "`" + name + "` cannot read a pipe", Hint: "after | use one of: " + strings.Join(programs.FilterNames(), " ")}
		}
		if r := judgeCommand(prog, c, loop, &j.reads); r != nil {
			what := r.What
			if r.Program != "" {
				what = r.Program + ": " + what
			}
			hint := r.Hint
			if hint == "" {
				hint = name + " is allowed to " + prog.Summary
			}
			return &Refusal{What: what, Hint: hint}
		}
	}
	return nil
}

// judgeCommand judges one command; inside a loop, once for each of the loop's words.
func judgeCommand(prog *programs.Program, c *lexer.SimpleCommand, loop *lexer.For, reads *[]string) *programs.Refusal {
	args := make([]programs.Arg, len(c.Args))
	usesVar := false
	for i, w := range c.Args {
		args[i] = programs.Arg{Value: w.Value, Pattern: w.Pattern, Var: w.Var != ""}
		usesVar = usesVar || w.Var != ""
	}
	if !usesVar {
		return prog.JudgeReads(args, reads)
	}
	seen := make(map[string]bool, len(loop.Items))
	for _, item := range loop.Items {
		if seen[item.Value] {
			continue
		}
		seen[item.Value] = true
		for i, w := range c.Args {
			if w.Var != "" {
				args[i].Value = item.Value
			}
		}
		if r := prog.JudgeReads(args, reads); r != nil {
			r.What += " (with " + loop.Var + "=" + clip.Short(item.Value) + ")"
			return r
		}
	}
	return nil
}

// programHint suggests what to use instead of a refused program.
func programHint(name string) string {
	if programs.LookupWrapper(name) != nil || programs.LookupInterpreter(name) != nil {
		return "interpreters and wrappers can run anything"
	}
	switch name {
	case "curl", "wget", "http", "https", "gh":
		return "network access goes through the quarantined retriever, not the shell"
	case "rm", "mv", "cp", "touch", "mkdir", "tee", "chmod", "chown", "ln", "dd", "truncate", "install", "patch":
		return "it changes files"
	case "eval", "source", ".":
		return "interpreters and wrappers can run anything"
	case "less", "more", "man", "vi", "vim", "nano", "emacs", "ed", "ex":
		return "pagers and editors are interactive and can run commands; use cat, head or sed -n"
	case "awk", "mawk", "nawk", "busybox":
		return "awk can run commands (system(), print | \"cmd\") and write files (print > f), and only GNU awk has a sandbox switch; " +
			"use gawk (run as gawk --sandbox), or cut, sed -n, grep, sort"
	}
	return "allowed programs: " + strings.Join(programs.Names(), " ")
}

// rewrite prints each command as judged, with the program's configuration pins; a runner (no
// program of the allowlist) exactly as written.
func rewrite(c *lexer.SimpleCommand) lexer.Printed {
	prog := programs.Lookup(c.Name.Value)
	if prog == nil {
		return lexer.Printed{Words: append([]lexer.Word{c.Name}, c.Args...)}
	}
	args := make([]string, len(c.Args))
	vars := map[string]lexer.Word{}
	for i, w := range c.Args {
		if w.Var != "" {
			// A placeholder no real argument can contain (the lexer refuses NUL), mapped back
			// to the loop variable after the program's rewrite.
			key := "\x00" + w.Var
			vars[key] = w
			args[i] = key
			continue
		}
		args[i] = w.Value
	}
	env, out := prog.RewriteArgs(args)
	words := make([]lexer.Word, 0, len(out)+1)
	words = append(words, c.Name)
	for _, a := range out {
		if w, ok := vars[a]; ok {
			words = append(words, w)
			continue
		}
		words = append(words, lexer.Word{Value: a})
	}
	return lexer.Printed{Env: env, Words: words}
}
