package permissions

import (
	"path/filepath"
	"strings"

	"mvdan.cc/sh/v3/syntax"

	"github.com/hookctl/hookctl/lexer"
)

// A command as Claude Code's rules see it: the simple commands it is made of, each with the
// words as written (a rule matches the text), and the files its redirections name. It is read
// from the one bash parse of the command (lexer.CommandLine), never parsed again; only the
// literal script of a `bash -c` is, for deny and ask rules alone.

// word is one word of a command: as written, and its value when the text alone fixes it.
type word struct {
	raw string
	lit string
	ok  bool // lit is the word's value
}

// part is one simple command.
type part struct {
	assigns []word // leading NAME=value, as written; lit is the name
	words   []word
	// nested: inside a substitution, a subshell or group, a function, or a loop or condition's
	// body, which no allow rule approves part by part.
	nested bool
	redirs []redirect
}

// redirect is a file a redirection opens.
type redirect struct {
	target word
	write  bool // >, >>, >|, &>, &>>, <>; otherwise a read (<)
}

// anatomy is a whole command.
type anatomy struct {
	src   string
	parts []*part
	// plain: only ;, &&, ||, |, |& and newlines join simple commands, none runs in the
	// background and no word holds a substitution: each part can be approved on its own, as the
	// client approves a compound command by its parts.
	plain bool
	// parsed is false when bash does not parse the command; then it is one opaque part.
	parsed bool

	pending []pendingRedirs // while walking: a statement's redirections, for its command
}

// maxInlineDepth bounds how deep the script of a `bash -c` inside a `bash -c` is read.
const maxInlineDepth = 3

func newAnatomy(cl *lexer.CommandLine) *anatomy {
	a := &anatomy{src: cl.Src}
	f, err := cl.Tree()
	if err != nil {
		a.parts = []*part{{words: []word{{raw: cl.Src}}}}
		return a
	}
	a.parsed, a.plain = true, true
	top := map[*syntax.CallExpr]bool{}
	var visitTop func(s *syntax.Stmt)
	visitTop = func(s *syntax.Stmt) {
		if s == nil {
			return
		}
		if s.Background || s.Coprocess {
			a.plain = false
		}
		switch c := s.Cmd.(type) {
		case *syntax.CallExpr:
			top[c] = true
		case *syntax.BinaryCmd:
			visitTop(c.X)
			visitTop(c.Y)
		case *syntax.TimeClause:
			visitTop(c.Stmt) // `time cmd`: the client strips time
		case nil:
		default:
			a.plain = false
		}
	}
	for _, s := range f.Stmts {
		visitTop(s)
	}
	syntax.Walk(f, func(n syntax.Node) bool {
		switch n := n.(type) {
		case *syntax.Stmt:
			var rs []redirect
			for _, r := range n.Redirs {
				if rd, ok := a.redirect(r); ok {
					rs = append(rs, rd)
				}
			}
			if len(rs) == 0 {
				break
			}
			if c, ok := n.Cmd.(*syntax.CallExpr); ok {
				// The CallExpr is visited after its Stmt: keep the redirections for it.
				a.pending = append(a.pending, pendingRedirs{c, rs})
			} else {
				a.parts = append(a.parts, &part{redirs: rs, nested: true})
			}
		case *syntax.CallExpr:
			p := &part{nested: !top[n]}
			for _, as := range n.Assigns {
				p.assigns = append(p.assigns, word{raw: a.text(as), lit: as.Name.Value, ok: as.Name != nil && !as.Append && as.Index == nil})
			}
			for _, w := range n.Args {
				p.words = append(p.words, a.word(w))
			}
			for _, pr := range a.pending {
				if pr.call == n {
					p.redirs = pr.redirs
				}
			}
			a.parts = append(a.parts, p)
		case *syntax.DeclClause:
			p := &part{nested: true, words: []word{{raw: n.Variant.Value, lit: n.Variant.Value, ok: true}}}
			for _, as := range n.Args {
				t := a.text(as)
				p.words = append(p.words, word{raw: t, lit: t})
			}
			a.parts = append(a.parts, p)
			a.plain = false
		case *syntax.CmdSubst, *syntax.ProcSubst, *syntax.ArithmExp, *syntax.ParamExp:
			if _, ok := n.(*syntax.CmdSubst); ok {
				a.plain = false
			}
			if _, ok := n.(*syntax.ProcSubst); ok {
				a.plain = false
			}
		}
		return true
	})
	a.pending = nil
	return a
}

type pendingRedirs struct {
	call   *syntax.CallExpr
	redirs []redirect
}

// text is a node's source, as written.
func (a *anatomy) text(n syntax.Node) string {
	s, e := n.Pos().Offset(), n.End().Offset()
	if int(s) > len(a.src) || int(e) > len(a.src) || s > e {
		return ""
	}
	return a.src[s:e]
}

func (a *anatomy) word(w *syntax.Word) word {
	raw := a.text(w)
	lit, ok := lexer.Literal(w)
	if !ok && homePath(raw) {
		lit, ok = raw, true // ~ or ~/plain/path: a path under the home directory, which absPath reads
	}
	return word{raw: raw, lit: lit, ok: ok}
}

// homePath reports whether a word is the home directory, or a plain path under it (~/a/b).
func homePath(raw string) bool {
	if raw != "~" && !strings.HasPrefix(raw, "~/") {
		return false
	}
	for _, c := range raw[1:] {
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || strings.ContainsRune("._+@%,:/-", c)) {
			return false
		}
	}
	return true
}

// redirect reads a redirection that opens a file; fd duplications and here-documents open
// none.
func (a *anatomy) redirect(r *syntax.Redirect) (redirect, bool) {
	if r.Word == nil {
		return redirect{}, false
	}
	w := a.word(r.Word)
	switch r.Op {
	case syntax.RdrOut, syntax.AppOut, syntax.ClbOut, syntax.RdrAll, syntax.AppAll, syntax.RdrAllClob, syntax.AppAllClob, syntax.RdrInOut:
		return redirect{target: w, write: true}, true
	case syntax.RdrIn:
		return redirect{target: w}, true
	case syntax.DplOut:
		if w.ok && !isFD(w.lit) {
			return redirect{target: w, write: true}, true // `>& file` is `&> file`
		}
	}
	return redirect{}, false
}

func isFD(s string) bool {
	if s == "-" {
		return true
	}
	for _, c := range s {
		if c < '0' || c > '9' {
			return false
		}
	}
	return s != ""
}

// safeEnv are the variables whose assignment before a command an allow rule looks past
// (2.1.328's list): none changes what program runs or what it may reach.
var safeEnv = []string{"GOEXPERIMENT", "GOOS", "GOARCH", "CGO_ENABLED", "GO111MODULE", "RUST_BACKTRACE", "RUST_LOG",
	"NODE_ENV", "PYTHONUNBUFFERED", "PYTHONDONTWRITEBYTECODE", "PYTEST_DISABLE_PLUGIN_AUTOLOAD", "PYTEST_DEBUG",
	"ANTHROPIC_API_KEY", "LANG", "LANGUAGE", "LC_ALL", "LC_CTYPE", "LC_TIME", "CHARSET", "TERM", "COLORTERM",
	"NO_COLOR", "FORCE_COLOR", "TZ", "LS_COLORS", "LSCOLORS", "GREP_COLOR", "GREP_COLORS", "GCC_COLORS", "TIME_STYLE",
	"BLOCK_SIZE", "BLOCKSIZE", "COLUMNS", "LINES", "CLICOLOR", "CLICOLOR_FORCE", "CI", "DEBIAN_FRONTEND",
	"GIT_TERMINAL_PROMPT"}

func isSafeEnv(name string) bool {
	for _, s := range safeEnv {
		if s == name {
			return true
		}
	}
	return false
}

// execWrappers run their argument as a command; the client never lets a prefix or wildcard
// rule approve them, only an exact one (and so neither does hookctl).
var execWrappers = []string{"watch", "setsid", "ionice", "chrt", "taskset", "strace", "ltrace", "script", "flock",
	"unshare", "nsenter", "sandbox-exec"}

// unwrap strips the wrappers the client strips before matching (timeout, time, nice, nohup,
// stdbuf, command, builtin, noglob, and xargs without options), and with broad, also env and
// sudo (for deny and ask rules only). ok is false when a wrapper is written in a form it cannot
// read, which no allow rule approves.
func unwrap(ws []word, broad bool) (rest []word, ok bool) {
	for len(ws) > 0 {
		w := ws[0]
		if !w.ok {
			return ws, true
		}
		name := w.lit
		switch name {
		case "time", "nohup", "builtin", "noglob":
			ws = ws[1:]
			if name == "time" && len(ws) > 0 && ws[0].lit == "-p" {
				ws = ws[1:]
			}
		case "command":
			if len(ws) > 1 && (ws[1].lit == "-v" || ws[1].lit == "-V") {
				return ws, true // a lookup, not a run
			}
			ws = ws[1:]
			if len(ws) > 0 && ws[0].lit == "-p" {
				ws = ws[1:]
			}
		case "xargs":
			if len(ws) > 1 && strings.HasPrefix(ws[1].lit, "-") {
				return ws, true // with options it is matched as xargs
			}
			ws = ws[1:]
		case "timeout":
			i := 1
			for i < len(ws) && strings.HasPrefix(ws[i].lit, "-") {
				switch {
				case ws[i].lit == "--foreground" || ws[i].lit == "--preserve-status" || ws[i].lit == "--verbose" || ws[i].lit == "-v":
					i++
				case strings.HasPrefix(ws[i].lit, "--kill-after=") || strings.HasPrefix(ws[i].lit, "--signal=") ||
					len(ws[i].lit) > 2 && (strings.HasPrefix(ws[i].lit, "-k") || strings.HasPrefix(ws[i].lit, "-s")):
					i++
				case ws[i].lit == "-k" || ws[i].lit == "-s" || ws[i].lit == "--kill-after" || ws[i].lit == "--signal":
					i += 2
				default:
					return ws, false
				}
			}
			if i >= len(ws) || !isDuration(ws[i].lit) {
				return ws, false
			}
			ws = ws[i+1:]
		case "nice":
			i := 1
			switch {
			case i < len(ws) && (ws[i].lit == "-n" || ws[i].lit == "--adjustment"):
				i += 2
			case i < len(ws) && (strings.HasPrefix(ws[i].lit, "--adjustment=") || len(ws[i].lit) > 1 && ws[i].lit[0] == '-'):
				i++
			}
			ws = ws[min(i, len(ws)):]
		case "stdbuf":
			i := 1
			for i < len(ws) && strings.HasPrefix(ws[i].lit, "-") {
				if l := ws[i].lit; l == "-i" || l == "-o" || l == "-e" {
					i += 2
				} else {
					i++
				}
			}
			ws = ws[min(i, len(ws)):]
		case "env":
			if !broad {
				return ws, true
			}
			i := 1
			for i < len(ws) {
				l := ws[i].lit
				switch {
				case l == "-u" || l == "--unset" || l == "-C" || l == "--chdir" || l == "-S" || l == "--split-string":
					i += 2
				case strings.HasPrefix(l, "-"):
					i++
				case strings.Contains(l, "=") && !strings.HasPrefix(l, "="):
					i++
				default:
					goto envDone
				}
			}
		envDone:
			ws = ws[min(i, len(ws)):]
		case "sudo", "doas":
			if !broad {
				return ws, true
			}
			i := 1
			for i < len(ws) && strings.HasPrefix(ws[i].lit, "-") {
				if l := ws[i].lit; l == "-u" || l == "-g" || l == "-C" || l == "-D" || l == "-h" || l == "-p" || l == "-r" || l == "-t" {
					i += 2
				} else {
					i++
				}
			}
			ws = ws[min(i, len(ws)):]
		default:
			return ws, true
		}
	}
	return ws, true
}

// isDuration is timeout's DURATION: a number with an optional unit.
func isDuration(s string) bool {
	s = strings.TrimRight(s, "smhd")
	if s == "" {
		return false
	}
	dot := false
	for _, c := range s {
		switch {
		case c == '.' && !dot:
			dot = true
		case c < '0' || c > '9':
			return false
		}
	}
	return true
}

func joinRaw(ws []word) string {
	parts := make([]string, len(ws))
	for i, w := range ws {
		parts[i] = w.raw
	}
	return strings.Join(parts, " ")
}

// joinLit is the words' values, or false when one is not literal.
func joinLit(ws []word) (string, bool) {
	parts := make([]string, len(ws))
	for i, w := range ws {
		if !w.ok {
			return "", false
		}
		parts[i] = w.lit
	}
	return strings.Join(parts, " "), true
}

// denyForms are the texts a deny or ask rule is tried against for one part: as written, without
// its assignments, with wrappers stripped, quotes removed, and the program's directory dropped.
func (p *part) denyForms() []string {
	var out []string
	add := func(s string) {
		if s = strings.TrimSpace(s); s != "" {
			for _, o := range out {
				if o == s {
					return
				}
			}
			out = append(out, s)
		}
	}
	all := append(append([]word(nil), p.assigns...), p.words...)
	add(joinRaw(all))
	for _, broad := range []bool{false, true} {
		ws, _ := unwrap(p.words, broad)
		add(joinRaw(ws))
		if l, ok := joinLit(ws); ok {
			add(l)
		}
		if len(ws) > 0 && ws[0].ok && strings.Contains(ws[0].lit, "/") {
			base := append([]word{{raw: filepath.Base(ws[0].lit), lit: filepath.Base(ws[0].lit), ok: true}}, ws[1:]...)
			add(joinRaw(base))
			if l, ok := joinLit(base); ok {
				add(l)
			}
		}
	}
	return out
}

// allowForm is the text an allow rule must match for one part, as the client matches it: only
// harmless assignments before it, its wrappers stripped; ok is false when no allow rule can
// approve the part as written.
func (p *part) allowForm() (text string, program string, ok bool) {
	for _, as := range p.assigns {
		if !as.ok || !isSafeEnv(as.lit) {
			return "", "", false
		}
	}
	ws, ok := unwrap(p.words, false)
	if !ok || len(ws) == 0 {
		return "", "", false
	}
	if ws[0].ok {
		program = ws[0].lit
	}
	return joinRaw(ws), program, true
}

// program is the part's program, wrappers stripped broadly, and its arguments.
func (p *part) program() (string, []word) {
	ws, _ := unwrap(p.words, true)
	if len(ws) == 0 || !ws[0].ok {
		return "", nil
	}
	return filepath.Base(ws[0].lit), ws[1:]
}

// inlineScript is the script of `sh -c SCRIPT` (bash, zsh, dash, ksh alike) when it is literal.
func (p *part) inlineScript() (string, bool) {
	prog, args := p.program()
	switch prog {
	case "sh", "bash", "zsh", "dash", "ksh", "mksh", "ash", "busybox":
	default:
		return "", false
	}
	if prog == "busybox" {
		if len(args) == 0 || args[0].lit != "sh" {
			return "", false
		}
		args = args[1:]
	}
	for i, a := range args {
		if !a.ok {
			return "", false
		}
		if a.lit == "-c" || strings.HasPrefix(a.lit, "-") && !strings.HasPrefix(a.lit, "--") && strings.HasSuffix(a.lit, "c") {
			if i+1 < len(args) && args[i+1].ok {
				return args[i+1].lit, true
			}
			return "", false
		}
		if !strings.HasPrefix(a.lit, "-") {
			return "", false
		}
	}
	return "", false
}
