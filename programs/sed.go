package programs

import (
	"fmt"
	"strings"
)

// sed is allowed only as a printer: -n with a script made of addresses and print-only commands.
// sed edits files in place with -i (also hidden in clusters such as -ni, or as --in-place and
// its abbreviations), writes files with the w and W commands and the s///w flag, runs programs
// with the e command and the s///e flag (GNU), and reads script files the gate cannot see with
// -f. The script grammar below accepts only what it knows prints.
//
// The same script must mean the same thing to GNU sed and to BSD sed (macOS): -l is refused
// (GNU gives it a value, BSD none, so BSD would run the next word as the script), and so is a
// regular expression whose bracket expression holds the delimiter (BSD skips it inside [...],
// GNU does not, so the two split s/[/]/…/ differently). BSD sed stops reading options at the
// first operand, so without an -e before it the first operand is the script even when an -e
// follows: `sed -n '1w /tmp/x' -e 1p f` is a print for GNU and a write for BSD. The script
// check runs on both readings (bsd.go).
//
// Refuses: -i, --in-place (and abbreviations), -f/--file, -l, a missing -n, the commands w W r R
// e a i c v and every command not listed, the s flags w W e, a delimiter inside [...], and
// anything it cannot parse, in either reading. Test: TestSedRefusesWrites, TestSedBSDReading
// (sed_test.go), TestStopReadingIsReal (bsd_test.go).
var sedRule = &Program{
	Name: "sed", Summary: "print lines: sed -n with print-only scripts (p, =, l, q, s///p; no -i, w, e)", Files: true, Filter: true,
	BSD: &BSD{Getopt: "EHI:ae:f:i:lnru", Lacks: "sz", Note: "getopt(3) `EHI:ae:f:i:lnru`: options end at the first operand, so without an -e before it the first operand is the script even if an -e follows (`sed -n '1w /tmp/x' -e 1p f` writes /tmp/x); -i and -I take an extension"},
	Opts: &Options{
		Flags:    "-n -E -r -s -u -z --quiet --silent --regexp-extended --separate --unbuffered --null-data --posix --debug --sandbox",
		Valued:   "-e --expression",
		Patterns: "-e --expression",
		Refused:  Refusals{{"-i", "edits files in place"}, {"--in-place", "edits files in place"}, {"-I", "edits files in place (BSD)"}, {"-f", "reads a script from a file the gate cannot see"}, {"--file", "reads a script from a file the gate cannot see"}, {"--follow-symlinks", "only matters with -i"}, {"-l", "takes a value in GNU sed but none in BSD sed, which would read the next word as the script"}, {"--line-length", "is not needed to print"}},
	},
	PatternOperand: func(c *ParsedArgs, i int) bool { return firstOperandUnless(c, i, "-e", "--expression") },
	Check:          checkSed,
}

func checkSed(c *ParsedArgs) *Refusal {
	if !c.Has("-n", "--quiet", "--silent") {
		return &Refusal{Program: "sed", What: "sed is allowed only with -n and a print-only script", Hint: "e.g. sed -n '10,40p' FILE"}
	}
	scripts := c.Values("-e", "--expression")
	if len(scripts) == 0 {
		if len(c.Operands) == 0 {
			return refuse("sed", "needs a script")
		}
		scripts = []string{c.Operands[0].Value}
	}
	for _, s := range scripts {
		if err := checkSedScript(s); err != nil {
			return &Refusal{Program: "sed", What: err.Error(), Hint: "sed may only print: addresses with p, =, l, q, d, n, s///p"}
		}
	}
	return nil
}

// sedPrintCommands are the one-letter commands that only print, move between lines, or stop.
const sedPrintCommands = "pP=lqQdDnNgGhHxzF"

// sedScript is a tiny recursive-descent reader of GNU sed's script syntax, restricted to the
// print-only subset. Every step consumes input or fails.
type sedScript struct {
	s     string
	i     int
	depth int
}

func checkSedScript(s string) error {
	p := &sedScript{s: s}
	if err := p.list(false); err != nil {
		return err
	}
	return nil
}

func (p *sedScript) eof() bool { return p.i >= len(p.s) }
func (p *sedScript) ch() byte {
	if p.eof() {
		return 0
	}
	return p.s[p.i]
}

func (p *sedScript) skipBlanks() {
	for !p.eof() && (p.s[p.i] == ' ' || p.s[p.i] == '\t') {
		p.i++
	}
}

// list reads commands separated by ; until the end or, inside braces, a }.
func (p *sedScript) list(inBraces bool) error {
	for {
		for !p.eof() && (p.ch() == ';' || p.ch() == ' ' || p.ch() == '\t') {
			p.i++
		}
		if p.eof() {
			if inBraces {
				return fmt.Errorf("unclosed `{` in the sed script")
			}
			return nil
		}
		if p.ch() == '}' {
			if !inBraces {
				return fmt.Errorf("unexpected `}` in the sed script")
			}
			p.i++
			return nil
		}
		if err := p.command(); err != nil {
			return err
		}
	}
}

func (p *sedScript) command() error {
	if p.ch() == '#' {
		return fmt.Errorf("comments are not allowed in a sed script")
	}
	if err := p.address(false); err != nil {
		return err
	}
	p.skipBlanks()
	if p.ch() == ',' {
		p.i++
		p.skipBlanks()
		if err := p.address(true); err != nil {
			return err
		}
		p.skipBlanks()
	}
	if p.ch() == '!' {
		p.i++
		p.skipBlanks()
	}
	if p.eof() {
		return fmt.Errorf("missing command in the sed script")
	}
	c := p.ch()
	p.i++
	switch {
	case c == '{':
		p.depth++
		if p.depth > 16 {
			return fmt.Errorf("sed braces nested too deep")
		}
		err := p.list(true)
		p.depth--
		return err
	case c == 's':
		return p.substitute()
	case c == 'y':
		return p.transliterate()
	case c == 'q' || c == 'Q' || c == 'l':
		p.skipBlanks()
		for !p.eof() && p.ch() >= '0' && p.ch() <= '9' {
			p.i++
		}
	case strings.IndexByte(sedPrintCommands, c) >= 0:
	case strings.IndexByte("wWrReaicv", c) >= 0:
		return fmt.Errorf("the sed command `%c` %s", c, sedCommandWhy(c))
	default:
		return fmt.Errorf("the sed command `%c` is not on the print-only list", c)
	}
	return p.end()
}

func sedCommandWhy(c byte) string {
	switch c {
	case 'w', 'W':
		return "writes a file"
	case 'r', 'R':
		return "reads another file into the output"
	case 'e':
		return "runs a program"
	}
	return "is not on the print-only list"
}

// end requires a command to be followed by a separator, a closing brace or the end.
func (p *sedScript) end() error {
	p.skipBlanks()
	switch {
	case p.eof(), p.ch() == ';':
		return nil
	case p.ch() == '}':
		return nil
	}
	return fmt.Errorf("unexpected `%c` after a sed command", p.ch())
}

// address reads an optional line address: N, N~M, $, /RE/ or \cREc with I/M flags; a second
// address may also be +N or ~N.
func (p *sedScript) address(second bool) error {
	switch c := p.ch(); {
	case c >= '0' && c <= '9':
		p.digits()
		if p.ch() == '~' {
			p.i++
			p.digits()
		}
	case c == '$':
		p.i++
	case second && (c == '+' || c == '~'):
		p.i++
		if !(p.ch() >= '0' && p.ch() <= '9') {
			return fmt.Errorf("expected a number after `%c` in a sed address", c)
		}
		p.digits()
	case c == '/':
		p.i++
		if err := p.regex('/'); err != nil {
			return err
		}
		p.regexFlags()
	case c == '\\':
		p.i++
		if p.eof() || p.ch() == '\\' || p.ch() == '\n' {
			return fmt.Errorf("bad delimiter in a sed address")
		}
		d := p.ch()
		p.i++
		if err := p.regex(d); err != nil {
			return err
		}
		p.regexFlags()
	case second:
		return fmt.Errorf("expected a second address after `,` in the sed script")
	}
	return nil
}

func (p *sedScript) digits() {
	for !p.eof() && p.ch() >= '0' && p.ch() <= '9' {
		p.i++
	}
}

func (p *sedScript) regexFlags() {
	for !p.eof() && (p.ch() == 'I' || p.ch() == 'M') {
		p.i++
	}
}

// delimited consumes text up to an unescaped delimiter d and the delimiter itself.
func (p *sedScript) delimited(d byte) error { return p.through(d, false) }

// regex consumes a regular expression up to an unescaped delimiter d, refusing one whose
// bracket expression holds d: BSD sed reads [/] as a bracket holding /, GNU sed as the end of
// the expression, so the rest of the script would differ between them.
func (p *sedScript) regex(d byte) error { return p.through(d, true) }

// through consumes up to an unescaped delimiter d and d itself; in a regex, a bracket
// expression is consumed whole.
func (p *sedScript) through(d byte, regex bool) error {
	for !p.eof() {
		c := p.ch()
		p.i++
		switch {
		case c == '\\':
			if p.eof() {
				return fmt.Errorf("a sed script may not end with a backslash")
			}
			p.i++ // the escaped byte
		case c == '[' && regex:
			if err := p.bracket(d); err != nil {
				return err
			}
		case c == d:
			return nil
		}
	}
	if regex {
		return fmt.Errorf("unterminated regular expression in the sed script")
	}
	return fmt.Errorf("unterminated regular expression or text in the sed script")
}

// bracket consumes a bracket expression whose [ is consumed: up to the first ] that is not its
// first character and not the end of a [:class:], [=equiv=] or [.coll.] inside it.
func (p *sedScript) bracket(d byte) error {
	j := p.i
	if j < len(p.s) && p.s[j] == '^' {
		j++
	}
	if j < len(p.s) && p.s[j] == ']' {
		j++
	}
	for {
		if j >= len(p.s) {
			return fmt.Errorf("unterminated [...] in the sed script")
		}
		if p.s[j] == ']' {
			break
		}
		if p.s[j] == d {
			return fmt.Errorf("the delimiter `%c` inside [...] is read differently by GNU and BSD sed", d)
		}
		if p.s[j] == '[' && j+1 < len(p.s) && strings.IndexByte(":=.", p.s[j+1]) >= 0 {
			end := strings.Index(p.s[j+2:], string(p.s[j+1])+"]")
			if end < 0 {
				return fmt.Errorf("unterminated [%c…%c] in the sed script", p.s[j+1], p.s[j+1])
			}
			if k := strings.IndexByte(p.s[j+2:j+2+end], d); k >= 0 {
				return fmt.Errorf("the delimiter `%c` inside [...] is read differently by GNU and BSD sed", d)
			}
			j += 2 + end + 2
			continue
		}
		j++
	}
	p.i = j + 1 // consumes the bracket expression
	return nil
}

// delimiter consumes the character that delimits the s or y command's parts. Backslash, newline
// and space are refused: GNU sed treats them specially or not at all, and the judge must not
// guess which.
func (p *sedScript) delimiter(cmd byte) (byte, error) {
	if p.eof() || p.ch() == '\\' || p.ch() == '\n' || p.ch() == ' ' {
		return 0, fmt.Errorf("bad delimiter after `%c` in the sed script", cmd)
	}
	d := p.ch()
	p.i++
	return d, nil
}

// substitute reads s/RE/REPLACEMENT/FLAGS after the s, allowing only flags that print or
// change matching: g, p, i, I, m, M and a number.
func (p *sedScript) substitute() error {
	d, err := p.delimiter('s')
	if err != nil {
		return err
	}
	if err := p.regex(d); err != nil {
		return err
	}
	if err := p.delimited(d); err != nil {
		return err
	}
	for !p.eof() {
		c := p.ch()
		switch {
		case strings.IndexByte("gpiImM0123456789", c) >= 0:
			p.i++
			continue
		case c == 'w' || c == 'W':
			return fmt.Errorf("the s///%c flag writes a file", c)
		case c == 'e':
			return fmt.Errorf("the s///e flag runs the pattern space as a command")
		}
		break
	}
	return p.end()
}

// transliterate reads y/SRC/DST/.
func (p *sedScript) transliterate() error {
	d, err := p.delimiter('y')
	if err != nil {
		return err
	}
	if err := p.delimited(d); err != nil {
		return err
	}
	if err := p.delimited(d); err != nil {
		return err
	}
	return p.end()
}
