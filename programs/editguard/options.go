package editguard

// The edit guard (see doc.go): option parsing.

import "strings"

// optionSpec describes a program's options as far as the edit guard needs: which take a value,
// so that operands are found. Every option not listed is a flag.
type optionSpec struct {
	valued   string   // short options taking a value, attached or in the next word
	optional string   // short options taking a value only when attached (sed -i.bak)
	long     []string // long options taking a value, after = or in the next word
}

type option struct {
	name  string
	value word
}

type parsedArgs struct {
	opts     []option
	operands []word
	// maybeOpt: a word that may begin with anything stood where an option could: it may be -r.
	maybeOpt bool
	// dashDash is how many operands came before `--`, or -1 when there was none: git reads
	// what follows it as paths.
	dashDash int
}

func (p *parsedArgs) has(names ...string) bool {
	for _, o := range p.opts {
		for _, n := range names {
			if o.name == n {
				return true
			}
		}
	}
	return false
}

func (p *parsedArgs) values(names ...string) []word {
	var out []word
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

func (o *optionSpec) parse(args []word) parsedArgs {
	p := parsedArgs{dashDash: -1}
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
		case v == "--":
			ended = true
			p.dashDash = len(p.operands)
		case strings.HasPrefix(v, "--"):
			name, val, has := strings.Cut(v, "=")
			opt := option{name: name}
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
					opt := option{name: name}
					if k+1 < len(v) {
						opt.value = lit(v[k+1:])
					} else if i+1 < len(args) {
						i++
						opt.value = args[i]
					}
					p.opts = append(p.opts, opt)
					k = len(v)
				case strings.IndexByte(o.optional, v[k]) >= 0:
					p.opts = append(p.opts, option{name: name, value: lit(v[k+1:])})
					k = len(v)
				default:
					p.opts = append(p.opts, option{name: name})
				}
			}
		}
	}
	return p
}
