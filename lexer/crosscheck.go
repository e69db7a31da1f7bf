package lexer

import (
	"errors"
	"fmt"
	"strings"

	"github.com/hookctl/hookctl/internal/clip"

	"mvdan.cc/sh/v3/syntax"
)

// ErrDisagree is wrapped by every failure of the cross-check (CommandLine.Shape).
var ErrDisagree = errors.New("the two parsers disagree")

// The second parser reads the command as bash, which Claude Code runs on Linux, and as zsh, the
// default login shell on macOS.

// crossCheck compares sc with bash's tree, then with a zsh parse of src made by parse.
func crossCheck(src string, sc *Script, bash *syntax.File, parse func(syntax.LangVariant) (*syntax.File, error)) error {
	want := Shape(sc)
	if err := sameShape(want, bash, syntax.LangBash); err != nil {
		return err
	}
	zsh, err := parse(syntax.LangZsh)
	if err != nil {
		return fmt.Errorf("%w: zsh does not parse it: %v", ErrDisagree, err)
	}
	return sameShape(want, zsh, syntax.LangZsh)
}

func sameShape(want string, f *syntax.File, lang syntax.LangVariant) error {
	got, err := mvdanShape(f, len(want))
	if err != nil {
		return fmt.Errorf("%w: %s reads %v", ErrDisagree, lang, err)
	}
	if got != want {
		return fmt.Errorf("%w: %s reads it as %s, hookctl as %s", ErrDisagree, lang, clip.Short(got), clip.Short(want))
	}
	return nil
}

// Shape renders a parsed script's structure and words in the notation mvdanShape uses.
func Shape(sc *Script) string {
	var b strings.Builder
	b.Grow(256)
	if sc.Cd != nil {
		b.WriteString("cd ")
		shapeWord(&b, *sc.Cd)
		b.WriteString(" && ")
	}
	for i, it := range sc.Items {
		if i > 0 {
			printOp(&b, it.Op)
		}
		switch {
		case it.Pipeline != nil:
			shapePipeline(&b, it.Pipeline)
		case it.If != nil:
			b.WriteString("if(")
			shapePipeline(&b, it.If.Cond)
			b.WriteString(")then(")
			shapeBody(&b, it.If.Then)
			b.WriteString(")")
			if it.If.Else != nil {
				b.WriteString("else(")
				shapeBody(&b, it.If.Else)
				b.WriteString(")")
			}
		case it.For != nil:
			b.WriteString("for " + it.For.Var + " in(")
			for i, w := range it.For.Items {
				if i > 0 {
					b.WriteByte(' ')
				}
				shapeWord(&b, w)
			}
			b.WriteString(")do(")
			shapeBody(&b, it.For.Body)
			b.WriteString(")")
		}
	}
	return b.String()
}

func shapeBody(b *strings.Builder, body []*Pipeline) {
	for i, pl := range body {
		if i > 0 {
			printOp(b, pl.Op)
		}
		shapePipeline(b, pl)
	}
}

func shapePipeline(b *strings.Builder, pl *Pipeline) {
	for i, c := range pl.Cmds {
		if i > 0 {
			b.WriteString(" | ")
		}
		b.WriteString("[")
		shapeWord(b, c.Name)
		for _, a := range c.Args {
			b.WriteByte(' ')
			shapeWord(b, a)
		}
		for _, r := range c.Redirs {
			b.WriteByte(' ')
			b.WriteString(r.Kind.String())
			if r.Kind == TokIn {
				shapeText(b, r.File.Value)
			}
		}
		b.WriteString("]")
	}
}

// shapeWord writes a word as the shape notation has it: the loop variable as $NAME, a glob as
// g"PATTERN" (with the ./ the lexer puts before a leading glob character, as mvdanShapeWord
// does), any other word as its value in double quotes.
func shapeWord(b *strings.Builder, w Word) {
	switch {
	case w.Split:
		b.WriteString("u$")
		b.WriteString(w.Var)
	case w.Parts != nil:
		shapeParts(b, w.Parts)
	case w.Var != "":
		b.WriteByte('$')
		b.WriteString(w.Var)
	case w.Glob != "":
		b.WriteByte('g')
		shapeText(b, w.Glob)
	default:
		shapeText(b, w.Value)
	}
}

// shapeParts writes a word of text and variables as t(…): each text in double quotes, each
// variable as $NAME.
func shapeParts(b *strings.Builder, parts []Part) {
	b.WriteString("t(")
	for i, p := range parts {
		if i > 0 {
			b.WriteByte(' ')
		}
		if p.Var != "" {
			b.WriteByte('$')
			b.WriteString(p.Var)
			continue
		}
		shapeText(b, p.Text)
	}
	b.WriteByte(')')
}

// shapeText writes text in double quotes, escaping " and \ so that words cannot run together.
// Values are printable ASCII (the lexer's alphabet), so nothing else needs escaping.
func shapeText(b *strings.Builder, value string) {
	b.WriteByte('"')
	for i := 0; i < len(value); i++ {
		if c := value[i]; c == '"' || c == '\\' {
			b.WriteByte('\\')
		}
		b.WriteByte(value[i])
	}
	b.WriteByte('"')
}

// mvdanShape renders mvdan's syntax tree in the same notation, or says what it holds that the
// shapes do not. The list is flattened in source order: every item is judged, whichever the
// shell runs.
func mvdanShape(f *syntax.File, size int) (string, error) {
	if len(f.Stmts) == 0 {
		return "", errors.New("no command")
	}
	var items []listItem
	for i, st := range f.Stmts {
		op := TokSemi
		if i == 0 {
			op = 0
		}
		if err := flattenList(st, op, &items, 0); err != nil {
			return "", err
		}
	}
	var b strings.Builder
	b.Grow(size)
	if len(items) > 1 && items[1].op == TokAndAnd && isCd(items[0].st) {
		call := items[0].st.Cmd.(*syntax.CallExpr)
		b.WriteString("cd ")
		if err := mvdanShapeWord(&b, call.Args[1]); err != nil {
			return "", err
		}
		b.WriteString(" && ")
		items = items[1:]
		items[0].op = 0
	}
	for i, it := range items {
		if i > 0 {
			printOp(&b, it.op)
		}
		if err := mvdanItem(&b, it.st); err != nil {
			return "", err
		}
	}
	return b.String(), nil
}

type listItem struct {
	op TokenKind
	st *syntax.Stmt
}

// flattenList lists the items of an && / || chain in source order, each with the operator
// before it. depth bounds the recursion, as in flattenPipe.
func flattenList(st *syntax.Stmt, op TokenKind, out *[]listItem, depth int) error {
	if depth > MaxLen {
		return errors.New("a list too deep")
	}
	bin, ok := st.Cmd.(*syntax.BinaryCmd)
	if !ok || bin.Op != syntax.AndStmt && bin.Op != syntax.OrStmt {
		*out = append(*out, listItem{op, st})
		return nil
	}
	if err := plainStmt(st); err != nil {
		return err
	}
	if len(st.Redirs) != 0 {
		return errors.New("a redirection on a list")
	}
	if err := flattenList(bin.X, op, out, depth+1); err != nil {
		return err
	}
	next := TokAndAnd
	if bin.Op == syntax.OrStmt {
		next = TokOrOr
	}
	return flattenList(bin.Y, next, out, depth+1)
}

// isCd reports whether st is exactly `cd WORD`.
func isCd(st *syntax.Stmt) bool {
	call, ok := st.Cmd.(*syntax.CallExpr)
	if !ok || len(call.Args) != 2 || len(call.Assigns) != 0 || len(st.Redirs) != 0 || plainStmt(st) != nil {
		return false
	}
	name, ok := Literal(call.Args[0])
	return ok && name == "cd"
}

// mvdanItem renders one list item: an if, a for or a pipeline.
func mvdanItem(b *strings.Builder, st *syntax.Stmt) error {
	if err := plainStmt(st); err != nil {
		return err
	}
	switch c := st.Cmd.(type) {
	case *syntax.IfClause:
		if len(st.Redirs) != 0 {
			return errors.New("a redirection on an if")
		}
		if len(c.Cond) != 1 {
			return errors.New("an if condition that is not one pipeline")
		}
		b.WriteString("if(")
		if err := mvdanPipeline(b, c.Cond[0]); err != nil {
			return err
		}
		b.WriteString(")then(")
		if err := mvdanBody(b, c.Then); err != nil {
			return err
		}
		b.WriteString(")")
		if c.Else != nil {
			if len(c.Else.Cond) != 0 || c.Else.Else != nil {
				return errors.New("an elif")
			}
			b.WriteString("else(")
			if err := mvdanBody(b, c.Else.Then); err != nil {
				return err
			}
			b.WriteString(")")
		}
	case *syntax.ForClause:
		if len(st.Redirs) != 0 {
			return errors.New("a redirection on a for loop")
		}
		it, ok := c.Loop.(*syntax.WordIter)
		if !ok || c.Select || c.Braces || !it.InPos.IsValid() {
			return errors.New("a loop that is not `for NAME in WORDS; do …; done`")
		}
		b.WriteString("for " + it.Name.Value + " in(")
		for i, w := range it.Items {
			if i > 0 {
				b.WriteByte(' ')
			}
			if _, v, err := mvdanWord(w); err == nil && v != "" {
				return errors.New("an expansion in a loop's word list")
			}
			if err := mvdanShapeWords(b, w); err != nil {
				return err
			}
		}
		b.WriteString(")do(")
		if err := mvdanBody(b, c.Do); err != nil {
			return err
		}
		b.WriteString(")")
	default:
		return mvdanPipeline(b, st)
	}
	return nil
}

// plainStmt refuses the statement modifiers the shapes never produce.
func plainStmt(st *syntax.Stmt) error {
	switch {
	case st.Negated:
		return errors.New("a negation")
	case st.Background || st.Coprocess || st.Disown:
		return errors.New("a background job")
	}
	return nil
}

func mvdanBody(b *strings.Builder, stmts []*syntax.Stmt) error {
	if len(stmts) == 0 {
		return errors.New("an empty body")
	}
	var items []listItem
	for i, st := range stmts {
		op := TokSemi
		if i == 0 {
			op = 0
		}
		if err := flattenList(st, op, &items, 0); err != nil {
			return err
		}
	}
	for i, it := range items {
		if i > 0 {
			printOp(b, it.op)
		}
		if err := mvdanPipeline(b, it.st); err != nil {
			return err
		}
	}
	return nil
}

func mvdanPipeline(b *strings.Builder, st *syntax.Stmt) error {
	var cmds []*syntax.Stmt
	if err := flattenPipe(st, &cmds, 0); err != nil {
		return err
	}
	for i, c := range cmds {
		if i > 0 {
			b.WriteString(" | ")
		}
		if err := mvdanCall(b, c); err != nil {
			return err
		}
	}
	return nil
}

// flattenPipe lists the commands of a | pipeline in order. depth bounds the recursion; the lexer
// has already capped the input, so the bound is never the reason for a refusal in practice.
func flattenPipe(st *syntax.Stmt, out *[]*syntax.Stmt, depth int) error {
	if depth > MaxLen {
		return errors.New("a pipeline too deep")
	}
	if err := plainStmt(st); err != nil {
		return err
	}
	bin, ok := st.Cmd.(*syntax.BinaryCmd)
	if !ok {
		*out = append(*out, st)
		return nil
	}
	if bin.Op != syntax.Pipe {
		return fmt.Errorf("the operator %s", bin.Op)
	}
	if len(st.Redirs) != 0 {
		return errors.New("a redirection on a pipeline")
	}
	if err := flattenPipe(bin.X, out, depth+1); err != nil {
		return err
	}
	return flattenPipe(bin.Y, out, depth+1)
}

func mvdanCall(b *strings.Builder, st *syntax.Stmt) error {
	call, ok := st.Cmd.(*syntax.CallExpr)
	if !ok {
		return fmt.Errorf("a compound command (%T) inside a pipeline or body", st.Cmd)
	}
	if len(call.Assigns) != 0 {
		return errors.New("a variable assignment")
	}
	if len(call.Args) == 0 {
		return errors.New("a command without a name")
	}
	b.WriteString("[")
	for i, w := range call.Args {
		if i > 0 {
			b.WriteByte(' ')
		}
		if err := mvdanShapeWords(b, w); err != nil {
			return err
		}
	}
	for _, r := range st.Redirs {
		if err := mvdanRedirect(b, r); err != nil {
			return err
		}
	}
	b.WriteString("]")
	return nil
}

var errRedirect = errors.New("a redirection other than 2>&1, 2>/dev/null, >/dev/null, &>/dev/null or < FILE")

// mvdanRedirect writes one redirection in the shape notation, or refuses it.
func mvdanRedirect(b *strings.Builder, r *syntax.Redirect) error {
	if r.Hdoc != nil || r.Word == nil {
		return errRedirect
	}
	target, ok := Literal(r.Word)
	if !ok {
		return errRedirect
	}
	n := ""
	if r.N != nil {
		n = r.N.Value
	}
	var kind TokenKind
	switch {
	case r.Op == syntax.DplOut && n == "2" && target == "1":
		kind = TokErrToOut
	case r.Op == syntax.RdrOut && n == "2" && target == "/dev/null":
		kind = TokErrToNull
	case r.Op == syntax.RdrOut && (n == "" || n == "1") && target == "/dev/null":
		kind = TokOutToNull
	case r.Op == syntax.RdrAll && n == "" && target == "/dev/null":
		kind = TokAllToNull
	case r.Op == syntax.RdrIn && n == "":
		b.WriteString(" <")
		shapeText(b, target)
		return nil
	default:
		return errRedirect
	}
	b.WriteString(" " + kind.String())
	return nil
}

// mvdanShapeWords writes a word, or the words its brace group expands to, space-separated.
func mvdanShapeWords(b *strings.Builder, w *syntax.Word) error {
	if !hasBraceExpansion(w) {
		return mvdanShapeWord(b, w)
	}
	words, err := expandBraces(w)
	if err != nil {
		return err
	}
	for i, x := range words {
		if i > 0 {
			b.WriteByte(' ')
		}
		if err := mvdanShapeWord(b, x); err != nil {
			return err
		}
	}
	return nil
}

// expandBraces expands a word's one brace group of alternatives, as both shells do: each
// alternative between the parts before and after it. A range ({1..3}), a nested group or a
// second group is refused (the hand lexer accepts none).
func expandBraces(w *syntax.Word) ([]*syntax.Word, error) {
	split := &syntax.Word{Parts: append([]syntax.WordPart(nil), w.Parts...)}
	syntax.SplitBraces(split)
	at := -1
	for i, p := range split.Parts {
		if _, ok := p.(*syntax.BraceExp); ok {
			if at >= 0 {
				return nil, errors.New("two brace groups in a word")
			}
			at = i
		}
	}
	if at < 0 {
		return nil, errors.New("a brace group mvdan does not split")
	}
	be := split.Parts[at].(*syntax.BraceExp)
	if be.Sequence {
		return nil, errors.New("a brace range")
	}
	out := make([]*syntax.Word, 0, len(be.Elems))
	for _, e := range be.Elems {
		for _, p := range e.Parts {
			if _, ok := p.(*syntax.BraceExp); ok {
				return nil, errors.New("a nested brace group")
			}
		}
		parts := append(append(append([]syntax.WordPart(nil), split.Parts[:at]...), e.Parts...), split.Parts[at+1:]...)
		out = append(out, &syntax.Word{Parts: parts})
	}
	return out, nil
}

// mvdanShapeWord writes a word in the shape notation (shapeWord): the loop variable, a glob as
// its pattern, or a literal value.
func mvdanShapeWord(b *strings.Builder, w *syntax.Word) error {
	if len(w.Parts) == 1 {
		if pe, ok := w.Parts[0].(*syntax.ParamExp); ok && plainParam(pe) && !isHome(pe) {
			b.WriteString("u$") // unquoted: the shell splits and globs it
			b.WriteString(pe.Param.Value)
			return nil
		}
	}
	if s, v, err := mvdanWord(w); err == nil {
		if v != "" {
			b.WriteByte('$')
			b.WriteString(v)
			return nil
		}
		shapeText(b, s)
		return nil
	}
	if parts, ok := mvdanParts(w); ok {
		shapeParts(b, parts)
		return nil
	}
	pat, ok := GlobPattern(w)
	if !ok {
		return errors.New("a word that is not literal text")
	}
	if pat[0] == '*' || pat[0] == '?' {
		pat = "./" + pat // as the lexer writes it (Word.DotSlash)
	}
	b.WriteByte('g')
	shapeText(b, pat)
	return nil
}

// mvdanParts reads a word that joins literal text and plain variables inside double quotes as
// the hand lexer's Word.Parts, and reports false for any other word (one with no variable, a
// variable alone in quotes, a variable outside quotes, any other expansion).
func mvdanParts(w *syntax.Word) ([]Part, bool) {
	var parts []Part
	var text strings.Builder
	vars := 0
	for i, part := range w.Parts {
		dq, ok := part.(*syntax.DblQuoted)
		if !ok {
			v, glob, ok := textPart(part, i == 0)
			if !ok || glob {
				return nil, false
			}
			text.WriteString(v)
			continue
		}
		if dq.Dollar {
			return nil, false
		}
		for _, q := range dq.Parts {
			switch q := q.(type) {
			case *syntax.Lit:
				text.WriteString(UnescapeDouble(q.Value))
			case *syntax.ParamExp:
				if !plainParam(q) {
					return nil, false
				}
				parts = append(parts, Part{Text: text.String()}, Part{Var: q.Param.Value})
				text.Reset()
				vars++
			default:
				return nil, false
			}
		}
	}
	if vars == 0 || hasBraceExpansion(w) {
		return nil, false
	}
	parts = compactParts(append(parts, Part{Text: text.String()}))
	if len(parts) == 1 {
		return nil, false // "$NAME" alone: mvdanWord's loop variable
	}
	return parts, true
}

// mvdanWord returns a word's value as Literal reads it, or the loop variable's name when the
// word is exactly "$NAME". A bare ~/… word (a for loop's list may hold one) is read as written:
// the hand lexer keeps it so, and both print it unquoted for the shell to expand.
func mvdanWord(w *syntax.Word) (value, loopVar string, err error) {
	if len(w.Parts) == 1 {
		switch p := w.Parts[0].(type) {
		case *syntax.DblQuoted:
			if pe, ok := soleParam(p); ok {
				if !plainParam(pe) {
					return "", "", errors.New("a parameter expansion with operators")
				}
				return "", pe.Param.Value, nil
			}
		case *syntax.Lit:
			if rest, ok := strings.CutPrefix(p.Value, "~/"); ok && plainBare(rest) || p.Value == "~" {
				return p.Value, "", nil
			}
		}
	}
	if v, ok := homeWord(w); ok {
		return v, "", nil
	}
	if len(w.Parts) == 0 {
		return "", "", nil
	}
	if l, ok := w.Parts[0].(*syntax.Lit); ok && strings.HasPrefix(l.Value, "~/") {
		// ~/ then more text, some of it quoted: the printer's ~/'a b'.
		rest := &syntax.Word{Parts: append([]syntax.WordPart{&syntax.Lit{Value: l.Value[1:]}}, w.Parts[1:]...)}
		if v, ok := Literal(rest); ok {
			return "~" + v, "", nil
		}
	}
	v, ok := Literal(w)
	if !ok {
		return "", "", errors.New("a word that is not literal text")
	}
	return v, "", nil
}

// homeWord reads a word that starts with $HOME, unquoted or as the start of a double-quoted
// part, followed by nothing or by / and literal text, as the hand lexer does: ~ and the rest.
func homeWord(w *syntax.Word) (string, bool) {
	if len(w.Parts) == 0 {
		return "", false
	}
	rest := &syntax.Word{Parts: w.Parts[1:]}
	switch p := w.Parts[0].(type) {
	case *syntax.ParamExp:
		if !isHome(p) {
			return "", false
		}
	case *syntax.DblQuoted:
		if p.Dollar || len(p.Parts) == 0 {
			return "", false
		}
		pe, ok := p.Parts[0].(*syntax.ParamExp)
		if !ok || !isHome(pe) {
			return "", false
		}
		inner := &syntax.DblQuoted{Parts: p.Parts[1:]}
		rest.Parts = append([]syntax.WordPart{inner}, w.Parts[1:]...)
	default:
		return "", false
	}
	v, ok := Literal(rest)
	if !ok || v != "" && v[0] != '/' {
		return "", false
	}
	return "~" + v, true
}

// isHome reports whether pe is exactly $HOME, without braces or operators.
func isHome(pe *syntax.ParamExp) bool { return pe.Short && plainParam(pe) && pe.Param.Value == "HOME" }

func soleParam(dq *syntax.DblQuoted) (*syntax.ParamExp, bool) {
	if dq.Dollar || len(dq.Parts) != 1 {
		return nil, false
	}
	pe, ok := dq.Parts[0].(*syntax.ParamExp)
	return pe, ok
}

// plainParam reports whether pe is exactly $NAME or ${NAME}: no operators, flags or subscripts.
func plainParam(pe *syntax.ParamExp) bool {
	return pe.Param != nil && pe.Flags == nil && !pe.Excl && !pe.Length && !pe.Width &&
		!pe.IsSet && pe.Split == syntax.OptUnset && pe.GlobSubst == syntax.OptUnset &&
		pe.RcExpand == syntax.OptUnset && pe.NestedParam == nil && pe.Index == nil &&
		len(pe.Modifiers) == 0 && pe.Slice == nil && pe.Repl == nil && pe.Names == 0 && pe.Exp == nil
}
