package editguard

// The edit guard (see doc.go): walking the syntax tree.

import (
	"path"
	"strings"

	"github.com/hookctl/hookctl/internal/clip"
	"github.com/hookctl/hookctl/lexer"
	"github.com/hookctl/hookctl/programs"

	"mvdan.cc/sh/v3/syntax"
)

// stmts judges a list run in order. A statement may fail, so a cd in it may or may not have
// happened: the directories after it are those before it and those after it.
func (j *judge) stmts(list []*syntax.Stmt, st *state) *programs.Refusal {
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
func (j *judge) stmt(s *syntax.Stmt, st *state) *programs.Refusal {
	if r := j.enter(); r != nil {
		return r
	}
	defer j.leave()
	// A download run as code is named as such before the substitutions and redirections are
	// judged (where the network rule would refuse the download inside without saying so).
	if c, ok := s.Cmd.(*syntax.CallExpr); ok {
		if r := j.substDownload(s, c); r != nil {
			return r
		}
	}
	// Redirections are opened before the command runs, in the directory it starts in.
	for _, rd := range s.Redirs {
		if r := j.redirect(rd, st); r != nil {
			return r
		}
	}
	if s.Background || s.Coprocess || s.Disown {
		st = st.clone() // a background job runs in a subshell
	}
	if in, redirected := j.stdinText(s, st); redirected {
		saved := j.input
		j.input = in
		defer func() { j.input = saved }()
	}
	return j.command(s, st)
}

func (j *judge) command(s *syntax.Stmt, st *state) *programs.Refusal {
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
	return &programs.Refusal{What: "the command uses a shell construct the edit guard does not know", Hint: hintAsk}
}

func (j *judge) binary(c *syntax.BinaryCmd, st *state) *programs.Refusal {
	switch c.Op {
	case syntax.Pipe, syntax.PipeAll:
		stages, r := j.flattenPipe(c)
		if r != nil {
			return r
		}
		if r := j.pipedDownload(stages, st); r != nil {
			return r
		}
		saved := j.input
		defer func() { j.input = saved }()
		for i, s := range stages {
			if i > 0 { // a stage reads what the one before it writes
				j.input = j.producedText(stages[i-1], st)
			}
			if r := j.stmt(s, st.clone()); r != nil { // each stage runs in a subshell
				return r
			}
		}
		return nil
	case syntax.AndStmt, syntax.OrStmt:
		return j.andOr(c, st)
	}
	return &programs.Refusal{What: "the command uses an operator the edit guard does not know", Hint: hintAsk}
}

// andOr judges a chain of && and || (parsed left-associated: ((a && b) || c) && d) without
// recursing once per link.
func (j *judge) andOr(c *syntax.BinaryCmd, st *state) *programs.Refusal {
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
func (j *judge) flattenPipe(c *syntax.BinaryCmd) ([]*syntax.Stmt, *programs.Refusal) {
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

func (j *judge) ifClause(c *syntax.IfClause, st *state) *programs.Refusal {
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
func (j *judge) loopEffects(n syntax.Node, st *state) {
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
func (j *judge) whileClause(c *syntax.WhileClause, st *state) *programs.Refusal {
	if endless(c.Cond, c.Until) && spawns(c.Do, 0) {
		return refuse("", hintAsk, "an endless loop that starts background jobs is a fork bomb")
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
		name := path.Base(literal(c.Args[0]))
		if until {
			return name == "false" && len(c.Args) == 1
		}
		if name == "[" && len(c.Args) == 3 && literal(c.Args[2]) == "]" {
			return literal(c.Args[1]) != "" // [ word ]: true for any non-empty word
		}
		return (name == "true" || name == ":") && len(c.Args) == 1
	case *syntax.TestClause:
		w, ok := c.X.(*syntax.Word)
		return ok && !until && literal(w) != "" // [[ 1 ]]
	case *syntax.ArithmCmd:
		w, ok := c.X.(*syntax.Word)
		return ok && !until && literal(w) != "" && literal(w) != "0"
	}
	return false
}

// spawns reports whether a loop body starts a background job.
func spawns(list []*syntax.Stmt, depth int) bool {
	if depth > maxNesting {
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

func (j *judge) forClause(c *syntax.ForClause, st *state) *programs.Refusal {
	before := st.clone()
	switch l := c.Loop.(type) {
	case *syntax.CStyleLoop:
		if l.Cond == nil && spawns(c.Do, 0) {
			return refuse("", hintAsk, "an endless loop that starts background jobs is a fork bomb")
		}
		if r := j.substs(l, st); r != nil {
			return r
		}
	case *syntax.WordIter:
		var words []word
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
		if literal && len(words) <= maxLoopWords {
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

func (j *judge) caseClause(c *syntax.CaseClause, st *state) *programs.Refusal {
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
// Test: TestForkBomb.
func (j *judge) funcDecl(c *syntax.FuncDecl, st *state) *programs.Refusal {
	var names []string
	if c.Name != nil {
		names = append(names, c.Name.Value)
	}
	for _, n := range c.Names {
		names = append(names, n.Value)
	}
	for _, name := range names {
		if callsItself(name, c.Body, false, 0) {
			return refuse("", hintAsk, "defines a fork bomb: `%s` calls itself in a pipeline or in the background", clip.Short(name))
		}
	}
	if len(names) == 0 { // a zsh anonymous function runs at once
		return j.stmt(c.Body, st)
	}
	if j.funcs == nil {
		j.funcs = map[string]*function{}
	}
	f := &function{body: c.Body, dirs: append([]string(nil), st.dirs...), changesDir: changesDir(c.Body)}
	for _, name := range names {
		j.funcs[name] = f
	}
	// The body reads variables when it is called, not now: judge it knowing only HOME.
	return j.stmt(c.Body, st.child())
}

func callsItself(name string, s *syntax.Stmt, spawned bool, depth int) bool {
	if s == nil || depth > maxNesting {
		return false
	}
	spawned = spawned || s.Background || s.Disown
	switch c := s.Cmd.(type) {
	case *syntax.CallExpr:
		if !spawned || len(c.Args) == 0 {
			return false
		}
		v, ok := lexer.Literal(c.Args[0])
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
		v, ok := lexer.Literal(w)
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

func (j *judge) declClause(c *syntax.DeclClause, st *state) *programs.Refusal {
	for _, a := range c.Args {
		if r := j.substs(a, st); r != nil {
			return r
		}
	}
	if observeCall != nil {
		j.observeDecl(c, st)
	}
	// Every word is expanded before any is assigned (`A=rm; declare A=echo B=$A` gives B=rm);
	// options that change the value (-l, -u, -i, -n) and brace expansion in a value (declare's
	// operands are words) make it unknown.
	before := st.clone()
	changes := false
	for _, a := range c.Args {
		if a.Name == nil && a.Value != nil {
			if v := literal(a.Value); strings.HasPrefix(v, "-") && strings.ContainsAny(v, "luinc") {
				changes = true
			}
		}
	}
	for _, a := range c.Args {
		if a.Name == nil {
			continue
		}
		tmp := before.clone()
		j.assign(a, tmp)
		v, ok := tmp.get(a.Name.Value)
		if a.Value != nil && strings.Contains(a.Value.Lit(), "{") {
			ok = false
		}
		st.set(a.Name.Value, v, ok && !changes)
	}
	return nil
}

// substs judges every command substitution and process substitution inside n, each in a
// subshell, and forgets the variables that arithmetic or ${x:=y} assigns.
func (j *judge) substs(n syntax.Node, st *state) *programs.Refusal {
	if n == nil {
		return nil
	}
	var ref *programs.Refusal
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
			if isArithmAssign(n.Op) {
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

// isArithmAssign reports an arithmetic assignment operator: = and the compound ones. (mvdan
// numbers = after them, so they are not one range.)
func isArithmAssign(op syntax.BinAritOperator) bool {
	return op == syntax.Assgn || op >= syntax.AddAssgn && op <= syntax.PowAssgn
}

func forgetArithm(x syntax.ArithmExpr, st *state) {
	if w, ok := x.(*syntax.Word); ok {
		if name := literal(w); name != "" {
			st.set(name, "", false)
		}
	}
}

// assign records an assignment to the shell: a literal value is remembered, anything else
// makes the variable unknown. A variable assigned $(mktemp …) holds a fresh temporary path.
func (j *judge) assign(a *syntax.Assign, st *state) {
	if a.Name == nil {
		return
	}
	name := a.Name.Value
	if name == "IFS" {
		// Unquoted expansions now split where the guard does not: `IFS=:; T=rm:-rf:/; $T`.
		j.ifsChanged = true
		st.set(name, "", false)
		return
	}
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
		st.set(name, tempPath, true)
		return
	}
	w, ok := j.expandAssign(a.Value, st)
	st.set(name, w.s, ok && (!strings.Contains(w.s, unknown) || resolvedProgram(w.s)))
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
	v, ok := lexer.Literal(c.Args[0])
	return ok && v == "mktemp"
}
