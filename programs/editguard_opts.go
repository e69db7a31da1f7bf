package programs

// The edit guard (see editguard.go): option parsing.

import "strings"

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
