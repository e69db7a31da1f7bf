package lexer

import (
	"fmt"
	"slices"

	"github.com/hookctl/hookctl/internal/clip"
	"github.com/hookctl/hookctl/internal/wordlist"
)

// Script is a command the shape parser accepted. It has exactly one of three shapes, optionally
// after one leading `cd DIR &&`:
//
//	pipeline:  cmd args (| filter args)*
//	if:        if PIPELINE; then BODY; [else BODY;] fi
//	for:       for NAME in WORDS; do BODY; done
//
// where a BODY is pipelines separated by `;` or newlines. Nothing nests.
type Script struct {
	Cd *Word // the directory of a leading `cd DIR &&`, or nil

	Pipeline *Pipeline // the pipeline shape
	If       *If       // the if shape
	For      *For      // the for shape
}

// Pipeline is one or more commands joined by |.
type Pipeline struct {
	Cmds []*SimpleCommand
}

// SimpleCommand is one simple command: a program name, its arguments and its redirections.
type SimpleCommand struct {
	Name   Word
	Args   []Word
	Redirs []TokenKind // TokErrToOut or TokErrToNull, in source order
}

// If is `if COND; then THEN; [else ELSE;] fi`.
type If struct {
	Cond *Pipeline
	Then []*Pipeline
	Else []*Pipeline // nil without an else branch
}

// For is `for VAR in ITEMS; do BODY; done`.
type For struct {
	Var   string
	Items []Word
	Body  []*Pipeline
}

// LoopNames are the names a for loop may bind. The list is fixed so that a loop can never assign
// a variable with a meaning to the shell: zsh ties `path` to PATH, `cdpath` to CDPATH and
// `fpath` to FPATH, and upper-case names include IFS, PATH and LD_PRELOAD.
var LoopNames = []string{"f", "file", "d", "dir", "i", "n", "x", "item", "name", "pkg", "rev", "ref", "branch", "commit", "tag", "p"}

// reserved are the shell's reserved words. In command position each one either starts a shape
// the parser handles or is refused by name.
const reserved = "if then else elif fi for in do done while until case esac select function time coproc " +
	"repeat foreach end nocorrect noglob"

// MaxLoopItems caps a for loop's word list, and MaxLoopWork the number of commands judged over
// all its iterations, so that judging a loop stays cheap.
const (
	MaxLoopItems = 256
	MaxLoopWork  = 512
)

// Parse lexes and parses a command into one of the accepted shapes.
func Parse(src string) (*Script, error) {
	toks, err := Lex(src)
	if err != nil {
		return nil, err
	}
	p := &parser{toks: toks}
	sc := p.script()
	if p.err != nil {
		return nil, p.err
	}
	return sc, nil
}

type parser struct {
	toks    []Token
	i       int
	err     *Error
	loopVar string // the bound loop variable while parsing a for body
}

func (p *parser) tok() Token { return p.toks[p.i] }

// advance moves to the next token; the EOF token is never passed.
func (p *parser) advance() {
	if p.toks[p.i].Kind != TokEOF {
		p.i++
	}
}

func (p *parser) fail(pos int, format string, args ...any) {
	if p.err == nil {
		p.err = &Error{Pos: pos, Msg: fmt.Sprintf(format, args...)}
	}
}

// isWord reports whether the current token is the bare word w.
func (p *parser) isWord(w string) bool {
	t := p.tok()
	return t.Kind == TokWord && t.Word.IsBare() && t.Word.Value == w
}

func (p *parser) skipNewlines() {
	for p.tok().Kind == TokNewline {
		p.advance()
	}
}

// expectWord consumes the bare reserved word w or fails.
func (p *parser) expectWord(w, where string) {
	if !p.isWord(w) {
		p.fail(p.tok().Pos, "expected `%s` %s, found %s", w, where, p.describe())
		return
	}
	p.advance()
}

func (p *parser) describe() string {
	t := p.tok()
	if t.Kind == TokWord {
		return fmt.Sprintf("`%s`", clip.Short(t.Word.Raw))
	}
	return fmt.Sprintf("`%s`", t.Kind)
}

func (p *parser) script() *Script {
	sc := &Script{}
	p.skipNewlines()
	if p.isWord("cd") {
		sc.Cd = p.cdPrefix()
	}
	switch {
	case p.err != nil:
	case p.isWord("if"):
		sc.If = p.ifShape()
	case p.isWord("for"):
		sc.For = p.forShape()
	default:
		sc.Pipeline = p.pipeline()
	}
	if p.err == nil && p.tok().Kind == TokNewline {
		nl := p.tok().Pos
		p.skipNewlines()
		if p.tok().Kind != TokEOF {
			p.fail(nl, "a list of commands is not allowed; run one command (or one if/for shape) at a time")
		}
	}
	if p.err == nil && p.tok().Kind != TokEOF {
		p.refuseAfter()
	}
	return sc
}

// refuseAfter explains why a token after a complete shape is refused.
func (p *parser) refuseAfter() {
	t := p.tok()
	switch t.Kind {
	case TokSemi, TokNewline:
		p.fail(t.Pos, "a list of commands is not allowed; run one command (or one if/for shape) at a time")
	case TokAndAnd:
		p.fail(t.Pos, "`&&` is allowed only after a single leading `cd DIR`; run one command at a time")
	case TokPipe:
		p.fail(t.Pos, "a pipe after an if or for shape is not allowed")
	default:
		p.fail(t.Pos, "unexpected %s", p.describe())
	}
}

// cdPrefix parses `cd DIR &&`.
func (p *parser) cdPrefix() *Word {
	cdPos := p.tok().Pos
	p.advance() // cd
	t := p.tok()
	if t.Kind != TokWord {
		p.fail(cdPos, "`cd` must be followed by one literal directory and `&&`")
		return nil
	}
	dir := t.Word
	switch {
	case dir.Var != "" || dir.Tilde:
		p.fail(t.Pos, "the directory after `cd` must be written out literally")
	case dir.Pattern:
		p.fail(t.Pos, "the directory after `cd` contains shell syntax")
	case dir.Value == "" || dir.Value[0] == '-':
		p.fail(t.Pos, "`cd` takes one directory, not an option")
	}
	p.advance()
	if p.tok().Kind != TokAndAnd {
		p.fail(p.tok().Pos, "`cd DIR` must be followed by `&&` and one command")
		return nil
	}
	p.advance()
	p.skipNewlines()
	if p.isWord("cd") {
		p.fail(p.tok().Pos, "only one leading `cd` is allowed")
	}
	return &dir
}

// pipeline parses cmd (| cmd)*.
func (p *parser) pipeline() *Pipeline {
	pl := &Pipeline{}
	for p.err == nil {
		pl.Cmds = append(pl.Cmds, p.command())
		if p.err != nil || p.tok().Kind != TokPipe {
			break
		}
		p.advance()
		p.skipNewlines()
	}
	return pl
}

// command parses one simple command: a bare program name, then words and redirections up to an
// operator.
func (p *parser) command() *SimpleCommand {
	t := p.tok()
	if t.Kind != TokWord {
		p.fail(t.Pos, "expected a command, found %s", p.describe())
		return nil
	}
	name := t.Word
	switch {
	case name.Var != "":
		p.fail(t.Pos, "a loop variable cannot be run as a command")
	case name.Quoted || name.Tilde || !allBare(name.Value):
		p.fail(t.Pos, "a program name must be written as a plain word (found %s)", p.describe())
	case wordlist.Has(reserved, name.Value):
		p.fail(t.Pos, "the shell keyword `%s` is not allowed here; the shapes allowed are a pipeline, `if …; then …; fi` and `for NAME in …; do …; done`, not nested", name.Value)
	case isAssignment(name.Value):
		p.fail(t.Pos, "a variable assignment before or instead of a command is not allowed")
	}
	if p.err != nil {
		return nil
	}
	cmd := &SimpleCommand{Name: name}
	p.advance()
	if n := p.wordsAhead(); n > 0 {
		cmd.Args = make([]Word, 0, n)
	}
	for p.err == nil {
		t := p.tok()
		switch t.Kind {
		case TokWord:
			if t.Word.Var != "" {
				p.checkVar(t)
			}
			if t.Word.Tilde {
				p.fail(t.Pos, "`~` (home directory expansion) is allowed only in a for loop's word list; write the path out")
			}
			cmd.Args = append(cmd.Args, t.Word)
			p.advance()
		case TokErrToOut, TokErrToNull:
			cmd.Redirs = append(cmd.Redirs, t.Kind)
			p.advance()
		default:
			return cmd
		}
	}
	return cmd
}

// wordsAhead counts the word tokens from the current one to the next operator, to size a
// command's argument slice once.
func (p *parser) wordsAhead() int {
	n := 0
	for _, t := range p.toks[p.i:] {
		if t.Kind != TokWord {
			break
		}
		n++
	}
	return n
}

func (p *parser) checkVar(t Token) {
	switch {
	case p.loopVar == "":
		p.fail(t.Pos, "`$%s` is not allowed: the only expansion allowed is a for loop's own variable", t.Word.Var)
	case t.Word.Var != p.loopVar:
		p.fail(t.Pos, "`$%s` is not allowed: the only expansion allowed is the loop variable \"$%s\"", t.Word.Var, p.loopVar)
	}
}

// isAssignment reports whether a bare command word is NAME=..., which the shell treats as a
// variable assignment rather than a program.
func isAssignment(s string) bool {
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c == '=':
			return i > 0
		case c == '+' && i > 0 && i+1 < len(s) && s[i+1] == '=':
			return true
		case i == 0 && !isNameStart(c), i > 0 && !isNameChar(c):
			return false
		}
	}
	return false
}

// terminator consumes the `;` or newline(s) that must end a pipeline inside a body, then any
// further newlines.
func (p *parser) terminator(where string) {
	switch p.tok().Kind {
	case TokSemi, TokNewline:
		p.advance()
		p.skipNewlines()
	default:
		p.fail(p.tok().Pos, "expected `;` or a newline %s, found %s", where, p.describe())
	}
}

// body parses pipelines, each ended by `;` or newlines, until one of the stop words stands in
// command position.
func (p *parser) body(stops ...string) []*Pipeline {
	var out []*Pipeline
	for p.err == nil {
		t := p.tok()
		if t.Kind == TokWord && t.Word.IsBare() && slices.Contains(stops, t.Word.Value) {
			if len(out) == 0 {
				p.fail(t.Pos, "empty body before `%s`", t.Word.Value)
			}
			return out
		}
		if t.Kind == TokEOF {
			p.fail(t.Pos, "missing `%s`", stops[len(stops)-1])
			return out
		}
		if t.Kind == TokWord && t.Word.IsBare() && (t.Word.Value == "if" || t.Word.Value == "for") {
			p.fail(t.Pos, "nested `%s` is not allowed", t.Word.Value)
			return out
		}
		if t.Kind == TokWord && t.Word.IsBare() && t.Word.Value == "cd" {
			p.fail(t.Pos, "`cd` is allowed only once, at the start: `cd DIR && …`")
			return out
		}
		out = append(out, p.pipeline())
		p.terminator("after a command in the body")
	}
	return out
}

// ifShape parses if PIPELINE; then BODY; [else BODY;] fi.
func (p *parser) ifShape() *If {
	p.advance() // if
	n := &If{Cond: p.pipeline()}
	p.terminator("after the if condition")
	p.expectWord("then", "after the if condition")
	p.skipNewlines()
	n.Then = p.body("else", "elif", "fi")
	if p.err == nil && p.isWord("elif") {
		p.fail(p.tok().Pos, "`elif` is not allowed; use a single if/else")
	}
	if p.err == nil && p.isWord("else") {
		p.advance()
		p.skipNewlines()
		n.Else = p.body("fi")
	}
	p.expectWord("fi", "to end the if")
	return n
}

// forShape parses for NAME in WORDS; do BODY; done.
func (p *parser) forShape() *For {
	forPos := p.tok().Pos
	p.advance() // for
	t := p.tok()
	if t.Kind != TokWord || !t.Word.IsBare() {
		p.fail(forPos, "expected a loop variable name after `for`")
		return nil
	}
	if !slices.Contains(LoopNames, t.Word.Value) {
		p.fail(t.Pos, "loop variable `%s` is not allowed; use one of: %s", clip.Short(t.Word.Value), joinNames())
		return nil
	}
	n := &For{Var: t.Word.Value}
	p.advance()
	p.expectWord("in", "after the loop variable")
	for p.err == nil && p.tok().Kind == TokWord {
		w := p.tok().Word
		switch {
		case w.Var != "":
			p.fail(w.Pos, "a loop's word list must be literal")
		case w.Pattern:
			p.fail(w.Pos, "a loop's words must be plain file names or values, without shell syntax")
		case w.Value == "" || w.Value[0] == '-':
			p.fail(w.Pos, "a loop's words cannot be empty or start with `-`: they are used as operands")
		}
		n.Items = append(n.Items, w)
		p.advance()
	}
	if p.err != nil {
		return nil
	}
	if len(n.Items) == 0 {
		p.fail(p.tok().Pos, "a for loop needs at least one literal word after `in`")
		return nil
	}
	if len(n.Items) > MaxLoopItems {
		p.fail(n.Items[MaxLoopItems].Pos, "a for loop may list at most %d words", MaxLoopItems)
		return nil
	}
	p.terminator("after the loop's word list")
	p.expectWord("do", "after the loop's word list")
	p.skipNewlines()
	p.loopVar = n.Var
	n.Body = p.body("done")
	p.loopVar = ""
	p.expectWord("done", "to end the loop")
	if p.err == nil {
		work := 0
		for _, pl := range n.Body {
			work += len(pl.Cmds)
		}
		if work*len(n.Items) > MaxLoopWork {
			p.fail(forPos, "this loop runs %d commands; the limit is %d: split it up", work*len(n.Items), MaxLoopWork)
		}
	}
	return n
}

func joinNames() string {
	s := ""
	for i, n := range LoopNames {
		if i > 0 {
			s += " "
		}
		s += n
	}
	return s
}
