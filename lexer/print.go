package lexer

import "strings"

// Quote returns s written so that the shell reads it back as exactly one word with value s, in a
// form this lexer also accepts: bare when every byte is a bare character (and it does not start
// with `=` or `~`) or s is a lone `[` or `]`, otherwise in single quotes, with each `'` written as "'".
func Quote(s string) string {
	if s != "" && s[0] != '=' && s[0] != '~' && allBare(s) || s == "[" || s == "]" {
		return s // bare: a lone bracket is not a glob (the lexer's word)
	}
	var b strings.Builder
	b.Grow(len(s) + 2)
	open := false
	for i := 0; i < len(s); i++ {
		if s[i] == '\'' {
			if open {
				b.WriteByte('\'')
				open = false
			}
			b.WriteString(`"'"`)
			continue
		}
		if !open {
			b.WriteByte('\'')
			open = true
		}
		b.WriteByte(s[i])
	}
	if open {
		b.WriteByte('\'')
	}
	if b.Len() == 0 {
		return "''"
	}
	return b.String()
}

func allBare(s string) bool {
	for i := 0; i < len(s); i++ {
		if !isBareChar(s[i]) {
			return false
		}
	}
	return true
}

// FormatWord writes one word the way the canonical form spells it.
func FormatWord(w Word) string {
	switch {
	case w.Split:
		return "${" + w.Var + "}" // braced: $HOME alone would read as ~
	case w.Var != "":
		return `"$` + w.Var + `"`
	case w.Parts != nil:
		// Each variable in double quotes, as judged, each run of text as Quote quotes it: the
		// braces end the name, so "${f}".bak reads $f, then .bak.
		var b strings.Builder
		for _, p := range w.Parts {
			if p.Var != "" {
				b.WriteString(`"${` + p.Var + `}"`)
				continue
			}
			b.WriteString(Quote(p.Text))
		}
		return b.String()
	case w.Glob != "" && w.Tilde:
		return "~/" + formatPattern(w.Glob[2:])
	case w.Tilde && w.Value == "~":
		return "~"
	case w.Glob != "":
		return formatPattern(w.Glob)
	case w.Tilde:
		// ~/ must stay unquoted for the shell to expand it; the rest is quoted as needed.
		rest := w.Value[2:]
		if rest == "" {
			return "~/"
		}
		return "~/" + Quote(rest)
	}
	return Quote(w.Value)
}

// formatPattern writes a pattern (Word.Glob) so that the shell reads it back as the same
// pattern: each run of literal text quoted as Quote quotes it, the glob characters bare.
func formatPattern(pat string) string {
	var b, lit strings.Builder
	flush := func() {
		if lit.Len() > 0 {
			b.WriteString(Quote(lit.String()))
			lit.Reset()
		}
	}
	for i := 0; i < len(pat); i++ {
		switch c := pat[i]; {
		case c == '\\' && i+1 < len(pat):
			i++
			lit.WriteByte(pat[i])
		case c == '*' || c == '?':
			flush()
			b.WriteByte(c)
		default:
			lit.WriteByte(c)
		}
	}
	flush()
	return b.String()
}

// ExpandHome returns w with a leading ~ (or $HOME) replaced by home, a literal path: what the
// judge judges and the rewrite runs, so that the shell expands nothing. w is returned unchanged
// when it does not start with ~.
func ExpandHome(w Word, home string) Word {
	if !w.Tilde {
		return w
	}
	out := Word{Pos: w.Pos, Raw: w.Raw, Value: home + w.Value[1:], Quoted: true, Pattern: w.Pattern}
	if w.Glob != "" {
		var b strings.Builder
		for i := 0; i < len(home); i++ {
			if strings.IndexByte(`*?[]\`, home[i]) >= 0 {
				b.WriteByte('\\')
			}
			b.WriteByte(home[i])
		}
		out.Glob = b.String() + w.Glob[1:]
	}
	return out
}

// Printed is what the printer writes for one command: environment assignments the hook itself
// adds (never the model's), then the words.
type Printed struct {
	Env   []string // NAME=value, already safe to print bare or quoted by Quote
	Words []Word   // program name first
}

// Print writes the canonical form of a parsed script. each says how to print each command; nil
// prints the command as parsed. The output is one line per pipeline in bodies and uses `; ` and
// the shapes' keywords exactly as parse.go accepts them.
func Print(sc *Script, each func(*SimpleCommand) Printed) string {
	if each == nil {
		each = func(c *SimpleCommand) Printed { return Printed{Words: append([]Word{c.Name}, c.Args...)} }
	}
	var b strings.Builder
	if sc.Cd != nil {
		b.WriteString("cd ")
		b.WriteString(FormatWord(*sc.Cd))
		b.WriteString(" && ")
	}
	for i, it := range sc.Items {
		if i > 0 {
			printOp(&b, it.Op)
		}
		switch {
		case it.Pipeline != nil:
			printPipeline(&b, it.Pipeline, each)
		case it.If != nil:
			b.WriteString("if ")
			printPipeline(&b, it.If.Cond, each)
			b.WriteString("; then ")
			printBody(&b, it.If.Then, each)
			if it.If.Else != nil {
				b.WriteString(" else ")
				printBody(&b, it.If.Else, each)
			}
			b.WriteString(" fi")
		case it.For != nil:
			b.WriteString("for ")
			b.WriteString(it.For.Var)
			b.WriteString(" in")
			for _, w := range it.For.Items {
				b.WriteByte(' ')
				b.WriteString(FormatWord(w))
			}
			b.WriteString("; do ")
			printBody(&b, it.For.Body, each)
			b.WriteString(" done")
		}
	}
	return b.String()
}

// printOp writes a list operator; `;` and newlines are both printed `; `.
func printOp(b *strings.Builder, op TokenKind) {
	switch op {
	case TokAndAnd:
		b.WriteString(" && ")
	case TokOrOr:
		b.WriteString(" || ")
	default:
		b.WriteString("; ")
	}
}

// printBody writes a body: pipelines joined by their operators, each run ended by `;`.
func printBody(b *strings.Builder, body []*Pipeline, each func(*SimpleCommand) Printed) {
	for i, pl := range body {
		if i > 0 {
			if pl.Op == TokAndAnd || pl.Op == TokOrOr {
				printOp(b, pl.Op)
			} else {
				b.WriteByte(' ')
			}
		}
		printPipeline(b, pl, each)
		if i+1 == len(body) || body[i+1].Op != TokAndAnd && body[i+1].Op != TokOrOr {
			b.WriteByte(';')
		}
	}
}

func printPipeline(b *strings.Builder, pl *Pipeline, each func(*SimpleCommand) Printed) {
	for i, c := range pl.Cmds {
		if i > 0 {
			b.WriteString(" | ")
		}
		p := each(c)
		for _, e := range p.Env {
			b.WriteString(e)
			b.WriteByte(' ')
		}
		for j, w := range p.Words {
			if j > 0 {
				b.WriteByte(' ')
			}
			b.WriteString(FormatWord(w))
		}
		for _, r := range c.Redirs {
			b.WriteByte(' ')
			b.WriteString(r.Kind.String())
			if r.Kind == TokIn {
				b.WriteByte(' ')
				b.WriteString(FormatWord(r.File))
			}
		}
	}
}
