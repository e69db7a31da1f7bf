package editguard

// The edit guard (see doc.go): words.

import (
	"strings"

	"github.com/hookctl/hookctl/internal/clip"
	"github.com/hookctl/hookctl/lexer"
	"github.com/hookctl/hookctl/programs"

	"mvdan.cc/sh/v3/syntax"
)

// word is one argument after the shell's expansions, as far as they can be known without
// running anything.
type word struct {
	s    string // the value; each part that cannot be known is unknown
	glob int    // offset of the first unquoted glob character in s, or -1
	// inside marks a path known only to lie strictly inside the project (the {} of find -exec
	// when every starting point is inside it).
	inside bool
	// mayProtect marks an inside path that could be a protected file.
	mayProtect bool
	// shown is the word for messages when it differs from s: unknown parts as written ($X,
	// $(…), ~root).
	shown string
}

func lit(s string) word { return word{s: s, glob: -1} }

var unknownWord = word{s: unknown, glob: -1}

// literalWords reads each of args whose value lexer.Literal knows as that value and every other
// as a word that cannot be known.
func literalWords(args []*syntax.Word) []word {
	argv := make([]word, 0, len(args))
	for _, w := range args {
		if v, ok := lexer.Literal(w); ok {
			argv = append(argv, lit(v))
		} else {
			argv = append(argv, unknownWord)
		}
	}
	return argv
}

func (w word) known() bool {
	return !w.inside && !strings.Contains(w.s, unknown) && !strings.Contains(w.s, tempPath)
}

// startsUnknown reports whether the word may begin with anything, an option included.
func (w word) startsUnknown() bool {
	return w.inside || strings.HasPrefix(w.s, unknown)
}

// base returns the program name a command word runs: its last path element.
func (w word) base() (string, bool) {
	if w.inside {
		return "", false
	}
	b := w.s[strings.LastIndexByte(w.s, '/')+1:]
	if strings.Contains(b, unknown) || strings.Contains(b, tempPath) || (b == "" && w.s == "") {
		return "", false
	}
	return b, true
}

// show renders a word for a message.
func (w word) show() string {
	if w.inside {
		return "{}"
	}
	if w.shown != "" {
		return clip.Short(w.shown)
	}
	s := strings.ReplaceAll(w.s, unknown, "…")
	return clip.Short(strings.ReplaceAll(s, tempPath, "$(mktemp)"))
}

// literal is a word's value as lexer.Literal reads it (the one word reader every judge shares),
// or "" when the word is not literal.
func literal(w *syntax.Word) string {
	v, _ := lexer.Literal(w)
	return v
}

// simpleParam reports whether pe is $NAME or ${NAME} with no operators.
func simpleParam(pe *syntax.ParamExp) bool {
	return pe.Param != nil && pe.Flags == nil && !pe.Excl && !pe.Length && !pe.Width && !pe.IsSet &&
		pe.Split == syntax.OptUnset && pe.GlobSubst == syntax.OptUnset && pe.RcExpand == syntax.OptUnset &&
		pe.NestedParam == nil && pe.Index == nil && len(pe.Modifiers) == 0 && pe.Slice == nil &&
		pe.Repl == nil && pe.Names == 0 && pe.Exp == nil
}

func (j *judge) param(pe *syntax.ParamExp, st *state) (string, bool) {
	if e := pe.Exp; e != nil && (e.Op == syntax.DefaultUnset || e.Op == syntax.DefaultUnsetOrNull) {
		// ${TMPDIR:-/tmp}: the value when it is known and set (and, for :-, not empty); the
		// default when it is known to be empty; unknown otherwise.
		bare := *pe
		bare.Exp = nil
		if !simpleParam(&bare) {
			return "", false
		}
		v, ok := st.get(pe.Param.Value)
		switch {
		case !ok:
			return "", false
		case v != "" || e.Op == syntax.DefaultUnset:
			return v, true
		}
		if d := literal(e.Word); d != "" || e.Word == nil {
			return d, !strings.ContainsAny(d, "$`\\")
		}
		return "", false
	}
	if !simpleParam(pe) {
		return "", false
	}
	return st.get(pe.Param.Value)
}

// alternative is one word being built; brace expansion makes several.
type alternative struct {
	s       []byte
	shown   []byte // s with unknown parts as written; nil while they are the same
	glob    int
	started bool // text (even empty quotes) has been added, so a ~ is no longer at the start
}

func (a *alternative) add(s string, quoted bool) {
	a.addShown(s, s, quoted)
}

// addShown adds s, written in the command as shown. A word that would grow longer than a command
// (a variable expanded many times over) gets an unknown part instead.
func (a *alternative) addShown(s, shown string, quoted bool) {
	if len(a.s)+len(s) > maxLen {
		s, shown, quoted = unknown, "…", true
	}
	if !quoted {
		if i := strings.IndexAny(s, "*?["); i >= 0 && a.glob < 0 {
			a.glob = len(a.s) + i
		}
	}
	if a.shown == nil && shown != s {
		a.shown = append(make([]byte, 0, len(a.s)+len(shown)), a.s...) // never nil
	}
	if a.shown != nil {
		a.shown = append(a.shown, shown...)
	}
	a.s = append(a.s, s...)
	a.started = true
}

func (a *alternative) word() word {
	w := word{s: string(a.s), glob: a.glob}
	if a.shown != nil {
		w.shown = string(a.shown)
	}
	return w
}

func (a alternative) copy() alternative {
	c := alternative{s: append([]byte(nil), a.s...), glob: a.glob, started: a.started}
	if a.shown != nil {
		c.shown = append(make([]byte, 0, len(a.shown)), a.shown...)
	}
	return c
}

// expand returns the words a shell word expands to: brace expansion, tilde, known variables,
// quote removal, and field splitting of a whole-word unquoted variable. Substitutions are
// unknown. Pathname expansion is not done; the word keeps its glob position instead.
func (j *judge) expand(w *syntax.Word, st *state) []word {
	if w == nil {
		return nil
	}
	if len(w.Parts) == 1 {
		if cs, ok := w.Parts[0].(*syntax.CmdSubst); ok {
			if v, _, ok := j.substOutput(cs, st); ok && strings.ContainsAny(v, " \t\n") {
				return splitFields(v) // an unquoted substitution is split into fields
			}
		}
		if pe, ok := w.Parts[0].(*syntax.ParamExp); ok && simpleParam(pe) {
			if v, ok := st.get(pe.Param.Value); ok {
				var out []word
				for _, f := range strings.Fields(v) {
					x := lit(f)
					x.glob = strings.IndexAny(f, "*?[")
					out = append(out, x)
				}
				return out
			}
		}
	}
	// SplitBraces rewrites the word it is given, and syntax.Walk does not know the nodes it
	// makes: split a shallow copy so that the tree can still be walked.
	split := &syntax.Word{Parts: w.Parts}
	syntax.SplitBraces(split)
	alts := j.expandParts(split.Parts, []alternative{{glob: -1}}, false, st)
	out := make([]word, 0, len(alts))
	for _, a := range alts {
		out = append(out, a.word())
	}
	return out
}

// expandAssign expands the value of an assignment: no brace expansion, no field splitting.
func (j *judge) expandAssign(w *syntax.Word, st *state) (word, bool) {
	alts := j.expandParts(w.Parts, []alternative{{glob: -1}}, false, st)
	if len(alts) != 1 {
		return unknownWord, false
	}
	return alts[0].word(), true
}

func (j *judge) expandParts(parts []syntax.WordPart, alts []alternative, quoted bool, st *state) []alternative {
	for _, part := range parts {
		switch p := part.(type) {
		case *syntax.Lit:
			for i := range alts {
				j.addLit(&alts[i], p.Value, quoted, st)
			}
		case *syntax.SglQuoted:
			v := p.Value
			if p.Dollar {
				var ok bool
				if v, ok = lexer.DecodeANSIC(v); !ok {
					v = unknown
				}
			}
			for i := range alts {
				alts[i].addShown(v, strings.ReplaceAll(v, unknown, "$'…'"), true)
			}
		case *syntax.DblQuoted:
			for i := range alts {
				alts[i].started = true
			}
			alts = j.expandParts(p.Parts, alts, true, st)
		case *syntax.ParamExp:
			v, ok := j.param(p, st)
			shown := v
			if !ok {
				v, shown = unknown, "${…}"
				if simpleParam(p) {
					shown = "$" + p.Param.Value
				}
			}
			for i := range alts {
				alts[i].addShown(v, shown, quoted)
			}
		case *syntax.ProcSubst:
			for i := range alts {
				alts[i].add("/dev/fd/63", true)
			}
		case *syntax.ExtGlob:
			for i := range alts {
				alts[i].add(p.Op.String()+p.Pattern.Value+")", quoted)
				if !quoted && alts[i].glob < 0 {
					alts[i].glob = len(alts[i].s) - len(p.Pattern.Value) - 3
				}
			}
		case *syntax.BraceExp:
			elems := p.Elems
			if p.Sequence && len(elems) > 2 {
				elems = elems[:2] // {1..100..5}: the ends stand for the sequence
			}
			var out []alternative
			for _, e := range elems {
				c := make([]alternative, len(alts))
				for i, a := range alts {
					c[i] = a.copy()
				}
				out = append(out, j.expandParts(e.Parts, c, quoted, st)...)
				if len(out) > maxBraces {
					j.overflow = &programs.Refusal{What: "the command's brace expansion makes too many words to judge", Hint: hintAsk}
					return alts
				}
			}
			alts = out
		case *syntax.ArithmExp:
			for i := range alts {
				alts[i].addShown(unknown, "$((…))", true)
			}
		case *syntax.CmdSubst:
			v, shown, ok := j.substOutput(p, st)
			if ok && !quoted && strings.ContainsAny(v, " \t\n") {
				ok = false // split into fields: only a whole-word substitution is (expand)
			}
			for i := range alts {
				if ok {
					alts[i].addShown(v, shown, quoted)
				} else {
					alts[i].addShown(unknown, "$(…)", true)
				}
			}
		default: // judged separately; the value is unknown
			for i := range alts {
				alts[i].addShown(unknown, "$(…)", true)
			}
		}
	}
	return alts
}

// addLit adds literal text: backslash escapes are removed, and a ~ at the start of an unquoted
// word is the home directory (from HOME as the script knows it), ~+ the working directory; any
// other ~user is unknown.
func (j *judge) addLit(a *alternative, v string, quoted bool, st *state) {
	if quoted {
		a.add(lexer.UnescapeDouble(v), true)
		return
	}
	if !a.started && strings.HasPrefix(v, "~") {
		end := strings.IndexByte(v, '/')
		if end < 0 {
			end = len(v)
		}
		var home string
		var ok bool
		switch v[1:end] {
		case "":
			home, ok = st.get("HOME")
		case "+":
			home, ok = st.get("PWD")
		}
		if ok {
			a.add(home, true)
		} else {
			a.addShown(unknown, v[:end], true)
		}
		v = v[end:]
	}
	for i := 0; i < len(v); i++ {
		c := v[i]
		if c == '\\' && i+1 < len(v) {
			i++
			a.add(v[i:i+1], true)
			continue
		}
		if (c == '*' || c == '?' || c == '[') && a.glob < 0 {
			a.glob = len(a.s)
		}
		if len(a.s) > maxLen {
			break
		}
		a.s = append(a.s, c)
		if a.shown != nil {
			a.shown = append(a.shown, c)
		}
	}
	a.started = true
}
