package programs

import (
	"fmt"
	"slices"
	"strings"

	"github.com/hookctl/hookctl/internal/wordlist"
)

// The awk program checker proves that an awk program only reads its input and prints to
// standard output, for every awk a call may run: gawk, mawk (Debian's and Ubuntu's awk), BWK
// awk (macOS's and FreeBSD's) and BusyBox awk (Alpine's). It is a tokenizer, not a parser:
// awk can only run a command (system, print | cmd, cmd | getline, gawk's |&), write a file
// (print > f, print >> f) or read a file no operand named (getline < f, ARGV, gawk's
// @include, @load and SYMTAB) through a few names and operators, so the program is refused
// if any of them appears as a token outside a string, a regular expression or a comment. The
// tokenizer has to find the strings, regular expressions and comments exactly where every awk
// finds them; where awks disagree (whether `/` divides or starts a regular expression; what a
// bracket expression holds) the program is refused.
//
// What it refuses, each checked against the four awks (scratch runs noted at the tests):
//   - the names in awkRefusedNames, wherever they stand outside strings and regexps;
//   - a `|` (|| is OR in every awk's lexer; BusyBox reads `print a || b` as a pipe and then
//     fails to parse it, so nothing runs);
//   - `>`, `>>` and `>=` in an action outside parentheses: print and printf redirect there
//     (BusyBox reads `print a >= b` as a redirection too). Outside actions a pattern is an
//     expression, so `$3 > 100` compares; inside parentheses every awk compares, so
//     `if ($3 > 100)` is admitted;
//   - print and printf inside parentheses or outside an action: gawk and BWK awk take a print
//     statement as a for loop's first clause, where `for (print > "f";;)` writes f;
//   - a call of a name that is neither an awk builtin without I/O nor a function the program
//     defines (an awk's builtins this table does not know are never called);
//   - every `@` (gawk's @include, @load, @namespace and indirect calls `@f()` with f="system")
//     and `::` (gawk's namespaces: awk::system);
//   - a `/` after a token where one awk divides and another starts a regular expression:
//     after `)` of an if, while or for condition (gawk, BWK and BusyBox: regexp; mawk:
//     division), after ++ or -- and after a builtin's name (mawk: regexp; the others:
//     division), after a regular expression (BWK: another regexp; the others: division),
//     after a gawk keyword mawk reads as a variable (case), and after a line break that
//     follows an operand (awks differ in which line breaks end a statement);
//   - a bracket expression in a regular expression that holds `/`, `[` (but for [:class:]),
//     `\]` or a leading `]`: gawk reads [/] as a bracket, mawk, BWK and BusyBox end the
//     regexp at its /;
//   - a string or regexp that spans lines, a comment ending in `\`, a number run on into a
//     name (0x1A), and every character no awk reads as a token;
//   - a non-ASCII byte before `\`, `[` or `]`, which gawk in a GBK, Big5 or Shift JIS locale
//     reads as one character with it (multibyteTrail).
//
// Test: TestAwkProgramChecker (awkprog_test.go); FuzzAwkProgram runs every program it admits
// under each installed awk, traced, and fails on any file written, process started, socket
// opened or unnamed file read (TestAwkTraceSeesEscapes proves the trace sees each).

// awkRefusedNames are the names that make an awk program more than a read, in any awk. Each is
// refused as a whole name outside strings, regular expressions and comments. (A list of names,
// not of options: Refusals only pairs a name with why.)
var awkRefusedNames = Refusals{
	{"system", "runs a command"},
	{"getline", "reads from a file or a command"},
	{"close", "closes a file or command the program opened"},
	{"fflush", "flushes a file or command the program opened"},
	{"ENVIRON", "reads the environment, which may hold secrets"},
	{"PROCINFO", "is gawk's process table, which can call functions by name (sorted_in)"},
	{"SYMTAB", "reaches every variable by name in gawk, ENVIRON and ARGV among them"},
	{"FUNCTAB", "names gawk's functions for indirect calls"},
	{"ARGV", "can make awk read files the gate never saw named"},
	{"ARGC", "can make awk read files the gate never saw named"},
	{"bindtextdomain", "makes gawk read message catalogs from a directory the program names"},
	{"dcgettext", "reads a gawk message catalog"},
	{"dcngettext", "reads a gawk message catalog"},
}

// awkBuiltins are the builtin functions, in any awk, that compute without input or output.
// A program may call them.
const awkBuiltins = "length substr index split sub gsub match sprintf sin cos atan2 exp log sqrt int rand srand " +
	"tolower toupper gensub strftime systime mktime and or xor compl lshift rshift asort asorti patsplit " +
	"isarray typeof strtonum"

// awkKeywords are awk's keywords in any awk. After most of them no awk takes a `/` alike.
const awkKeywords = "BEGIN END BEGINFILE ENDFILE function func if else while for do break continue next nextfile " +
	"exit return delete in print printf switch case default"

// awkRegexAfter are the keywords after which every awk starts a regular expression at `/`:
// print /re/, return /re/, else /re/.
const awkRegexAfter = "print printf return else do exit"

// awkConditionKeywords are followed by a parenthesised condition, after which mawk divides at
// `/` and the others start a regular expression (a statement may be one: if (x) /re/).
const awkConditionKeywords = "if while for switch"

// awkCallKeywords may stand before `(` without being calls: print(x), if (x), return (x).
const awkCallKeywords = "if while for switch print printf return exit in"

// awkSlash says what a `/` means after a token.
type awkSlash uint8

const (
	slashRegex     awkSlash = iota // every awk starts a regular expression
	slashDivide                    // every awk divides
	slashAmbiguous                 // awks disagree: refused
)

// awkScan is the tokenizer's state over one piece of program text.
type awkScan struct {
	src string
	pos int
	err error // the first error; it stops the scan

	slash     awkSlash // what a `/` would mean at pos
	lastToken string   // the last token, for messages about `/`
	lastWord  string   // the last token if it was a name, so that `(` after if opens a condition
	newline   bool     // a line break since the last token
	braces    int      // open action braces
	parens    []bool   // open parentheses, each true if it holds an if/while/for condition
	defining  bool     // the last token was `function`: the next name is being defined
	calls     []string // the names called as functions, checked against defined at the end
	defined   []string
}

// checkAwkProgram returns why the awk program, given as one or more pieces of text (gawk -e
// PIECE ...), is not proven to only read and print, or nil. Functions may be defined in one
// piece and called in another; each piece must be complete, as gawk requires.
func checkAwkProgram(pieces ...string) error {
	var calls, defined []string
	for _, src := range pieces {
		if strings.IndexByte(src, 0) >= 0 {
			return fmt.Errorf("the program holds a NUL byte") // no argument can; awks would stop reading there
		}
		if i := multibyteTrail(src); i >= 0 {
			return fmt.Errorf("a non-ASCII byte stands before `%c`, which gawk in a GBK, Big5 or Shift JIS locale reads as part of one character; put the `%c` in a string of its own", src[i+1], src[i+1])
		}
		s := &awkScan{src: src}
		s.scan()
		if s.err != nil {
			return s.err
		}
		calls, defined = append(calls, s.calls...), append(defined, s.defined...)
	}
	for _, c := range calls {
		if !slices.Contains(defined, c) {
			return fmt.Errorf("the program calls `%s`, which is neither an awk builtin without input or output nor a function it defines", c)
		}
	}
	return nil
}

// multibyteTrail returns the index of a non-ASCII byte followed by `\`, `[` or `]`, or -1. In
// GBK, Big5 and Shift JIS those can be the second byte of a character, and gawk reads multibyte
// characters whole in such a locale, while mawk, BusyBox and this scan read bytes: "\xa9\"
// would end the string for gawk and not for the checker. No other byte the scan treats
// specially in strings and regexps (" / newline) can be a second byte there.
func multibyteTrail(src string) int {
	for i := 0; i+1 < len(src); i++ {
		if src[i] >= 0x80 && strings.IndexByte(`\[]`, src[i+1]) >= 0 {
			return i
		}
	}
	return -1
}

func (s *awkScan) fail(format string, args ...any) {
	if s.err == nil {
		s.err = fmt.Errorf(format, args...)
	}
}

func (s *awkScan) eof() bool { return s.pos >= len(s.src) }

// peek returns the byte at pos+n, or 0 past the end (a program word never holds a NUL).
func (s *awkScan) peek(n int) byte {
	if s.pos+n >= len(s.src) {
		return 0
	}
	return s.src[s.pos+n]
}

// scan reads the whole piece. Each turn of the loop consumes at least one byte or fails.
func (s *awkScan) scan() {
	s.slash = slashRegex
	for s.err == nil {
		s.blanks()
		if s.err != nil || s.eof() {
			break
		}
		switch c := s.src[s.pos]; {
		case c == '\n':
			s.pos++ // a line break: a token of its own that `/` looks back across
			s.newline = true
		case c == '"':
			s.str()
		case c == '/':
			s.slashToken()
		case isDigit(c) || c == '.' && isDigit(s.peek(1)):
			s.number()
		case isIdentStart(c):
			s.name()
		default:
			s.operator()
		}
	}
	if s.err != nil {
		return
	}
	switch {
	case s.braces > 0:
		s.fail("the program has an unclosed `{`")
	case len(s.parens) > 0:
		s.fail("the program has an unclosed `(`")
	}
}

// blanks consumes spaces, tabs, backslash-newline continuations and comments, up to the next
// token or line break.
func (s *awkScan) blanks() {
	for !s.eof() {
		switch c := s.src[s.pos]; {
		case c == ' ' || c == '\t':
			s.pos++
		case c == '\\' && s.peek(1) == '\n':
			s.pos += 2 // a continuation: the line break is not a token
		case c == '#':
			end := strings.IndexByte(s.src[s.pos:], '\n')
			if end < 0 {
				end = len(s.src) - s.pos
			}
			if end > 0 && s.src[s.pos+end-1] == '\\' {
				s.fail("a comment ends in `\\`, which some awks may read as a continuation onto the next line")
				return
			}
			s.pos += end // the comment, up to the line break it ends at
		default:
			return
		}
	}
}

// token records a token just consumed: what a `/` after it would mean.
func (s *awkScan) token(text string, slash awkSlash) {
	s.lastToken, s.slash, s.newline = text, slash, false
	s.lastWord, s.defining = "", false
}

// slashAfter is what a `/` at pos means: the last token's meaning, unless a line break came
// after an operand (BusyBox joins some lines where others end the statement).
func (s *awkScan) slashAfter() awkSlash {
	if s.newline && s.slash != slashRegex {
		return slashAmbiguous
	}
	return s.slash
}

// slashToken consumes a `/`: a regular expression, a division or a /= where every awk agrees.
func (s *awkScan) slashToken() {
	switch s.slashAfter() {
	case slashRegex:
		s.regex()
	case slashDivide:
		if s.peek(1) == '=' {
			// gawk reads /= after an operand that is not a variable, or after one inside a
			// longer expression ("a" x /=/), as a regular expression; the others divide.
			s.fail("`/=` is a division-assignment to some awks and a regular expression to gawk; write x = x / y")
			return
		}
		s.pos++
		s.token("/", slashRegex)
	default:
		after := "`" + s.lastToken + "`"
		if s.newline {
			after = "a line break after " + after
		}
		s.fail("a `/` after %s is a division to some awks and a regular expression to others; write the regular expression as $0 ~ /RE/ or put the division's operands in parentheses", after)
	}
}

// str consumes a string literal. Every awk skips the byte after a backslash; none lets a string
// run past a line break (gawk joins a backslash-newline inside one; the checker refuses both).
func (s *awkScan) str() { s.literal('"', "a string", "\"…\"", slashDivide) }

// regex consumes a regular expression literal from its opening `/` to its closing one. A `/`
// after one: BWK awk (macOS, FreeBSD) reads another regular expression, the others a division:
// /a/ / "/; system(…) # " runs system in BWK awk only (found by a red team).
func (s *awkScan) regex() { s.literal('/', "a regular expression", "/…/", slashAmbiguous) }

// literal consumes a string or regular expression literal (what, in errors) from its opening
// quote to the closing one, then makes it the token shown as text, after which a `/` reads as
// slash says. A backslash skips the byte after it; a regular expression's bracket expressions
// are read whole, so a `/` inside one does not close it.
func (s *awkScan) literal(quote byte, what, text string, slash awkSlash) {
	s.pos++ // the opening quote
	for !s.eof() {
		c := s.src[s.pos]
		switch {
		case c == quote:
			s.pos++
			s.token(text, slash)
			return
		case c == '\n':
			s.fail("%s runs past the end of a line", what)
			return
		case c == '\\':
			if s.pos+1 >= len(s.src) || s.src[s.pos+1] == '\n' {
				s.fail("%s holds a backslash at the end of a line", what)
				return
			}
			s.pos += 2 // the backslash and the byte it escapes
		case c == '[' && quote == '/':
			s.bracket()
			if s.err != nil {
				return
			}
		default:
			s.pos++
		}
	}
	s.fail("%s is not closed", what)
}

// bracket consumes a bracket expression inside a regular expression, admitting only the forms
// every awk ends at the same `]`: no `/` (gawk reads on past it, the others end the regexp), no
// `[` but a [:class:], no `\]` and no leading `]`, which awks may read as part of the set.
func (s *awkScan) bracket() {
	s.pos++ // the [
	if s.peek(0) == '^' {
		s.pos++
	}
	if s.peek(0) == ']' {
		s.fail("a bracket expression starting with `]` is read differently by awks; write \\] outside brackets or reorder")
		return
	}
	for !s.eof() {
		c := s.src[s.pos]
		switch {
		case c == ']':
			s.pos++
			return
		case c == '/' || c == '\n':
			s.fail("a `/` or line break inside [...] ends the regular expression in some awks and not in others")
			return
		case c == '[' && s.peek(1) == ':':
			end := strings.Index(s.src[s.pos+2:], ":]")
			if end < 0 || !isAlphaWord(s.src[s.pos+2:s.pos+2+end]) {
				s.fail("a `[` inside [...] must open a character class such as [:space:]")
				return
			}
			s.pos += 2 + end + 2 // [:name:]
		case c == '[':
			s.fail("a `[` inside [...] must open a character class such as [:space:]")
			return
		case c == '\\':
			if n := s.peek(1); n == ']' || n == '[' || n == '/' || n == '\n' || s.pos+1 >= len(s.src) {
				s.fail("a backslash before `%c` inside [...] is read differently by awks", n)
				return
			}
			s.pos += 2 // the backslash and the byte it escapes
		default:
			s.pos++
		}
	}
	s.fail("a regular expression is not closed")
}

// number consumes a decimal number: digits, a fraction, an exponent. A number run on into a
// letter, digit or dot (0x1A, 1e, 1.2.3) is read differently by the awks and refused.
func (s *awkScan) number() {
	start := s.pos
	s.digits()
	if s.peek(0) == '.' {
		s.pos++
		s.digits()
	}
	if c := s.peek(0); c == 'e' || c == 'E' {
		n := 1
		if d := s.peek(1); d == '+' || d == '-' {
			n = 2
		}
		if isDigit(s.peek(n)) {
			s.pos += n
			s.digits()
		}
	}
	if c := s.peek(0); isIdentChar(c) || c == '.' {
		s.fail("the number `%s` runs on into `%c`, which awks read differently", s.src[start:s.pos], c)
		return
	}
	s.token(s.src[start:s.pos], slashDivide)
}

func (s *awkScan) digits() {
	for isDigit(s.peek(0)) {
		s.pos++
	}
}

// name consumes a name: a keyword, a builtin, a variable or a function.
func (s *awkScan) name() {
	start := s.pos
	for !s.eof() && isIdentChar(s.src[s.pos]) {
		s.pos++
	}
	id := s.src[start:s.pos]
	if why, ok := awkRefusedNames.why(id); ok {
		s.fail("the program uses `%s`, which %s", id, why)
		return
	}
	defining := s.defining
	call := s.beforeParen()
	switch {
	case defining:
		s.defined = append(s.defined, id)
	case id == "print" || id == "printf":
		if s.braces == 0 || len(s.parens) > 0 {
			s.fail("`%s` stands outside an action or inside parentheses, where gawk and BWK awk let it redirect (for (print > f;;))", id)
			return
		}
	case call && !wordlist.Has(awkCallKeywords, id) && !wordlist.Has(awkBuiltins, id):
		if wordlist.Has(awkKeywords, id) {
			s.fail("the keyword `%s` before `(` is not an awk form the checker admits", id)
			return
		}
		s.calls = append(s.calls, id)
	}
	slash := slashDivide
	switch {
	case wordlist.Has(awkRegexAfter, id):
		slash = slashRegex
	case wordlist.Has(awkKeywords, id) || wordlist.Has(awkBuiltins, id):
		slash = slashAmbiguous
	}
	s.token(id, slash)
	s.lastWord = id
	if id == "function" || id == "func" {
		s.defining = true
	}
}

// beforeParen reports whether the next token is `(`, after blanks on the same line: gawk and
// BusyBox call a builtin with a space before its parenthesis, BusyBox a function too.
func (s *awkScan) beforeParen() bool {
	for i := s.pos; i < len(s.src); i++ {
		switch s.src[i] {
		case ' ', '\t':
			continue
		case '(':
			return true
		}
		return false
	}
	return false
}

// awkOperators are the operator tokens the checker admits, longest first so that a scan takes
// the longest: `>` and `|` are judged in operator, and every other byte is refused.
var awkOperators = []string{
	"**=", "&&", "||", "==", "!=", "<=", ">=", ">>", "!~", "++", "--", "+=", "-=", "*=", "%=", "^=", "**",
	"{", "}", "(", ")", "[", "]", ";", ",", "+", "-", "*", "%", "^", "!", ">", "<", "=", "?", ":", "~", "$",
}

// operator consumes one operator token.
func (s *awkScan) operator() {
	op := ""
	for _, o := range awkOperators {
		if strings.HasPrefix(s.src[s.pos:], o) {
			op = o
			break
		}
	}
	switch {
	case s.peek(0) == '|' && op != "||":
		s.fail("the program holds `|`, which pipes to or from a command")
		return
	case s.peek(0) == '@':
		s.fail("the program holds `@`, which in gawk includes or loads code or calls a function by name")
		return
	case op == "":
		s.fail("the program holds `%s`, which the awk checker does not read", printable(s.peek(0)))
		return
	case op == ":" && s.peek(1) == ':':
		s.fail("the program holds `::`, a gawk namespace the checker cannot see into")
		return
	}
	s.pos += len(op)
	slash := slashRegex
	switch op {
	case "{":
		if len(s.parens) > 0 {
			s.fail("a `{` inside parentheses is not awk the checker reads")
			return
		}
		s.braces++
	case "}":
		if s.braces == 0 || len(s.parens) > 0 {
			s.fail("the program has a `}` without its `{`")
			return
		}
		s.braces--
	case "(":
		s.parens = append(s.parens, wordlist.Has(awkConditionKeywords, s.lastWord))
	case ")":
		if len(s.parens) == 0 {
			s.fail("the program has a `)` without its `(`")
			return
		}
		slash = slashDivide
		if s.parens[len(s.parens)-1] {
			slash = slashAmbiguous // if (x) /re/: a regexp to gawk, BWK and BusyBox, a division to mawk
		}
		s.parens = s.parens[:len(s.parens)-1]
	case "]":
		slash = slashDivide
	case "++", "--":
		slash = slashAmbiguous // x++ /re/: a regexp to mawk, a division to the others
	case ">", ">>", ">=":
		if s.braces > 0 && len(s.parens) == 0 {
			s.fail("`%s` in an action outside parentheses redirects print to a file; compare in parentheses (if ($3 > 100) print) or in a pattern ($3 > 100)", op)
			return
		}
	}
	s.token(op, slash)
}

func printable(c byte) string {
	if c >= ' ' && c < 0x7f {
		return string(c)
	}
	return fmt.Sprintf("\\x%02x", c)
}

func isDigit(c byte) bool      { return '0' <= c && c <= '9' }
func isIdentStart(c byte) bool { return c == '_' || 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' }

func isAlphaWord(s string) bool {
	for i := 0; i < len(s); i++ {
		if !('a' <= s[i] && s[i] <= 'z') {
			return false
		}
	}
	return s != ""
}
