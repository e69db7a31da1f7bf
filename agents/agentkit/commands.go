package agentkit

import (
	"path/filepath"
	"strconv"
	"strings"

	"mvdan.cc/sh/v3/syntax"

	"github.com/hookctl/hookctl/internal/fsutil"
	"github.com/hookctl/hookctl/lexer"
)

// The simple commands of a shell command line, as the clients whose rules name a command by its
// words (Codex's exec policy, Copilot CLI's shell(…) rules, Gemini CLI's command prefixes) split
// one before matching: read from the one bash parse of the command (lexer.CommandLine).

// Simple is one simple command.
type Simple struct {
	// Words are its words as the shell reads them, up to the first whose value the text alone
	// does not fix (a variable, a substitution, a glob); Whole says there is none such, no
	// assignment before it and no redirection.
	Words []string
	Whole bool
	// Text is the command as written, its words one space apart.
	Text string
	// Nested: inside a substitution, subshell, group, loop, condition or function.
	Nested bool
}

// Line is a command line split into its simple commands.
type Line struct {
	Commands []Simple
	// Plain: a linear chain of whole simple commands joined by &&, ||, ; or |, none in the
	// background: what Codex splits before it applies its rules.
	Plain bool
	// Parsed is false when bash does not parse the line; Commands is then empty.
	Parsed bool
}

// SplitLine splits a command line. With inline, the literal script of a `sh -c`, `bash -c`
// (and the other POSIX shells') is split too, its commands Nested: what a rule written to refuse
// a program must also find there.
func SplitLine(cl *lexer.CommandLine, inline bool) Line {
	return splitLine(cl, inline, 0)
}

func splitLine(cl *lexer.CommandLine, inline bool, depth int) Line {
	var l Line
	f, err := cl.Tree()
	if err != nil {
		return l
	}
	l.Parsed, l.Plain = true, true
	top := map[*syntax.CallExpr]bool{}
	var visit func(s *syntax.Stmt)
	visit = func(s *syntax.Stmt) {
		if s.Background || s.Coprocess || s.Negated || len(s.Redirs) > 0 {
			l.Plain = false
		}
		switch c := s.Cmd.(type) {
		case *syntax.CallExpr:
			top[c] = true
		case *syntax.BinaryCmd:
			visit(c.X)
			visit(c.Y)
		default:
			l.Plain = false
		}
	}
	for _, s := range f.Stmts {
		visit(s)
	}
	src := cl.Src
	syntax.Walk(f, func(n syntax.Node) bool {
		c, ok := n.(*syntax.CallExpr)
		if !ok {
			return true
		}
		sc := Simple{Whole: len(c.Assigns) == 0, Nested: !top[c]}
		var raw []string
		for _, w := range c.Args {
			raw = append(raw, src[w.Pos().Offset():w.End().Offset()])
			v, lit := lexer.Literal(w)
			if !lit {
				sc.Whole = false
			}
			if sc.Whole || lit && len(sc.Words) == len(raw)-1 {
				sc.Words = append(sc.Words, v)
			}
		}
		sc.Text = strings.Join(raw, " ")
		if !sc.Whole || sc.Nested {
			l.Plain = false
		}
		l.Commands = append(l.Commands, sc)
		if inline && depth < 3 {
			if script, ok := InlineScript(sc.Words); ok {
				in := splitLine(lexer.NewCommandLine(script), inline, depth+1)
				for _, ic := range in.Commands {
					ic.Nested = true
					l.Commands = append(l.Commands, ic)
				}
			}
		}
		return true
	})
	for _, s := range f.Stmts {
		if len(s.Redirs) > 0 {
			l.Plain = false
		}
	}
	return l
}

// InlineScript is the script of `sh -c SCRIPT` (bash, zsh, dash, ksh alike; -lc and other
// option clusters ending in c), given the command's literal words.
func InlineScript(words []string) (string, bool) {
	if len(words) < 3 {
		return "", false
	}
	switch filepath.Base(words[0]) {
	case "sh", "bash", "zsh", "dash", "ksh", "mksh", "ash":
	default:
		return "", false
	}
	for i, a := range words[1:] {
		if !strings.HasPrefix(a, "-") || strings.HasPrefix(a, "--") {
			return "", false
		}
		if strings.HasSuffix(a, "c") && i+2 < len(words) {
			return words[i+2], true
		}
	}
	return "", false
}

// ClientArgs finds the client process among the hook's nearest ancestors (a client may run its
// hooks through a shell) and returns its arguments after the one that names it: is tells, from
// one of a process's first two arguments (the program, or the script a runtime runs), whether
// that process is the client. ok is false when none is, or where there is no /proc.
func ClientArgs(ancestors []int, is func(arg string) bool) (args []string, ok bool) {
	for _, pid := range ancestors {
		b, err := fsutil.ReadFile("/proc/"+strconv.Itoa(pid)+"/cmdline", 1<<20, true)
		if err != nil || len(b) == 0 {
			continue
		}
		argv := strings.Split(strings.TrimSuffix(string(b), "\x00"), "\x00")
		for i, a := range argv[:min(2, len(argv))] {
			if is(a) {
				return argv[i+1:], true
			}
		}
	}
	return nil, false
}
