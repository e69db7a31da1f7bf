package policy

import (
	"errors"
	"slices"
	"strconv"
	"strings"

	"github.com/hookctl/hookctl/config"
	"github.com/hookctl/hookctl/internal/clip"
	"github.com/hookctl/hookctl/internal/secrets"
	"github.com/hookctl/hookctl/lexer"
	"github.com/hookctl/hookctl/lexer/nested"
	"github.com/hookctl/hookctl/programs"
)

// Refusal is a typed deny reason: what was refused and a hint, rendered in one place (render).
type Refusal struct {
	What string // what was refused and why
	Hint string // what to do instead; may be empty

	tool bool // a whole tool was refused
	// sandboxOnly: the command was admitted, but only for the OS sandbox (a read-only runner,
	// or a program whose rule is SandboxOnly), which judgeReadOnly does not have.
	sandboxOnly bool
	// launcherOnly: the command was admitted, but only through hookctl's launcher, sandbox or
	// policy-only launch (printenv and env bare: the launcher's environment holds no secret).
	launcherOnly bool
}

// readOnlyShellRules says in brief what the read-only shell accepts: told once per session (at its
// start, or with the first refusal where the hook saw no start), not with every refusal, where it
// buried the specific reason.
const readOnlyShellRules = "Read-only shell accepts read-only programs (" + shellExamples + ", …) in pipelines, " + shellForms

const (
	shellExamples = "git status/log/diff/show/grep/blame, rg, grep, find, ls, cat, head, tail, sed -n, wc, sort, jq"
	shellForms    = "`if CMD; then CMD; [else CMD;] fi` " +
		"and `for f in a b; do CMD \"$f\"; done`, joined by && || ; (every part must be a read), optionally after one `cd DIR &&`; " +
		"globs such as src/*.go where a program reads files; redirections only 2>&1, 2>/dev/null, >/dev/null, &>/dev/null and < FILE."
)

// ReadOnlyShellRulesFor is readOnlyShellRules as cfg leaves the allowlist: an example that
// deny_programs removed is not offered (cfg may be nil).
func ReadOnlyShellRulesFor(cfg *config.Config) string {
	if cfg == nil || len(cfg.DenyPrograms) == 0 {
		return readOnlyShellRules
	}
	var kept []string
	for _, e := range strings.Split(shellExamples, ", ") {
		if prog, _, _ := strings.Cut(e, " "); !cfg.ProgramDenied(prog) {
			kept = append(kept, e)
		}
	}
	return "Read-only shell accepts read-only programs (" + strings.Join(kept, ", ") + ", …) in pipelines, " + shellForms
}

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
	switch sc {
	case scopeAgent:
		b.WriteString(" This agent type is read-only in every mode: read and report; leave changes to the main agent.")
	case scopePlan:
		b.WriteString(" " + PlanModeRule + " Present the plan (ExitPlanMode's plan) and leave the changes until the user approves it.")
	case scopeReview:
		b.WriteString(" This session is in review mode: read-only, except for " + programs.PublishForms() +
			", which the user confirms. To change anything else, ask the user to leave review mode (they " + p.Client.ToEdit() + ").")
	default:
		b.WriteString(" To change anything, ask the user to leave read-only mode (they " + p.Client.ToEdit() + ").")
	}
	return b.String()
}

// judgeReadOnly decides whether a shell command may run in read-only mode, asking w what its
// globs match (the sensitive-file rule). On success it
// returns the command to run instead: the canonical form of exactly what was parsed and judged,
// with the hook's own pins for programs whose configuration can run code.
//
// A command is allowed only if the hand-written lexer and shape parser accept it, mvdan.cc/sh
// parses it to the same structure and words in bash and zsh, every command of every item of its
// list (whichever the shell would run) is on the allowlist with arguments its rule accepts,
// every stage after a pipe is a filter, and `< FILE` feeds only a filter. The rewrite is what
// was judged: globs with the lexer's ./, brace groups as their words, ~ and $HOME as the path.
//
// judgeReadOnly never admits the user's read-only runners (Config.ReadOnlyRunners): they run
// repository code, which only the sandbox can hold (Policy.Decide admits them under it); nor a
// program whose rule runs it only in the sandbox (programs.Program.SandboxOnly). Both refusals
// are marked sandboxOnly: everything else about the command was admitted.
func judgeReadOnly(cl *lexer.CommandLine, cfg *config.Config, w World) (string, *Refusal) {
	sc, j, r := judgeScript(cl, cfg)
	need := j.need
	if r == nil {
		p := &Policy{Config: cfg, World: w}
		if h := p.sensitiveAccess(j.access, readContext{dir: j.cd, projectToo: true, rewritten: true, launched: true}); h != nil {
			r = h.reason(p.allowReadHint())
		}
	}
	switch {
	case r != nil:
		return "", r
	case need.runner:
		return "", &Refusal{What: "a read-only runner runs only in the sandbox", sandboxOnly: true}
	case need.why != "":
		return "", &Refusal{What: need.why + ", so it runs only in the sandbox", sandboxOnly: true}
	case need.launcher != "":
		return "", &Refusal{What: need.launcher + ", so it runs only through hookctl's launcher", launcherOnly: true}
	}
	return lexer.Print(sc, rewriteFor(cfg)), nil
}

// sandboxNeed says why an admitted script may run only inside the OS sandbox: it starts one of
// the user's read-only runners, or a program whose rule says it runs what no rule can see
// (programs.Program.SandboxOnly). The zero value: it may run on the policy alone.
type sandboxNeed struct {
	runner bool
	why    string // "`cargo`: …"
	// launcher says why the script runs only through hookctl's launcher, sandbox or not
	// (programs.Program.LauncherOnly): "`printenv`: it prints the whole environment, …".
	launcher string
}

// judged is what judging an admitted script learned besides its verdict.
type judged struct {
	need sandboxNeed
	// access is what its programs may read (programs.Program.JudgeAccess): the words they open,
	// their walks and their files of names, relative to cd when the script starts with
	// `cd DIR &&`, for the sensitive-file rule.
	access programs.Access
	cd     string
	// env are the variables its words read ($NAME), for a client whose commands run without
	// hookctl's launcher (its environment is the client's whole one).
	env []string
}

// judgeScript is judgeReadOnly before printing: the admitted script, or why not, and whether it
// starts one of the user's read-only runners.
func judgeScript(cl *lexer.CommandLine, cfg *config.Config) (sc *lexer.Script, j judged, r *Refusal) {
	sc, err := cl.Shape()
	if err != nil {
		var le *lexer.Error
		if errors.As(err, &le) {
			return nil, j, &Refusal{What: le.Msg}
		}
		return nil, j, &Refusal{What: err.Error(), Hint: "write the command more plainly"}
	}
	if len(sc.Items) == 1 && sc.Items[0].Pipeline != nil && isRunner(cfg, sc.Items[0].Pipeline.Cmds[0]) {
		// The runner is matched whole, alone; the stages after it are judged as filters.
		j.need.runner = true
		r = judgePipeline(&lexer.Pipeline{Cmds: sc.Items[0].Pipeline.Cmds[1:]}, nil, cfg, 1, &j)
	} else {
		sc.Visit(func(pl *lexer.Pipeline, loop *lexer.For) bool {
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

// judgePipeline judges each command of pl; first is the position of pl's first command in
// its pipeline (1 when a runner came before it).
func judgePipeline(pl *lexer.Pipeline, loop *lexer.For, cfg *config.Config, first int, j *judged) *Refusal {
	for k, c := range pl.Cmds {
		var prev *lexer.SimpleCommand
		if k > 0 {
			prev = pl.Cmds[k-1]
		}
		if r := judgeStage(c, prev, first+k, loop, cfg, j); r != nil {
			return r
		}
	}
	return nil
}

// judgeStage judges command c, at position i of its pipeline, after prev (nil for the first):
// its program is on the allowlist (a filter after a pipe), its input redirection feeds a
// filter, and its rule accepts its arguments. What it learns goes to j.
func judgeStage(c, prev *lexer.SimpleCommand, i int, loop *lexer.For, cfg *config.Config, j *judged) *Refusal {
	name := c.Name.Value
	prog := programs.Lookup(name)
	if prog != nil && prog.LauncherOnly != nil && nested.LookupWrapper(name) != nil && !bareWrapper(c) {
		prog = nil // env runs a program with anything after it: only its bare form reads
	}
	if prog != nil && cfg.ProgramDenied(name) {
		return &Refusal{What: "`" + clip.Short(name) + "` is removed from the read-only allowlist by deny_programs in hookctl's configuration",
			Hint: "allowed programs: " + allowedNames(cfg)}
	}
	if prog == nil {
		return &Refusal{What: "`" + clip.Short(name) + "` is not on the read-only allowlist", Hint: programHint(name, cfg)}
	}
	if prog.SandboxOnly != "" && j.need.why == "" {
		j.need.why = "`" + name + "`: " + prog.SandboxOnly
	}
	if prog.LauncherOnly != nil && j.need.launcher == "" {
		if why := prog.LauncherOnly(lexerArgs(c)); why != "" {
			j.need.launcher = "`" + name + "`: " + why
		}
	}
	if i > 0 && !prog.Filter {
		return &Refusal{What: "`" + name + "` cannot read a pipe", Hint: "after | use one of: " + strings.Join(programs.FilterNames(), " ")}
	}
	if r := judgeInput(prog, c, &j.access.Files); r != nil {
		return r
	}
	judge := prog
	if prog.Name == "xargs" {
		at, r := findXargs(c, prev)
		if r != nil {
			return r
		}
		c, judge = findExec(prev, c, at), programs.Lookup("find")
	}
	for _, w := range c.Args {
		if w.Env {
			j.env = append(j.env, w.Vars()...)
		}
	}
	if r := judgeCommand(judge, c, loop, cfg.UserHome, &j.access); r != nil {
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
	return nil
}

// bareWrapper says whether a wrapper that is also a read (env) stands without a program to run:
// no word but -0.
func bareWrapper(c *lexer.SimpleCommand) bool {
	for _, w := range c.Args {
		if w.Value != "-0" && w.Value != "--null" {
			return false
		}
	}
	return true
}

// findXargs admits xargs only as `find … -print0 | xargs -0 …` (programs.xargsRule says why):
// right after a find that prints nothing but NUL-ended names, with no input of its own. It
// returns where the program xargs runs starts among its words.
func findXargs(c, prev *lexer.SimpleCommand) (int, *Refusal) {
	refused := func(what, hint string) *Refusal {
		return &Refusal{What: "xargs: " + what, Hint: hint}
	}
	hint := "use find … -print0 | xargs -0 PROG …, or find … -exec PROG … {} +"
	if prev == nil || prev.Name.Value != "find" {
		return 0, refused("xargs runs a program on words from its input, which the judge cannot see; it may follow only find … -print0", hint)
	}
	for _, r := range c.Redirs {
		if r.Kind == lexer.TokIn {
			return 0, refused("xargs reads find's names, not a file", hint)
		}
	}
	for _, r := range prev.Redirs {
		if r.Kind == lexer.TokErrToOut {
			// find's error messages would reach xargs as names: a file named like one
			// (find: 'nope': No such file…) is then read (a red team's find).
			return 0, refused("find's `2>&1` would hand its error messages to xargs as names", "drop 2>&1, or use 2>/dev/null")
		}
	}
	words := make([]string, len(prev.Args))
	for i, w := range prev.Args {
		words[i] = w.Value
	}
	if !programs.FindPrintsNames(words) {
		return 0, refused("find must print only NUL-ended names (-print0) for xargs -0 (no -print, -printf, -ls or -exec)", hint)
	}
	args := make([]string, len(c.Args))
	for i, w := range c.Args {
		if w.Var != "" || w.Parts != nil || !w.Quoted && (w.Tilde || w.Glob != "" || w.Brace) {
			return 0, refused("the words of xargs must be written out", hint)
		}
		args[i] = w.Value
	}
	at, r := programs.XargsProgram(args)
	if r != nil {
		if r.Hint != "" {
			hint = r.Hint
		}
		return 0, refused(r.What, hint)
	}
	return at, nil
}

// findExec is the find that `find … -print0 | xargs -0 PROG ARGS…` amounts to, and is judged
// as: find … -print0 -exec PROG ARGS… {} + (findXargs has checked both, and found PROG at
// xargs's word at).
func findExec(find, xargs *lexer.SimpleCommand, at int) *lexer.SimpleCommand {
	args := append(append([]lexer.Word(nil), find.Args...), lexer.Word{Value: "-exec", Raw: "-exec"})
	args = append(args, xargs.Args[at:]...)
	args = append(args, lexer.Word{Value: "{}", Raw: "{}", Pattern: true}, lexer.Word{Value: "+", Raw: "+"})
	return &lexer.SimpleCommand{Name: find.Name, Args: args}
}

// judgeInput admits `< FILE` only for a program that reads standard input as data (a filter):
// for it the file is one more input, which the parser has already held to a literal path off
// /dev, /proc and /sys. Any other program would read its standard input as something else, or
// not at all. Output and error redirections go only to /dev/null (the lexer's), which discards.
// Test: TestCorpusRefused (deny/redirection.txt), TestExecuteAdmittedRows.
//
// The file is a read for the sensitive-file rule (reads), as an operand would be.
func judgeInput(prog *programs.Program, c *lexer.SimpleCommand, reads *[]string) *Refusal {
	for _, r := range c.Redirs {
		if r.Kind != lexer.TokIn {
			continue
		}
		if !prog.Filter {
			return &Refusal{What: "`" + prog.Name + "` does not read standard input, so `<` is not allowed with it",
				Hint: "give the file as an operand"}
		}
		*reads = append(*reads, r.File.Value)
	}
	return nil
}

// judgeCommand judges one command; inside a loop, once for each of the loop's words. A word
// that starts with ~ or $HOME is judged as the literal path under home, which the rewrite runs
// (rewriteFor): the shell expands nothing the judge did not see. ~user, ~+ and ~- never get here
// (the lexer refuses them), nor $HOME anywhere but at a word's start. Test: TestCorpusAllowed
// (allow/home.txt), TestCorpusRefused (deny/expansion.txt).
//
// The words its program may open go to reads, for the sensitive-file rule.
func judgeCommand(prog *programs.Program, c *lexer.SimpleCommand, loop *lexer.For, home string, acc *programs.Access) *programs.Refusal {
	args := make([]programs.Arg, len(c.Args))
	usesVar := false
	for i, w := range c.Args {
		if w.Env {
			if r := judgeEnvWord(prog, w, loop); r != nil {
				return r
			}
			args[i] = programs.Arg{Value: "x"} // the program takes any value
			continue
		}
		if w.Tilde {
			if home == "" {
				return &programs.Refusal{What: "`~` and `$HOME` stand for your home directory, which hookctl could not read", Hint: "write the path out"}
			}
			w = lexer.ExpandHome(w, home)
		}
		args[i] = programs.Arg{Value: w.Value, Pattern: w.Pattern, Var: w.Var != "" || w.Parts != nil, Glob: w.Glob != "" && !optionGlob(w)}
		usesVar = usesVar || w.Var != "" || w.Parts != nil
	}
	if !usesVar {
		return prog.JudgeAccess(args, acc)
	}
	seen := make(map[string]bool, len(loop.Items))
	for _, item := range loop.Items {
		if seen[item.Value] {
			continue
		}
		seen[item.Value] = true
		for i, w := range c.Args {
			switch {
			case w.Env:
			case w.Var != "":
				args[i].Value = item.Value
				args[i].Glob = item.Glob != ""
			case w.Parts != nil:
				// The word as the shell makes it in this iteration: its text around the
				// item. A glob item stays a pattern for every file it may match (the text
				// around it holds no unquoted glob character: the lexer refuses one).
				args[i].Value = substitute(w.Parts, item.Value)
				args[i].Glob = item.Glob != ""
			}
		}
		if r := prog.JudgeAccess(args, acc); r != nil {
			r.What += " (with " + loop.Var + "=" + clip.Short(item.Value) + ")"
			return r
		}
	}
	return nil
}

// lexerArgs are a command's words as its program receives them, for a rule's question about
// them (programs.Program.LauncherOnly).
func lexerArgs(c *lexer.SimpleCommand) []programs.Arg {
	args := make([]programs.Arg, len(c.Args))
	for i, w := range c.Args {
		args[i] = programs.Arg{Value: w.Value, Pattern: w.Pattern, Var: w.Var != "" || w.Parts != nil, Glob: w.Glob != ""}
	}
	return args
}

// substitute joins a word's parts with value for its variable (the loop's: a word that reads
// any other is Env and never substituted).
func substitute(parts []lexer.Part, value string) string {
	var b strings.Builder
	for _, p := range parts {
		if p.Var != "" {
			b.WriteString(value)
			continue
		}
		b.WriteString(p.Text)
	}
	return b.String()
}

// judgeEnvWord admits a word that reads the environment ("$PATH", "x $PWD", $SHELL) only for
// a program that takes any argument (programs.Program.AnyArgument): the judge cannot see the
// value, which may be anything, an option included. A variable named like a secret is refused
// there too: its value would enter the model's context. Test: TestEnvironmentWords,
// TestCorpusRefused (deny/expansion.txt).
func judgeEnvWord(prog *programs.Program, w lexer.Word, loop *lexer.For) *programs.Refusal {
	for _, name := range w.Vars() {
		if loop != nil && name == loop.Var {
			continue
		}
		if secrets.Variable(name) {
			return &programs.Refusal{Program: prog.Name, What: "`$" + name + "` is named like a secret, whose value would enter the model's context",
				Hint: "ask the user whether it is set; never print a secret's value"}
		}
		if !prog.AnyArgument {
			return &programs.Refusal{Program: prog.Name, What: "`$" + name + "` comes from the environment, whose value hookctl cannot see, and " +
				prog.Name + " reads its arguments as options and files", Hint: "only " + strings.Join(programs.AnyArgumentNames(), ", ") +
				" take such a word; write the value out (printenv " + name + " prints it)"}
		}
	}
	return nil
}

// optionGlob reports whether w is a long option whose value holds the glob characters:
// --include=*.go. The shell would match the whole word against file names, each of which would
// still start with --include= (so still be that option); the rewrite quotes it, so that the
// program gets exactly the pattern judged, as if the agent had written --include='*.go'.
// Test: TestCorpusAllowed (allow/globs.txt), TestShellsRunWhatWasJudged.
func optionGlob(w lexer.Word) bool {
	if w.Glob == "" || !strings.HasPrefix(w.Value, "--") {
		return false
	}
	name, _, ok := strings.Cut(w.Value, "=")
	return ok && !strings.ContainsAny(name, "*?")
}

// programHint suggests what to use instead of a refused program.
func programHint(name string, cfg *config.Config) string {
	if name == "env" || name == "printenv" {
		// Without arguments they print the whole environment, secrets included.
		return "interpreters and wrappers can run anything, and " + name + " prints every variable, secrets included; " +
			"print one variable with echo \"$NAME\" (one not named like a secret), or ask the tool itself (go env GOPATH)"
	}
	if nested.LookupWrapper(name) != nil || nested.LookupInterpreter(name) != nil {
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
	}
	return "allowed programs: " + allowedNames(cfg)
}

// allowedNames lists the allowlist as cfg leaves it: a program deny_programs removed is not
// offered to the agent as one it may run.
func allowedNames(cfg *config.Config) string {
	names := slices.DeleteFunc(programs.Names(), cfg.ProgramDenied)
	return strings.Join(names, " ")
}

// rewriteFor is rewrite with ~ and $HOME written as cfg's literal home directory, as judged.
func rewriteFor(cfg *config.Config) func(*lexer.SimpleCommand) lexer.Printed {
	if cfg.UserHome == "" {
		return rewrite
	}
	return func(c *lexer.SimpleCommand) lexer.Printed { return rewriteHome(c, cfg.UserHome) }
}

// rewrite prints each command as judged, with the program's configuration pins; a runner (no
// program of the allowlist) exactly as written.
func rewrite(c *lexer.SimpleCommand) lexer.Printed { return rewriteHome(c, "") }

// rewriteHome is rewrite with words that start with ~ or $HOME written under home, when home
// is set.
func rewriteHome(c *lexer.SimpleCommand, home string) lexer.Printed {
	prog := programs.Lookup(c.Name.Value)
	if prog == nil {
		return lexer.Printed{Words: append([]lexer.Word{c.Name}, c.Args...)}
	}
	args := make([]string, len(c.Args))
	var vars map[string]lexer.Word
	for i, w := range c.Args {
		if home != "" {
			w = lexer.ExpandHome(w, home)
		}
		if w.Var != "" || w.Parts != nil || w.Glob != "" && !optionGlob(w) {
			// A placeholder no real argument can contain (the lexer refuses NUL), mapped back
			// to the loop variable or the glob after the program's rewrite. An option's glob
			// is printed as the literal text judged (optionGlob).
			if vars == nil {
				vars = map[string]lexer.Word{}
			}
			key := "\x00" + w.Var
			if w.Var == "" {
				key = "\x00\x00" + strconv.Itoa(i)
			}
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

// needsRewrite says whether the script is read-only only as hookctl rewrites it: a glob (run
// with ./ before a leading wildcard, option-valued globs quoted), a brace group (run expanded)
// or ~ and $HOME (run as the literal home). A client that runs a tool's command as written
// (ToolCall.NoRewrite) would run something else, so such a script is refused there.
func needsRewrite(sc *lexer.Script) bool {
	return sc.AnyWord(func(w lexer.Word) bool { return w.Glob != "" || w.Brace || w.Tilde })
}
