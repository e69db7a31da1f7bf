package editguard

// The edit guard (see doc.go): code written out for an interpreter, and what it names.

import (
	"path"
	"strings"

	"github.com/hookctl/hookctl/lexer"
	"github.com/hookctl/hookctl/lexer/nested"
	"github.com/hookctl/hookctl/programs"

	"mvdan.cc/sh/v3/syntax"
)

// codeRule: an interpreter given code the command line spells out.
//
// Why: `python3 -c "import subprocess; subprocess.run(['hookctl','readonly','off'])"`,
// `perl -e 'system("hookctl uninstall")'`, `awk 'BEGIN{system("hookctl uninstall")}'`,
// `python3 - <<EOF … EOF`, `echo '…' | python3`, `bash <<< 'hookctl uninstall'` and
// `make -f - <<EOF` switched hookctl off, or wrote Claude Code's settings, in code the guard
// never read (issue 7).
// What: where an interpreter's code is written out (nested.Interpreter: an option's value
// such as -c, -e, -r or --eval; awk's program; a here-document or here-string on its standard
// input; the text an echo, printf or `cat <<EOF` pipes into it) the code is judged. Shell code
// (sh, bash, zsh, …) is parsed and judged as any command is, each line alone where the whole
// does not parse (a shell reading a script runs the lines before a syntax error), and scanned
// too; a makefile's recipe lines are judged as shell; code in any other language is scanned
// (scanCode). Code in a file (`python3 x.py`, `. ./a.sh`, `source x`, a Makefile) is not
// opened: containing it is the edit-mode sandbox's job (TestKnownGaps).
// Test: TestInterpreterCode, TestKnownGaps.
func (j *judge) interpreterCode(prog string, in *nested.Interpreter, args []word, st *state) *programs.Refusal {
	codes, stdin := in.CodeArgs(values(args))
	for _, c := range codes {
		if in.Language == "shell" {
			continue // shellRule parses and judges sh -c CODE
		}
		if strings.Contains(c.Text, unknown) || strings.Contains(c.Text, tempPath) {
			return refuse(prog, hintLiteral, "`%s`'s code is not a literal (it comes from a variable, a substitution or the input), so it cannot be judged", prog)
		}
		if r := j.judgeCode(prog, in, "`"+prog+"`'s code", c.Text, st); r != nil {
			return r
		}
	}
	if stdin && j.input != nil {
		if strings.Contains(*j.input, unknown) {
			return refuse(prog, hintLiteral, "the code on `%s`'s input is not a literal, so it cannot be judged", prog)
		}
		return j.judgeCode(prog, in, "the code on `"+prog+"`'s input", *j.input, st)
	}
	return nil
}

func (j *judge) judgeCode(prog string, in *nested.Interpreter, what, code string, st *state) *programs.Refusal {
	switch in.Language {
	case "shell":
		return j.typed(prog, what, code, st)
	case "make":
		if r := j.scanCode(prog, what, code); r != nil {
			return r
		}
		for _, l := range strings.Split(code, "\n") {
			var recipe string
			switch {
			case strings.HasPrefix(l, "\t"):
				recipe = l[1:]
			case strings.Contains(l, ":") && strings.Contains(l, ";"): // target: deps ; recipe
				recipe = l[strings.IndexByte(l, ';')+1:]
			default:
				continue
			}
			recipe = strings.TrimLeft(recipe, "@-+ \t")
			if r := j.scriptIfParses(shellText(recipe), st.child(), syntax.LangBash); r != nil {
				return r
			}
		}
		return nil
	}
	if r := j.scanCode(prog, what, code); r != nil {
		return r
	}
	return j.codeCalls(prog, what, code, st)
}

// shellText makes text with unknown parts into shell code: each part becomes a variable the
// shell does not know.
func shellText(s string) string {
	return strings.NewReplacer(unknown, "$__hookctl_arg", tempPath, "$__hookctl_arg").Replace(s)
}

// scanCode refuses code, in a language the guard cannot parse, that names what switches the
// guard off.
//
// Why: code the guard cannot parse (Python, Perl, JavaScript, Tcl, typed keys) can still be
// read for what it names.
// What: code is refused when a token (a run of letters, digits and _ . / ~ - = : @ %) is
// hookctl, by base name or as Context.Binary's base name, and the tokens after it are not a
// read-only verb (check, retrieve, version, statusline, doctor, help, readonly status); when it
// names claude and an option that skips the user's settings or permission checks (--bare,
// --safe-mode, --settings, --dangerously-skip-permissions,
// --allow-dangerously-skip-permissions, bypassPermissions); or when it names a protected path,
// as written absolute, under ~, $HOME or ${HOME}, or relative to the home directory or the
// project (.claude/settings.json, .config/hookctl/…). Names built at run time
// ('hook' + 'ctl') are not seen (TestKnownGaps).
// Test: TestInterpreterCode.
func (j *judge) scanCode(prog, what, code string) *programs.Refusal {
	toks := codeTokens(code)
	for i, t := range toks {
		b := t[strings.LastIndexByte(t, '/')+1:]
		switch {
		case b == "hookctl" || j.ctx.Binary != "" && b == path.Base(j.ctx.Binary):
			j.runsGuard = true
			if !readOnlyVerb(toks[i+1:]) {
				shown := "hookctl"
				if i+1 < len(toks) {
					shown += " " + toks[i+1]
				}
				return refuse(prog, "ask the user to run it", "%s names `%s`, which changes hookctl's guard or installation; only the user may run it", what, shown)
			}
		case b == "claude":
			j.runsGuard = true
			for _, u := range toks {
				if name, _, _ := strings.Cut(u, "="); containsString(claudeUnsafe, name) || strings.EqualFold(u, "bypassPermissions") ||
					strings.HasSuffix(strings.ToLower(u), "=bypasspermissions") {
					return refuse(prog, hintAsk, "%s runs claude with `%s`, which starts Claude Code without the user's settings or permission checks", what, u)
				}
			}
		}
	}
	for _, p := range j.protectedSpellings() {
		if mentionsPath(code, p) {
			return refuse(prog, hintProtected, "%s names `%s`, which is protected (%s)", what, p, protectedWhat)
		}
	}
	return nil
}

// claudeUnsafe are claude's options that skip the user's settings or permission checks.
var claudeUnsafe = []string{"--bare", "--safe-mode", "--settings", "--dangerously-skip-permissions", "--allow-dangerously-skip-permissions"}

func isCodeTokenByte(c byte) bool {
	return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || strings.IndexByte("_./~-=:@%", c) >= 0
}

func codeTokens(s string) []string {
	var out []string
	for i := 0; i < len(s); {
		if !isCodeTokenByte(s[i]) {
			i++
			continue
		}
		k := i
		for k < len(s) && isCodeTokenByte(s[k]) {
			k++
		}
		out = append(out, s[i:k])
		i = k
	}
	return out
}

// readOnlyVerb reports whether hookctl's arguments are one of the verbs the agent may run
// (hookctlRule's list), or none.
func readOnlyVerb(args []string) bool {
	if len(args) == 0 {
		return true
	}
	switch args[0] {
	case "check", "retrieve", "version", "statusline", "doctor", "help", "--help", "-h", "--version":
		return true
	case "readonly":
		return len(args) > 1 && args[1] == "status"
	}
	return false
}

// protectedSpellings are the ways code may write a protected path: as it is, and, inside the
// home directory or the project, under ~, $HOME, ${HOME} or relative to either.
func (j *judge) protectedSpellings() []string {
	if j.spellings != nil {
		return j.spellings
	}
	seen := map[string]bool{}
	add := func(s string) {
		if s != "" && s != "." && !seen[s] {
			seen[s] = true
			j.spellings = append(j.spellings, s)
		}
	}
	home := path.Clean(j.ctx.Home)
	for _, q := range j.ctx.Protected {
		if q == "" {
			continue
		}
		q = path.Clean(q)
		add(q)
		if j.ctx.Home != "" && q != home && within(q, home) {
			rel := q[len(home)+1:]
			add("~/" + rel)
			add("$HOME/" + rel)
			add("${HOME}/" + rel)
			add(rel)
		}
		if q != j.project && within(q, j.project) {
			add(q[len(j.project)+1:])
		}
	}
	if j.spellings == nil {
		j.spellings = []string{}
	}
	return j.spellings
}

// mentionsPath reports whether text names p as a whole path: not inside a longer name, though
// a path inside p (p/…) counts.
func mentionsPath(text, p string) bool {
	for i := range indexes(text, p) {
		end := i + len(p)
		before := i == 0 || !isNameByte(text[i-1]) || strings.HasPrefix(p, "/") || strings.HasPrefix(p, "~") || strings.HasPrefix(p, "$")
		after := end == len(text) || !isNameByte(text[end])
		if before && after {
			return true
		}
	}
	return false
}

func isNameByte(c byte) bool {
	return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '_' || c == '.' || c == '-'
}

// stdinText returns the text a statement's redirections put on standard input when the text
// fixes it (a here-document or here-string), or, for another redirection of standard input,
// nil and true: the input is then a file.
func (j *judge) stdinText(s *syntax.Stmt, st *state) (text *string, redirected bool) {
	for _, rd := range s.Redirs {
		if rd.N != nil && rd.N.Value != "0" {
			continue
		}
		switch rd.Op {
		case syntax.Hdoc, syntax.DashHdoc:
			t := j.heredoc(rd, st)
			text, redirected = &t, true
		case syntax.WordHdoc:
			w, _ := j.expandAssign(rd.Word, st)
			t := w.s + "\n"
			text, redirected = &t, true
		case syntax.RdrIn, syntax.RdrInOut, syntax.DplIn:
			text, redirected = nil, true
		}
	}
	return text, redirected
}

// heredoc returns a here-document's body as the command reads it: verbatim after a quoted
// delimiter; otherwise with its expansions (what cannot be known as unknown parts) and the
// backslashes a here-document honours removed (lexer.UnescapeHeredoc).
func (j *judge) heredoc(rd *syntax.Redirect, st *state) string {
	if rd.Hdoc == nil {
		return ""
	}
	quoted := false
	for _, p := range rd.Word.Parts {
		switch p := p.(type) {
		case *syntax.SglQuoted, *syntax.DblQuoted:
			quoted = true
		case *syntax.Lit:
			quoted = quoted || strings.Contains(p.Value, `\`)
		}
	}
	var b strings.Builder
	for _, p := range rd.Hdoc.Parts {
		switch p := p.(type) {
		case *syntax.Lit:
			if quoted {
				b.WriteString(p.Value)
			} else {
				b.WriteString(lexer.UnescapeHeredoc(p.Value))
			}
		default:
			alts := j.expandParts([]syntax.WordPart{p}, []alternative{{glob: -1}}, true, st)
			if len(alts) == 1 {
				b.Write(alts[0].s)
			} else {
				b.WriteString(unknown)
			}
		}
	}
	return b.String()
}

// producedText returns what a pipeline stage writes when the text fixes it: echo's and
// printf's words, or the here-document cat passes on.
// printfText is what printf FORMAT ARGS writes, for the formats the guard can work out: the
// backslash escapes (\n, \t, \\, \NNN octal, \xHH, \uHHHH) and the directives %s, %b
// (its argument's escapes too) and %%, the format reused until the arguments run out.
func printfText(format string, args []string) (string, bool) {
	var b strings.Builder
	for pass := 0; pass == 0 || len(args) > 0; pass++ {
		used := false
		for i := 0; i < len(format); i++ {
			c := format[i]
			switch {
			case c == '\\':
				n := unescapeAt(format, i+1, &b)
				i += n
			case c == '%' && i+1 < len(format):
				i++
				switch format[i] {
				case '%':
					b.WriteByte('%')
				case 's', 'b':
					arg := ""
					if len(args) > 0 {
						arg, args, used = args[0], args[1:], true
					}
					if format[i] == 'b' {
						for k := 0; k < len(arg); k++ {
							if arg[k] == '\\' {
								k += unescapeAt(arg, k+1, &b)
								continue
							}
							b.WriteByte(arg[k])
						}
					} else {
						b.WriteString(arg)
					}
				default:
					return "", false
				}
			default:
				b.WriteByte(c)
			}
			if b.Len() > maxLen {
				return "", false
			}
		}
		if !used {
			break
		}
	}
	return b.String(), true
}

// codeEscapes are the one-letter escapes unescapeAt decodes, and codeEscaped the bytes they
// stand for, in the same order.
const codeEscapes, codeEscaped = "ntr\\", "\n\t\r\\"

// unescapeAt writes the escape whose letter is s[i] (after a backslash) and returns how many
// bytes it took.
func unescapeAt(s string, i int, b *strings.Builder) int {
	if i >= len(s) {
		b.WriteByte('\\')
		return 0
	}
	digits := func(from, max int, base string) (int, int) {
		v, n := 0, 0
		for n < max && from+n < len(s) && strings.IndexByte(base, lower(s[from+n])) >= 0 {
			v = v*len(base) + strings.IndexByte(base, lower(s[from+n]))
			n++
		}
		return v, n
	}
	switch k := strings.IndexByte(codeEscapes, s[i]); {
	case k >= 0:
		b.WriteByte(codeEscaped[k])
	case s[i] == 'x':
		v, n := digits(i+1, 2, "0123456789abcdef")
		if n == 0 {
			b.WriteString(`\x`)
			return 1
		}
		b.WriteByte(byte(v))
		return 1 + n
	case s[i] == 'u' || s[i] == 'U':
		v, n := digits(i+1, 4+4*btoi(s[i] == 'U'), "0123456789abcdef")
		b.WriteRune(rune(v))
		return 1 + n
	case '0' <= s[i] && s[i] <= '7':
		v, n := digits(i, 3, "01234567")
		b.WriteByte(byte(v))
		return n
	default:
		b.WriteByte('\\')
		b.WriteByte(s[i])
	}
	return 1
}

func lower(c byte) byte {
	if 'A' <= c && c <= 'Z' {
		return c + 'a' - 'A'
	}
	return c
}

func btoi(b bool) int {
	if b {
		return 1
	}
	return 0
}

func (j *judge) producedText(s *syntax.Stmt, st *state) *string {
	c, ok := s.Cmd.(*syntax.CallExpr)
	if !ok || len(c.Args) == 0 {
		return nil
	}
	var args []string
	for _, w := range c.Args {
		ws := j.expand(w, st.clone())
		for _, x := range ws {
			args = append(args, x.s)
		}
	}
	if len(args) == 0 {
		return nil
	}
	var t string
	switch path.Base(args[0]) {
	case "echo":
		rest := args[1:]
		for len(rest) > 0 && (rest[0] == "-n" || rest[0] == "-e" || rest[0] == "-E" || rest[0] == "-ne" || rest[0] == "-en") {
			rest = rest[1:]
		}
		t = strings.Join(rest, " ") + "\n"
	case "printf":
		if len(args) < 2 {
			return nil
		}
		var ok bool
		if t, ok = printfText(args[1], args[2:]); !ok {
			u := unknown // printf writes something the guard cannot work out
			return &u
		}
	case "cat", "tac":
		if len(args) > 1 && !(len(args) == 2 && args[1] == "-") {
			return nil
		}
		in, _ := j.stdinText(s, st)
		return in
	default:
		return nil
	}
	return &t
}
