package editguard

// The edit guard (see doc.go): hookctl's own binary, and the programs a command substitution
// names.

import (
	"path"
	"strings"

	"github.com/hookctl/hookctl/lexer"
	"github.com/hookctl/hookctl/programs"

	"mvdan.cc/sh/v3/syntax"
)

// substOutput returns what a command substitution prints, where the text alone fixes it, and
// how to show it.
//
// Why: `$(which hookctl) uninstall`, “ `which hookctl` readonly off “ and `"$(command -v
// hookctl)" uninstall` ran hookctl under a program name the guard could not read, so no rule
// saw it (issue 7).
// What: $(pwd) is the working directory; $(which NAME), $(command -v NAME), $(type -P NAME),
// $(type -p NAME) and $(whence -p NAME) are a path ending in NAME's base name, in a directory
// that cannot be known, so the rule for NAME judges the command; $(echo WORDS) with no option
// or backslash is the words, $(printf %s WORD) and $(printf WORD) with no % or backslash the
// word. Only standard error may be redirected. Anything else prints what cannot be known.
// Test: TestSelfProtection (substitution rows).
func (j *judge) substOutput(cs *syntax.CmdSubst, st *state) (value, shown string, ok bool) {
	if len(cs.Stmts) != 1 {
		return "", "", false
	}
	s := cs.Stmts[0]
	c, isCall := s.Cmd.(*syntax.CallExpr)
	if !isCall || len(c.Args) == 0 || len(c.Assigns) != 0 || s.Background || s.Negated || s.Coprocess || s.Disown {
		return "", "", false
	}
	for _, rd := range s.Redirs {
		if rd.N == nil || rd.N.Value != "2" {
			return "", "", false
		}
	}
	args := make([]string, len(c.Args))
	for i, w := range c.Args {
		v, ok := lexer.Literal(w)
		if !ok {
			return "", "", false
		}
		args[i] = v
	}
	var opts, ops []string
	for _, a := range args[1:] {
		if strings.HasPrefix(a, "-") && len(ops) == 0 {
			opts = append(opts, a)
		} else {
			ops = append(ops, a)
		}
	}
	found := func(name string) (string, string, bool) {
		return unknown + "/" + path.Base(name), "$(" + args[0] + " " + name + ")", true
	}
	switch args[0] {
	case "pwd":
		if len(args) == 1 {
			v, ok := st.get("PWD")
			return v, "$(pwd)", ok
		}
	case "which", "whence", "where":
		if len(ops) == 1 {
			return found(ops[0])
		}
	case "command":
		if len(ops) == 1 && len(opts) == 1 && opts[0] == "-v" {
			return found(ops[0])
		}
	case "type":
		if len(ops) == 1 && len(opts) > 0 && strings.ContainsAny(strings.Join(opts, ""), "pP") {
			return found(ops[0])
		}
	case "echo":
		joined := strings.Join(args[1:], " ")
		if len(opts) == 0 && !strings.Contains(joined, `\`) {
			return joined, "$(echo " + joined + ")", true
		}
	case "printf":
		switch {
		case len(args) == 3 && args[1] == "%s" && !strings.Contains(args[2], `\`):
			return args[2], "$(printf %s " + args[2] + ")", true
		case len(args) == 2 && !strings.ContainsAny(args[1], `%\`) && len(opts) == 0:
			return args[1], "$(printf " + args[1] + ")", true
		}
	}
	return "", "", false
}

// resolvedProgram reports whether a value is a program found on the PATH, as substOutput gives
// it: a directory that cannot be known, then a name. A variable may hold one: `h=$(which
// hookctl); $h uninstall` is judged as hookctl.
func resolvedProgram(v string) bool {
	name, ok := strings.CutPrefix(v, unknown+"/")
	return ok && name != "" && !strings.ContainsAny(name, unknown+tempPath+"/")
}

// isHookctl reports whether a command word runs hookctl: its base name is hookctl, or the base
// name of the binary the hook runs as (Context.Binary), whatever the user named it.
func (j *judge) isHookctl(w word) bool {
	b, ok := w.base()
	return ok && (b == "hookctl" || j.ctx.Binary != "" && b == path.Base(j.ctx.Binary))
}

// uninstallerRule: hookctl's uninstall.sh.
//
// Why: install writes uninstall.sh into hookctl's home so that the user can remove hookctl's
// hooks when the binary is gone and every prompt is refused (issue 11); the same script run by
// the agent, `sh ~/.config/hookctl/uninstall.sh`, switches its guard off as `hookctl
// uninstall` would.
// What: a command is refused when its program or any argument is Context.Uninstaller, as
// written absolute, under ~ or $HOME, or relative to a known directory: run by a shell, `.`,
// `source`, `exec` or a wrapper, or copied or read (a copy runs the same). A name built at run
// time is not seen (TestKnownGaps); the edit sandbox masks hookctl's home.
// Test: TestSelfProtection (uninstaller rows).
func (j *judge) namesUninstaller(prog string, argv []word, st *state) *programs.Refusal {
	if j.ctx.Uninstaller == "" {
		return nil
	}
	u := path.Clean(j.ctx.Uninstaller)
	for _, a := range argv {
		paths, ok := j.resolve(a, st)
		if !ok || a.inside {
			continue
		}
		for _, p := range paths {
			if p == u {
				return refuse(prog, "ask the user to run it", "`%s` is hookctl's uninstaller: it removes hookctl's hooks, as `hookctl uninstall` does; only the user may run it", a.show())
			}
		}
	}
	return nil
}

// binaryCopyRule: a copy of hookctl's own binary, under any name.
//
// Why: `cp "$(which hookctl)" /tmp/x; /tmp/x uninstall`, `ln -s ~/.local/bin/hookctl /tmp/h`,
// `install -m755 ~/.local/bin/hookctl /tmp/h` and `cat ~/.local/bin/hookctl > /tmp/x` make a
// hookctl that no rule recognises by name (issue 7).
// What: cp, ln, link, install, rsync, mv, dd (if=), cat, tac, head, tail, base64, base32, xxd,
// od, hexdump, gzip, bzip2, xz, zstd, lz4, tar, zip, 7z, cpio, split, objcopy and pv are
// refused when an operand is hookctl's binary: its base name is hookctl (a path that cannot be
// resolved included, such as $(which hookctl)), or it is Context.Binary, by path or base name.
// Test: TestSelfProtection (copy rows).
var binaryReaders = []string{"cp", "ln", "link", "install", "rsync", "mv", "dd", "cat", "tac", "head", "tail",
	"base64", "base32", "xxd", "od", "hexdump", "gzip", "bzip2", "xz", "zstd", "lz4", "tar", "zip", "7z", "cpio",
	"split", "objcopy", "pv"}

func (j *judge) copiesBinary(prog string, args []word, st *state) *programs.Refusal {
	ended := false
	for _, a := range args {
		v := a.s
		switch {
		case !ended && v == "--":
			ended = true
			continue
		case prog == "dd":
			f, ok := strings.CutPrefix(v, "if=")
			if !ok {
				continue
			}
			a = word{s: f, glob: -1}
		case !ended && strings.HasPrefix(v, "-"):
			continue
		}
		if a.inside || a.s == "" || !j.isHookctl(a) {
			continue
		}
		if paths, ok := j.resolve(a, st); ok && !j.isBinary(paths) {
			continue // hookctl's configuration directory, say: another rule's
		}
		return refuse(prog, hintAsk, "`%s` copies hookctl's own binary (`%s`): a copy under another name would run hookctl where no rule recognises it",
			prog, a.show())
	}
	return nil
}

// isBinary reports whether one of paths is hookctl's binary, or may be a copy of it: a path
// with hookctl's name that is not one of the protected files that are not the binary.
func (j *judge) isBinary(paths []string) bool {
	for _, p := range paths {
		if j.ctx.Binary != "" && p == path.Clean(j.ctx.Binary) || !ProtectedPath(p, j.ctx) {
			return true
		}
	}
	return false
}
