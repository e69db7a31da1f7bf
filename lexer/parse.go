package lexer

import (
	"fmt"
	"slices"
	"strings"

	"github.com/hookctl/hookctl/internal/clip"
	"github.com/hookctl/hookctl/internal/wordlist"
)

// Script is a command the shape parser accepted: optionally one leading `cd DIR &&`, then a list
// of items joined by `&&`, `||`, `;` or newlines, each of one of three shapes:
//
//	pipeline:  cmd args (| filter args)*
//	if:        if PIPELINE; then BODY; [else BODY;] fi
//	for:       for NAME in WORDS; do BODY; done
//
// where a BODY is pipelines joined by `&&` or `||`, each run ended by `;` or a newline. Nothing
// nests. A list whose every item is a read is a read: the shell runs some of its items, in order,
// and the judge judges all of them.
type Script struct {
	Cd    *Word   // the directory of a leading `cd DIR &&`, or nil
	Items []*Item // at least one
}

// Visit calls f for every pipeline of the script, in every item of its list (every branch of an
// if, the body of a loop, with the loop), in source order, until f returns false. Every item is
// visited whichever the shell would run: a list of reads is a read only if each item is.
func (sc *Script) Visit(f func(pl *Pipeline, loop *For) bool) {
	for _, it := range sc.Items {
		switch {
		case it.Pipeline != nil:
			if !f(it.Pipeline, nil) {
				return
			}
		case it.If != nil:
			if !f(it.If.Cond, nil) {
				return
			}
			for _, pl := range it.If.Then {
				if !f(pl, nil) {
					return
				}
			}
			for _, pl := range it.If.Else {
				if !f(pl, nil) {
					return
				}
			}
		case it.For != nil:
			for _, pl := range it.For.Body {
				if !f(pl, it.For) {
					return
				}
			}
		}
	}
}

// AnyWord reports whether f holds for a word of the script: a program name, an argument, or a
// loop's word (each loop's list once), in source order, stopping at the first.
func (sc *Script) AnyWord(f func(w Word) bool) bool {
	found := false
	var seen *For
	sc.Visit(func(pl *Pipeline, loop *For) bool {
		if loop != nil && loop != seen {
			seen = loop
			for _, w := range loop.Items {
				if found = f(w); found {
					return false
				}
			}
		}
		for _, c := range pl.Cmds {
			if found = f(c.Name); found {
				return false
			}
			for _, w := range c.Args {
				if found = f(w); found {
					return false
				}
			}
		}
		return true
	})
	return found
}

// Item is one element of the top-level list.
type Item struct {
	// Op is how the item follows the one before it: TokAndAnd, TokOrOr or TokSemi (for `;` and
	// newlines); 0 for the first.
	Op TokenKind

	Pipeline *Pipeline // the pipeline shape
	If       *If       // the if shape
	For      *For      // the for shape
}

// Pipeline is one or more commands joined by |.
type Pipeline struct {
	// Op, in a body, is how the pipeline follows the one before it (as Item.Op); 0 for the first.
	Op   TokenKind
	Cmds []*SimpleCommand
}

// SimpleCommand is one simple command: a program name, its arguments and its redirections.
type SimpleCommand struct {
	Name   Word
	Args   []Word
	Redirs []Redir // in source order
}

// Redir is one redirection: 2>&1, standard error, output or both to /dev/null, or `< FILE`.
type Redir struct {
	Kind TokenKind // TokErrToOut, TokErrToNull, TokOutToNull, TokAllToNull or TokIn
	File Word      // for TokIn, the file read: a plain literal path, never a device
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

// IsLoopName reports whether a for loop may bind name. A loop assigns its variable in the shell
// that runs the command, so the name must mean nothing to bash or zsh: lower-case (upper-case
// names include IFS, PATH and LD_PRELOAD, and an exported variable the loop would change), not
// one of zsh's special or tied lower-case parameters (path is tied to PATH, prompt to PS1, and
// zsh/parameter's commands, functions and aliases define what runs), no hook array
// (zshexit_functions runs its words as commands when the shell exits), and no proxy setting
// (http_proxy is read from the environment by git and curl). Test: TestParse (loop rows).
func IsLoopName(name string) bool {
	if name == "" || len(name) > 32 || name[0] < 'a' || name[0] > 'z' {
		return false
	}
	for i := 0; i < len(name); i++ {
		c := name[i]
		if !('a' <= c && c <= 'z' || '0' <= c && c <= '9' || c == '_') {
			return false
		}
	}
	switch {
	case strings.HasSuffix(name, "_functions"), strings.HasPrefix(name, "zsh_"), strings.HasPrefix(name, "zle_"),
		strings.HasPrefix(name, "dis_"), strings.Contains(name, "proxy"), strings.Contains(name, "path"):
		return false
	}
	return !wordlist.Has(zshSpecial, name)
}

// zshSpecial are zsh's lower-case special parameters, those of its bundled modules included.
const zshSpecial = "argv status pipestatus path cdpath fpath manpath mailpath module_path psvar fignore watch " +
	"histchars prompt signals parameters commands functions functions_source builtins reswords options " +
	"modules dirstack history historywords jobdirs jobtexts jobstates nameddirs userdirs usergroups aliases " +
	"galiases saliases patchars funcstack funcfiletrace funcsourcetrace functrace widgets keymaps terminfo " +
	"termcap errnos sysparams mapfile epochtime reply match mbegin mend registers killring cursor buffer " +
	"lbuffer rbuffer mark region_active numeric keys histno predisplay postdisplay lastwidget widget " +
	"aliases_source zftp_chpwd zsh_scheduled_events"

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
	work    int    // the commands judged over every iteration of every loop so far
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
	op := TokenKind(0)
	for p.err == nil {
		sc.Items = append(sc.Items, p.item(op))
		if p.err != nil {
			break
		}
		if op = p.listOp(); op == 0 {
			break
		}
	}
	if p.err == nil && p.tok().Kind != TokEOF {
		p.refuseAfter()
	}
	if p.err == nil && p.work > MaxLoopWork {
		p.fail(0, "this command runs %d commands in its loops; the limit is %d: split it up", p.work, MaxLoopWork)
	}
	return sc
}

// item parses one element of the top-level list: an if, a for or a pipeline.
func (p *parser) item(op TokenKind) *Item {
	it := &Item{Op: op}
	switch {
	case p.isWord("cd"):
		p.fail(p.tok().Pos, "`cd` is allowed only once, at the start: `cd DIR && …`")
	case p.isWord("if"):
		it.If = p.ifShape()
	case p.isWord("for"):
		it.For = p.forShape()
	default:
		it.Pipeline = p.pipeline()
	}
	return it
}

// listOp consumes the operator after a list item and returns it (TokSemi for `;` and newlines),
// or 0 at the end of the command or before a token that cannot follow an item.
func (p *parser) listOp() TokenKind {
	switch t := p.tok(); t.Kind {
	case TokAndAnd, TokOrOr:
		p.advance()
		p.skipNewlines()
		if p.tok().Kind == TokEOF {
			p.fail(t.Pos, "`%s` must be followed by a command", t.Kind)
			return 0
		}
		return t.Kind
	case TokSemi, TokNewline:
		p.advance()
		p.skipNewlines()
		if p.tok().Kind == TokEOF {
			return 0 // a trailing separator
		}
		return TokSemi
	}
	return 0
}

// refuseAfter explains why a token after a complete item is refused.
func (p *parser) refuseAfter() {
	t := p.tok()
	switch t.Kind {
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
	if p.literal(t, "the directory after `cd`") && (dir.Value == "" || dir.Value[0] == '-') {
		p.fail(t.Pos, "`cd` takes one directory, not an option")
	}
	p.advance()
	if p.tok().Kind != TokAndAnd {
		p.fail(p.tok().Pos, "`cd DIR` must be followed by `&&` and a command")
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

// command parses one simple command: a bare program name (or `[`, the test builtin's), then
// words and redirections up to an operator.
func (p *parser) command() *SimpleCommand {
	t := p.tok()
	if t.Kind != TokWord {
		p.fail(t.Pos, "expected a command, found %s", p.describe())
		return nil
	}
	name := t.Word
	switch {
	case name.Var != "" || name.Parts != nil:
		p.fail(t.Pos, "a variable cannot name the program")
	case name.Brace:
		p.fail(t.Pos, "a brace group cannot name the program")
	case name.Quoted || name.Tilde || !allBare(name.Value) && name.Value != "[" || name.Value[0] == '=':
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
			w := t.Word
			if w.Var != "" || w.Parts != nil {
				p.checkVars(&w, t.Pos)
			}
			cmd.Args = append(cmd.Args, w)
			p.advance()
		case TokErrToOut, TokErrToNull, TokOutToNull, TokAllToNull:
			cmd.Redirs = append(cmd.Redirs, Redir{Kind: t.Kind})
			p.advance()
		case TokIn:
			p.advance()
			cmd.Redirs = append(cmd.Redirs, Redir{Kind: TokIn, File: p.inputFile(t.Pos)})
			p.advance()
		default:
			return cmd
		}
	}
	return cmd
}

// inputFile checks the word after `<`: a file written out literally, never a device. bash opens
// /dev/tcp/HOST/PORT and /dev/udp/… as network connections in a redirection, and a device can
// act on being opened, so nothing under /dev but /dev/null is read this way (nor /proc or /sys).
func (p *parser) inputFile(pos int) Word {
	t := p.tok()
	if t.Kind != TokWord {
		p.fail(pos, "`<` must be followed by a file name")
		return Word{}
	}
	w := t.Word
	v := w.Value
	switch {
	case !p.literal(t, "the file after `<`"):
	case v == "" || v[0] == '-':
		p.fail(t.Pos, "the file after `<` must be a plain path")
	case v != "/dev/null" && underSystem(v):
		p.fail(t.Pos, "`< %s` is not allowed: bash opens /dev/tcp/… and /dev/udp/… as network connections, and devices can act on being opened", clip.Short(v))
	}
	return w
}

// literal reports whether the word token t is written out literally (no expansion, no glob, no
// shell syntax), and fails naming what it is where it is not.
func (p *parser) literal(t Token, what string) bool {
	w := t.Word
	switch {
	case w.Var != "" || w.Parts != nil || w.Tilde || w.Glob != "" || w.Brace:
		p.fail(t.Pos, "%s must be written out literally", what)
	case w.Pattern:
		p.fail(t.Pos, "%s contains shell syntax", what)
	default:
		return true
	}
	return false
}

// underSystem reports whether an absolute path, however spelt, is under /dev, /proc or /sys.
func underSystem(v string) bool {
	if v[0] != '/' {
		return strings.Contains(v, "dev/") || strings.Contains(v, "proc/") || strings.Contains(v, "sys/")
	}
	clean := "/" + strings.TrimLeft(v, "/")
	for _, d := range []string{"/dev", "/proc", "/sys"} {
		if clean == d || strings.HasPrefix(clean, d+"/") || strings.Contains(v, "/.") {
			return true
		}
	}
	return false
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

// checkVars checks the variables an argument reads. The loop's own variable must be quoted
// (unquoted, the shell would split and glob its value); any other is the environment's, whose
// value the judge cannot see (Word.Env): the judge admits it only where no value could matter.
func (p *parser) checkVars(w *Word, pos int) {
	for _, name := range w.Vars() {
		if name != p.loopVar {
			w.Env = true
			continue
		}
		if w.Split {
			p.fail(pos, "quote the loop variable: \"$%s\" (unquoted, the shell splits and globs its value)", name)
		}
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

// body parses pipelines joined by `&&` or `||`, each run ended by `;` or newlines, until one of
// the stop words stands in command position.
func (p *parser) body(stops ...string) []*Pipeline {
	var out []*Pipeline
	op := TokenKind(0)
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
		pl := p.pipeline()
		pl.Op = op
		out = append(out, pl)
		if p.err != nil {
			return out
		}
		if k := p.tok().Kind; k == TokAndAnd || k == TokOrOr {
			op = k
			p.advance()
			p.skipNewlines()
			if t := p.tok(); t.Kind == TokWord && t.Word.IsBare() && slices.Contains(stops, t.Word.Value) {
				p.fail(t.Pos, "`%s` must be followed by a command", k)
			}
			continue
		}
		p.terminator("after a command in the body")
		op = TokSemi
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
	if !IsLoopName(t.Word.Value) {
		p.fail(t.Pos, "loop variable `%s` is not allowed: use a lower-case name that means nothing to the shell (f, file, dir, …)", clip.Short(t.Word.Value))
		return nil
	}
	n := &For{Var: t.Word.Value}
	p.advance()
	p.expectWord("in", "after the loop variable")
	for p.err == nil && p.tok().Kind == TokWord {
		w := p.tok().Word
		switch {
		case w.Var != "" || w.Parts != nil:
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
		p.work += work * len(n.Items)
	}
	return n
}
