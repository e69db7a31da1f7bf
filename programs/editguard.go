package programs

// Edit mode: the accident guard.
//
// In edit mode the agent writes files and runs builds, tests and most other commands. The edit
// guard refuses a short exclude list of commands that destroy work or cannot be undone: a
// recursive rm that reaches outside the project, force pushes and the git commands that discard
// uncommitted work, privilege escalation, disk formatting, a download piped into a shell, fork
// bombs, writes to the files that configure hookctl, Claude Code and the user's shell, and the
// hookctl and claude invocations that would switch the guard off.
//
// Threat model: this is an ACCIDENT GUARD, NOT A SECURITY BOUNDARY. It catches the command typed
// in haste or hallucinated, and names the rule so that the agent can ask the user instead. An
// agent that means harm has many ways round it that are out of scope here: a script it wrote and
// then runs, a Python or Node one-liner, a Makefile or package.json script, a git alias or hook
// in the repository's own config, a symbolic link that makes a path inside the project point
// outside it, `go run` of a program that does the same thing.
//
// How a command is judged: it is parsed as bash by mvdan.cc/sh (a command that does not parse is
// refused), and every command the script can run is judged, in order, with what is known at that
// point: the working directory (literal `cd DIR` is followed; after a cd that cannot be resolved
// the directory is unknown), and the variables assigned literal values earlier in the script.
// Commands inside $(…), backticks, <(…), >(…), eval and `sh -c` strings, function bodies,
// and the commands that wrappers (env, nice, timeout, xargs, find -exec, …) run are judged too.
// Nothing is opened or run: the judgement is a pure function of the text and the EditContext.
//
// What "outside the project" means: the path, cleaned lexically after resolving `~`, `$HOME` and
// the working directory, is not strictly inside EditContext.Project. The project itself, and the
// directories that hold it, count as outside for a recursive delete.

import (
	"path"
	"strconv"
	"strings"

	"mvdan.cc/sh/v3/syntax"
)

// EditContext is what the edit-mode guard knows about the session. All paths are absolute and clean.
type EditContext struct {
	Project string // the session's working directory (the project)
	Home    string // the user's home directory
	// Protected lists files and directories the agent may never write: hookctl's config, state
	// and binary, .claude/settings*.json, the managed settings file, the registered readonly
	// command file, shell rc files.
	Protected []string
}

// Limits. Every input is capped; beyond a cap the command is refused, never allowed.
const (
	// maxEditLen is the longest command judged. Longer than the read-only lexer's cap, because an
	// edit-mode command may carry a here-document.
	maxEditLen = 64 << 10
	// maxEditDepth bounds nested re-parses: eval inside sh -c inside find -exec, ….
	maxEditDepth = 8
	// maxEditNesting bounds nested compound commands and wrappers within one parse.
	maxEditNesting = 200
	// maxEditNodes bounds the statements, words and syntax nodes visited in all, so that function
	// bodies judged again at each call and loops judged per word stay linear-ish.
	maxEditNodes = 400_000
	// maxEditParsed bounds the bytes parsed in all, counting every re-parse.
	maxEditParsed = 4 * maxEditLen
	// maxEditBraces bounds the words one word may expand to (brace expansion).
	maxEditBraces = 1024
	// maxEditFields bounds the words one command may expand to.
	maxEditFields = 16 << 10
	// maxEditVars bounds the variables tracked; beyond it new ones are unknown, so that merging
	// states stays cheap.
	maxEditVars = 64
	// maxEditDirs bounds the working directories tracked at once; beyond it the directory is
	// unknown.
	maxEditDirs = 8
	// maxEditLoopWords is the longest literal word list a for loop is judged for word by word;
	// a longer or non-literal list makes the loop variable unknown.
	maxEditLoopWords = 8
)

// editUnknown stands, in an expanded word, for text that cannot be known without running the
// command: a substitution, an unset variable, a positional parameter.
const editUnknown = "\x00"

// editTemp is the value of a variable assigned the output of mktemp: a fresh path that a
// recursive rm may delete.
const editTemp = "\x01"

// Hints.
const (
	editHintAsk       = "ask the user to run it"
	editHintRm        = "delete paths inside the project by name, or ask the user to run it"
	editHintProtected = "this file is the user's to change: ask the user to make the change"
	editHintLiteral   = "write the command out literally"
)

// JudgeEdit returns nil if the shell command may run in edit mode, or a *Refusal (Program = the
// program found, What = what was refused and why, Hint = what to do instead).
//
// Test: TestEditRm, TestEditGit, TestEditPrivilegeAndDisk, TestEditDownloadExec,
// TestEditForkBomb, TestEditProtectedWrites, TestEditHookctlAndClaude, TestEditRecursion,
// TestEditLimits, TestEditTermination, TestEditCorpus, FuzzJudgeEdit.
func JudgeEdit(cmd string, ctx *EditContext) (ref *Refusal) {
	defer func() {
		if recover() != nil {
			ref = &Refusal{What: "the edit guard failed on this command (internal error), so it is refused", Hint: editHintAsk}
		}
	}()
	if ctx == nil || !path.IsAbs(ctx.Project) {
		return &Refusal{What: "the edit guard has no project directory", Hint: editHintAsk}
	}
	if len(cmd) > maxEditLen {
		return &Refusal{What: "the command is too long to judge (more than " + strconv.Itoa(maxEditLen>>10) + " KiB)",
			Hint: "write long file contents with the Write tool"}
	}
	j := &editJudge{ctx: ctx, project: path.Clean(ctx.Project)}
	st := &editState{dirs: []string{j.project}}
	st.set("HOME", path.Clean(ctx.Home), ctx.Home != "")
	return j.script(cmd, st, syntax.LangBash)
}

// ProtectedPath reports whether writing path (absolute, or relative to ctx.Project) would write a
// protected file: it is one of ctx.Protected or inside a protected directory, after lexical
// cleaning (no file-system access: the policy does no I/O). Comparison is byte for byte, as on
// Linux. Used for Write/Edit tool calls too.
//
// Test: TestProtectedPath.
func ProtectedPath(p string, ctx *EditContext) bool {
	if ctx == nil {
		return false
	}
	if !path.IsAbs(p) {
		p = path.Join(ctx.Project, p)
	}
	p = path.Clean(p)
	for _, q := range ctx.Protected {
		if q != "" && within(p, path.Clean(q)) {
			return true
		}
	}
	return false
}

// within reports whether p is dir or inside it. Both are absolute and clean.
func within(p, dir string) bool {
	if p == dir || dir == "/" {
		return true
	}
	return strings.HasPrefix(p, dir) && p[len(dir)] == '/'
}

// holdsProtected reports whether a recursive write of dir would reach a protected path: dir is
// protected, inside a protected directory, or holds a protected path.
func (j *editJudge) holdsProtected(dir string) bool {
	for _, q := range j.ctx.Protected {
		if q == "" {
			continue
		}
		q = path.Clean(q)
		if within(q, dir) || within(dir, q) {
			return true
		}
	}
	return false
}

// ---------------------------------------------------------------------------------------------
// The judge and its state.

type editJudge struct {
	ctx     *EditContext
	project string
	nodes   int // statements, words and syntax nodes visited
	parsed  int // bytes parsed, re-parses included
	depth   int // nested re-parses
	nesting int // nested compound commands and wrappers
	// overflow latches the first limit hit while expanding words, where no refusal can be
	// returned directly.
	overflow *Refusal
	funcs    map[string]*editFunc
	active   map[string]bool // functions being judged at a call site
}

// editFunc is a function defined in the script.
type editFunc struct {
	body       *syntax.Stmt
	dirs       []string // working directories when it was defined and judged
	changesDir bool     // its body runs cd, pushd or popd
}

// editState is what is known at one point of the script.
type editState struct {
	// dirs are the directories the command may run in; nil means unknown. More than one when a
	// cd may or may not have happened (`cd x; …` where the cd may fail).
	dirs []string
	// vars are the variables known to hold a literal value. A variable not listed is unknown.
	vars []editVar
}

type editVar struct{ name, value string }

func (st *editState) clone() *editState {
	c := &editState{}
	if st.dirs != nil {
		c.dirs = append(make([]string, 0, len(st.dirs)), st.dirs...)
	}
	c.vars = append([]editVar(nil), st.vars...)
	return c
}

// child is the state a new shell process starts with: the same directory, and of the variables
// only HOME (the others may not be exported).
func (st *editState) child() *editState {
	c := &editState{}
	if st.dirs != nil {
		c.dirs = append([]string(nil), st.dirs...)
	}
	if h, ok := st.get("HOME"); ok {
		c.set("HOME", h, true)
	}
	return c
}

func (st *editState) get(name string) (string, bool) {
	for i := len(st.vars) - 1; i >= 0; i-- {
		if st.vars[i].name == name {
			return st.vars[i].value, true
		}
	}
	if name == "PWD" && len(st.dirs) == 1 {
		return st.dirs[0], true
	}
	return "", false
}

// set records a variable's value, or forgets it when the value is not known. A value longer than
// a command is forgotten too, so that x=$x$x cannot grow without bound.
func (st *editState) set(name, value string, known bool) {
	known = known && len(value) <= maxEditLen
	for i := range st.vars {
		if st.vars[i].name == name {
			if known {
				st.vars[i].value = value
			} else {
				st.vars = append(st.vars[:i], st.vars[i+1:]...)
			}
			return
		}
	}
	if known && len(st.vars) < maxEditVars {
		st.vars = append(st.vars, editVar{name, value})
	}
}

// merge makes st what is known after either st or o: the union of the directories, and the
// variables both agree on.
func (st *editState) merge(o *editState) {
	st.mergeDirs(o.dirs)
	kept := st.vars[:0]
	for _, v := range st.vars {
		if ov, ok := o.get(v.name); ok && ov == v.value {
			kept = append(kept, v)
		}
	}
	st.vars = kept
}

func (st *editState) mergeDirs(dirs []string) {
	if st.dirs == nil || dirs == nil {
		st.dirs = nil
		return
	}
	for _, d := range dirs {
		if !containsString(st.dirs, d) {
			st.dirs = append(st.dirs, d)
		}
	}
	if len(st.dirs) > maxEditDirs {
		st.dirs = nil
	}
}

func containsString(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

func sameDirs(a, b []string) bool {
	if (a == nil) != (b == nil) || len(a) != len(b) {
		return false
	}
	for _, d := range a {
		if !containsString(b, d) {
			return false
		}
	}
	return true
}

func editRefuse(prog, hint, format string, args ...any) *Refusal {
	r := refuse(prog, format, args...)
	r.Hint = hint
	return r
}

// enter counts one node and one level of nesting; leave undoes the nesting.
func (j *editJudge) enter() *Refusal {
	j.nesting++
	if j.nesting > maxEditNesting {
		return &Refusal{What: "the command is too deeply nested to judge", Hint: editHintAsk}
	}
	return j.tick(1)
}

func (j *editJudge) leave() { j.nesting-- }

func (j *editJudge) tick(n int) *Refusal {
	j.nodes += n
	if j.nodes > maxEditNodes {
		return &Refusal{What: "the command is too complex to judge", Hint: editHintAsk}
	}
	return j.overflow
}

// script parses src and judges it in st. Every re-parse (eval, sh -c, …) comes through here.
func (j *editJudge) script(src string, st *editState, lang syntax.LangVariant) *Refusal {
	if j.depth >= maxEditDepth {
		return &Refusal{What: "the command nests eval, sh -c and wrappers too deeply to judge", Hint: editHintAsk}
	}
	j.parsed += len(src)
	if j.parsed > maxEditParsed {
		return &Refusal{What: "the command is too complex to judge", Hint: editHintAsk}
	}
	f, err := syntax.NewParser(syntax.Variant(lang)).Parse(strings.NewReader(src), "")
	if err != nil {
		return &Refusal{What: "the command does not parse as " + lang.String() + ": " + clip(err.Error()), Hint: "fix the quoting"}
	}
	j.depth++
	defer func() { j.depth-- }()
	return j.stmts(f.Stmts, st)
}

// ---------------------------------------------------------------------------------------------
// Walking the syntax tree.

// stmts judges a list run in order. A statement may fail, so a cd in it may or may not have
// happened: the directories after it are those before it and those after it.
func (j *editJudge) stmts(list []*syntax.Stmt, st *editState) *Refusal {
	for _, s := range list {
		before := st.dirs
		if before != nil {
			before = append([]string(nil), before...)
		}
		if r := j.stmt(s, st); r != nil {
			return r
		}
		st.mergeDirs(before)
	}
	return nil
}

// stmt judges one statement; st is left as it is when the statement succeeds.
func (j *editJudge) stmt(s *syntax.Stmt, st *editState) *Refusal {
	if r := j.enter(); r != nil {
		return r
	}
	defer j.leave()
	// Redirections are opened before the command runs, in the directory it starts in.
	for _, rd := range s.Redirs {
		if r := j.redirect(rd, st); r != nil {
			return r
		}
	}
	if s.Background || s.Coprocess || s.Disown {
		st = st.clone() // a background job runs in a subshell
	}
	return j.command(s, st)
}

func (j *editJudge) command(s *syntax.Stmt, st *editState) *Refusal {
	switch c := s.Cmd.(type) {
	case nil:
		return nil
	case *syntax.CallExpr:
		return j.call(s, c, st)
	case *syntax.BinaryCmd:
		return j.binary(c, st)
	case *syntax.Subshell:
		return j.stmts(c.Stmts, st.clone())
	case *syntax.Block:
		return j.stmts(c.Stmts, st)
	case *syntax.IfClause:
		return j.ifClause(c, st)
	case *syntax.WhileClause:
		return j.whileClause(c, st)
	case *syntax.ForClause:
		return j.forClause(c, st)
	case *syntax.CaseClause:
		return j.caseClause(c, st)
	case *syntax.FuncDecl:
		return j.funcDecl(c, st)
	case *syntax.ArithmCmd, *syntax.TestClause, *syntax.LetClause:
		return j.substs(c, st)
	case *syntax.DeclClause:
		return j.declClause(c, st)
	case *syntax.TimeClause:
		if c.Stmt == nil {
			return nil
		}
		return j.stmt(c.Stmt, st)
	case *syntax.CoprocClause:
		if c.Name != nil {
			if r := j.substs(c.Name, st); r != nil {
				return r
			}
		}
		return j.stmt(c.Stmt, st.clone())
	case *syntax.TestDecl:
		if r := j.substs(c.Description, st); r != nil {
			return r
		}
		return j.stmt(c.Body, st.clone())
	}
	return &Refusal{What: "the command uses a shell construct the edit guard does not know", Hint: editHintAsk}
}

func (j *editJudge) binary(c *syntax.BinaryCmd, st *editState) *Refusal {
	switch c.Op {
	case syntax.Pipe, syntax.PipeAll:
		stages, r := j.flattenPipe(c)
		if r != nil {
			return r
		}
		if r := j.pipedDownload(stages, st); r != nil {
			return r
		}
		for _, s := range stages {
			if r := j.stmt(s, st.clone()); r != nil { // each stage runs in a subshell
				return r
			}
		}
		return nil
	case syntax.AndStmt, syntax.OrStmt:
		return j.andOr(c, st)
	}
	return &Refusal{What: "the command uses an operator the edit guard does not know", Hint: editHintAsk}
}

// andOr judges a chain of && and || (parsed left-associated: ((a && b) || c) && d) without
// recursing once per link.
func (j *editJudge) andOr(c *syntax.BinaryCmd, st *editState) *Refusal {
	spine := []*syntax.BinaryCmd{c}
	for {
		x := spine[len(spine)-1].X
		b, ok := x.Cmd.(*syntax.BinaryCmd)
		if !ok || (b.Op != syntax.AndStmt && b.Op != syntax.OrStmt) || len(x.Redirs) != 0 || x.Negated || x.Background || x.Coprocess || x.Disown {
			break
		}
		spine = append(spine, b)
		if r := j.tick(1); r != nil {
			return r
		}
	}
	// succ is what is known when everything so far succeeded, fail when it failed: a command
	// that fails may have stopped before or after its cd.
	before := st.clone()
	first := spine[len(spine)-1].X
	if r := j.stmt(first, st); r != nil {
		return r
	}
	succ, fail := st.clone(), st.clone()
	if !assignsOnly(first) {
		fail.merge(before)
	}
	for i := len(spine) - 1; i >= 0; i-- {
		b := spine[i]
		if b.Op == syntax.AndStmt { // Y runs when what came before succeeded
			y := succ.clone()
			if r := j.stmt(b.Y, y); r != nil {
				return r
			}
			fail.merge(succ)
			fail.merge(y)
			succ = y
			continue
		}
		y := fail.clone() // Y runs when what came before failed
		if r := j.stmt(b.Y, y); r != nil {
			return r
		}
		succ.merge(y)
		fail.merge(y)
	}
	*st = *succ
	st.merge(fail)
	return nil
}

// assignsOnly reports whether a statement only assigns variables: it cannot fail in a way that
// leaves them unassigned.
func assignsOnly(s *syntax.Stmt) bool {
	c, ok := s.Cmd.(*syntax.CallExpr)
	return ok && len(c.Args) == 0 && len(s.Redirs) == 0
}

// flattenPipe lists the stages of a pipeline in order, without recursing once per stage.
func (j *editJudge) flattenPipe(c *syntax.BinaryCmd) ([]*syntax.Stmt, *Refusal) {
	var out []*syntax.Stmt
	todo := []*syntax.Stmt{c.Y, c.X} // a stack: the next stage to list is on top
	for len(todo) > 0 {
		s := todo[len(todo)-1]
		todo = todo[:len(todo)-1]
		if r := j.tick(1); r != nil {
			return nil, r
		}
		if b, ok := s.Cmd.(*syntax.BinaryCmd); ok && (b.Op == syntax.Pipe || b.Op == syntax.PipeAll) &&
			len(s.Redirs) == 0 && !s.Negated && !s.Background && !s.Coprocess && !s.Disown {
			todo = append(todo, b.Y, b.X)
			continue
		}
		out = append(out, s)
	}
	return out, nil
}

func (j *editJudge) ifClause(c *syntax.IfClause, st *editState) *Refusal {
	if r := j.stmts(c.Cond, st); r != nil {
		return r
	}
	then := st.clone()
	if r := j.stmts(c.Then, then); r != nil {
		return r
	}
	if c.Else != nil {
		if r := j.enter(); r != nil {
			return r
		}
		r := j.ifClause(c.Else, st)
		j.leave()
		if r != nil {
			return r
		}
	}
	st.merge(then)
	return nil
}

// loopEffects makes what a loop body may change unknown before the body is judged, because the
// body may run many times: the directory if it runs cd, and every variable it assigns.
func (j *editJudge) loopEffects(n syntax.Node, st *editState) {
	syntax.Walk(n, func(n syntax.Node) bool {
		switch n := n.(type) {
		case *syntax.CallExpr:
			if mayChangeDir(n) {
				st.dirs = nil
			}
		case *syntax.Assign:
			if n.Name != nil {
				st.set(n.Name.Value, "", false)
			}
		case *syntax.WordIter:
			st.set(n.Name.Value, "", false)
		}
		return true
	})
}

// whileClause: an endless loop that starts background jobs is a fork bomb.
func (j *editJudge) whileClause(c *syntax.WhileClause, st *editState) *Refusal {
	if endless(c.Cond, c.Until) && spawns(c.Do, 0) {
		return editRefuse("", editHintAsk, "an endless loop that starts background jobs is a fork bomb")
	}
	before := st.clone()
	j.loopEffects(c, st)
	if r := j.stmts(c.Cond, st); r != nil {
		return r
	}
	if r := j.stmts(c.Do, st.clone()); r != nil {
		return r
	}
	st.merge(before)
	return nil
}

// endless reports whether a loop condition is literally always true (while) or false (until).
func endless(cond []*syntax.Stmt, until bool) bool {
	if len(cond) != 1 {
		return false
	}
	switch c := cond[0].Cmd.(type) {
	case *syntax.CallExpr:
		if len(c.Args) == 0 {
			return false
		}
		name := c.Args[0].Lit()
		if until {
			return name == "false"
		}
		return (name == "true" || name == ":") && len(c.Args) == 1
	case *syntax.ArithmCmd:
		w, ok := c.X.(*syntax.Word)
		return ok && !until && w.Lit() != "" && w.Lit() != "0"
	}
	return false
}

// spawns reports whether a loop body starts a background job.
func spawns(list []*syntax.Stmt, depth int) bool {
	if depth > maxEditNesting {
		return true
	}
	for _, s := range list {
		if s.Background || s.Disown {
			return true
		}
		switch c := s.Cmd.(type) {
		case *syntax.Block:
			if spawns(c.Stmts, depth+1) {
				return true
			}
		case *syntax.Subshell:
			if spawns(c.Stmts, depth+1) {
				return true
			}
		case *syntax.BinaryCmd:
			if spawns([]*syntax.Stmt{c.X, c.Y}, depth+1) {
				return true
			}
		case *syntax.IfClause:
			if spawns(c.Then, depth+1) {
				return true
			}
		}
	}
	return false
}

func (j *editJudge) forClause(c *syntax.ForClause, st *editState) *Refusal {
	before := st.clone()
	switch l := c.Loop.(type) {
	case *syntax.CStyleLoop:
		if l.Cond == nil && spawns(c.Do, 0) {
			return editRefuse("", editHintAsk, "an endless loop that starts background jobs is a fork bomb")
		}
		if r := j.substs(l, st); r != nil {
			return r
		}
	case *syntax.WordIter:
		var words []editWord
		literal := l.InPos.IsValid()
		for _, w := range l.Items {
			if r := j.substs(w, st); r != nil {
				return r
			}
			ws := j.expand(w, st)
			if j.overflow != nil {
				return j.overflow
			}
			for _, x := range ws {
				literal = literal && x.known() && x.glob < 0 // a glob names files, not itself
			}
			words = append(words, ws...)
		}
		j.loopEffects(c, st)
		if literal && len(words) <= maxEditLoopWords {
			// Judge the body once for each word, with the loop variable set to it, each time
			// from what is known after the rounds before.
			for _, w := range words {
				it := st.clone()
				it.set(l.Name.Value, w.s, true)
				if r := j.stmts(c.Do, it); r != nil {
					return r
				}
				st.merge(it)
			}
			st.merge(before)
			return nil
		}
	}
	if r := j.stmts(c.Do, st.clone()); r != nil {
		return r
	}
	st.merge(before)
	return nil
}

func (j *editJudge) caseClause(c *syntax.CaseClause, st *editState) *Refusal {
	if r := j.substs(c.Word, st); r != nil {
		return r
	}
	after := st.clone()
	for _, it := range c.Items {
		for _, p := range it.Patterns {
			if r := j.substs(p, st); r != nil {
				return r
			}
		}
		b := st.clone()
		if r := j.stmts(it.Stmts, b); r != nil {
			return r
		}
		after.merge(b)
	}
	*st = *after
	return nil
}

// forkBombRule: a function that calls itself in a pipeline or in the background.
//
// Why: `:(){ :|:& };:` and its spelled-out forms double the number of processes until the
// machine stops responding; the only cure is a reboot.
// What: a function definition whose body calls the function itself as a pipeline stage or a
// background job is refused at the definition, as is `while true; do … & done` (see
// whileClause).
// Test: TestEditForkBomb.
func (j *editJudge) funcDecl(c *syntax.FuncDecl, st *editState) *Refusal {
	var names []string
	if c.Name != nil {
		names = append(names, c.Name.Value)
	}
	for _, n := range c.Names {
		names = append(names, n.Value)
	}
	for _, name := range names {
		if callsItself(name, c.Body, false, 0) {
			return editRefuse("", editHintAsk, "defines a fork bomb: `%s` calls itself in a pipeline or in the background", clip(name))
		}
	}
	if len(names) == 0 { // a zsh anonymous function runs at once
		return j.stmt(c.Body, st)
	}
	if j.funcs == nil {
		j.funcs = map[string]*editFunc{}
	}
	f := &editFunc{body: c.Body, dirs: append([]string(nil), st.dirs...), changesDir: changesDir(c.Body)}
	for _, name := range names {
		j.funcs[name] = f
	}
	// The body reads variables when it is called, not now: judge it knowing only HOME.
	return j.stmt(c.Body, st.child())
}

func callsItself(name string, s *syntax.Stmt, spawned bool, depth int) bool {
	if s == nil || depth > maxEditNesting {
		return false
	}
	spawned = spawned || s.Background || s.Disown
	switch c := s.Cmd.(type) {
	case *syntax.CallExpr:
		if !spawned || len(c.Args) == 0 {
			return false
		}
		v, ok := litValue(c.Args[0])
		return ok && v == name
	case *syntax.BinaryCmd:
		pipe := c.Op == syntax.Pipe || c.Op == syntax.PipeAll
		return callsItself(name, c.X, spawned || pipe, depth+1) || callsItself(name, c.Y, spawned || pipe, depth+1)
	case *syntax.Block:
		return anyCallsItself(name, c.Stmts, spawned, depth)
	case *syntax.Subshell:
		return anyCallsItself(name, c.Stmts, spawned, depth)
	case *syntax.IfClause:
		return anyCallsItself(name, c.Then, spawned, depth)
	case *syntax.WhileClause:
		return anyCallsItself(name, c.Do, spawned, depth)
	case *syntax.ForClause:
		return anyCallsItself(name, c.Do, spawned, depth)
	}
	return false
}

func anyCallsItself(name string, list []*syntax.Stmt, spawned bool, depth int) bool {
	for _, s := range list {
		if callsItself(name, s, spawned, depth+1) {
			return true
		}
	}
	return false
}

func changesDir(n syntax.Node) bool {
	found := false
	syntax.Walk(n, func(n syntax.Node) bool {
		if c, ok := n.(*syntax.CallExpr); ok && mayChangeDir(c) {
			found = true
		}
		return !found
	})
	return found
}

// mayChangeDir reports whether a command may change the directory: it names cd, pushd or popd
// anywhere in its literal words (builtin cd, eval "cd .."), or its program is not a literal.
func mayChangeDir(c *syntax.CallExpr) bool {
	for i, w := range c.Args {
		v, ok := litValue(w)
		if !ok {
			if i == 0 {
				return true
			}
			continue
		}
		for _, f := range strings.FieldsFunc(v, func(r rune) bool { return r == ' ' || r == ';' || r == '&' || r == '\t' || r == '\n' }) {
			if f == "cd" || f == "pushd" || f == "popd" {
				return true
			}
		}
	}
	return false
}

func (j *editJudge) declClause(c *syntax.DeclClause, st *editState) *Refusal {
	for _, a := range c.Args {
		if r := j.substs(a, st); r != nil {
			return r
		}
	}
	for _, a := range c.Args {
		j.assign(a, st)
	}
	return nil
}

// substs judges every command substitution and process substitution inside n, each in a
// subshell, and forgets the variables that arithmetic or ${x:=y} assigns.
func (j *editJudge) substs(n syntax.Node, st *editState) *Refusal {
	if n == nil {
		return nil
	}
	var ref *Refusal
	syntax.Walk(n, func(n syntax.Node) bool {
		if ref != nil || n == nil {
			return false
		}
		if ref = j.tick(1); ref != nil {
			return false
		}
		switch n := n.(type) {
		case *syntax.CmdSubst:
			if ref = j.enter(); ref == nil {
				ref = j.stmts(n.Stmts, st.clone())
			}
			j.leave()
			return false
		case *syntax.ProcSubst:
			if ref = j.enter(); ref == nil {
				ref = j.stmts(n.Stmts, st.clone())
			}
			j.leave()
			return false
		case *syntax.BinaryArithm:
			if n.Op >= syntax.Assgn && n.Op <= syntax.PowAssgn {
				forgetArithm(n.X, st)
			}
		case *syntax.UnaryArithm:
			if n.Op == syntax.Inc || n.Op == syntax.Dec {
				forgetArithm(n.X, st)
			}
		case *syntax.ParamExp:
			if n.Exp != nil && (n.Exp.Op == syntax.AssignUnset || n.Exp.Op == syntax.AssignUnsetOrNull) && n.Param != nil {
				st.set(n.Param.Value, "", false)
			}
		}
		return true
	})
	return ref
}

func forgetArithm(x syntax.ArithmExpr, st *editState) {
	if w, ok := x.(*syntax.Word); ok {
		if name := w.Lit(); name != "" {
			st.set(name, "", false)
		}
	}
}

// assign records an assignment to the shell: a literal value is remembered, anything else
// makes the variable unknown. A variable assigned $(mktemp …) holds a fresh temporary path.
func (j *editJudge) assign(a *syntax.Assign, st *editState) {
	if a.Name == nil {
		return
	}
	name := a.Name.Value
	if a.Append || a.Array != nil || a.Index != nil || a.Naked {
		if !a.Naked || a.Value == nil {
			st.set(name, "", false)
		}
		return
	}
	if a.Value == nil {
		st.set(name, "", true)
		return
	}
	if isMktemp(a.Value) {
		st.set(name, editTemp, true)
		return
	}
	w, ok := j.expandAssign(a.Value, st)
	st.set(name, w.s, ok && !strings.Contains(w.s, editUnknown))
}

// isPwd reports whether a substitution is exactly $(pwd): the working directory.
func isPwd(cs *syntax.CmdSubst) bool {
	if len(cs.Stmts) != 1 {
		return false
	}
	s := cs.Stmts[0]
	c, ok := s.Cmd.(*syntax.CallExpr)
	if !ok || len(c.Args) != 1 || len(c.Assigns) != 0 || len(s.Redirs) != 0 || s.Background || s.Negated {
		return false
	}
	v, ok := litValue(c.Args[0])
	return ok && v == "pwd"
}

// isMktemp reports whether w is exactly $(mktemp …) or "$(mktemp …)".
func isMktemp(w *syntax.Word) bool {
	parts := w.Parts
	if len(parts) == 1 {
		if dq, ok := parts[0].(*syntax.DblQuoted); ok {
			parts = dq.Parts
		}
	}
	if len(parts) != 1 {
		return false
	}
	cs, ok := parts[0].(*syntax.CmdSubst)
	if !ok || len(cs.Stmts) != 1 {
		return false
	}
	s := cs.Stmts[0]
	c, ok := s.Cmd.(*syntax.CallExpr)
	if !ok || len(c.Args) == 0 || len(s.Redirs) != 0 || s.Background {
		return false
	}
	v, ok := litValue(c.Args[0])
	return ok && v == "mktemp"
}

// ---------------------------------------------------------------------------------------------
// Simple commands.

// editCall is one command to judge: the program's base name and its expanded arguments.
type editCall struct {
	prog string
	args []editWord
	st   *editState
}

func (j *editJudge) call(s *syntax.Stmt, c *syntax.CallExpr, st *editState) *Refusal {
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
	var argv []editWord
	for _, w := range c.Args {
		argv = append(argv, j.expand(w, st)...)
		if j.overflow != nil {
			return j.overflow
		}
		if len(argv) > maxEditFields {
			return &Refusal{What: "the command expands to too many words to judge", Hint: editHintAsk}
		}
	}
	if r := j.tick(len(argv)); r != nil {
		return r
	}
	if r := j.substDownload(s, c, argv, st); r != nil {
		return r
	}
	if len(c.Assigns) > 0 {
		// Assignments before a command are exported to it, and to any shell it starts.
		inner := st.clone()
		for _, a := range c.Assigns {
			j.assign(a, inner)
		}
		r := j.argv(argv, inner)
		st.dirs = inner.dirs
		return r
	}
	return j.argv(argv, st)
}

// argv judges one command given as expanded words. Wrappers come back here with the command
// they run.
func (j *editJudge) argv(argv []editWord, st *editState) *Refusal {
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
	rule := lookupEditRule(name)
	if rule == nil {
		return nil
	}
	return rule.judge(j, &editCall{prog: name, args: argv[1:], st: st})
}

// callFunc judges a function's body again where it is called, if the directory differs from
// where it was defined. A function that runs cd leaves the directory unknown.
func (j *editJudge) callFunc(name string, f *editFunc, st *editState) *Refusal {
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
// operand, a force push, of=/dev/sda) the command is refused, otherwise it is allowed.
// Test: TestEditRecursion (dynamic rows).
var dynamicProxies = []string{"rm", "git", "dd"}

func (j *editJudge) dynamic(argv []editWord, st *editState) *Refusal {
	for _, p := range dynamicProxies {
		r := lookupEditRule(p).judge(j, &editCall{prog: p, args: argv[1:], st: st.clone()})
		if r != nil {
			return editRefuse("", r.Hint, "the program name `%s` is not a literal, and as `%s` the command would be refused: %s",
				argv[0].show(), p, r.What)
		}
	}
	return nil
}

// redirect judges a redirection: the substitutions in it, and the file it writes.
func (j *editJudge) redirect(rd *syntax.Redirect, st *editState) *Refusal {
	if r := j.substs(rd.Word, st); r != nil {
		return r
	}
	if rd.Hdoc != nil {
		if r := j.substs(rd.Hdoc, st); r != nil {
			return r
		}
	}
	switch rd.Op {
	case syntax.RdrOut, syntax.AppOut, syntax.RdrClob, syntax.AppClob, syntax.RdrAll, syntax.RdrAllClob,
		syntax.AppAll, syntax.AppAllClob, syntax.RdrInOut:
	case syntax.DplOut:
		if v := rd.Word.Lit(); v == "-" || isDigits(v) {
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

// ---------------------------------------------------------------------------------------------
// Words.

// editWord is one argument after the shell's expansions, as far as they can be known without
// running anything.
type editWord struct {
	s    string // the value; each part that cannot be known is editUnknown
	glob int    // offset of the first unquoted glob character in s, or -1
	// inside marks a path known only to lie strictly inside the project (the {} of find -exec
	// when every starting point is inside it).
	inside bool
	// mayProtect marks an inside path that could be a protected file.
	mayProtect bool
	// shown is the word for messages when it differs from s: unknown parts as written ($X,
	// $(…), ~root).
	shown string
}

func lit(s string) editWord { return editWord{s: s, glob: -1} }

var unknownWord = editWord{s: editUnknown, glob: -1}

func (w editWord) known() bool {
	return !w.inside && !strings.Contains(w.s, editUnknown) && !strings.Contains(w.s, editTemp)
}

// startsUnknown reports whether the word may begin with anything, an option included.
func (w editWord) startsUnknown() bool {
	return w.inside || strings.HasPrefix(w.s, editUnknown)
}

// base returns the program name a command word runs: its last path element.
func (w editWord) base() (string, bool) {
	if w.inside {
		return "", false
	}
	b := w.s[strings.LastIndexByte(w.s, '/')+1:]
	if strings.Contains(b, editUnknown) || strings.Contains(b, editTemp) || (b == "" && w.s == "") {
		return "", false
	}
	return b, true
}

// show renders a word for a message.
func (w editWord) show() string {
	if w.inside {
		return "{}"
	}
	if w.shown != "" {
		return clip(w.shown)
	}
	s := strings.ReplaceAll(w.s, editUnknown, "…")
	return clip(strings.ReplaceAll(s, editTemp, "$(mktemp)"))
}

// litValue returns a word's value when it has no expansions at all.
func litValue(w *syntax.Word) (string, bool) {
	var b strings.Builder
	for _, p := range w.Parts {
		switch p := p.(type) {
		case *syntax.Lit:
			b.WriteString(unescapeBare(p.Value))
		case *syntax.SglQuoted:
			if p.Dollar {
				v, ok := decodeANSIC(p.Value)
				if !ok {
					return "", false
				}
				b.WriteString(v)
			} else {
				b.WriteString(p.Value)
			}
		case *syntax.DblQuoted:
			for _, q := range p.Parts {
				l, ok := q.(*syntax.Lit)
				if !ok {
					return "", false
				}
				b.WriteString(unescapeDouble(l.Value))
			}
		default:
			return "", false
		}
	}
	return b.String(), true
}

func unescapeBare(s string) string {
	if !strings.Contains(s, `\`) {
		return s
	}
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		if s[i] == '\\' && i+1 < len(s) {
			i++
		}
		b.WriteByte(s[i])
	}
	return b.String()
}

func unescapeDouble(s string) string {
	if !strings.Contains(s, `\`) {
		return s
	}
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		if s[i] == '\\' && i+1 < len(s) && strings.IndexByte("$`\"\\\n", s[i+1]) >= 0 {
			i++
			if s[i] == '\n' {
				continue
			}
		}
		b.WriteByte(s[i])
	}
	return b.String()
}

// decodeANSIC decodes the body of a $'…' string. It reports false for escapes it does not
// know, so that the word is treated as unknown.
func decodeANSIC(s string) (string, bool) {
	if !strings.Contains(s, `\`) {
		return s, true
	}
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c != '\\' || i+1 >= len(s) {
			b.WriteByte(c)
			continue
		}
		i++
		switch e := s[i]; e {
		case 'a':
			b.WriteByte('\a')
		case 'b':
			b.WriteByte('\b')
		case 'e', 'E':
			b.WriteByte(0x1b)
		case 'f':
			b.WriteByte('\f')
		case 'n':
			b.WriteByte('\n')
		case 'r':
			b.WriteByte('\r')
		case 't':
			b.WriteByte('\t')
		case 'v':
			b.WriteByte('\v')
		case '\\', '\'', '"', '?':
			b.WriteByte(e)
		case 'x', 'u', 'U':
			max := 2
			if e == 'u' {
				max = 4
			} else if e == 'U' {
				max = 8
			}
			k := i + 1
			for k < len(s) && k-i-1 < max && strings.IndexByte("0123456789abcdefABCDEF", s[k]) >= 0 {
				k++
			}
			if k == i+1 {
				return "", false
			}
			n, err := strconv.ParseUint(s[i+1:k], 16, 32)
			if err != nil {
				return "", false
			}
			if e == 'x' {
				b.WriteByte(byte(n))
			} else {
				b.WriteRune(rune(n))
			}
			i = k - 1
		case '0', '1', '2', '3', '4', '5', '6', '7':
			k := i
			for k < len(s) && k-i < 3 && s[k] >= '0' && s[k] <= '7' {
				k++
			}
			n, _ := strconv.ParseUint(s[i:k], 8, 16)
			b.WriteByte(byte(n))
			i = k - 1
		default:
			return "", false
		}
	}
	return b.String(), true
}

// simpleParam reports whether pe is $NAME or ${NAME} with no operators.
func simpleParam(pe *syntax.ParamExp) bool {
	return pe.Param != nil && pe.Flags == nil && !pe.Excl && !pe.Length && !pe.Width && !pe.IsSet &&
		pe.Split == syntax.OptUnset && pe.GlobSubst == syntax.OptUnset && pe.RcExpand == syntax.OptUnset &&
		pe.NestedParam == nil && pe.Index == nil && len(pe.Modifiers) == 0 && pe.Slice == nil &&
		pe.Repl == nil && pe.Names == 0 && pe.Exp == nil
}

func (j *editJudge) param(pe *syntax.ParamExp, st *editState) (string, bool) {
	if !simpleParam(pe) {
		return "", false
	}
	return st.get(pe.Param.Value)
}

// editAlt is one word being built; brace expansion makes several.
type editAlt struct {
	s       []byte
	shown   []byte // s with unknown parts as written; nil while they are the same
	glob    int
	started bool // text (even empty quotes) has been added, so a ~ is no longer at the start
}

func (a *editAlt) add(s string, quoted bool) {
	a.addShown(s, s, quoted)
}

// addShown adds s, written in the command as shown. A word that would grow longer than a command
// (a variable expanded many times over) gets an unknown part instead.
func (a *editAlt) addShown(s, shown string, quoted bool) {
	if len(a.s)+len(s) > maxEditLen {
		s, shown, quoted = editUnknown, "…", true
	}
	if !quoted {
		if i := strings.IndexAny(s, "*?["); i >= 0 && a.glob < 0 {
			a.glob = len(a.s) + i
		}
	}
	if a.shown == nil && shown != s {
		a.shown = append(make([]byte, 0, len(a.s)+len(shown)), a.s...) // never nil
	}
	if a.shown != nil {
		a.shown = append(a.shown, shown...)
	}
	a.s = append(a.s, s...)
	a.started = true
}

func (a *editAlt) word() editWord {
	w := editWord{s: string(a.s), glob: a.glob}
	if a.shown != nil {
		w.shown = string(a.shown)
	}
	return w
}

func (a editAlt) copy() editAlt {
	c := editAlt{s: append([]byte(nil), a.s...), glob: a.glob, started: a.started}
	if a.shown != nil {
		c.shown = append(make([]byte, 0, len(a.shown)), a.shown...)
	}
	return c
}

// expand returns the words a shell word expands to: brace expansion, tilde, known variables,
// quote removal, and field splitting of a whole-word unquoted variable. Substitutions are
// editUnknown. Pathname expansion is not done; the word keeps its glob position instead.
func (j *editJudge) expand(w *syntax.Word, st *editState) []editWord {
	if w == nil {
		return nil
	}
	if len(w.Parts) == 1 {
		if pe, ok := w.Parts[0].(*syntax.ParamExp); ok && simpleParam(pe) {
			if v, ok := st.get(pe.Param.Value); ok {
				var out []editWord
				for _, f := range strings.Fields(v) {
					x := lit(f)
					x.glob = strings.IndexAny(f, "*?[")
					out = append(out, x)
				}
				return out
			}
		}
	}
	// SplitBraces rewrites the word it is given, and syntax.Walk does not know the nodes it
	// makes: split a shallow copy so that the tree can still be walked.
	split := &syntax.Word{Parts: w.Parts}
	syntax.SplitBraces(split)
	alts := j.expandParts(split.Parts, []editAlt{{glob: -1}}, false, st)
	out := make([]editWord, 0, len(alts))
	for _, a := range alts {
		out = append(out, a.word())
	}
	return out
}

// expandAssign expands the value of an assignment: no brace expansion, no field splitting.
func (j *editJudge) expandAssign(w *syntax.Word, st *editState) (editWord, bool) {
	alts := j.expandParts(w.Parts, []editAlt{{glob: -1}}, false, st)
	if len(alts) != 1 {
		return unknownWord, false
	}
	return alts[0].word(), true
}

func (j *editJudge) expandParts(parts []syntax.WordPart, alts []editAlt, quoted bool, st *editState) []editAlt {
	for _, part := range parts {
		switch p := part.(type) {
		case *syntax.Lit:
			for i := range alts {
				j.addLit(&alts[i], p.Value, quoted, st)
			}
		case *syntax.SglQuoted:
			v := p.Value
			if p.Dollar {
				var ok bool
				if v, ok = decodeANSIC(v); !ok {
					v = editUnknown
				}
			}
			for i := range alts {
				alts[i].addShown(v, strings.ReplaceAll(v, editUnknown, "$'…'"), true)
			}
		case *syntax.DblQuoted:
			for i := range alts {
				alts[i].started = true
			}
			alts = j.expandParts(p.Parts, alts, true, st)
		case *syntax.ParamExp:
			v, ok := j.param(p, st)
			shown := v
			if !ok {
				v, shown = editUnknown, "${…}"
				if simpleParam(p) {
					shown = "$" + p.Param.Value
				}
			}
			for i := range alts {
				alts[i].addShown(v, shown, quoted)
			}
		case *syntax.ProcSubst:
			for i := range alts {
				alts[i].add("/dev/fd/63", true)
			}
		case *syntax.ExtGlob:
			for i := range alts {
				alts[i].add(p.Op.String()+p.Pattern.Value+")", quoted)
				if !quoted && alts[i].glob < 0 {
					alts[i].glob = len(alts[i].s) - len(p.Pattern.Value) - 3
				}
			}
		case *syntax.BraceExp:
			elems := p.Elems
			if p.Sequence && len(elems) > 2 {
				elems = elems[:2] // {1..100..5}: the ends stand for the sequence
			}
			var out []editAlt
			for _, e := range elems {
				c := make([]editAlt, len(alts))
				for i, a := range alts {
					c[i] = a.copy()
				}
				out = append(out, j.expandParts(e.Parts, c, quoted, st)...)
				if len(out) > maxEditBraces {
					j.overflow = &Refusal{What: "the command's brace expansion makes too many words to judge", Hint: editHintAsk}
					return alts
				}
			}
			alts = out
		case *syntax.ArithmExp:
			for i := range alts {
				alts[i].addShown(editUnknown, "$((…))", true)
			}
		case *syntax.CmdSubst:
			v, ok := "", false
			if isPwd(p) {
				v, ok = st.get("PWD")
			}
			for i := range alts {
				if ok {
					alts[i].addShown(v, "$(pwd)", quoted)
				} else {
					alts[i].addShown(editUnknown, "$(…)", true)
				}
			}
		default: // judged separately; the value is unknown
			for i := range alts {
				alts[i].addShown(editUnknown, "$(…)", true)
			}
		}
	}
	return alts
}

// addLit adds literal text: backslash escapes are removed, and a ~ at the start of an unquoted
// word is the home directory (from HOME as the script knows it), ~+ the working directory; any
// other ~user is unknown.
func (j *editJudge) addLit(a *editAlt, v string, quoted bool, st *editState) {
	if quoted {
		a.add(unescapeDouble(v), true)
		return
	}
	if !a.started && strings.HasPrefix(v, "~") {
		end := strings.IndexByte(v, '/')
		if end < 0 {
			end = len(v)
		}
		var home string
		var ok bool
		switch v[1:end] {
		case "":
			home, ok = st.get("HOME")
		case "+":
			home, ok = st.get("PWD")
		}
		if ok {
			a.add(home, true)
		} else {
			a.addShown(editUnknown, v[:end], true)
		}
		v = v[end:]
	}
	for i := 0; i < len(v); i++ {
		c := v[i]
		if c == '\\' && i+1 < len(v) {
			i++
			a.add(v[i:i+1], true)
			continue
		}
		if (c == '*' || c == '?' || c == '[') && a.glob < 0 {
			a.glob = len(a.s)
		}
		if len(a.s) > maxEditLen {
			break
		}
		a.s = append(a.s, c)
		if a.shown != nil {
			a.shown = append(a.shown, c)
		}
	}
	a.started = true
}

// ---------------------------------------------------------------------------------------------
// Paths.

// editReach is how far a path reaches, for a recursive delete or permission change.
type editReach uint8

const (
	reachInside  editReach = iota // strictly inside the project
	reachGitDir                   // the project's .git
	reachAll                      // a glob matching every entry of the project
	reachProject                  // the project itself
	reachParent                   // a directory holding the project
	reachOutside                  // anywhere else
	reachUnknown                  // cannot be resolved
)

var reachWords = [...]string{
	reachInside:  "is inside the project",
	reachGitDir:  "is the project's git history",
	reachAll:     "matches everything in the project",
	reachProject: "is the project itself",
	reachParent:  "is a directory that holds the project",
	reachOutside: "is outside the project",
	reachUnknown: "cannot be resolved (a variable, a substitution or an unknown directory), so it may be outside the project",
}

// resolve returns the absolute, clean paths a word may name, one for each possible working
// directory, or false when it cannot be known.
func (j *editJudge) resolve(w editWord, st *editState) ([]string, bool) {
	if !w.known() {
		return nil, false
	}
	if path.IsAbs(w.s) {
		return []string{path.Clean(w.s)}, true
	}
	if st.dirs == nil {
		return nil, false
	}
	out := make([]string, 0, len(st.dirs))
	for _, d := range st.dirs {
		out = append(out, path.Join(d, w.s))
	}
	return out, true
}

// reach classifies the worst place a word may name.
func (j *editJudge) reach(w editWord, st *editState) editReach {
	if w.inside || w.s == editTemp {
		return reachInside
	}
	paths, ok := j.resolve(w, st)
	if !ok {
		return reachUnknown
	}
	worst := reachInside
	for _, p := range paths {
		var k editReach
		if w.glob >= 0 {
			k = j.classifyGlob(p)
		} else {
			k = j.classify(p)
		}
		if k > worst {
			worst = k
		}
	}
	return worst
}

func (j *editJudge) classify(p string) editReach {
	switch {
	case p == j.project:
		return reachProject
	case p == path.Join(j.project, ".git"):
		return reachGitDir
	case within(p, j.project):
		return reachInside
	case within(j.project, p):
		return reachParent
	}
	return reachOutside
}

// classifyGlob classifies a cleaned pattern by the directory before its first glob element:
// the pattern can match anything in it.
func (j *editJudge) classifyGlob(p string) editReach {
	elems := strings.Split(p, "/")
	i := 0
	for i < len(elems) && !strings.ContainsAny(elems[i], "*?[") {
		i++
	}
	if i == len(elems) {
		return j.classify(p)
	}
	dir := strings.Join(elems[:i], "/")
	if dir == "" {
		dir = "/"
	}
	switch k := j.classify(dir); k {
	case reachInside:
		return reachInside
	case reachProject:
		if i == len(elems)-1 {
			if matchesEverything(elems[i]) {
				return reachAll
			}
			if ok, _ := path.Match(elems[i], ".git"); ok {
				return reachGitDir
			}
		}
		return reachInside
	case reachGitDir:
		return reachInside // inside .git, not all of it
	default:
		return reachOutside // a glob in or above a directory outside the project
	}
}

// matchesEverything reports whether a glob element has no literal text but dots: *, .*, *.*, ?*,
// [a-z]*.
func matchesEverything(elem string) bool {
	var b strings.Builder
	for i := 0; i < len(elem); i++ {
		if elem[i] == '[' {
			if k := strings.IndexByte(elem[i+1:], ']'); k >= 0 {
				b.WriteByte('?')
				i += k + 1
				continue
			}
		}
		b.WriteByte(elem[i])
	}
	return strings.Trim(b.String(), "*?.") == ""
}

// write judges a write to w by prog (what: how it is written): protected paths and devices.
// recursive marks a write that may reach inside w (cp -r into it, rm -r of it).
//
// An unresolvable target is allowed unless its known text names a protected file (a protected
// path's base name, such as settings.json or .bashrc, as a whole path element), or its known
// directory is protected or directly holds a protected file (`"$HOME/$x"`, `~/.claude/$f`).
func (j *editJudge) write(prog, what string, w editWord, st *editState, recursive bool) *Refusal {
	if w.inside {
		if w.mayProtect {
			return editRefuse(prog, editHintProtected, "%s may write a protected file: find's starting points hold one and its tests do not rule it out", what)
		}
		return nil
	}
	if w.s == editTemp {
		return nil
	}
	if paths, ok := j.resolve(w, st); ok {
		for _, p := range paths {
			if w.glob >= 0 {
				if q, hit := j.globProtected(p, recursive); hit {
					return editRefuse(prog, editHintProtected, "%s writes `%s`, which matches `%s`, and that is protected (%s)", what, w.show(), clip(q), protectedWhat)
				}
			} else if ProtectedPath(p, j.ctx) || (recursive && j.holdsProtected(p)) {
				return editRefuse(prog, editHintProtected, "%s writes `%s`, which is protected (%s)", what, w.show(), protectedWhat)
			}
			if deviceWrite(p) {
				return editRefuse(prog, editHintAsk, "%s writes the device `%s`, which can destroy a disk", what, w.show())
			}
		}
		return nil
	}
	if j.mayBeProtected(w, st) {
		return editRefuse(prog, editHintProtected, "%s writes `%s`, which cannot be resolved and may be protected (%s)", what, w.show(), protectedWhat)
	}
	if deviceWrite(strings.NewReplacer(editUnknown, "x", editTemp, "x").Replace(w.s)) {
		return editRefuse(prog, editHintAsk, "%s writes `%s`, which cannot be resolved and may be a disk device", what, w.show())
	}
	return nil
}

const protectedWhat = "hookctl's configuration, state or binary, Claude Code's settings, or a shell start-up file"

// globProtected reports whether a pattern matches a protected path, or, for a recursive write,
// a directory holding one.
func (j *editJudge) globProtected(pattern string, recursive bool) (string, bool) {
	for _, q := range j.ctx.Protected {
		if q == "" {
			continue
		}
		q = path.Clean(q)
		for p := q; ; p = path.Dir(p) {
			if ok, err := path.Match(pattern, p); ok || err != nil {
				return q, true
			}
			if !recursive || p == "/" {
				break
			}
		}
		// A pattern naming a directory inside a protected one.
		for dir := path.Dir(pattern); ; dir = path.Dir(dir) {
			if !strings.ContainsAny(dir, "*?[") && within(dir, q) {
				return q, true
			}
			if dir == "/" || dir == "." {
				break
			}
		}
	}
	return "", false
}

func (j *editJudge) mayBeProtected(w editWord, st *editState) bool {
	s := strings.ReplaceAll(w.s, editTemp, editUnknown)
	for _, q := range j.ctx.Protected {
		if q == "" {
			continue
		}
		if mentions(s, path.Base(path.Clean(q))) {
			return true
		}
	}
	i := strings.Index(s, editUnknown)
	if i <= 0 {
		return false // begins with an unknown: could be anywhere
	}
	dir := "."
	if k := strings.LastIndexByte(s[:i], '/'); k >= 0 {
		dir = s[:k]
		if dir == "" {
			dir = "/"
		}
	}
	paths, ok := j.resolve(lit(dir), st)
	if !ok {
		return false
	}
	for _, d := range paths {
		if ProtectedPath(d, j.ctx) {
			return true
		}
		for _, q := range j.ctx.Protected {
			if q != "" && path.Dir(path.Clean(q)) == d {
				return true
			}
		}
	}
	return false
}

// mentions reports whether name appears in s as a whole path element, where the unknown marker
// also counts as a boundary.
func mentions(s, name string) bool {
	if name == "" || name == "/" || name == "." {
		return false
	}
	for off := 0; ; {
		i := strings.Index(s[off:], name)
		if i < 0 {
			return false
		}
		i += off
		end := i + len(name)
		before := i == 0 || s[i-1] == '/' || s[i-1] == 0
		after := end == len(s) || s[end] == '/' || s[end] == 0
		if before && after {
			return true
		}
		off = i + 1
	}
}

// deviceWrite reports whether writing p writes a device that holds data: a disk, a partition,
// memory. The character devices programs write as a matter of course are not.
func deviceWrite(p string) bool {
	if !strings.HasPrefix(p, "/dev/") {
		return false
	}
	switch p {
	case "/dev/null", "/dev/zero", "/dev/full", "/dev/stdout", "/dev/stderr", "/dev/stdin",
		"/dev/tty", "/dev/random", "/dev/urandom", "/dev/ptmx", "/dev/console":
		return false
	}
	for _, ok := range []string{"/dev/fd/", "/dev/shm/", "/dev/pts/", "/dev/mqueue/", "/dev/tty"} {
		if strings.HasPrefix(p, ok) {
			return false
		}
	}
	return true
}

// ---------------------------------------------------------------------------------------------
// Option parsing.

// editOpts describes a program's options as far as the edit guard needs: which take a value,
// so that operands are found. Every option not listed is a flag.
type editOpts struct {
	valued   string   // short options taking a value, attached or in the next word
	optional string   // short options taking a value only when attached (sed -i.bak)
	long     []string // long options taking a value, after = or in the next word
	// posix: options end at the first operand (the wrappers: what follows is a command).
	posix bool
}

type editOpt struct {
	name  string
	value editWord
}

type editParsed struct {
	opts     []editOpt
	operands []editWord
	// maybeOpt: a word that may begin with anything stood where an option could: it may be -r.
	maybeOpt bool
}

func (p *editParsed) has(names ...string) bool {
	for _, o := range p.opts {
		for _, n := range names {
			if o.name == n {
				return true
			}
		}
	}
	return false
}

func (p *editParsed) values(names ...string) []editWord {
	var out []editWord
	for _, o := range p.opts {
		for _, n := range names {
			if o.name == n {
				out = append(out, o.value)
			}
		}
	}
	return out
}

// longIs reports whether an option as written is full or an unambiguous abbreviation of it at
// least min bytes long (GNU getopt accepts unique prefixes).
func longIs(name, full string, min int) bool {
	return name == full || (len(name) >= min && strings.HasPrefix(full, name))
}

func (o *editOpts) parse(args []editWord) editParsed {
	var p editParsed
	ended := false
	for i := 0; i < len(args); i++ {
		a := args[i]
		v := a.s
		switch {
		case ended || a.inside || v == "-" || !strings.HasPrefix(v, "-"):
			if !ended && a.startsUnknown() {
				p.maybeOpt = true
			}
			p.operands = append(p.operands, a)
			if o.posix {
				ended = true
			}
		case v == "--":
			ended = true
		case strings.HasPrefix(v, "--"):
			name, val, has := strings.Cut(v, "=")
			opt := editOpt{name: name}
			if has {
				opt.value = lit(val)
			} else if containsString(o.long, name) && i+1 < len(args) {
				i++
				opt.value = args[i]
			}
			p.opts = append(p.opts, opt)
		default:
			for k := 1; k < len(v); k++ {
				name := "-" + v[k:k+1]
				switch {
				case strings.IndexByte(o.valued, v[k]) >= 0:
					opt := editOpt{name: name}
					if k+1 < len(v) {
						opt.value = lit(v[k+1:])
					} else if i+1 < len(args) {
						i++
						opt.value = args[i]
					}
					p.opts = append(p.opts, opt)
					k = len(v)
				case strings.IndexByte(o.optional, v[k]) >= 0:
					p.opts = append(p.opts, editOpt{name: name, value: lit(v[k+1:])})
					k = len(v)
				default:
					p.opts = append(p.opts, editOpt{name: name})
				}
			}
		}
	}
	return p
}

// ---------------------------------------------------------------------------------------------
// The rules.

// editRule is the edit guard's rule for one family of programs.
type editRule struct {
	// names are the program names (base names) the rule is for; a name ending in "." matches
	// every name with that prefix (mkfs. matches mkfs.ext4).
	names []string
	judge func(j *editJudge, c *editCall) *Refusal
}

// editRules is the exclude list's table: program → rule. A program not here runs. It is set in
// init because the rules that re-judge a command (sh -c, eval, the wrappers) refer back to it.
var editRules []*editRule

func init() {
	editRules = []*editRule{
		privilegeRule, diskRule, ddRule,
		rmRule, permissionsRule, fileWritesRule, copyRule, teeRule, sortEditRule, goBuildRule, inPlaceRule, downloadRule,
		gitEditRule, hookctlRule, claudeRule,
		shellRule, evalRule, trapRule, cdRule, varsRule,
		wrapperRule, xargsRule, findEditRule, parallelRule, watchRule,
	}
}

// lookupEditRule finds the rule for a program. A linear search of a short table costs less than
// building a map on every hook start.
func lookupEditRule(name string) *editRule {
	for _, r := range editRules {
		for _, n := range r.names {
			if n == name || (strings.HasSuffix(n, ".") && strings.HasPrefix(name, n)) {
				return r
			}
		}
	}
	return nil
}

// privilegeRule: programs that run a command as another user.
//
// Why: an agent with root can do anything, and a password prompt would hang the session.
// What: sudo, doas, su, pkexec and run0 are refused whatever their arguments.
// Test: TestEditPrivilegeAndDisk.
var privilegeRule = &editRule{
	names: []string{"sudo", "doas", "su", "pkexec", "run0"},
	judge: func(j *editJudge, c *editCall) *Refusal {
		return editRefuse(c.prog, editHintAsk, "`%s` runs a command with other privileges", c.prog)
	},
}

// diskRule: programs that format, wipe or repartition a disk.
//
// Why: one wrong device name destroys a file system, and nothing brings it back.
// What: mkfs and every mkfs.*, mke2fs, mkswap, mkdosfs, mkntfs, wipefs, shred, blkdiscard,
// fdisk, sfdisk, cfdisk, gdisk, sgdisk and parted are refused whatever their arguments (their
// read-only forms, such as fdisk -l, are the user's to run too).
// Test: TestEditPrivilegeAndDisk.
var diskRule = &editRule{
	names: []string{"mkfs", "mkfs.", "mke2fs", "mkswap", "mkdosfs", "mkntfs", "wipefs", "shred", "blkdiscard",
		"fdisk", "sfdisk", "cfdisk", "gdisk", "sgdisk", "parted"},
	judge: func(j *editJudge, c *editCall) *Refusal {
		return editRefuse(c.prog, editHintAsk, "`%s` formats, wipes or repartitions a disk, or destroys a file", c.prog)
	},
}

// ddRule: dd's output file.
//
// Why: `dd if=image of=/dev/sda` overwrites a disk; dd of=~/.bashrc overwrites a protected file.
// What: of= naming a device (any /dev path but null, zero, the std streams, ttys, fd/ and shm/)
// or a protected path is refused; ~ and $HOME in it are resolved.
// Test: TestEditPrivilegeAndDisk, TestEditProtectedWrites.
var ddRule = &editRule{
	names: []string{"dd"},
	judge: func(j *editJudge, c *editCall) *Refusal {
		for _, a := range c.args {
			v, ok := strings.CutPrefix(a.s, "of=")
			if !ok {
				continue
			}
			w := a
			w.s = v
			if w.glob >= 0 {
				w.glob -= 3
			}
			if v == "~" || strings.HasPrefix(v, "~/") { // bash expands ~ after = in dd's operands
				if h, ok := c.st.get("HOME"); ok {
					w.s = h + v[1:]
				} else {
					w.s = editUnknown + v[1:]
				}
			}
			if r := j.write(c.prog, "`dd of=`", w, c.st, false); r != nil {
				return r
			}
		}
		return nil
	},
}

// rmRule: recursive deletes that reach outside the project.
//
// Why: `rm -rf ~/`, `rm -rf / tmp/x` (a stray space), `rm -rf $UNSET/` and `cd /tmp && rm -rf *`
// are the classic unrecoverable accidents.
// What: rm with -r, -R or --recursive (in any cluster or abbreviation) is refused when a target
// resolves, lexically and from the directory the command runs in, outside the project, to the
// project itself, to a directory holding it, to the project's .git, or to a glob that matches
// every entry of the project or anything outside it; or when a target cannot be resolved (a
// variable, a substitution, ~user, a directory after an unresolvable cd). A word that may expand
// to -r makes the command recursive for targets known to be outside. Any rm, recursive or not,
// of a protected path (or, recursive, of a directory holding one) is refused. A variable
// assigned $(mktemp …) may be deleted.
// Test: TestEditRm.
var rmRule = &editRule{
	names: []string{"rm"},
	judge: func(j *editJudge, c *editCall) *Refusal {
		p := (&editOpts{}).parse(c.args)
		recursive := false
		for _, o := range p.opts {
			if o.name == "-r" || o.name == "-R" || longIs(o.name, "--recursive", 3) {
				recursive = true
			}
		}
		for _, t := range p.operands {
			if t.s == "" && t.known() {
				continue // rm "" fails harmlessly
			}
			if recursive || p.maybeOpt {
				k := j.reach(t, c.st)
				if k != reachInside && (recursive || k != reachUnknown) {
					flag := "-r"
					if !recursive {
						flag = "with a word that may be -r"
					}
					return editRefuse(c.prog, editHintRm, "recursive rm (`rm %s`) of `%s`: the path %s", flag, t.show(), reachWords[k])
				}
			}
			if r := j.write(c.prog, "`rm`", t, c.st, recursive); r != nil {
				return r
			}
		}
		return nil
	},
}

// permissionsRule: recursive permission and owner changes outside the project.
//
// Why: `chmod -R 777 ~` or `chown -R user /` breaks ssh, sudo and the system, and the old modes
// are not recorded anywhere.
// What: chmod, chown and chgrp with -R or --recursive on a target outside the project, a
// directory holding it, or a path that cannot be resolved are refused; the project itself and
// paths inside it are allowed. Any of them on a protected path is refused.
// Test: TestEditRm (chmod rows), TestEditProtectedWrites.
var permissionsRule = &editRule{
	names: []string{"chmod", "chown", "chgrp"},
	judge: func(j *editJudge, c *editCall) *Refusal {
		args := c.args
		if c.prog == "chmod" {
			// -w, -x, -rwx are modes, not options.
			args = make([]editWord, 0, len(c.args))
			for _, a := range c.args {
				if len(a.s) > 1 && a.s[0] == '-' && strings.Trim(a.s[1:], "rwxXst") == "" {
					a.s = "=" + a.s // an operand now; the value is not used
				}
				args = append(args, a)
			}
		}
		p := (&editOpts{long: []string{"--reference"}}).parse(args)
		recursive := p.has("-R")
		for _, o := range p.opts {
			recursive = recursive || longIs(o.name, "--recursive", 5)
		}
		targets := p.operands
		if len(p.values("--reference")) == 0 && len(targets) > 0 {
			targets = targets[1:] // the mode or owner
		}
		for _, t := range targets {
			if recursive {
				switch k := j.reach(t, c.st); k {
				case reachParent, reachOutside, reachUnknown:
					return editRefuse(c.prog, editHintAsk, "recursive `%s -R` of `%s`: the path %s", c.prog, t.show(), reachWords[k])
				}
			}
			if r := j.write(c.prog, "`"+c.prog+"`", t, c.st, recursive); r != nil {
				return r
			}
		}
		return nil
	},
}

// fileWritesRule: programs that create, change or remove the files named as operands.
//
// Why: `truncate -s0 ~/.bashrc`, `touch ~/.claude/settings.json`, `unlink` of hookctl's state:
// each changes a file the agent may never write.
// What: a protected operand (after the options with values are skipped) is refused for unlink,
// truncate, touch, mkdir, rmdir and mkfifo.
// Test: TestEditProtectedWrites.
var fileWritesRule = &editRule{
	names: []string{"unlink", "truncate", "touch", "mkdir", "rmdir", "mkfifo"},
	judge: func(j *editJudge, c *editCall) *Refusal {
		p := fileWriteOpts(c.prog).parse(c.args)
		for _, t := range p.operands {
			if r := j.write(c.prog, "`"+c.prog+"`", t, c.st, false); r != nil {
				return r
			}
		}
		return nil
	},
}

func fileWriteOpts(prog string) *editOpts {
	switch prog {
	case "truncate":
		return &editOpts{valued: "sr", long: []string{"--size", "--reference"}}
	case "touch":
		return &editOpts{valued: "drt", long: []string{"--date", "--reference", "--time"}}
	case "mkdir", "mkfifo":
		return &editOpts{valued: "m", long: []string{"--mode"}}
	}
	return &editOpts{}
}

// copyRule: programs that write a destination named by their operands.
//
// Why: `cp my.json ~/.claude/settings.json`, `ln -sf x ~/.bashrc`, `mv ~/.config/hookctl /tmp`
// and `rsync -a conf/ ~/.claude/` each replace or remove a protected file.
// What: for cp, mv, install, ln and rsync the paths written are the destination and, for each
// source, the destination joined with the source's name (-t DIR and a one-operand ln count);
// any that is protected is refused, and so is a recursive copy (-r, -R, -a, rsync's -a) into a
// directory that holds a protected path. mv (and rsync --remove-source-files) also removes its
// sources, so a protected source or a source holding one is refused. rsync remote paths are
// skipped.
// Test: TestEditProtectedWrites.
var copyRule = &editRule{
	names: []string{"cp", "mv", "install", "ln", "rsync"},
	judge: judgeCopy,
}

func copyOpts(prog string) *editOpts {
	switch prog {
	case "install":
		return &editOpts{valued: "mogSt", long: []string{"--mode", "--owner", "--group", "--suffix", "--target-directory", "--strip-program"}}
	case "rsync":
		return rsyncOpts
	}
	return &editOpts{valued: "St", long: []string{"--suffix", "--target-directory"}}
}

var rsyncOpts = &editOpts{valued: "eTfBM@", long: []string{"--rsh", "--rsync-path", "--filter", "--exclude", "--include",
	"--exclude-from", "--include-from", "--files-from", "--temp-dir", "--partial-dir", "--backup-dir", "--suffix",
	"--compare-dest", "--copy-dest", "--link-dest", "--log-file", "--log-file-format", "--out-format",
	"--password-file", "--port", "--sockopts", "--bwlimit", "--timeout", "--contimeout", "--chmod", "--chown",
	"--usermap", "--groupmap", "--max-size", "--min-size", "--max-delete", "--block-size", "--modify-window",
	"--iconv", "--checksum-choice", "--compress-choice", "--compress-level", "--skip-compress", "--info",
	"--debug", "--outbuf", "--remote-option", "--write-batch", "--only-write-batch", "--read-batch",
	"--protocol", "--address", "--stop-after", "--stop-at", "--max-alloc", "--copy-as"}}

func judgeCopy(j *editJudge, c *editCall) *Refusal {
	p := copyOpts(c.prog).parse(c.args)
	what := "`" + c.prog + "`"
	recursive := p.has("-r", "-R", "-a")
	for _, o := range p.opts {
		recursive = recursive || longIs(o.name, "--recursive", 5) || longIs(o.name, "--archive", 4) ||
			(c.prog == "rsync" && (o.name == "--mirror" || strings.HasPrefix(o.name, "--del")))
	}
	ops := p.operands
	if c.prog == "rsync" {
		kept := ops[:0:0]
		for _, o := range ops {
			if !remotePath(o.s) {
				kept = append(kept, o)
			}
		}
		if len(kept) != len(ops) && (len(ops) == 0 || remotePath(ops[len(ops)-1].s)) {
			// The destination is remote; only --remove-source-files touches local files.
			if p.has("--remove-source-files") {
				for _, s := range kept {
					if r := j.write(c.prog, what+" (removing its sources)", s, c.st, true); r != nil {
						return r
					}
				}
			}
			return nil
		}
		ops = kept
	}
	if c.prog == "install" && p.has("-d") {
		for _, d := range ops {
			if r := j.write(c.prog, what, d, c.st, false); r != nil {
				return r
			}
		}
		return nil
	}
	var dest editWord
	var srcs []editWord
	if td := p.values("-t", "--target-directory"); len(td) > 0 {
		dest, srcs = td[len(td)-1], ops
	} else if len(ops) >= 2 {
		dest, srcs = ops[len(ops)-1], ops[:len(ops)-1]
	} else if len(ops) == 1 && c.prog == "ln" {
		dest, srcs = lit("."), ops
	} else {
		return nil
	}
	if r := j.write(c.prog, what, dest, c.st, recursive && p.has("-T", "--no-target-directory")); r != nil {
		return r
	}
	for _, s := range srcs {
		if c.prog == "mv" || p.has("--remove-source-files") {
			if r := j.write(c.prog, what+" (moving its source away)", s, c.st, true); r != nil {
				return r
			}
		}
		if p.has("-T", "--no-target-directory") {
			continue
		}
		into := joinName(dest, s, c.prog == "rsync")
		if r := j.write(c.prog, what, into, c.st, recursive); r != nil {
			return r
		}
	}
	return nil
}

// remotePath reports whether an rsync operand names another host: host:path or rsync://.
func remotePath(s string) bool {
	if strings.HasPrefix(s, "rsync://") {
		return true
	}
	i := strings.IndexByte(s, ':')
	return i > 0 && !strings.Contains(s[:i], "/")
}

// joinName returns the path a copy of src into the directory dest writes: dest/name-of-src.
// For rsync a source ending in / copies its contents, so the path is dest itself.
func joinName(dest, src editWord, contents bool) editWord {
	s := strings.TrimRight(src.s, "/")
	name := s[strings.LastIndexByte(s, '/')+1:]
	if (contents && strings.HasSuffix(src.s, "/")) || name == "." || s == "" {
		return dest
	}
	if src.inside {
		name = editUnknown
	}
	out := editWord{s: strings.TrimRight(dest.s, "/") + "/" + name, glob: -1}
	if dest.glob >= 0 {
		out.glob = dest.glob
	} else if src.glob >= 0 && strings.ContainsAny(name, "*?[") {
		out.glob = len(out.s) - len(name) + strings.IndexAny(name, "*?[")
	}
	return out
}

// teeRule: tee and sponge write their operands.
//
// Why: `echo x | tee -a ~/.bashrc` is the usual way to append to a file from a pipeline.
// What: a protected or device operand of tee or sponge is refused.
// Test: TestEditProtectedWrites.
var teeRule = &editRule{
	names: []string{"tee", "sponge"},
	judge: func(j *editJudge, c *editCall) *Refusal {
		p := (&editOpts{}).parse(c.args)
		for _, t := range p.operands {
			if r := j.write(c.prog, "`"+c.prog+"`", t, c.st, false); r != nil {
				return r
			}
		}
		return nil
	},
}

// sortEditRule: sort -o writes a file.
//
// Why: `sort -o ~/.zshrc ~/.zshrc` rewrites a protected file.
// What: a protected value of -o or --output is refused.
// Test: TestEditProtectedWrites.
var sortEditRule = &editRule{
	names: []string{"sort"},
	judge: func(j *editJudge, c *editCall) *Refusal {
		p := (&editOpts{valued: "kotST", long: []string{"--key", "--output", "--field-separator",
			"--temporary-directory", "--buffer-size", "--compress-program", "--files0-from", "--parallel", "--batch-size",
			"--random-source"}}).parse(c.args)
		for _, o := range p.values("-o", "--output") {
			if r := j.write(c.prog, "`sort -o`", o, c.st, false); r != nil {
				return r
			}
		}
		return nil
	},
}

// goBuildRule: go build -o writes the binary where it is told.
//
// Why: `go build -o ~/.local/bin/hookctl ./cmd/hookctl` replaces the installed hook.
// What: a protected value of -o (either form, one or two dashes) is refused.
// Test: TestEditProtectedWrites.
var goBuildRule = &editRule{
	names: []string{"go"},
	judge: func(j *editJudge, c *editCall) *Refusal {
		for i, a := range c.args {
			if !strings.HasPrefix(a.s, "-") {
				continue
			}
			name, val, has := strings.Cut(strings.TrimPrefix(a.s[1:], "-"), "=")
			if name != "o" {
				continue
			}
			out := lit(val)
			if !has {
				if i+1 >= len(c.args) {
					return nil
				}
				out = c.args[i+1]
			}
			if r := j.write(c.prog, "`go build -o`", out, c.st, false); r != nil {
				return r
			}
		}
		return nil
	},
}

// inPlaceRule: sed -i and perl -i edit their file operands.
//
// Why: `sed -i '/hookctl/d' ~/.bashrc` removes the hook from a protected file.
// What: with -i (attached suffix or cluster included) or --in-place, a protected file operand
// is refused. sed's script is the first operand unless -e, -f or their long forms give it.
// Test: TestEditProtectedWrites.
var inPlaceRule = &editRule{
	names: []string{"sed", "perl"},
	judge: func(j *editJudge, c *editCall) *Refusal {
		var p editParsed
		var scripted bool
		if c.prog == "sed" {
			p = (&editOpts{valued: "efl", optional: "i", long: []string{"--expression", "--file", "--line-length"}}).parse(c.args)
			scripted = p.has("-e", "-f", "--expression", "--file")
		} else {
			p = (&editOpts{valued: "eE", optional: "iIMmlx0CdDF"}).parse(c.args)
			scripted = p.has("-e", "-E")
		}
		inPlace := p.has("-i")
		for _, o := range p.opts {
			inPlace = inPlace || longIs(o.name, "--in-place", 4)
		}
		if !inPlace {
			return nil
		}
		files := p.operands
		if !scripted && len(files) > 0 {
			files = files[1:]
		}
		for _, f := range files {
			if r := j.write(c.prog, "`"+c.prog+" -i`", f, c.st, false); r != nil {
				return r
			}
		}
		return nil
	},
}

// downloadRule: curl and wget writing a file.
//
// Why: `curl -o ~/.claude/settings.json URL` replaces the settings with whatever the URL serves.
// What: curl's -o, --output, -D, --dump-header, -c, --cookie-jar, --trace, --trace-ascii,
// --stderr, --libcurl and --etag-save, curl's --output-dir, and wget's -O, -o, -a, -P and their
// long forms, naming a protected path (or a protected directory) are refused.
// Test: TestEditProtectedWrites.
var downloadRule = &editRule{
	names: []string{"curl", "wget"},
	judge: func(j *editJudge, c *editCall) *Refusal {
		var p editParsed
		var files, dirs []editWord
		if c.prog == "curl" {
			p = (&editOpts{valued: "AbcCdDeEFHKmoPQrtTuUwxXyYz", long: []string{"--output", "--dump-header", "--cookie-jar",
				"--trace", "--trace-ascii", "--stderr", "--libcurl", "--etag-save", "--output-dir", "--data", "--data-raw",
				"--data-binary", "--data-urlencode", "--header", "--user-agent", "--user", "--url", "--cookie", "--form",
				"--request", "--config", "--max-time", "--connect-timeout", "--proxy", "--referer", "--range",
				"--upload-file", "--write-out", "--retry", "--cacert", "--cert", "--key", "--resolve", "--json"}}).parse(c.args)
			files = p.values("-o", "--output", "-D", "--dump-header", "-c", "--cookie-jar", "--trace", "--trace-ascii",
				"--stderr", "--libcurl", "--etag-save")
			dirs = p.values("--output-dir")
		} else {
			p = (&editOpts{valued: "OoaPeDRAIXiBtTwQUYl", long: []string{"--output-document", "--output-file",
				"--append-output", "--directory-prefix", "--save-cookies", "--execute", "--input-file", "--user-agent",
				"--header", "--tries", "--timeout", "--wait", "--user", "--password"}}).parse(c.args)
			files = p.values("-O", "--output-document", "-o", "--output-file", "-a", "--append-output", "--save-cookies")
			dirs = p.values("-P", "--directory-prefix")
		}
		for _, f := range files {
			if f.s == "-" {
				continue
			}
			if r := j.write(c.prog, "`"+c.prog+"`", f, c.st, false); r != nil {
				return r
			}
		}
		for _, d := range dirs {
			if r := j.write(c.prog, "`"+c.prog+"`", joinName(d, lit(editUnknown), false), c.st, false); r != nil {
				return r
			}
			if paths, ok := j.resolve(d, c.st); ok {
				for _, x := range paths {
					if ProtectedPath(x, j.ctx) {
						return editRefuse(c.prog, editHintProtected, "`%s` writes into `%s`, which is protected (%s)", c.prog, d.show(), protectedWhat)
					}
				}
			}
		}
		return nil
	},
}

// gitEditRule: git commands that discard work or rewrite a shared branch.
//
// Why: a force push overwrites teammates' commits; reset --hard, clean -f, checkout/restore of
// the whole tree, branch -D and stash clear throw away work that was never committed or never
// merged, and git has no undo for uncommitted changes.
// What: after git's global options (-C, -c, --git-dir, --work-tree, --namespace, --config-env
// and their = forms are skipped with their values), refused are: push with --force, -f in any
// cluster, or a +refspec (--force-with-lease and --force-if-includes are allowed); reset --hard;
// clean with -f or --force (unless -n); checkout with -f or a whole-tree pathspec (., :/, *, a
// path that is the project or holds it) anywhere; restore of a whole-tree pathspec unless only
// --staged; branch -D or --delete with --force; stash clear. `-c alias.NAME=!cmd` is refused;
// `-c alias.NAME=cmd` is expanded when NAME is the subcommand. A subcommand that is not a
// literal is judged as each of the above.
// Test: TestEditGit.
var gitEditRule = &editRule{
	names: []string{"git"},
	judge: judgeGitEdit,
}

// gitGlobalValued are git's global options that take the next word as their value.
var gitGlobalValued = []string{"-C", "-c", "--git-dir", "--work-tree", "--namespace", "--config-env",
	"--super-prefix", "--attr-source", "--list-cmds", "--exec-path"}

func judgeGitEdit(j *editJudge, c *editCall) *Refusal {
	args := c.args
	aliases := map[string]string{}
	i := 0
global:
	for i < len(args) {
		a := args[i]
		v := a.s
		switch {
		case a.startsUnknown():
			break global
		case v == "-c" || strings.HasPrefix(v, "--config-env"):
			var cfg string
			if v == "-c" || v == "--config-env" {
				if i+1 >= len(args) {
					return nil
				}
				cfg = args[i+1].s
				i += 2
			} else {
				cfg = strings.TrimPrefix(v, "--config-env=")
				i++
			}
			key, val, _ := strings.Cut(cfg, "=")
			if name, ok := strings.CutPrefix(strings.ToLower(key), "alias."); ok {
				if strings.HasPrefix(val, "!") || v != "-c" || strings.Contains(cfg, editUnknown) {
					return editRefuse(c.prog, editHintAsk, "`-c alias.%s=…` defines an alias that runs a shell command, which the edit guard cannot judge", clip(name))
				}
				aliases[name] = val
			}
		case containsString(gitGlobalValued, v):
			i += 2
		case strings.HasPrefix(v, "-"):
			if v == "-h" || v == "--help" || v == "--version" {
				return nil
			}
			i++
		default:
			break global
		}
	}
	if i >= len(args) {
		return nil
	}
	sub := args[i]
	rest := args[i+1:]
	if al, ok := aliases[sub.s]; ok {
		var words []editWord
		for _, f := range strings.Fields(al) {
			words = append(words, lit(f))
		}
		if len(words) == 0 {
			return nil
		}
		sub, rest = words[0], append(words[1:], rest...)
	}
	for _, s := range gitSubRules {
		if !sub.known() {
			if r := s.judge(j, c, rest); r != nil {
				return editRefuse(c.prog, r.Hint, "the subcommand `%s` is not a literal, and as `%s`: %s", sub.show(), s.name, r.What)
			}
		} else if s.name == sub.s {
			return s.judge(j, c, rest)
		}
	}
	return nil
}

// gitSubRules are the subcommands with a dangerous form.
var gitSubRules = []struct {
	name  string
	judge func(j *editJudge, c *editCall, args []editWord) *Refusal
}{
	{"push", gitPush},
	{"reset", gitReset},
	{"clean", gitClean},
	{"checkout", gitCheckout},
	{"restore", gitRestore},
	{"branch", gitBranch},
	{"stash", gitStash},
}

func gitPush(j *editJudge, c *editCall, args []editWord) *Refusal {
	p := (&editOpts{valued: "o", long: []string{"--repo", "--receive-pack", "--exec", "--push-option"}}).parse(args)
	for _, o := range p.opts {
		if o.name == "-f" || o.name == "--force" {
			return editRefuse("git", "use --force-with-lease, or ask the user to run it",
				"force push (`git push %s`) overwrites the remote branch and may destroy others' commits", o.name)
		}
	}
	for _, a := range p.operands {
		if strings.HasPrefix(a.s, "+") {
			return editRefuse("git", "push without the + and use --force-with-lease if needed, or ask the user to run it",
				"force push: the refspec `%s` overwrites the remote branch", a.show())
		}
	}
	return nil
}

func gitReset(j *editJudge, c *editCall, args []editWord) *Refusal {
	for _, a := range args {
		if a.s == "--" {
			break
		}
		if longIs(a.s, "--hard", 4) {
			return editRefuse("git", "commit or stash the changes first, or ask the user to run it",
				"`git reset --hard` discards uncommitted changes for good")
		}
	}
	return nil
}

func gitClean(j *editJudge, c *editCall, args []editWord) *Refusal {
	p := (&editOpts{valued: "e", long: []string{"--exclude"}}).parse(args)
	force, dry := false, p.has("-n")
	for _, o := range p.opts {
		force = force || o.name == "-f" || longIs(o.name, "--force", 3)
		dry = dry || longIs(o.name, "--dry-run", 3)
	}
	if force && !dry {
		return editRefuse("git", "run `git clean -n` to list the files, then delete them by name or ask the user",
			"`git clean -f` deletes untracked files, which git cannot bring back")
	}
	return nil
}

func gitCheckout(j *editJudge, c *editCall, args []editWord) *Refusal {
	p := (&editOpts{valued: "bB", long: []string{"--orphan", "--conflict", "--pathspec-from-file"}}).parse(args)
	for _, o := range p.opts {
		if o.name == "-f" || o.name == "--force" {
			return editRefuse("git", "commit or stash the changes first, or ask the user to run it",
				"`git checkout %s` discards uncommitted changes", o.name)
		}
	}
	for _, a := range p.operands {
		if j.wholeTree(a, c.st) {
			return editRefuse("git", "name the files to restore, or ask the user to run it",
				"`git checkout %s` discards every uncommitted change under it", a.show())
		}
	}
	return nil
}

func gitRestore(j *editJudge, c *editCall, args []editWord) *Refusal {
	p := (&editOpts{valued: "s", long: []string{"--source", "--conflict", "--pathspec-from-file"}}).parse(args)
	staged, worktree := p.has("-S"), p.has("-W")
	for _, o := range p.opts {
		staged = staged || longIs(o.name, "--staged", 4)
		worktree = worktree || longIs(o.name, "--worktree", 3)
	}
	if staged && !worktree {
		return nil // only the index
	}
	for _, a := range p.operands {
		if j.wholeTree(a, c.st) {
			return editRefuse("git", "name the files to restore, or ask the user to run it",
				"`git restore %s` discards every uncommitted change under it", a.show())
		}
	}
	return nil
}

// wholeTree reports whether a pathspec covers the whole work tree, or at least the directory the
// command runs in: ., :/, *, a magic :(top) prefix, or a path that is the project or holds it.
func (j *editJudge) wholeTree(a editWord, st *editState) bool {
	v := a.s
	if !a.known() {
		return false
	}
	if strings.HasPrefix(v, ":(") {
		if k := strings.IndexByte(v, ')'); k >= 0 {
			v = v[k+1:]
		}
	} else if strings.HasPrefix(v, ":/") {
		v = v[2:]
	}
	v = strings.TrimRight(v, "/")
	if v == "" || v == "." || v == "*" || v == "**" || v == "./*" || v == "./**" {
		return true
	}
	if paths, ok := j.resolve(lit(v), st); ok {
		for _, p := range paths {
			if k := j.classify(p); k == reachProject || k == reachParent {
				return true
			}
		}
	}
	return false
}

func gitBranch(j *editJudge, c *editCall, args []editWord) *Refusal {
	p := (&editOpts{valued: "u", long: []string{"--set-upstream-to", "--contains", "--no-contains", "--merged",
		"--no-merged", "--points-at", "--format", "--sort", "--color", "--column"}}).parse(args)
	del, force := false, false
	for _, o := range p.opts {
		if o.name == "-D" {
			del, force = true, true
		}
		del = del || o.name == "-d" || o.name == "--delete"
		force = force || o.name == "-f" || o.name == "--force"
	}
	if del && force {
		return editRefuse("git", "delete merged branches with `git branch -d`, or ask the user to run it",
			"`git branch -D` deletes a branch whether or not it is merged, and its commits with it")
	}
	return nil
}

func gitStash(j *editJudge, c *editCall, args []editWord) *Refusal {
	if len(args) > 0 && args[0].s == "clear" {
		return editRefuse("git", editHintAsk, "`git stash clear` deletes every stash for good")
	}
	return nil
}

// hookctlRule: hookctl itself.
//
// Why: hookctl's guards are the user's choice. An agent that runs `hookctl readonly off` or
// `hookctl uninstall` has switched off its own guard; even `hookctl readonly on` is a decision
// about the session that the user makes.
// What: hookctl (by any path) is allowed only with a read-only verb: check, readonly status,
// audit, retrieve, version, statusline, doctor, help, --help, -h, --version, or no arguments.
// Test: TestEditHookctlAndClaude.
var hookctlRule = &editRule{
	names: []string{"hookctl"},
	judge: func(j *editJudge, c *editCall) *Refusal {
		if len(c.args) == 0 {
			return nil
		}
		verb := c.args[0].s
		switch verb {
		case "check", "audit", "retrieve", "version", "statusline", "doctor", "help", "--help", "-h", "--version":
			return nil
		case "readonly":
			if len(c.args) > 1 && c.args[1].s == "status" {
				return nil
			}
		}
		shown := c.args[0].show()
		if verb == "readonly" && len(c.args) > 1 {
			shown += " " + c.args[1].show()
		}
		return editRefuse(c.prog, "ask the user to run `hookctl "+shown+"`",
			"`hookctl %s` changes hookctl's guard or installation; only the user may run it", shown)
	},
}

// claudeRule: a nested claude that would run without the user's settings or permission checks.
//
// Why: `claude --dangerously-skip-permissions -p …` runs a second agent with no guard at all;
// --bare, --safe-mode and --settings start it without the user's settings (and so without
// hookctl's hook).
// What: claude with --bare, --safe-mode, --settings (either form), --dangerously-skip-permissions,
// --allow-dangerously-skip-permissions, or --permission-mode bypassPermissions (either form, or
// a value that is not a literal) is refused.
// Test: TestEditHookctlAndClaude.
var claudeRule = &editRule{
	names: []string{"claude"},
	judge: func(j *editJudge, c *editCall) *Refusal {
		for i, a := range c.args {
			name, val, has := strings.Cut(a.s, "=")
			switch name {
			case "--bare", "--safe-mode", "--settings", "--dangerously-skip-permissions", "--allow-dangerously-skip-permissions":
				return editRefuse(c.prog, editHintAsk, "`claude %s` starts Claude Code without the user's settings or permission checks", name)
			case "--permission-mode":
				v := editWord{s: val, glob: -1}
				if !has && i+1 < len(c.args) {
					v = c.args[i+1]
				}
				if strings.EqualFold(v.s, "bypassPermissions") || !v.known() {
					return editRefuse(c.prog, editHintAsk, "`claude --permission-mode %s` starts Claude Code without permission checks", v.show())
				}
			}
		}
		return nil
	},
}

// shellRule: sh -c STRING and its relatives.
//
// Why: `bash -c 'rm -rf ~'` hides a command in a string.
// What: for sh, bash, zsh, dash, ksh, mksh, ash and fish with -c (alone or in a cluster such as
// -lc, -ec), the first operand is parsed (as zsh for zsh, bash otherwise) and judged in a new
// shell; a string that is not a literal is refused. A script file operand is not opened.
// Test: TestEditRecursion.
var shellRule = &editRule{
	names: shellNames,
	judge: func(j *editJudge, c *editCall) *Refusal {
		code := false
		for i := 0; i < len(c.args); i++ {
			a := c.args[i]
			v := a.s
			switch {
			case !code && a.startsUnknown():
				return nil // a script path or options we cannot see; the file is not opened anyway
			case v == "--" || v == "-":
				continue
			case strings.HasPrefix(v, "--"):
				if v == "--rcfile" || v == "--init-file" {
					i++
				}
				if v == "--command" { // fish
					code = true
				}
			case len(v) > 1 && (v[0] == '-' || v[0] == '+'):
				if strings.IndexByte(v, 'c') >= 0 {
					code = true
				}
				if strings.ContainsAny(v[1:], "oO") {
					i++
				}
			default:
				if !code {
					return nil // a script file
				}
				if !a.known() {
					return editRefuse(c.prog, editHintLiteral, "`%s -c` runs a string that is not a literal (`%s`), so it cannot be judged", c.prog, a.show())
				}
				lang := syntax.LangBash
				if c.prog == "zsh" {
					lang = syntax.LangZsh
				}
				return j.script(v, c.st.child(), lang)
			}
		}
		return nil
	},
}

var shellNames = []string{"sh", "bash", "zsh", "dash", "ksh", "mksh", "ash", "fish"}

// evalRule: eval runs its arguments, joined, as shell code in the current shell.
//
// Why: `eval "rm -rf $HOME"` hides a command in a string.
// What: eval's literal arguments are joined with spaces, parsed and judged in the current
// shell's state; eval of anything that is not a literal (`eval "$(curl …)"`, `eval $cmd`) is
// refused.
// Test: TestEditRecursion.
var evalRule = &editRule{
	names: []string{"eval"},
	judge: func(j *editJudge, c *editCall) *Refusal {
		parts := make([]string, 0, len(c.args))
		for _, a := range c.args {
			if !a.known() {
				return editRefuse(c.prog, editHintLiteral, "`eval` of a string that is not a literal (`%s`) cannot be judged", a.show())
			}
			parts = append(parts, a.s)
		}
		return j.script(strings.Join(parts, " "), c.st, syntax.LangBash)
	},
}

// trapRule: trap's action is shell code run later.
//
// Why: `trap 'rm -rf ~' EXIT` runs the delete when the script ends.
// What: a literal action is parsed and judged; an action that is not a literal is refused.
// Test: TestEditRecursion.
var trapRule = &editRule{
	names: []string{"trap"},
	judge: func(j *editJudge, c *editCall) *Refusal {
		if len(c.args) < 2 || strings.HasPrefix(c.args[0].s, "-") {
			return nil // trap -p, trap -l, trap SIG (reset)
		}
		a := c.args[0]
		if !a.known() {
			return editRefuse(c.prog, editHintLiteral, "`trap` with an action that is not a literal (`%s`) cannot be judged", a.show())
		}
		return j.script(a.s, c.st.clone(), syntax.LangBash)
	},
}

// cdRule: cd, pushd and popd change the directory later relative paths resolve against.
//
// Why: `cd /tmp && rm -rf x` deletes /tmp/x; `cd .. && rm -rf *` deletes the project's siblings.
// What: a literal cd DIR (absolute, relative, ~, $HOME) moves the working directory; cd with no
// operand goes home; cd -, popd, pushd without a directory and any operand that cannot be
// resolved make it unknown, so that a later recursive rm of a relative path is refused. CDPATH is
// not consulted. Never refuses by itself.
// Test: TestEditRm (cd rows).
var cdRule = &editRule{
	names: []string{"cd", "pushd", "popd"},
	judge: func(j *editJudge, c *editCall) *Refusal {
		p := (&editOpts{}).parse(c.args)
		var target editWord
		switch {
		case c.prog == "popd":
			c.st.dirs = nil
			return nil
		case len(p.operands) == 0 && c.prog == "cd":
			h, ok := c.st.get("HOME")
			target = lit(h)
			if !ok {
				target = unknownWord
			}
		case len(p.operands) == 1:
			target = p.operands[0]
		default:
			c.st.dirs = nil
			return nil
		}
		if target.s == "-" || strings.HasPrefix(target.s, "+") || target.glob >= 0 {
			c.st.dirs = nil
			return nil
		}
		paths, ok := j.resolve(target, c.st)
		if !ok {
			paths = nil
		}
		c.st.dirs = paths
		return nil
	},
}

// varsRule: builtins that assign variables from input.
//
// Why: `d=build; read d; rm -rf $d` must not judge $d as build.
// What: the names read, mapfile, readarray, printf -v and getopts assign become unknown. Never
// refuses.
// Test: TestEditRecursion.
var varsRule = &editRule{
	names: []string{"read", "mapfile", "readarray", "printf", "getopts", "unset"},
	judge: func(j *editJudge, c *editCall) *Refusal {
		for _, a := range c.args {
			if a.known() && isName(a.s) {
				c.st.set(a.s, "", false)
			}
		}
		return nil
	},
}

func isName(s string) bool {
	if s == "" || (s[0] >= '0' && s[0] <= '9') {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		if !(c == '_' || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9')) {
			return false
		}
	}
	return true
}

// ---------------------------------------------------------------------------------------------
// Wrappers: programs that run their operands as a command.

// editWrapper describes one wrapper: its options, the operands before the command, and the
// options that mean no command is run.
type editWrapper struct {
	names   []string
	opts    *editOpts
	skip    int      // operands before the command (timeout's DURATION)
	assigns bool     // NAME=VALUE words come before the command (env)
	noRun   []string // options after which the operands are not a command (command -v, ionice -p)
}

var editWrappers = []*editWrapper{
	{names: []string{"env"}, opts: &editOpts{valued: "uCSP", long: []string{"--unset", "--chdir", "--split-string"}, posix: true}, assigns: true},
	{names: []string{"nice"}, opts: &editOpts{valued: "n", long: []string{"--adjustment"}, posix: true}},
	{names: []string{"nohup", "builtin", "busybox", "toybox"}, opts: &editOpts{posix: true}},
	{names: []string{"timeout"}, opts: &editOpts{valued: "sk", long: []string{"--signal", "--kill-after"}, posix: true}, skip: 1},
	{names: []string{"time"}, opts: &editOpts{valued: "of", long: []string{"--output", "--format"}, posix: true}},
	{names: []string{"command"}, opts: &editOpts{posix: true}, noRun: []string{"-v", "-V"}},
	{names: []string{"exec"}, opts: &editOpts{valued: "a", posix: true}},
	{names: []string{"stdbuf"}, opts: &editOpts{valued: "ioe", long: []string{"--input", "--output", "--error"}, posix: true}},
	{names: []string{"ionice"}, opts: &editOpts{valued: "cnpPu", long: []string{"--class", "--classdata", "--pid", "--pgid", "--uid"}, posix: true},
		noRun: []string{"-p", "-P", "-u", "--pid", "--pgid", "--uid"}},
	{names: []string{"setsid"}, opts: &editOpts{posix: true}},
	{names: []string{"sudo", "doas"}, opts: &editOpts{valued: "ugCDhpRrtTU", long: []string{"--user", "--group", "--chdir"}, posix: true}},
}

func lookupWrapper(name string) *editWrapper {
	for _, w := range editWrappers {
		if containsString(w.names, name) {
			return w
		}
	}
	return nil
}

// peel returns the command a wrapper runs, or false when it runs none.
func (w *editWrapper) peel(args []editWord) (editParsed, []editWord, bool) {
	p := w.opts.parse(args)
	if p.has(w.noRun...) {
		return p, nil, false
	}
	// posix parsing stopped at the first operand: re-slice from there.
	rest := args[len(args)-len(p.operands):]
	if len(p.operands) == 0 {
		rest = nil
	}
	for w.assigns && len(rest) > 0 && rest[0].known() && strings.Contains(rest[0].s, "=") && !strings.HasPrefix(rest[0].s, "=") {
		rest = rest[1:]
	}
	if len(rest) < w.skip {
		return p, nil, false
	}
	return p, rest[w.skip:], true
}

// wrapperRule: env, nice, nohup, timeout, time, command, exec, builtin, stdbuf, ionice, setsid,
// busybox and toybox run the rest of their arguments as a command.
//
// Why: `env rm -rf ~`, `nohup rm -rf / &`, `command rm -rf ~`: the wrapper changes nothing
// about what the command does.
// What: the wrapper's options (with their values) are skipped, and env's NAME=VALUE words and
// timeout's DURATION; the command that remains is judged as if written alone. env -C DIR moves
// the directory; env -S STRING is parsed as a command line; time -o FILE is a write.
// Test: TestEditRecursion.
var wrapperRule = &editRule{
	names: []string{"env", "nice", "nohup", "timeout", "time", "command", "exec", "builtin", "stdbuf", "ionice", "setsid", "busybox", "toybox"},
	judge: func(j *editJudge, c *editCall) *Refusal {
		w := lookupWrapper(c.prog)
		p, inner, ok := w.peel(c.args)
		st := c.st
		if c.prog == "time" {
			for _, o := range p.values("-o", "--output") {
				if r := j.write(c.prog, "`time -o`", o, st, false); r != nil {
					return r
				}
			}
		}
		if c.prog == "env" {
			for _, d := range p.values("-C", "--chdir") {
				st = st.clone()
				if paths, ok := j.resolve(d, st); ok {
					st.dirs = paths
				} else {
					st.dirs = nil
				}
			}
			for _, s := range p.values("-S", "--split-string") {
				if !s.known() {
					return editRefuse(c.prog, editHintLiteral, "`env -S` with a string that is not a literal cannot be judged")
				}
				line := s.s
				for _, a := range inner {
					line += " " + a.s
				}
				return j.script(line, st, syntax.LangBash)
			}
		}
		if !ok {
			return nil
		}
		return j.argv(inner, st)
	},
}

// xargsRule: xargs runs a command with operands read from its input.
//
// Why: `find . | xargs rm -rf` deletes whatever the input names.
// What: xargs' options are skipped and the command (echo by default) is judged with one more
// operand that cannot be resolved, or, with -I/-i/--replace, with each word holding the
// replacement string unknown.
// Test: TestEditRecursion.
var xargsRule = &editRule{
	names: []string{"xargs"},
	judge: func(j *editJudge, c *editCall) *Refusal {
		p := (&editOpts{valued: "adEILnPs", optional: "eil", posix: true, long: []string{"--arg-file", "--delimiter",
			"--max-lines", "--max-args", "--max-procs", "--max-chars", "--process-slot-var"}}).parse(c.args)
		inner := c.args[len(c.args)-len(p.operands):]
		if len(p.operands) == 0 {
			inner = []editWord{lit("echo")}
		}
		repl := ""
		for _, o := range p.opts {
			switch {
			case o.name == "-I":
				repl = o.value.s
			case o.name == "-i" || strings.HasPrefix(o.name, "--replace"):
				repl = "{}"
				if o.value.s != "" {
					repl = o.value.s
				}
			}
		}
		cmd := append([]editWord(nil), inner...)
		if repl != "" {
			for i := 1; i < len(cmd); i++ {
				if strings.Contains(cmd[i].s, repl) {
					cmd[i] = editWord{s: strings.ReplaceAll(cmd[i].s, repl, editUnknown), glob: -1}
				}
			}
		} else {
			cmd = append(cmd, unknownWord)
		}
		return j.argv(cmd, c.st.clone())
	},
}

// findEditRule: find -exec, -execdir, -ok, -okdir and -delete.
//
// Why: `find / -name x -delete` and `find ~ -exec rm -rf {} +` delete outside the project.
// What: each -exec/-execdir/-ok/-okdir COMMAND … ; or + is judged with {} standing for a path
// found: inside the project when every starting point is inside it (or is the project and the
// expression has a test, so that the project itself is not among the results), unknown
// otherwise. -delete is refused unless every starting point is inside the project, or is the
// project with a test in the expression. When a starting point holds a protected path and the
// -name/-path tests do not rule it out, {} and -delete may reach it and a write or delete is
// refused. -fprint, -fprint0, -fprintf and -fls write their file.
// Test: TestEditRecursion (find rows).
var findEditRule = &editRule{
	names: []string{"find"},
	judge: judgeFindEdit,
}

// findValued are find's primaries that take one value.
var findValued = []string{"-name", "-iname", "-path", "-ipath", "-wholename", "-iwholename", "-regex", "-iregex",
	"-type", "-xtype", "-user", "-group", "-uid", "-gid", "-perm", "-size", "-mtime", "-atime", "-ctime", "-mmin",
	"-amin", "-cmin", "-newer", "-anewer", "-cnewer", "-maxdepth", "-mindepth", "-links", "-inum", "-samefile",
	"-used", "-fstype", "-context", "-lname", "-ilname", "-printf", "-fprint", "-fprint0", "-fls", "-regextype",
	"-files0-from"}

// findNoTest are the primaries that select nothing: an expression of only these finds the
// starting point itself too.
var findNoTest = []string{"-delete", "-depth", "-print", "-print0", "-printf", "-fprint", "-fprint0", "-fprintf",
	"-fls", "-ls", "-xdev", "-mount", "-follow", "-ignore_readdir_race", "-noignore_readdir_race", "-noleaf",
	"-daystart", "-maxdepth", "-regextype", "-warn", "-nowarn", "-true", "-exec", "-execdir", "-ok", "-okdir",
	"-prune", "-quit"}

func judgeFindEdit(j *editJudge, c *editCall) *Refusal {
	args := c.args
	i := 0
	for i < len(args) && (args[i].s == "-H" || args[i].s == "-L" || args[i].s == "-P" || strings.HasPrefix(args[i].s, "-O") || args[i].s == "-D") {
		if args[i].s == "-D" {
			i++
		}
		i++
	}
	var starts []editWord
	for i < len(args) {
		v := args[i].s
		if strings.HasPrefix(v, "-") || v == "(" || v == "!" || v == ")" || v == "," {
			break
		}
		starts = append(starts, args[i])
		i++
	}
	if len(starts) == 0 {
		starts = []editWord{lit(".")}
	}
	expr := args[i:]
	// Which tests does the expression have, and which name patterns?
	hasTest, negated := false, false
	var names, paths []string
	for k := 0; k < len(expr); k++ {
		v := expr[k].s
		if v == "!" {
			negated = true
		}
		if !strings.HasPrefix(v, "-") {
			continue
		}
		if v == "-o" || v == "-or" || v == "-not" {
			negated = true // the name tests no longer all have to hold
		}
		if v == "-mindepth" {
			hasTest = hasTest || (k+1 < len(expr) && expr[k+1].s != "0")
		} else if !containsString(findNoTest, v) && v != "-o" && v != "-or" && v != "-a" && v != "-and" && v != "-not" {
			hasTest = true
		}
		if (v == "-name" || v == "-iname") && k+1 < len(expr) {
			names = append(names, expr[k+1].s)
		}
		if (v == "-path" || v == "-ipath" || v == "-wholename") && k+1 < len(expr) {
			paths = append(paths, expr[k+1].s)
		}
		if containsString(findValued, v) {
			k++
		}
		if v == "-fprintf" {
			k++
		}
		if v == "-exec" || v == "-execdir" || v == "-ok" || v == "-okdir" {
			for k+1 < len(expr) && expr[k+1].s != ";" && !(expr[k+1].s == "+" && expr[k].s == "{}") {
				k++
			}
			k++
		}
	}
	// Where can the found paths be?
	if negated {
		names, paths = nil, nil
	}
	inside, mayProtect := true, false
	for _, s := range starts {
		switch k := j.reach(s, c.st); {
		case k == reachInside || (k == reachProject && hasTest):
		default:
			inside = false
		}
		if ps, ok := j.resolve(s, c.st); ok {
			for _, p := range ps {
				if j.findMayReachProtected(p, s.s, names, paths) {
					mayProtect = true
				}
			}
		}
	}
	found := unknownWord
	if inside {
		found = editWord{s: editUnknown, glob: -1, inside: true, mayProtect: mayProtect}
	}
	for k := 0; k < len(expr); k++ {
		v := expr[k].s
		switch v {
		case "-delete":
			if !inside {
				return editRefuse(c.prog, editHintRm, "`find -delete` from `%s`: a starting point is outside the project, is the project with no test, or cannot be resolved", starts[0].show())
			}
			if mayProtect {
				return editRefuse(c.prog, editHintProtected, "`find -delete` may delete a protected file: a starting point holds one and the tests do not rule it out")
			}
		case "-fprint", "-fprint0", "-fprintf", "-fls":
			if k+1 < len(expr) {
				if r := j.write(c.prog, "`find "+v+"`", expr[k+1], c.st, false); r != nil {
					return r
				}
			}
		case "-exec", "-execdir", "-ok", "-okdir":
			var cmd []editWord
			k++
			for k < len(expr) && expr[k].s != ";" && !(expr[k].s == "+" && expr[k-1].s == "{}") {
				w := expr[k]
				if strings.Contains(w.s, "{}") {
					w = found
				}
				cmd = append(cmd, w)
				k++
			}
			if r := j.argv(cmd, c.st.clone()); r != nil {
				return r
			}
		default:
			if containsString(findValued, v) {
				k++
			}
		}
	}
	return nil
}

// findMayReachProtected reports whether find from start may name a protected path or a
// directory holding one, given its -name and -path patterns (no patterns: it may).
func (j *editJudge) findMayReachProtected(start, written string, names, paths []string) bool {
	for _, q := range j.ctx.Protected {
		if q == "" {
			continue
		}
		q = path.Clean(q)
		if !within(q, start) {
			continue
		}
		for p := q; within(p, start); p = path.Dir(p) {
			ok := true
			for _, n := range names {
				if m, err := path.Match(n, path.Base(p)); !m && err == nil {
					ok = false
				}
			}
			for _, n := range paths { // find matches -path against the path as it prints it
				shown := strings.TrimSuffix(written, "/") + strings.TrimPrefix(p, start)
				if m, err := path.Match(n, shown); !m && err == nil {
					ok = false
				}
			}
			if ok {
				return true
			}
			if p == start || p == "/" {
				break
			}
		}
	}
	return false
}

// parallelRule: GNU parallel runs a command line for each input.
//
// Why: `parallel rm -rf ::: ~ /` runs the delete for each argument.
// What: best effort: the words before ::: (after parallel's options) are joined into a command
// line with each replacement string ({}, {.}, {/}, {//}, {/.}, {#}, {%}, {1}, …) unknown, or an
// unknown operand appended when there is none, and judged as a shell command.
// Test: TestEditRecursion.
var parallelRule = &editRule{
	names: []string{"parallel"},
	judge: func(j *editJudge, c *editCall) *Refusal {
		p := (&editOpts{valued: "jPnNaIdSElCX", posix: true, long: []string{"--jobs", "--max-args", "--arg-file", "--delimiter",
			"--sshlogin", "--joblog", "--results", "--colsep", "--tmpdir", "--workdir", "--timeout", "--delay", "--retries",
			"--halt", "--memfree", "--load", "--tagstring", "--basefile", "--return"}}).parse(c.args)
		inner := c.args[len(c.args)-len(p.operands):]
		if len(p.operands) == 0 {
			return nil // commands read from the input: cannot be judged, best effort
		}
		var parts []string
		replaced := false
		for _, a := range inner {
			if strings.HasPrefix(a.s, ":::") || a.s == "::::" {
				break
			}
			s := a.s
			if strings.Contains(s, "{") && strings.Contains(s, "}") {
				replaced = true
				s = replaceParallel(s)
			}
			parts = append(parts, strings.ReplaceAll(s, editUnknown, "$__hookctl_arg"))
		}
		if !replaced {
			parts = append(parts, "$__hookctl_arg")
		}
		return j.script(strings.Join(parts, " "), c.st.child(), syntax.LangBash)
	},
}

func replaceParallel(s string) string {
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		if s[i] == '{' {
			if k := strings.IndexByte(s[i:], '}'); k >= 0 && strings.Trim(s[i+1:i+k], "./#%0123456789") == "" {
				b.WriteString("$__hookctl_arg")
				i += k
				continue
			}
		}
		b.WriteByte(s[i])
	}
	return b.String()
}

// watchRule: watch runs its arguments as a shell command line, again and again.
//
// Why: `watch -n1 'rm -rf /tmp/x'` is a delete on a timer.
// What: watch's options are skipped; with -x or --exec the rest is judged as a command, otherwise
// it is joined with spaces and judged as a shell command line.
// Test: TestEditRecursion.
var watchRule = &editRule{
	names: []string{"watch"},
	judge: func(j *editJudge, c *editCall) *Refusal {
		p := (&editOpts{valued: "nq", optional: "d", posix: true, long: []string{"--interval", "--equexit"}}).parse(c.args)
		inner := c.args[len(c.args)-len(p.operands):]
		if len(p.operands) == 0 {
			return nil
		}
		if p.has("-x", "--exec") {
			return j.argv(inner, c.st.clone())
		}
		parts := make([]string, 0, len(inner))
		for _, a := range inner {
			parts = append(parts, strings.ReplaceAll(a.s, editUnknown, "$__hookctl_arg"))
		}
		return j.script(strings.Join(parts, " "), c.st.child(), syntax.LangBash)
	},
}

// ---------------------------------------------------------------------------------------------
// Downloads run as code.

// downloadExecRule: a download run as code, unread.
//
// Why: `curl … | sh` runs whatever the server sends, today; the agent never sees it.
// What: a pipeline in which a stage runs curl, wget, fetch, http, https, xh or aria2c (anywhere
// in it, wrappers peeled) and a later stage is a shell or interpreter reading its program from
// standard input (sh, bash, zsh, dash, ksh, mksh, ash, fish, python*, pypy*, perl, ruby, node,
// php with no script operand, or with -, /dev/stdin or a shell's -s; python -c and -m read their
// program from the argument), or whose program name is not a literal, is refused. So is a shell,
// interpreter, source, . or eval whose arguments or input redirections contain $(…) or <(…)
// running a downloader: `bash <(curl …)`, `sh -c "$(curl …)"`, `source <(wget -O- …)`.
// Test: TestEditDownloadExec.
var downloaders = []string{"curl", "wget", "fetch", "http", "https", "xh", "aria2c"}

// editInterp describes how an interpreter finds its program.
type editInterp struct {
	prefix string // name, or name prefix followed only by digits and dots (python3.12)
	code   string // short options whose argument is the program: stdin is data
	long   []string
	valued string // short options taking the next word
	stdin  string // short options that make it read the program from stdin
}

var editInterps = []editInterp{
	{prefix: "sh", code: "c", valued: "oO", stdin: "s"},
	{prefix: "bash", code: "c", valued: "oO", stdin: "s"},
	{prefix: "zsh", code: "c", valued: "oO", stdin: "s"},
	{prefix: "dash", code: "c", valued: "oO", stdin: "s"},
	{prefix: "ksh", code: "c", valued: "oO", stdin: "s"},
	{prefix: "mksh", code: "c", valued: "oO", stdin: "s"},
	{prefix: "ash", code: "c", valued: "oO", stdin: "s"},
	{prefix: "fish", code: "c", long: []string{"--command"}},
	{prefix: "python", code: "cm", valued: "WX"},
	{prefix: "pypy", code: "cm", valued: "WX"},
	{prefix: "perl", code: "eE"},
	{prefix: "ruby", code: "e", valued: "IrCE"},
	{prefix: "node", code: "ep", long: []string{"--eval", "--print"}, valued: "r"},
	{prefix: "nodejs", code: "ep", long: []string{"--eval", "--print"}, valued: "r"},
	{prefix: "php", code: "rR", valued: "dcz"},
}

func lookupInterp(name string) *editInterp {
	for i := range editInterps {
		in := &editInterps[i]
		if rest, ok := strings.CutPrefix(name, in.prefix); ok && strings.Trim(rest, "0123456789.") == "" {
			return in
		}
	}
	return nil
}

// readsProgram reports whether an interpreter called with args reads its program from stdin.
func (in *editInterp) readsProgram(args []editWord) bool {
	stdin := false
	for i := 0; i < len(args); i++ {
		v := args[i].s
		switch {
		case v == "-" || v == "/dev/stdin" || v == "/dev/fd/0":
			return true
		case v == "--":
			if i+1 < len(args) {
				v := args[i+1].s
				return stdin || v == "-" || v == "/dev/stdin"
			}
			return true
		case strings.HasPrefix(v, "--"):
			name, _, _ := strings.Cut(v, "=")
			if containsString(in.long, name) {
				return false
			}
		case len(v) > 1 && (v[0] == '-' || (v[0] == '+' && in.stdin != "")):
			for k := 1; k < len(v); k++ {
				switch {
				case strings.IndexByte(in.code, v[k]) >= 0:
					return false
				case strings.IndexByte(in.stdin, v[k]) >= 0:
					stdin = true
				case strings.IndexByte(in.valued, v[k]) >= 0:
					if k == len(v)-1 {
						i++
					}
					k = len(v)
				}
			}
		default:
			return stdin // a script file, or the -s arguments
		}
	}
	return true
}

// peelAll returns the command at the heart of wrappers, as far as they can be peeled.
func peelAll(argv []editWord) []editWord {
	for n := 0; n < maxEditDepth && len(argv) > 0; n++ {
		name, ok := argv[0].base()
		if !ok {
			return argv
		}
		w := lookupWrapper(name)
		if w == nil {
			return argv
		}
		_, inner, ok := w.peel(argv[1:])
		if !ok {
			return nil
		}
		argv = inner
	}
	return argv
}

// pipedDownload refuses a pipeline that feeds a download to an interpreter.
func (j *editJudge) pipedDownload(stages []*syntax.Stmt, st *editState) *Refusal {
	dl := ""
	for _, s := range stages {
		if dl != "" {
			if name, ok := j.stdinInterpreter(s, st); ok {
				return editRefuse("", "download the script to a file in the project, read it, and run it; or ask the user",
					"pipes a download (`%s`) into `%s`, which runs it unread", dl, clip(name))
			}
		}
		if dl == "" {
			dl = runsDownloader(s)
		}
	}
	return nil
}

// stdinInterpreter reports whether a pipeline stage runs an interpreter that reads its program
// from its input, or a program whose name is not a literal.
func (j *editJudge) stdinInterpreter(s *syntax.Stmt, st *editState) (string, bool) {
	switch c := s.Cmd.(type) {
	case *syntax.CallExpr:
		var argv []editWord
		for _, w := range c.Args {
			argv = append(argv, j.expand(w, st.clone())...)
			if len(argv) > maxEditFields {
				return "", false
			}
		}
		argv = peelAll(argv)
		if len(argv) == 0 {
			return "", false
		}
		name, ok := argv[0].base()
		if !ok {
			return argv[0].show(), true
		}
		if containsString([]string{"xargs", "parallel"}, name) {
			return "", false
		}
		if in := lookupInterp(name); in != nil && in.readsProgram(argv[1:]) {
			return name, true
		}
		if name == "source" || name == "." || name == "eval" {
			return name, true
		}
	case *syntax.Block:
		for _, x := range c.Stmts {
			if n, ok := j.stdinInterpreter(x, st); ok {
				return n, true
			}
		}
	case *syntax.Subshell:
		for _, x := range c.Stmts {
			if n, ok := j.stdinInterpreter(x, st); ok {
				return n, true
			}
		}
	}
	return "", false
}

// runsDownloader returns the downloader a node runs anywhere inside it, or "".
func runsDownloader(n syntax.Node) string {
	found := ""
	syntax.Walk(n, func(n syntax.Node) bool {
		if found != "" {
			return false
		}
		c, ok := n.(*syntax.CallExpr)
		if !ok {
			return true
		}
		// The program, past wrappers and their options: the first word that is not an
		// assignment, an option, a number or a wrapper.
		for _, w := range c.Args {
			v, ok := litValue(w)
			if !ok {
				break
			}
			b := path.Base(v)
			if containsString(downloaders, b) {
				found = b
				return false
			}
			if lookupWrapper(b) != nil || strings.HasPrefix(v, "-") || strings.Contains(v, "=") || (v != "" && v[0] >= '0' && v[0] <= '9') {
				continue
			}
			break
		}
		return true
	})
	return found
}

// substDownload refuses a shell, interpreter, source, . or eval whose words or input carry a
// substitution that downloads.
func (j *editJudge) substDownload(s *syntax.Stmt, c *syntax.CallExpr, argv []editWord, st *editState) *Refusal {
	inner := peelAll(argv)
	if len(inner) == 0 {
		return nil
	}
	name, ok := inner[0].base()
	if !ok || (lookupInterp(name) == nil && name != "source" && name != "." && name != "eval") {
		return nil
	}
	check := func(n syntax.Node) *Refusal {
		if n == nil {
			return nil
		}
		var dl string
		syntax.Walk(n, func(n syntax.Node) bool {
			switch n := n.(type) {
			case *syntax.CmdSubst:
				if d := runsDownloader(n); d != "" {
					dl = d
				}
				return false
			case *syntax.ProcSubst:
				if d := runsDownloader(n); d != "" {
					dl = d
				}
				return false
			}
			return dl == ""
		})
		if dl != "" {
			return editRefuse(name, "download the script to a file in the project, read it, and run it; or ask the user",
				"`%s` runs a download (`%s`) unread", name, dl)
		}
		return nil
	}
	for _, w := range c.Args {
		if r := check(w); r != nil {
			return r
		}
	}
	for _, rd := range s.Redirs {
		if rd.Op == syntax.RdrIn || rd.Op == syntax.WordHdoc || rd.Op == syntax.Hdoc || rd.Op == syntax.DashHdoc ||
			rd.Op == syntax.DplIn || rd.Op == syntax.RdrInOut {
			if r := check(rd.Word); r != nil {
				return r
			}
			if rd.Hdoc != nil {
				if r := check(rd.Hdoc); r != nil {
					return r
				}
			}
		}
	}
	return nil
}
