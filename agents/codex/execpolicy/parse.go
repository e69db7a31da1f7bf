package execpolicy

import (
	"fmt"
	"strings"
)

// Parse reads a .rules file: a sequence of prefix_rule(…) and host_executable(…) calls whose
// arguments are keyword=value, a value being a string or a list of values, with # comments. Any
// other Starlark is an error naming the line: hookctl does not guess at what it cannot read.
func Parse(file, src string) ([]*Rule, error) {
	p := &parser{file: file, src: src, line: 1}
	var rules []*Rule
	for {
		p.space()
		if p.off >= len(p.src) {
			return rules, nil
		}
		line := p.line
		name := p.ident()
		if name == "" {
			return nil, p.errorf("expected prefix_rule(…)")
		}
		p.space()
		if !p.accept('(') {
			return nil, p.errorf("expected ( after %s", name)
		}
		args, err := p.args()
		if err != nil {
			return nil, err
		}
		switch name {
		case "prefix_rule":
			r, err := p.rule(args, line)
			if err != nil {
				return nil, err
			}
			rules = append(rules, r)
		case "host_executable":
			// Metadata naming a program's paths; it decides nothing.
		default:
			return nil, fmt.Errorf("%s:%d: %s(…) is not a rule hookctl reads", file, line, name)
		}
	}
}

// value is a string, or a list of values.
type value struct {
	str    string
	list   []value
	isList bool
}

type parser struct {
	file, src string
	off, line int
}

func (p *parser) errorf(format string, args ...any) error {
	return fmt.Errorf("%s:%d: %s", p.file, p.line, fmt.Sprintf(format, args...))
}

// space skips blanks, newlines and comments.
func (p *parser) space() {
	for p.off < len(p.src) {
		switch c := p.src[p.off]; {
		case c == '\n':
			p.line++
			p.off++
		case c == ' ' || c == '\t' || c == '\r':
			p.off++
		case c == '#':
			for p.off < len(p.src) && p.src[p.off] != '\n' {
				p.off++
			}
		default:
			return
		}
	}
}

func (p *parser) accept(c byte) bool {
	p.space()
	if p.off < len(p.src) && p.src[p.off] == c {
		p.off++
		return true
	}
	return false
}

func (p *parser) ident() string {
	start := p.off
	for p.off < len(p.src) {
		c := p.src[p.off]
		if c == '_' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || p.off > start && c >= '0' && c <= '9' {
			p.off++
			continue
		}
		break
	}
	return p.src[start:p.off]
}

// args reads keyword arguments up to the closing parenthesis.
func (p *parser) args() (map[string]value, error) {
	args := map[string]value{}
	for {
		if p.accept(')') {
			return args, nil
		}
		p.space()
		key := p.ident()
		if key == "" || !p.accept('=') {
			return nil, p.errorf("expected a keyword argument (name = value)")
		}
		if _, dup := args[key]; dup {
			return nil, p.errorf("%s given twice", key)
		}
		v, err := p.value()
		if err != nil {
			return nil, err
		}
		args[key] = v
		if !p.accept(',') {
			if p.accept(')') {
				return args, nil
			}
			return nil, p.errorf("expected , or )")
		}
	}
}

func (p *parser) value() (value, error) {
	p.space()
	if p.accept('[') {
		v := value{isList: true}
		for {
			if p.accept(']') {
				return v, nil
			}
			e, err := p.value()
			if err != nil {
				return v, err
			}
			v.list = append(v.list, e)
			if !p.accept(',') {
				if p.accept(']') {
					return v, nil
				}
				return v, p.errorf("expected , or ]")
			}
		}
	}
	s, err := p.str()
	return value{str: s}, err
}

// str reads a quoted string, single or double, with backslash escapes.
func (p *parser) str() (string, error) {
	if p.off >= len(p.src) || p.src[p.off] != '"' && p.src[p.off] != '\'' {
		return "", p.errorf("expected a string or a list")
	}
	q := p.src[p.off]
	if strings.HasPrefix(p.src[p.off:], strings.Repeat(string(q), 3)) {
		return "", p.errorf("triple-quoted strings are not read")
	}
	p.off++
	var b strings.Builder
	for p.off < len(p.src) {
		c := p.src[p.off]
		switch {
		case c == q:
			p.off++
			return b.String(), nil
		case c == '\n':
			return "", p.errorf("a string runs past the end of its line")
		case c == '\\' && p.off+1 < len(p.src):
			p.off++
			switch e := p.src[p.off]; e {
			case 'n':
				b.WriteByte('\n')
			case 't':
				b.WriteByte('\t')
			case '\\', '"', '\'':
				b.WriteByte(e)
			default:
				return "", p.errorf("the escape \\%c is not read", e)
			}
			p.off++
		default:
			b.WriteByte(c)
			p.off++
		}
	}
	return "", p.errorf("a string is not closed")
}

// rule builds a prefix_rule from its arguments.
func (p *parser) rule(args map[string]value, line int) (*Rule, error) {
	r := &Rule{Decision: Allow, File: p.file, Line: line}
	bad := func(format string, a ...any) error {
		return fmt.Errorf("%s:%d: prefix_rule: %s", p.file, line, fmt.Sprintf(format, a...))
	}
	for k, v := range args {
		switch k {
		case "pattern":
			if !v.isList || len(v.list) == 0 {
				return nil, bad("pattern must be a non-empty list")
			}
			for _, e := range v.list {
				if !e.isList {
					r.Pattern = append(r.Pattern, []string{e.str})
					continue
				}
				var alts []string
				for _, a := range e.list {
					if a.isList {
						return nil, bad("a pattern's alternatives must be strings")
					}
					alts = append(alts, a.str)
				}
				if len(alts) == 0 {
					return nil, bad("an empty list of alternatives")
				}
				r.Pattern = append(r.Pattern, alts)
			}
		case "decision":
			switch v.str {
			case "allow":
				r.Decision = Allow
			case "prompt":
				r.Decision = Prompt
			case "forbidden":
				r.Decision = Forbidden
			default:
				return nil, bad("decision %q is not allow, prompt or forbidden", v.str)
			}
		case "justification":
			r.Justification = v.str
		case "match", "not_match":
			// Codex's own load-time examples; it refuses a file whose examples fail.
		default:
			return nil, bad("unknown argument %s", k)
		}
	}
	if len(r.Pattern) == 0 {
		return nil, bad("no pattern")
	}
	return r, nil
}
