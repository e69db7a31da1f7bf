// Package lexer is hookctl's hand-written, fail-closed reader of the shell commands an agent asks
// to run, and the one place a command is parsed (CommandLine: parsed once, read by every judge).
//
// It accepts a deliberately small subset of the shell: words (bare, single- and double-quoted,
// joined), a loop's variable and, marked so that the judge can refuse them where they matter, the
// environment's variables; globs (* and ?, with ./ put before one that starts with a glob
// character), brace groups and ~/ where a shell expands them; pipes; lists joined by &&, ||, ;
// and newlines; the redirections 2>&1, 2>/dev/null, >/dev/null, &>/dev/null and < FILE; and the
// shapes in parse.go (a leading `cd DIR &&`, if, for). Everything else — other expansions,
// command substitution, other redirections, comments, subshells, nesting — is refused with an
// error that says what was found and where. Refusing is always safe: the agent is told what it
// can write instead.
//
// The scan is linear: Lex checks the length cap, then the alphabet, then makes one pass in which
// every step either consumes at least one byte or stops the scan with an error. A second parser,
// mvdan.cc/sh, parses the same text in bash and zsh, and the two must agree (crosscheck.go); the
// deny-list judges read its bash tree (CommandLine.Tree), the read-only judge the hand parse
// (CommandLine.Shape). Print renders what was judged, which is what runs.
//
// Out of scope: what programs do with their arguments (package programs), and user shell aliases
// or functions, which the gate cannot see (docs/threat-model.md).
package lexer

import (
	"fmt"
	"strings"
	"unicode/utf8"
)

// MaxLen is the longest command the lexer reads. Longer commands are refused before any scan.
const MaxLen = 16 << 10

// MaxTokens caps the words and operators in one command. Real commands have tens; the cap keeps
// the second parser's work and the judge's small for any input the lexer accepts.
const MaxTokens = 2048

// TokenKind says what a token is.
type TokenKind uint8

const (
	TokWord      TokenKind = iota + 1
	TokPipe                // |
	TokSemi                // ;
	TokNewline             // \n
	TokAndAnd              // &&
	TokOrOr                // ||
	TokErrToOut            // 2>&1
	TokErrToNull           // 2>/dev/null (also written 2> /dev/null)
	TokOutToNull           // >/dev/null (also 1>/dev/null, > /dev/null)
	TokAllToNull           // &>/dev/null
	TokIn                  // <, followed by the word it reads
	TokEOF
)

func (k TokenKind) String() string {
	switch k {
	case TokWord:
		return "word"
	case TokPipe:
		return "|"
	case TokSemi:
		return ";"
	case TokNewline:
		return "newline"
	case TokAndAnd:
		return "&&"
	case TokOrOr:
		return "||"
	case TokErrToOut:
		return "2>&1"
	case TokErrToNull:
		return "2>/dev/null"
	case TokOutToNull:
		return ">/dev/null"
	case TokAllToNull:
		return "&>/dev/null"
	case TokIn:
		return "<"
	case TokEOF:
		return "end of command"
	}
	return "unknown"
}

// Word is one shell word: its source text, the value a program receives, and how it was written.
// How it was written matters: `"s"ed` and `/usr/bin/sed` run sed, but they are not the bare word
// sed, and only bare words name programs.
type Word struct {
	Pos   int    // byte offset of the first character
	Raw   string // the source text
	Value string // the text after quote removal; for a loop variable, the empty string
	// Var is the loop variable's name when the word is exactly "$NAME". It is the only
	// expansion the lexer accepts; the shape parser decides where it may stand.
	Var string
	// Glob is the word as a shell pattern when it holds an unquoted * or ?, which the shell
	// expands to file names: the glob characters bare, and every quoted *, ?, [, ] or \ escaped
	// with a backslash, so that `"*".md` and `*.md` differ. Empty for any other word. Value
	// holds the text with the quotes removed, glob characters included.
	Glob string
	// Parts is set for a word that joins text and variables inside double quotes ("== $pkg",
	// "$f.bak", "PATH is $PATH"): its text and variables in order, and Value is empty. The
	// judge substitutes the loop's words for its variable; any other variable is Env.
	Parts []Part

	// The flags come last, together, which keeps a Word (every token holds one) small.
	Quoted bool // some part was in quotes
	// Pattern is set when quoted text holds characters that mean something to a shell
	// (< > & ( ) { } # ! | ; $ ` \ and the other kind of quote). They are literal inside quotes,
	// but the gate accepts them only where a program reads the word as a pattern, filter or
	// script (an rg regex, a jq filter, a sed -n script): anywhere else they serve only to
	// confuse a reader or a second parser.
	Pattern bool
	// Tilde is set for a bare word that starts with ~/ (home directory expansion). Only a for
	// loop's word list may hold one.
	Tilde bool
	// DotSlash is set when the lexer put ./ before a glob that starts with a glob character, so
	// that no file name it matches can read as an option (`*.md` could match `--output=x.md`):
	// Value and Glob hold the word so prefixed, which is what the judge judges and the rewrite
	// runs.
	DotSlash bool
	// Brace is set on each of the words a brace group ({a,b}) expanded to; Raw is the whole
	// word as written. The rewrite prints the words, not the group.
	Brace bool
	// Env is set by the parser when Var, or a variable of Parts, is not the loop's: a value
	// from the environment, which the judge cannot see, so only a program that no argument
	// can turn to writing, running or reading files may take the word.
	Env bool
	// Split is set for a variable written unquoted ($PATH): the shell splits its value into
	// words and expands them as globs. Only the environment's variables may be so written.
	Split bool
}

// Part is a piece of a word with Parts: literal text, or the variable Var.
type Part struct {
	Text string
	Var  string
}

// IsBare reports whether the word was written with plain characters only.
func (w Word) IsBare() bool {
	return !w.Quoted && w.Var == "" && !w.Tilde && w.Glob == "" && !w.Brace && w.Parts == nil
}

// Vars returns the names of the variables the word reads, in order.
func (w Word) Vars() []string {
	if w.Var != "" {
		return []string{w.Var}
	}
	var out []string
	for _, p := range w.Parts {
		if p.Var != "" {
			out = append(out, p.Var)
		}
	}
	return out
}

// Token is one lexical token.
type Token struct {
	Kind TokenKind
	Pos  int
	Word Word // for TokWord
}

// Error is the first thing the lexer or shape parser refused.
type Error struct {
	Pos int    // byte offset in the command
	Msg string // what was refused, for the agent to read
}

func (e *Error) Error() string { return fmt.Sprintf("at byte %d: %s", e.Pos, e.Msg) }

const eof = 0 // NUL is outside the alphabet, so it can mark the end of input.

type scanner struct {
	src  string
	off  int  // offset of ch
	ch   byte // current byte, or eof
	err  *Error
	toks []Token
}

// Lex splits a command into tokens, or returns the first thing it refuses.
func Lex(src string) ([]Token, error) {
	if len(src) > MaxLen {
		return nil, &Error{Pos: MaxLen, Msg: fmt.Sprintf("command is %d bytes; the limit is %d", len(src), MaxLen)}
	}
	if err := checkAlphabet(src); err != nil {
		return nil, err
	}
	s := &scanner{src: src, off: -1}
	s.toks = make([]Token, 0, min(maxTokens(src), MaxTokens+1))
	s.next()
	s.scan()
	if s.err != nil {
		return nil, s.err
	}
	s.toks = append(s.toks, Token{Kind: TokEOF, Pos: len(src)})
	return s.toks, nil
}

// maxTokens bounds the number of tokens in src: every token but the last ends at a delimiter.
// Sizing the slice once keeps a command of thousands of words from copying it over and over.
func maxTokens(src string) int {
	n := 2
	for i := 0; i < len(src); i++ {
		switch src[i] {
		case ' ', '\t', '\n', '|', ';', '&':
			n++
		}
	}
	return n
}

// checkAlphabet refuses every byte outside printable ASCII, space, tab and newline. That one rule
// shuts out CR (which terminals hide), NUL, escape sequences, no-break and zero-width spaces, bidi
// controls and every look-alike of a letter or an operator.
func checkAlphabet(src string) error {
	for i := 0; i < len(src); i++ {
		c := src[i]
		if c >= 0x20 && c < 0x7f || c == '\t' || c == '\n' {
			continue
		}
		if c < 0x80 {
			return &Error{Pos: i, Msg: fmt.Sprintf("control character %s is not allowed; write commands in printable ASCII", controlName(c))}
		}
		r, _ := utf8.DecodeRuneInString(src[i:])
		if r == utf8.RuneError {
			return &Error{Pos: i, Msg: fmt.Sprintf("byte 0x%02x is not valid text; write commands in printable ASCII", c)}
		}
		return &Error{Pos: i, Msg: fmt.Sprintf("non-ASCII character U+%04X is not allowed (it can hide or imitate shell syntax); write commands in printable ASCII", r)}
	}
	return nil
}

func controlName(c byte) string {
	switch c {
	case 0:
		return "NUL"
	case '\r':
		return "CR (carriage return)"
	case 0x0b:
		return "vertical tab"
	case 0x0c:
		return "form feed"
	case 0x1b:
		return "ESC"
	case 0x7f:
		return "DEL"
	}
	return fmt.Sprintf("0x%02x", c)
}

// next moves to the following byte. It and skipN are the only code that moves the offset.
func (s *scanner) next() {
	s.off++
	if s.off < len(s.src) {
		s.ch = s.src[s.off]
	} else {
		s.off = len(s.src)
		s.ch = eof
	}
}

func (s *scanner) skipN(n int) {
	for i := 0; i < n; i++ {
		s.next()
	}
}

func (s *scanner) peek() byte {
	if s.off+1 < len(s.src) {
		return s.src[s.off+1]
	}
	return eof
}

func (s *scanner) fail(pos int, format string, args ...any) {
	if s.err == nil {
		s.err = &Error{Pos: pos, Msg: fmt.Sprintf(format, args...)}
	}
}

func (s *scanner) emit(k TokenKind, pos int) { s.toks = append(s.toks, Token{Kind: k, Pos: pos}) }

// scan reads tokens until the end of input or the first error. Every case consumes at least one
// byte or sets s.err, which ends the loop.
func (s *scanner) scan() {
	for s.ch != eof && s.err == nil {
		pos := s.off
		if len(s.toks) >= MaxTokens {
			s.fail(pos, "a command may hold at most %d words and operators", MaxTokens)
			return
		}
		switch s.ch {
		case ' ', '\t':
			s.next() // consumes a blank
		case '\n':
			s.next()
			s.emit(TokNewline, pos)
		case '|':
			s.next()
			switch s.ch {
			case '|':
				s.next()
				s.emit(TokOrOr, pos)
			case '&':
				s.fail(pos, "`|&` is not allowed; use `2>&1 |`")
			default:
				s.emit(TokPipe, pos)
			}
		case ';':
			s.next()
			if s.ch == ';' {
				s.fail(pos, "`;;` is not allowed")
			} else {
				s.emit(TokSemi, pos)
			}
		case '&':
			if n := devNull(s.src[s.off:], "&>"); n > 0 {
				s.skipN(n)
				s.emit(TokAllToNull, pos)
				continue
			}
			s.next()
			if s.ch != '&' {
				s.fail(pos, "`&` (background or redirection) is not allowed; the only redirections allowed are 2>&1, 2>/dev/null, >/dev/null, &>/dev/null and < FILE")
			} else {
				s.next()
				s.emit(TokAndAnd, pos)
			}
		default:
			if s.redirect() {
				continue // consumed the redirect
			}
			s.word() // consumes at least one byte or fails
		}
	}
}

// isDelim reports whether c ends a word.
func isDelim(c byte) bool {
	return c == eof || c == ' ' || c == '\t' || c == '\n' || c == '|' || c == ';' || c == '&'
}

// redirect consumes one of the permitted redirections at the start of a word: 2>&1, a
// redirection of standard output, standard error or both to /dev/null (written exactly so, with
// or without a blank before it), or `<`, whose file the parser reads as the next word. Anything
// else that starts like a redirection falls through to word, which refuses `>` and `<`.
func (s *scanner) redirect() bool {
	switch s.ch {
	case '<', '>', '1', '2':
	default:
		return false
	}
	rest := s.src[s.off:]
	pos := s.off
	if rest[0] == '<' {
		if len(rest) > 1 && strings.IndexByte("<>&(", rest[1]) >= 0 {
			return false // here-documents, <>, <&, process substitution: word refuses them
		}
		s.next() // consumes <
		s.emit(TokIn, pos)
		return true
	}
	if strings.HasPrefix(rest, "2>&1") && (len(rest) == 4 || isDelim(rest[4])) {
		s.skipN(4)
		s.emit(TokErrToOut, pos)
		return true
	}
	for _, r := range [...]struct {
		op   string
		kind TokenKind
	}{{"2>", TokErrToNull}, {"1>", TokOutToNull}, {">", TokOutToNull}} {
		if n := devNull(rest, r.op); n > 0 {
			s.skipN(n)
			s.emit(r.kind, pos)
			return true
		}
	}
	return false
}

// devNull returns the length of op, optional blanks and the word /dev/null at the start of
// rest, ended by a delimiter, or 0. Only the exact path is accepted: /dev//null, ./dev/null
// and /dev/nul are words, which the lexer then refuses.
func devNull(rest, op string) int {
	if !strings.HasPrefix(rest, op) {
		return 0
	}
	n := len(op)
	for n < len(rest) && (rest[n] == ' ' || rest[n] == '\t') {
		n++
	}
	const null = "/dev/null"
	if !strings.HasPrefix(rest[n:], null) {
		return 0
	}
	n += len(null)
	if n < len(rest) && !isDelim(rest[n]) {
		return 0
	}
	return n
}

// isBareChar reports whether c may appear unquoted in a word. The set is closed: letters,
// digits and - _ . / : = , + @ %. Everything else needs quotes or is refused.
func isBareChar(c byte) bool {
	switch {
	case 'a' <= c && c <= 'z', 'A' <= c && c <= 'Z', '0' <= c && c <= '9':
		return true
	}
	switch c {
	case '-', '_', '.', '/', ':', '=', ',', '+', '@', '%':
		return true
	}
	return false
}

// isPatternChar reports whether c, found inside quotes, marks the word as pattern text.
func isPatternChar(c byte) bool {
	switch c {
	case '<', '>', '&', '(', ')', '{', '}', '#', '!', '|', ';', '$', '`', '\\', '\'', '"':
		return true
	}
	return false
}

// processSubstitutionRefusal names <(…) and >(…) for what they are, not as a redirection, with
// the read that usually does the job.
const processSubstitutionRefusal = "`<(…)` and `>(…)` (process substitution) are not allowed; " +
	"compare revisions with git diff (git diff HEAD~1 -- FILE), or run the commands one by one"

// bareRefusal explains why an unquoted character is refused.
func bareRefusal(c byte) string {
	switch c {
	case '$':
		return "`$` (variable, command or arithmetic expansion) is not allowed"
	case '`':
		return "backticks (command substitution) are not allowed"
	case '\\':
		return "a backslash outside single quotes is not allowed; quote the word with single quotes"
	case '<', '>':
		return fmt.Sprintf("`%c` (redirection) is not allowed here; the only redirections allowed are 2>&1, 2>/dev/null, >/dev/null, &>/dev/null and < FILE, each as a word of its own", c)
	case '(', ')':
		return fmt.Sprintf("`%c` (subshell, function or process substitution) is not allowed", c)
	case '{', '}':
		return fmt.Sprintf("`%c` (brace expansion or command group) is not allowed", c)
	case '[', ']':
		return fmt.Sprintf("unquoted `%c` (a glob bracket) is not allowed; quote it, or use * and ? (only a word that is exactly [ or ], as in [ -f x ], is taken as written)", c)
	case '#':
		return "`#` (comment) is not allowed"
	case '!':
		return "`!` (negation or history expansion) is not allowed"
	case '^':
		return "unquoted `^` is not allowed (a glob in zsh, a pipe in old shells)"
	case '~':
		return "`~` (home directory expansion) is not allowed here; write the path out"
	}
	return fmt.Sprintf("unquoted `%c` is not allowed; quote the word", c)
}

// quotedByte appends the byte at the offset, which stands inside quotes, to val and consumes it,
// marking w a pattern where the byte means something to a shell (Word.Pattern).
func (s *scanner) quotedByte(w *Word, val []byte) []byte {
	if isPatternChar(s.ch) {
		w.Pattern = true
	}
	val = append(val, s.ch)
	s.next() // consumes one quoted byte
	return val
}

// word consumes one word: a run of bare characters and quoted parts up to a delimiter.
func (s *scanner) word() {
	start := s.off
	w := Word{Pos: start}
	var val []byte
	var globAt []int // the offsets in val of unquoted glob characters
	revSuffix := false
	braceAt := -1 // where a brace group's alternatives go in val, or -1
	var alts []string
	var parts []Part // the text and variables of a word with variables inside quotes
	cut := 0         // where in val the text after the last variable starts
	if s.ch == '"' && s.loopVar(&w) || s.ch == '$' && s.bareVar(&w) {
		s.toks = append(s.toks, Token{Kind: TokWord, Pos: start, Word: w})
		return
	}
	for _, op := range [...]string{"!=", "!", "="} {
		// test's operators, whole: outside a command's first word and with history expansion
		// off (bash -c, zsh -c), bash and zsh pass a lone ! or != and a lone = on as written
		// (measured; zsh expands `==` and `=cmd`, so only `=` alone). Each means what it
		// means quoted: ! and != are shell syntax (Pattern), which only test and find read.
		rest := s.src[s.off:]
		if strings.HasPrefix(rest, op) && (len(rest) == len(op) || isDelim(rest[len(op)])) {
			w.Raw, w.Value, w.Pattern = op, op, op[0] == '!'
			s.skipN(len(op))
			s.toks = append(s.toks, Token{Kind: TokWord, Pos: start, Word: w})
			return
		}
	}
	if s.ch == '=' {
		s.fail(s.off, "a word starting with `=` is not allowed (zsh expands it to a program path)")
		return
	}
	if (s.ch == '[' || s.ch == ']') && isDelim(s.peek()) {
		// The test builtin's name and its closing bracket: a word that is exactly `[` or `]`
		// has no bracket pair, so bash and zsh match no file with it and pass it on as written
		// (measured with both). It means what a quoted '[' means, which any program may be
		// given. `[[`, `[a]` and `x[` stay glob brackets, refused below.
		w.Raw, w.Value = s.src[s.off:s.off+1], s.src[s.off:s.off+1]
		s.next() // consumes the bracket
		s.toks = append(s.toks, Token{Kind: TokWord, Pos: start, Word: w})
		return
	}
	if rest := s.src[s.off:]; rest[0] == '\\' || rest[0] == '{' {
		// find's words, whole: `\;` is `;`, `\(` and `\)` are ( and ), and `{}` is itself in
		// bash and zsh (no brace expansion without a comma or ..). They are shell syntax, so
		// marked as pattern text, which only find reads.
		for _, sp := range [...]struct{ raw, val string }{{`\;`, ";"}, {"{}", "{}"}, {`\(`, "("}, {`\)`, ")"}} {
			if strings.HasPrefix(rest, sp.raw) && (len(rest) == len(sp.raw) || isDelim(rest[len(sp.raw)])) {
				w.Raw, w.Value, w.Quoted, w.Pattern = sp.raw, sp.val, sp.raw[0] == '\\', true
				s.skipN(len(sp.raw))
				s.toks = append(s.toks, Token{Kind: TokWord, Pos: start, Word: w})
				return
			}
		}
	}
	if s.ch == '~' {
		if s.peek() != '/' && !isDelim(s.peek()) {
			s.fail(s.off, "%s", bareRefusal('~')) // ~user, ~+, ~-: other directories
			return
		}
		w.Tilde = true
		val = append(val, '~')
		s.next() // consumes ~; the / is a bare character
	} else if n := homeVar(s.src[s.off:], false); n > 0 {
		// $HOME at the start of a word means what ~ means: the judge reads and the rewrite
		// writes the home directory's literal path (Word.Tilde).
		w.Tilde = true
		val = append(val, '~')
		s.skipN(n) // consumes $HOME
	}
	for !isDelim(s.ch) && s.err == nil {
		switch {
		case s.ch == '\'':
			qpos := s.off
			w.Quoted = true
			s.next() // consumes the opening quote
			for s.ch != '\'' && s.err == nil {
				switch {
				case s.ch == eof:
					s.fail(qpos, "unterminated single quote")
				case s.ch == '\n':
					s.fail(s.off, "a newline inside quotes is not allowed")
				default:
					val = s.quotedByte(&w, val) // consumes one quoted byte
				}
			}
			if s.err == nil {
				s.next() // consumes the closing quote
			}
		case s.ch == '"':
			qpos := s.off
			w.Quoted = true
			s.next() // consumes the opening quote
			for s.ch != '"' && s.err == nil {
				switch s.ch {
				case eof:
					s.fail(qpos, "unterminated double quote")
				case '\n':
					s.fail(s.off, "a newline inside quotes is not allowed")
				case '$':
					if n := homeVar(s.src[s.off:], true); n > 0 && qpos == start && len(val) == 0 && !w.Tilde {
						w.Tilde = true // "$HOME/…" at the start of a word: as ~/… (above)
						val = append(val, '~')
						s.skipN(n) // consumes $HOME
						break
					}
					if name, n, bad := varRef(s.src[s.off:]); n > 0 {
						// "== $pkg": the text so far, then the variable (Word.Parts).
						parts = append(parts, Part{Text: string(val[cut:])}, Part{Var: name})
						cut = len(val)
						s.skipN(n) // consumes $NAME or ${NAME}
						break
					} else if bad != "" {
						s.fail(s.off, "%s", bad)
						break
					}
					// A `$` that no shell expands: before the closing quote, a blank or one of
					// | ) / . , : (measured in bash and zsh; `$=x`, `$+x` and `$^x` are zsh
					// expansions, so the set is closed). It is pattern text: rg "foo$|bar$".
					if s.peek() == '(' {
						s.fail(s.off, "%s", substitutionRefusal)
						break
					}
					if strings.IndexByte(`"| )/.,:`, s.peek()) < 0 {
						s.fail(s.off, "`$` inside double quotes (expansion) is not allowed; the only expansion allowed is a for loop's \"$name\" as a whole word; use single quotes for literal text")
						break
					}
					w.Pattern = true
					val = append(val, s.ch)
					s.next() // consumes a literal $
				case '`':
					s.fail(s.off, "backticks (command substitution) are not allowed")
				case '\\':
					// Inside double quotes a backslash escapes $ ` " and \ and is kept before
					// anything else, in bash and zsh alike: "a\"b" is a"b, "\w" is \w.
					switch c := s.peek(); c {
					case eof, '\n':
						s.fail(s.off, "a backslash at the end of a line is not allowed")
					case '!':
						s.fail(s.off, "`!` inside double quotes (history expansion) is not allowed; use single quotes")
					case '$', '`', '"', '\\':
						s.next() // consumes the backslash
						val = append(val, c)
						s.next() // consumes the escaped byte
					default:
						val = append(val, '\\')
						s.next() // consumes the backslash, kept; the next byte is read as usual
					}
					w.Pattern = true
				case '!':
					s.fail(s.off, "`!` inside double quotes (history expansion) is not allowed; use single quotes")
				default:
					val = s.quotedByte(&w, val) // consumes one quoted byte
				}
			}
			if s.err == nil {
				s.next() // consumes the closing quote
			}
		case s.ch == '@' && s.peek() == '{' && !w.Quoted:
			// git's reflog suffix, HEAD@{1}, stash@{0}, main@{2.days.ago}: braces without a
			// comma are not expanded by bash or zsh, and the word is pattern text that only
			// git's revision rule reads (gitRevOrPathspec).
			if n := reflogSuffix(s.src[s.off:]); n > 0 {
				val = append(val, s.src[s.off:s.off+n]...)
				w.Pattern = true
				s.skipN(n)
				break
			}
			val = append(val, s.ch)
			s.next() // consumes @; the { is refused next
		case s.ch == '{' && braceAt < 0:
			braceAt = len(val)
			alts = s.braceGroup()
		case isBareChar(s.ch):
			val = append(val, s.ch)
			s.next() // consumes one bare byte
		case s.ch == '*' || s.ch == '?':
			globAt = append(globAt, len(val))
			val = append(val, s.ch)
			s.next() // consumes one glob character
		case (s.ch == '~' || s.ch == '^') && len(val) > 0 && isRevChar(val[len(val)-1]) && !w.Quoted:
			// git revision suffixes: HEAD~3, HEAD^2, main~2^. Mid-word the shells leave them
			// alone (zsh's extended glob aside), and the canonical form quotes the word.
			revSuffix = true
			val = append(val, s.ch)
			s.next() // consumes ~ or ^
		case s.ch == '$' && s.peek() == '(':
			s.fail(s.off, "%s", substitutionRefusal)
		case (s.ch == '<' || s.ch == '>') && s.peek() == '(':
			s.fail(s.off, "%s", processSubstitutionRefusal)
		default:
			s.fail(s.off, "%s", bareRefusal(s.ch))
		}
	}
	if s.err != nil {
		return
	}
	w.Raw = s.src[start:s.off]
	if w.Tilde && len(val) > 1 && val[1] != '/' {
		// "$HOME"x names another directory than the home one; ~ and $HOME stand alone or before /.
		s.fail(start, "`~` or `$HOME` must stand alone or before a `/`")
		return
	}
	if parts != nil {
		if braceAt >= 0 || w.Tilde || len(globAt) > 0 {
			s.fail(start, "a word with a variable inside quotes may not also hold a brace group, `~` or a glob")
			return
		}
		w.Parts = compactParts(append(parts, Part{Text: string(val[cut:])}))
		s.toks = append(s.toks, Token{Kind: TokWord, Pos: start, Word: w})
		return
	}
	if braceAt >= 0 {
		s.braceWords(w, val, braceAt, alts, revSuffix)
		return
	}
	if w.Quoted || w.Tilde || len(globAt) > 0 {
		w.Value = string(val)
	} else {
		w.Value = w.Raw // a bare word is its own value; no copy
	}
	if len(globAt) > 0 && revSuffix {
		// zsh's extended glob reads ~ and ^ in a pattern as operators: *.go~*_test.go.
		s.fail(start, "`~` or `^` in a glob is not allowed (zsh reads them as glob operators); quote them")
		return
	}
	if len(globAt) > 0 {
		w.Glob = globPattern(val, globAt)
		if globAt[0] == 0 {
			w.DotSlash = true
			w.Value = "./" + w.Value
			w.Glob = "./" + w.Glob
		}
	}
	s.toks = append(s.toks, Token{Kind: TokWord, Pos: start, Word: w})
}

// reflogSuffix returns the length of @{…} at the start of rest, holding letters, digits, dots
// and dashes and ended by a delimiter, or 0.
func reflogSuffix(rest string) int {
	n := 2 // @{
	for n < len(rest) && (isNameChar(rest[n]) || rest[n] == '.' || rest[n] == '-') {
		n++
	}
	if n == 2 || n >= len(rest) || rest[n] != '}' {
		return 0
	}
	n++
	if n < len(rest) && !isDelim(rest[n]) {
		return 0
	}
	return n
}

// MaxBraceWords caps the words one brace group may expand to.
const MaxBraceWords = 64

// braceGroup consumes a brace group, {a,b,…}: alternatives of bare characters and globs,
// separated by commas, at least two, none empty. It returns them, or fails on anything else:
// {} and {a} are not expanded, {1..3} and nested groups are not accepted here.
func (s *scanner) braceGroup() []string {
	pos := s.off
	s.next() // consumes {
	var alts []string
	begin := s.off
	for s.err == nil {
		switch c := s.ch; {
		case c == ',' || c == '}':
			alt := s.src[begin:s.off]
			if alt == "" || strings.Contains(alt, "..") {
				s.fail(pos, "a brace group with an empty alternative or a `..` range is not allowed; write the words out")
				return nil
			}
			alts = append(alts, alt)
			s.next() // consumes , or }
			if c == '}' {
				if len(alts) < 2 {
					s.fail(pos, "%s", bareRefusal('{'))
					return nil
				}
				if len(alts) > MaxBraceWords {
					s.fail(pos, "a brace group may hold at most %d words", MaxBraceWords)
					return nil
				}
				return alts
			}
			begin = s.off
		case c != ',' && isBareChar(c) || c == '*' || c == '?':
			s.next() // consumes one byte of an alternative
		default:
			s.fail(pos, "%s", bareRefusal('{'))
			return nil
		}
	}
	return nil
}

// braceWords emits the words a brace group expands to, as bash and zsh expand it: each
// alternative between the text before and after the group. Each word is then an ordinary word:
// a glob if it holds * or ?, with ./ put first if it starts with one. The word must be unquoted
// and start with neither ~ nor $HOME, so that every byte of it is what it reads.
func (s *scanner) braceWords(w Word, val []byte, at int, alts []string, revSuffix bool) {
	if w.Quoted || w.Tilde || revSuffix {
		s.fail(w.Pos, "a brace group may stand only in an unquoted word of plain characters and globs")
		return
	}
	for _, alt := range alts {
		v := string(val[:at]) + alt + string(val[at:])
		x := Word{Pos: w.Pos, Raw: w.Raw, Value: v, Brace: true}
		var globAt []int
		for i := 0; i < len(v); i++ {
			if v[i] == '*' || v[i] == '?' {
				globAt = append(globAt, i)
			}
		}
		if len(globAt) > 0 {
			x.Glob = globPattern([]byte(v), globAt)
			if globAt[0] == 0 {
				x.DotSlash, x.Value, x.Glob = true, "./"+x.Value, "./"+x.Glob
			}
		}
		if len(s.toks) >= MaxTokens {
			s.fail(w.Pos, "a command may hold at most %d words and operators", MaxTokens)
			return
		}
		s.toks = append(s.toks, Token{Kind: TokWord, Pos: w.Pos, Word: x})
	}
}

// homeVar returns the length of $HOME at the start of rest when it is the whole parameter: followed
// by a delimiter or / (unquoted), or by " or / (inside double quotes); 0 otherwise.
func homeVar(rest string, quoted bool) int {
	const v = "$HOME"
	if !strings.HasPrefix(rest, v) {
		return 0
	}
	if len(rest) == len(v) {
		if quoted {
			return 0
		}
		return len(v)
	}
	c := rest[len(v)]
	if c == '/' || quoted && c == '"' || !quoted && isDelim(c) {
		return len(v)
	}
	return 0
}

// globPattern writes val as a shell pattern: the bytes at globAt bare, every other pattern
// character escaped.
func globPattern(val []byte, globAt []int) string {
	b := make([]byte, 0, len(val)+4)
	for i, c := range val {
		if len(globAt) > 0 && globAt[0] == i {
			globAt = globAt[1:]
			b = append(b, c)
			continue
		}
		if strings.IndexByte(`*?[]\`, c) >= 0 {
			b = append(b, '\\')
		}
		b = append(b, c)
	}
	return string(b)
}

// loopVar consumes a word that is exactly "$NAME" or "${NAME}" followed by a delimiter, the one
// expansion the gate accepts. It consumes nothing and returns false for any other word starting
// with `"`.
func (s *scanner) loopVar(w *Word) bool {
	rest := s.src[s.off:]
	if len(rest) < 4 || rest[1] != '$' {
		return false
	}
	n := 2
	braced := rest[n] == '{'
	if braced {
		n++
	}
	if n >= len(rest) || !isNameStart(rest[n]) {
		return false
	}
	start := n
	for n < len(rest) && isNameChar(rest[n]) {
		n++
	}
	name := rest[start:n]
	if name == "_" {
		return false // $_, the last argument: varRef refuses it
	}
	if braced {
		if n >= len(rest) || rest[n] != '}' {
			return false
		}
		n++
	}
	if n >= len(rest) || rest[n] != '"' {
		return false
	}
	n++ // closing quote
	if n < len(rest) && !isDelim(rest[n]) {
		return false
	}
	w.Raw = rest[:n]
	w.Var = name
	w.Quoted = true
	s.skipN(n)
	return true
}

// substitutionRefusal refuses $(…): its output would become words the judge never saw.
const substitutionRefusal = "`$(…)` (command substitution) is not allowed: its output would become words no rule has judged; " +
	"run the inner command on its own, which is judged by itself, and join reads with && or ; (find … -print0 | xargs -0 PROG runs a read on each file find names)"

// bareVar consumes a word that is exactly $NAME or ${NAME}, unquoted, followed by a delimiter:
// a variable the shell splits and globs (Word.Split). It consumes nothing and returns false
// for any other word starting with `$`, which the scanner then refuses.
func (s *scanner) bareVar(w *Word) bool {
	name, n, _ := varRef(s.src[s.off:])
	if n == 0 || n == len("$HOME") && name == "HOME" || n < len(s.src)-s.off && !isDelim(s.src[s.off+n]) {
		// $HOME is the home directory's path, as ~ is (homeVar); ${HOME} is a variable.
		return false
	}
	w.Raw = s.src[s.off : s.off+n]
	w.Var = name
	w.Split = true
	s.skipN(n)
	return true
}

// varRef reads $NAME or ${NAME} at the start of rest and returns the name and its length. It
// returns n == 0 with a reason (bad) when a name follows the `$` but the reference is one the
// gate does not read: a special or positional parameter, or a reference followed by what zsh
// reads as part of it ($f[1] a subscript, $f:h a modifier) or bash as more name. It returns
// n == 0 and no reason when no name follows.
func varRef(rest string) (name string, n int, bad string) {
	if len(rest) < 2 || rest[0] != '$' {
		return "", 0, ""
	}
	n = 1
	braced := rest[1] == '{'
	if braced {
		n++
	}
	if n >= len(rest) || !isNameStart(rest[n]) {
		if braced {
			return "", 0, "`${` is only allowed as ${NAME}"
		}
		return "", 0, ""
	}
	at := n
	for n < len(rest) && isNameChar(rest[n]) {
		n++
	}
	name = rest[at:n]
	if braced {
		if n >= len(rest) || rest[n] != '}' {
			return "", 0, "`${` is only allowed as ${NAME}, without operators"
		}
		n++
	}
	if name == "_" {
		return "", 0, "`$_` (the last argument) is not allowed"
	}
	if n < len(rest) {
		switch c := rest[n]; {
		case c == ':' && n+1 < len(rest) && (rest[n+1] == ' ' || rest[n+1] == '"'):
		case braced && isNameChar(c):
		case c == '[' || c == ':' || c == '(' || c == '{' || isNameChar(c):
			return "", 0, "`$" + name + "` followed by `" + string(c) + "` is not allowed (zsh reads [ and : after a variable as a subscript or modifier); write \"${" + name + "}\" before plain text"
		}
	}
	return name, n, ""
}

// compactParts drops the empty text between variables.
func compactParts(parts []Part) []Part {
	out := parts[:0]
	for _, p := range parts {
		if p.Var != "" || p.Text != "" {
			out = append(out, p)
		}
	}
	return out
}

// isRevChar reports whether c may precede ~ or ^ in a git revision written bare.
func isRevChar(c byte) bool {
	return 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9' || c == '~' || c == '^' || c == '_'
}

func isNameStart(c byte) bool { return 'a' <= c && c <= 'z' || c == '_' || 'A' <= c && c <= 'Z' }
func isNameChar(c byte) bool  { return isNameStart(c) || '0' <= c && c <= '9' }
