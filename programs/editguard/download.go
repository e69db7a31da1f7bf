package editguard

// The edit guard (see doc.go): downloads run as code.

import (
	"path"
	"strings"

	"github.com/hookctl/hookctl/internal/clip"
	"github.com/hookctl/hookctl/lexer"
	"github.com/hookctl/hookctl/lexer/nested"
	"github.com/hookctl/hookctl/programs"
	"github.com/hookctl/hookctl/route"

	"mvdan.cc/sh/v3/syntax"
)

// peelAll returns the command at the heart of wrappers, as far as the wrapper table places it;
// nil when a wrapper runs none, and the wrapper itself when it runs a shell line or a language
// of its own.
func peelAll(argv []word) []word {
	for n := 0; n < maxDepth && len(argv) > 0; n++ {
		name, ok := argv[0].base()
		if !ok {
			return argv
		}
		w := nested.LookupWrapper(name)
		if w == nil || w.Language != "" || w.Joined || w.JoinedIf != "" || len(w.Subcommands) > 0 {
			return argv
		}
		p := w.Peel(wrapperArgs(argv[1:]))
		if p.NoRun || len(p.Command) == 0 {
			return nil
		}
		argv = pick(argv[1:], p.Command)
	}
	return argv
}

// downloadExecRule: a download run as code, unread.
//
// Why: `curl … | sh` runs whatever the server sends, today; the agent never sees it.
// What: a pipeline in which a stage runs a network program (route.NetworkProgram: curl,
// wget, fetch, httpie, aria2c, nc, ssh, …; anywhere in it, wrappers peeled) and a later stage is
// an interpreter reading its program from standard input (nested.Interpreter.ReadsProgram:
// a shell with no script operand or with -s, python with no -c or -m, perl, node, …), or whose
// program name is not a literal, is refused. So is a shell, interpreter, source, . or eval whose
// arguments or input redirections contain $(…) or <(…) running a network program:
// `bash <(curl …)`, `sh -c "$(curl …)"`, `source <(wget -O- …)`.
// (The network rule refuses any such download anyway; this rule names what the command does
// with it.)
// Test: TestDownloadExec.
func (j *judge) pipedDownload(stages []*syntax.Stmt, st *state) *programs.Refusal {
	dl := ""
	for _, s := range stages {
		if dl != "" {
			if name, ok := j.stdinInterpreter(s, st); ok {
				if strings.HasPrefix(dl, "decoded") {
					return refuse("", "write the commands out literally so that they can be judged, or ask the user",
						"pipes %s into `%s`, which runs code the guard cannot read", dl, clip.Short(name))
				}
				return refuse("", "download the script to a file in the project, read it, and run it; or ask the user",
					"pipes a download (`%s`) into `%s`, which runs it unread", dl, clip.Short(name))
			}
		}
		if dl == "" {
			dl = runsDownloader(s)
		}
		if dl == "" {
			dl = runsDecoder(s)
		}
	}
	return nil
}

// stdinInterpreter reports whether a pipeline stage runs an interpreter that reads its program
// from its input, or a program whose name is not a literal.
func (j *judge) stdinInterpreter(s *syntax.Stmt, st *state) (string, bool) {
	switch c := s.Cmd.(type) {
	case *syntax.CallExpr:
		var argv []word
		for _, w := range c.Args {
			argv = append(argv, j.expand(w, st.clone())...)
			if len(argv) > maxFields {
				return "", false
			}
		}
		argv = peelAll(argv)
		if len(argv) == 0 {
			return "", false
		}
		name, ok := argv[0].base()
		if !ok {
			return argv[0].show(), true
		}
		if containsString([]string{"xargs", "parallel"}, name) {
			return "", false
		}
		if in := nested.LookupInterpreter(name); in != nil && in.ReadsProgram(values(argv[1:])) {
			return name, true
		}
		if name == "source" || name == "." || name == "eval" {
			return name, true
		}
	case *syntax.Block:
		for _, x := range c.Stmts {
			if n, ok := j.stdinInterpreter(x, st); ok {
				return n, true
			}
		}
	case *syntax.Subshell:
		for _, x := range c.Stmts {
			if n, ok := j.stdinInterpreter(x, st); ok {
				return n, true
			}
		}
	}
	return "", false
}

// decoders are the programs that turn text the guard cannot read into text it could, with the
// option that makes them decode ("" when they always do).
var decoders = []struct{ prog, opt string }{
	{"base64", "-d"}, {"base64", "--decode"}, {"base64", "-D"}, {"xxd", "-r"}, {"openssl", "-d"},
	{"gunzip", ""}, {"zcat", ""}, {"gzip", "-d"}, {"bzip2", "-d"}, {"bzcat", ""}, {"xz", "-d"}, {"xzcat", ""},
	{"uudecode", ""}, {"rev", ""},
}

// runsDecoder returns "decoded text (`base64 -d`)" when a pipeline stage decodes its input.
//
// Test: TestPeerClasses (shells fed a script).
func runsDecoder(s *syntax.Stmt) string {
	c, ok := s.Cmd.(*syntax.CallExpr)
	if !ok || len(c.Args) == 0 {
		return ""
	}
	args := make([]string, len(c.Args))
	for i, w := range c.Args {
		args[i] = literal(w)
	}
	name := path.Base(args[0])
	for _, d := range decoders {
		if d.prog != name {
			continue
		}
		if d.opt == "" {
			return "decoded text (`" + name + "`)"
		}
		for _, a := range args[1:] {
			if a == d.opt || len(d.opt) == 2 && len(a) > 2 && a[0] == '-' && a[1] != '-' && strings.Contains(a, d.opt[1:]) {
				return "decoded text (`" + name + " " + d.opt + "`)"
			}
		}
	}
	return ""
}

// runsDownloader returns the downloader a node runs anywhere inside it, or "".
func runsDownloader(n syntax.Node) string {
	found := ""
	syntax.Walk(n, func(n syntax.Node) bool {
		if found != "" {
			return false
		}
		c, ok := n.(*syntax.CallExpr)
		if !ok {
			return true
		}
		// The program, past wrappers and their options: the first word that is not an
		// assignment, an option, a number or a wrapper.
		for _, w := range c.Args {
			v, ok := lexer.Literal(w)
			if !ok {
				break
			}
			b := path.Base(v)
			if isNet, _ := route.NetworkProgram(b); isNet {
				found = b
				return false
			}
			if nested.LookupWrapper(b) != nil || strings.HasPrefix(v, "-") || strings.Contains(v, "=") || (v != "" && v[0] >= '0' && v[0] <= '9') {
				continue
			}
			break
		}
		return true
	})
	return found
}

// substDownload refuses a shell, interpreter, source, . or eval whose words or input carry a
// substitution that downloads.
func (j *judge) substDownload(s *syntax.Stmt, c *syntax.CallExpr) *programs.Refusal {
	if len(c.Args) == 0 {
		return nil
	}
	if v, ok := lexer.Literal(c.Args[0]); ok {
		b := path.Base(v)
		if nested.LookupWrapper(b) == nil && nested.LookupInterpreter(b) == nil && b != "source" && b != "." && b != "eval" {
			return nil // cheaply: most commands run no interpreter at all
		}
	}
	if !hasSubst(c) && len(s.Redirs) == 0 {
		return nil
	}
	inner := peelAll(literalWords(c.Args))
	if len(inner) == 0 {
		return nil
	}
	name, ok := inner[0].base()
	if !ok || (nested.LookupInterpreter(name) == nil && name != "source" && name != "." && name != "eval") {
		return nil
	}
	check := func(n syntax.Node) *programs.Refusal {
		if n == nil {
			return nil
		}
		var dl string
		syntax.Walk(n, func(n syntax.Node) bool {
			switch n := n.(type) {
			case *syntax.CmdSubst:
				if d := runsDownloader(n); d != "" {
					dl = d
				}
				return false
			case *syntax.ProcSubst:
				if d := runsDownloader(n); d != "" {
					dl = d
				}
				return false
			}
			return dl == ""
		})
		if dl != "" {
			return refuse(name, "download the script to a file in the project, read it, and run it; or ask the user",
				"`%s` runs a download (`%s`) unread", name, dl)
		}
		return nil
	}
	for _, w := range c.Args {
		if r := check(w); r != nil {
			return r
		}
	}
	for _, rd := range s.Redirs {
		if rd.Op == syntax.RdrIn || rd.Op == syntax.WordHdoc || rd.Op == syntax.Hdoc || rd.Op == syntax.DashHdoc ||
			rd.Op == syntax.DplIn || rd.Op == syntax.RdrInOut {
			if r := check(rd.Word); r != nil {
				return r
			}
			if rd.Hdoc != nil {
				if r := check(rd.Hdoc); r != nil {
					return r
				}
			}
		}
	}
	return nil
}

// hasSubst reports whether a command's words hold a command or process substitution.
func hasSubst(c *syntax.CallExpr) bool {
	found := false
	for _, w := range c.Args {
		syntax.Walk(w, func(n syntax.Node) bool {
			switch n.(type) {
			case *syntax.CmdSubst, *syntax.ProcSubst:
				found = true
			}
			return !found
		})
	}
	return found
}

// values returns the words' texts.
func values(words []word) []string {
	out := make([]string, len(words))
	for i, w := range words {
		out[i] = w.s
	}
	return out
}
