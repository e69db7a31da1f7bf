package editguard

// The edit guard (see doc.go): simple commands.

import (
	"strings"

	"github.com/hookctl/hookctl/internal/clip"
	"github.com/hookctl/hookctl/lexer/nested"
	"github.com/hookctl/hookctl/route"

	"github.com/hookctl/hookctl/programs"
	"mvdan.cc/sh/v3/syntax"
)

// invocation is one command to judge: the program's base name and its expanded arguments.
type invocation struct {
	prog string
	args []word
	st   *state
	// noRequireForce: git's -c clean.requireForce=false, which makes git clean delete
	// without -f.
	noRequireForce bool
	// pruneNow: git's -c gc.pruneExpire=… (or a reflog expiry), which makes gc delete
	// unreachable commits sooner than its two weeks.
	pruneNow bool
}

// observeCall, when set, is told every simple command and declaration the walker judges: its
// words as mvdan parsed them, the words the walker expanded them to, and the depth of re-parses
// it sits at (1 for the command as written). Only tests set it (TestReadersAgree): no judgement
// depends on it.
var observeCall func(depth int, words []*syntax.Word, argv []word)

// observeDecl tells observeCall of a declaration (export A=1, local x), as the words a simple
// command would have: the variant, then each NAME=VALUE, NAME or option.
func (j *judge) observeDecl(c *syntax.DeclClause, st *state) {
	words := []*syntax.Word{{Parts: []syntax.WordPart{&syntax.Lit{Value: c.Variant.Value}}}}
	argv := []word{lit(c.Variant.Value)}
	for _, a := range c.Args {
		switch {
		case a.Array != nil || a.Index != nil:
			return // not a word a simple command could hold
		case a.Naked && a.Name != nil:
			words = append(words, &syntax.Word{Parts: []syntax.WordPart{&syntax.Lit{Value: a.Name.Value}}})
			argv = append(argv, lit(a.Name.Value))
		case a.Naked:
			ws := j.expand(a.Value, st.clone())
			if len(ws) != 1 {
				return
			}
			words = append(words, a.Value)
			argv = append(argv, ws[0])
		default:
			prefix := a.Name.Value + "="
			if a.Append {
				prefix = a.Name.Value + "+="
			}
			w := &syntax.Word{Parts: []syntax.WordPart{&syntax.Lit{Value: prefix}}}
			v := lit(prefix)
			if a.Value != nil {
				w.Parts = append(w.Parts, a.Value.Parts...)
				x, ok := j.expandAssign(a.Value, st.clone())
				if !ok {
					return
				}
				v.s += x.s
			}
			words = append(words, w)
			argv = append(argv, v)
		}
	}
	observeCall(j.depth, words, argv)
}

func (j *judge) call(s *syntax.Stmt, c *syntax.CallExpr, st *state) *programs.Refusal {
	for _, a := range c.Assigns {
		if r := j.substs(a, st); r != nil {
			return r
		}
	}
	for _, w := range c.Args {
		if r := j.substs(w, st); r != nil {
			return r
		}
	}
	if len(c.Args) == 0 {
		for _, a := range c.Assigns {
			j.assign(a, st)
		}
		return nil
	}
	if j.ifsChanged {
		for _, w := range c.Args {
			for _, p := range w.Parts {
				if _, ok := p.(*syntax.ParamExp); ok {
					return refuse("", "quote the expansion (\"$x\"), or set IFS only for one command (IFS=, read …)",
						"IFS was changed, so the unquoted `%s` splits into words the guard cannot follow", clip.Short(literalOr(w)))
				}
			}
		}
	}
	var argv []word
	for _, w := range c.Args {
		argv = append(argv, j.expand(w, st)...)
		if j.overflow != nil {
			return j.overflow
		}
		if len(argv) > maxFields {
			return &programs.Refusal{What: "the command expands to too many words to judge", Hint: hintAsk}
		}
	}
	if r := j.tick(len(argv)); r != nil {
		return r
	}
	if observeCall != nil {
		observeCall(j.depth, c.Args, argv)
	}
	if len(c.Assigns) > 0 {
		// Assignments before a command are exported to it, and to any shell it starts.
		inner := st.clone()
		ifs := j.ifsChanged // IFS=, read …: for that command only
		for _, a := range c.Assigns {
			j.assign(a, inner)
		}
		j.ifsChanged = ifs
		r := j.argv(argv, inner)
		st.dirs = inner.dirs
		return r
	}
	return j.argv(argv, st)
}

// argv judges one command given as expanded words. Wrappers come back here with the command
// they run.
func (j *judge) argv(argv []word, st *state) *programs.Refusal {
	if len(argv) == 0 {
		return nil
	}
	if r := j.enter(); r != nil {
		return r
	}
	defer j.leave()
	name, ok := argv[0].base()
	if !ok {
		return j.dynamic(argv, st)
	}
	if f := j.funcs[name]; f != nil && !strings.Contains(argv[0].s, "/") {
		if r := j.callFunc(name, f, st); r != nil {
			return r
		}
	}
	if j.isHookctl(argv[0]) {
		name = "hookctl" // the user's binary, whatever its name
	}
	if r := j.namesUninstaller(name, argv, st); r != nil {
		return r
	}
	if in := nested.LookupInterpreter(name); in != nil {
		if r := j.interpreterCode(name, in, argv[1:], st); r != nil {
			return r
		}
	}
	if containsString(remoteDataRule.names, name) {
		if r := remoteDataRule.judge(j, &invocation{prog: name, args: argv[1:], st: st}); r != nil {
			return r
		}
	}
	if strings.Contains(name, "=") {
		return refuse(name, "write an assignment as NAME=value, NAME a letter or _ then letters, digits or _",
			"`%s` is not a valid assignment, so bash would run it as a program name, and the guard cannot tell what it runs", clip.Short(argv[0].show()))
	}
	if r := j.builtinAliases(name, argv[1:], st); r != nil {
		return r
	}
	if name == "source" || name == "." {
		if len(argv) > 1 {
			if v := argv[1].s; strings.HasPrefix(v, "/dev/fd/") || strings.HasPrefix(v, "/proc/self/fd/") || v == "/dev/stdin" || strings.HasPrefix(v, "/dev/fd/"+unknown) || !argv[1].known() && strings.HasPrefix(argv[1].show(), "/dev/fd/") {
				return refuse(name, hintLiteral, "`%s %s` runs code read from a file descriptor, which the guard cannot follow", name, argv[1].show())
			}
		}
		// The sourced file may set any variable.
		home, ok := st.get("HOME")
		st.vars = nil
		st.set("HOME", home, ok)
	}
	if rule := lookupRule(name); rule != nil {
		if r := rule.judge(j, &invocation{prog: name, args: argv[1:], st: st}); r != nil {
			return r
		}
	}
	if containsString(binaryReaders, name) {
		return j.copiesBinary(name, argv[1:], st)
	}
	return nil
}

// leadingText is the literal text a word starts with, before any expansion (/dev/tcp/ of
// /dev/tcp/$HOST/80).
func leadingText(w *syntax.Word) string {
	if w == nil || len(w.Parts) == 0 {
		return ""
	}
	switch p := w.Parts[0].(type) {
	case *syntax.Lit:
		return p.Value
	case *syntax.SglQuoted:
		return p.Value
	case *syntax.DblQuoted:
		if len(p.Parts) > 0 {
			if l, ok := p.Parts[0].(*syntax.Lit); ok {
				return l.Value
			}
		}
	}
	return ""
}

// literalOr prints a word as written, for a message.
func literalOr(w *syntax.Word) string {
	var b strings.Builder
	syntax.NewPrinter().Print(&b, w)
	return b.String()
}

// builtinAliases: alias and hash -p give a command a new name the guard then cannot follow.
// An alias's text is judged as the command it stands for; hash -p, which makes a name run
// another program, is refused.
//
// Test: TestPeerClasses (wrappers).
func (j *judge) builtinAliases(name string, args []word, st *state) *programs.Refusal {
	switch name {
	case "alias":
		for _, a := range args {
			if _, text, ok := strings.Cut(a.s, "="); ok {
				if !a.known() {
					return refuse(name, hintLiteral, "the alias `%s` is not a literal, so what it runs cannot be judged", a.show())
				}
				if r := j.scriptIfParses(text, st.clone(), syntax.LangBash); r != nil {
					return refuse(r.Program, r.Hint, "the alias `%s` stands for a command the guard refuses: %s", clip.Short(a.show()), r.What)
				}
			}
		}
	case "hash":
		for _, a := range args {
			if a.s == "-p" || strings.HasPrefix(a.s, "-") && strings.Contains(a.s, "p") && !strings.HasPrefix(a.s, "--") {
				return refuse(name, "run the program by its own name", "`hash -p` makes a name run another program, so the commands after it cannot be judged by name")
			}
		}
	}
	return nil
}

// callFunc judges a function's body again where it is called, if the directory differs from
// where it was defined. A function that runs cd leaves the directory unknown.
func (j *judge) callFunc(name string, f *function, st *state) *programs.Refusal {
	if !j.active[name] && !sameDirs(f.dirs, st.dirs) {
		if j.active == nil {
			j.active = map[string]bool{}
		}
		j.active[name] = true
		r := j.stmt(f.body, st.child())
		delete(j.active, name)
		if r != nil {
			return r
		}
	}
	if f.changesDir {
		st.dirs = nil
	}
	return nil
}

// dynamicRule: a program name that is not a literal.
//
// Why: `$x -rf /` runs whatever $x holds. Refusing every such command would refuse `"$@"` in a
// function and `$EDITOR file`; allowing every one would let `$RM -rf ~` through.
// What: the arguments are judged as if the program were each of rm, git and dd in turn; if any
// of those would be refused (a recursive flag with a path outside the project, a protected
// operand, a force push, of=/dev/sda) the command is refused. So is one with an argument that
// looks like a URL (scheme://…, git@host:…): `$X https://…` and `"$(echo curl)" URL` may reach
// the network outside hookctl's retriever (issue 7). Otherwise it is allowed.
// Test: TestRecursion (dynamic rows), TestNetwork.
var dynamicProxies = []string{"rm", "git", "dd"}

func (j *judge) dynamic(argv []word, st *state) *programs.Refusal {
	if r := j.tick(len(argv) * len(dynamicProxies)); r != nil { // each proxy reads every word
		return r
	}
	for _, a := range argv[1:] {
		if route.LooksLikeURL(a.s) {
			return refuse("", route.RetrieveHint, "the program name `%s` is not a literal, and `%s` looks like a URL: it may reach the network outside hookctl's retriever",
				argv[0].show(), a.show())
		}
	}
	for _, p := range dynamicProxies {
		r := lookupRule(p).judge(j, &invocation{prog: p, args: argv[1:], st: st.clone()})
		if r != nil {
			return refuse("", r.Hint, "the program name `%s` is not a literal, and as `%s` the command would be refused: %s",
				argv[0].show(), p, r.What)
		}
	}
	return nil
}

// redirect judges a redirection: the substitutions in it, and the file it writes.
func (j *judge) redirect(rd *syntax.Redirect, st *state) *programs.Refusal {
	if r := j.substs(rd.Word, st); r != nil {
		return r
	}
	if rd.Hdoc != nil {
		if r := j.substs(rd.Hdoc, st); r != nil {
			return r
		}
	}
	if v := leadingText(rd.Word); strings.HasPrefix(v, "/dev/tcp/") || strings.HasPrefix(v, "/dev/udp/") {
		return refuse("", "fetch content with hookctl retrieve; anything else is the user's to run",
			"a redirection to or from `%s` opens a network connection (bash's /dev/tcp), outside hookctl's retriever", clip.Short(v))
	}
	switch rd.Op {
	case syntax.RdrOut, syntax.AppOut, syntax.RdrClob, syntax.AppClob, syntax.RdrAll, syntax.RdrAllClob,
		syntax.AppAll, syntax.AppAllClob, syntax.RdrInOut:
	case syntax.DplOut:
		if v := literal(rd.Word); v == "-" || isDigits(v) {
			return nil // >&2, >&-
		}
	default:
		return nil
	}
	for _, w := range j.expand(rd.Word, st) {
		if r := j.write("", "a redirection", w, st, false); r != nil {
			return r
		}
	}
	return j.overflow
}

func isDigits(s string) bool {
	return s != "" && strings.Trim(s, "0123456789") == ""
}
