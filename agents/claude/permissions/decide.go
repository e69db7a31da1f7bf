package permissions

import (
	"path"
	"path/filepath"
	"slices"
	"strings"

	"github.com/hookctl/hookctl/hook"
	"github.com/hookctl/hookctl/internal/clip"
	"github.com/hookctl/hookctl/lexer"
	"github.com/hookctl/hookctl/policy"
)

// Judge is what Claude Code would do with a Bash call as the agent wrote it: deny, then ask,
// then allow, the first rule to match in that order deciding whatever its scope; with no rule,
// the permission mode (hook.ClientRules).
func (s *Set) Judge(q policy.ClientQuery) policy.ClientVerdict {
	if !q.Shell() {
		return policy.ClientVerdict{Verdict: hook.Pass}
	}
	c := q.Call
	a := newAnatomy(q.Line)
	shown := clip.Short(c.Command)
	for _, b := range []Behavior{Deny, Ask} {
		if r, what := s.firstMatch(b, a, q); r != nil {
			v := policy.ClientVerdict{Rule: r.String(), By: "your permission rule"}
			if b == Deny {
				v.Verdict = hook.Deny
				v.Reason = "Permission to use Bash with command " + shown + " has been denied by your Claude Code rule " +
					r.Text + " (" + r.Source.Scope.String() + " " + sourceName(r) + ")" + what + "; hookctl applies your rules to the command as you wrote it."
			} else {
				v.Verdict = hook.Ask
				v.Reason = "Your Claude Code rule " + r.Text + " (ask, " + r.Source.Scope.String() + " " + sourceName(r) + ") asks before " +
					shown + what + "."
			}
			return v
		}
	}
	mode := c.PermissionMode
	if t, ok := s.criticalRemoval(a); ok {
		if mode == "dontAsk" {
			return policy.ClientVerdict{Verdict: hook.Deny, By: "the client's dontAsk mode",
				Reason: "Claude Code never runs an rm of " + clip.Short(t) + " (a critical path) without asking, and dontAsk mode refuses what would ask."}
		}
		return policy.ClientVerdict{Verdict: hook.Ask, By: "the client's critical-path check",
			Reason: "Claude Code asks before an rm of " + clip.Short(t) + " (a critical path), whatever allows it."}
	}
	if r := s.allowedBy(a, q, mode); r != nil {
		return policy.ClientVerdict{Verdict: hook.Allow, Rule: r.String(), By: "your permission rule",
			Reason: "Your Claude Code rule " + r.Text + " (" + r.Source.Scope.String() + " " + sourceName(r) + ") allows " + shown + "."}
	}
	return s.byMode(a, q, mode)
}

// sourceName is where a rule is written, for a reason.
func sourceName(r *Rule) string {
	if r.Source.Scope == ScopeCLI {
		return r.Source.Path
	}
	return "settings " + r.Source.Path
}

// forEachPart calls f with every simple command of a, and of the literal scripts of its `bash
// -c`s (deny and ask rules only), until f returns true.
func forEachPart(a *anatomy, depth int, f func(p *part) bool) bool {
	for _, p := range a.parts {
		if f(p) {
			return true
		}
		if depth < maxInlineDepth {
			if script, ok := p.inlineScript(); ok {
				if forEachPart(newAnatomy(lexer.NewCommandLine(script)), depth+1, f) {
					return true
				}
			}
		}
	}
	return false
}

// firstMatch is the first rule of behavior b, in precedence order, that matches any part of
// the command or any file it names; what says which file, if a file rule matched.
func (s *Set) firstMatch(b Behavior, a *anatomy, q policy.ClientQuery) (*Rule, string) {
	an := anchors{cwd: s.cwd, home: s.home}
	var files []access
	cds := []string{s.cwd}
	forEachPart(a, 0, func(p *part) bool {
		files = append(files, p.accesses()...)
		if prog, args := p.program(); prog == "cd" && len(args) > 0 && args[0].ok {
			cds = append(cds, absPath(args[0].lit, s.cwd, s.home))
		}
		return false
	})
	for _, r := range q.Reads {
		files = append(files, access{path: r})
	}
	for _, r := range s.rules {
		if r.Behavior != b {
			continue
		}
		switch {
		case r.Tool == "Bash" || r.Whole() && toolGlob(r.Tool):
			if r.Whole() {
				return r, ""
			}
			if forEachPart(a, 0, func(p *part) bool {
				for _, f := range p.denyForms() {
					if r.bash.match(f) {
						return true
					}
				}
				return false
			}) {
				return r, ""
			}
		case (r.Tool == "Read" || r.Tool == "Edit") && !r.Whole():
			pp, ok := compilePath(r.Content, r, an)
			if !ok || pp.negated {
				continue
			}
			for _, f := range files {
				if r.Tool == "Edit" && !f.write {
					continue // a Read rule covers writes too, as it covers the Edit tool
				}
				for _, dir := range cds {
					abs := absPath(f.path, dir, s.home)
					if pp.match(abs, !f.write) && !s.carvedOut(r, abs, an) {
						return r, " (it names " + clip.Short(f.path) + ")"
					}
				}
			}
		}
	}
	return nil, ""
}

// toolGlob reports whether a tool-name pattern of a deny or ask rule ("*", "B*") covers Bash.
func toolGlob(pat string) bool {
	if !strings.ContainsAny(pat, "*?[") {
		return false
	}
	ok, _ := path.Match(pat, "Bash")
	return ok
}

// carvedOut reports whether a `!` rule listed after r, in the same source's list, reopens abs.
func (s *Set) carvedOut(r *Rule, abs string, an anchors) bool {
	for _, n := range s.rules {
		if n.Behavior != r.Behavior || n.Tool != r.Tool || n.Source != r.Source || n.index <= r.index || !strings.HasPrefix(strings.TrimSpace(n.Content), "!") {
			continue
		}
		if pp, ok := compilePath(n.Content, n, an); ok && pp.match(abs, false) {
			return true
		}
	}
	return false
}

// readOnlyPrograms run without a prompt in the client when nothing they are given writes (a
// subset of its built-in list): a compound command's part that is one of them needs no allow
// rule of its own.
var readOnlyPrograms = []string{"cat", "ls", "head", "tail", "wc", "grep", "egrep", "fgrep", "rg", "pwd", "echo", "printf",
	"true", "false", "test", "[", "which", "diff", "stat", "du", "df", "date", "uniq", "cut", "tr", "file", "basename",
	"dirname", "realpath", "readlink", "whoami", "id", "uname", "nl", "tac", "rev", "column", "jq", "cd"}

// readOnlyPart reports whether a part is one of the client's read-only commands, writing
// nothing.
func readOnlyPart(p *part) bool {
	for _, f := range p.accesses() {
		if f.write {
			return false
		}
	}
	return readOnlyProgram(p)
}

// readOnlyProgram reports whether a part's program, as given its arguments, is one of the
// client's read-only commands; its redirections are judged apart.
func readOnlyProgram(p *part) bool {
	prog, args := p.program()
	if slices.Contains(readOnlyPrograms, prog) {
		return true
	}
	switch prog {
	case "sort":
		for _, a := range args {
			if strings.HasPrefix(a.lit, "-o") || strings.HasPrefix(a.lit, "--output") || !a.ok {
				return false
			}
		}
		return true
	case "find":
		for _, a := range args {
			if !a.ok || strings.HasPrefix(a.lit, "-exec") || strings.HasPrefix(a.lit, "-ok") || a.lit == "-delete" || strings.HasPrefix(a.lit, "-fprint") || a.lit == "-fls" {
				return false
			}
		}
		return true
	}
	return false
}

// allowedBy returns the allow rule that approves the command, or nil: a rule on the whole tool,
// or one rule per part (the client's read-only commands need none), when the command is plain,
// no part changes directory before something writes, and every file a redirection writes is
// one the mode or an Edit rule lets the client write without asking.
func (s *Set) allowedBy(a *anatomy, q policy.ClientQuery, mode string) *Rule {
	var whole *Rule
	for _, r := range s.rules {
		if r.Behavior == Allow && r.Tool == "Bash" && r.Whole() {
			whole = r
			break
		}
	}
	if !a.parsed || !a.plain {
		if whole != nil && a.parsed {
			return whole
		}
		return nil
	}
	cd, writes := false, false
	for _, p := range a.parts {
		if prog, _ := p.program(); prog == "cd" {
			cd = true
		}
		for _, f := range p.accesses() {
			writes = writes || f.write
		}
	}
	if cd && writes {
		return nil // the client asks: it cannot tell where the writes land
	}
	for _, p := range a.parts {
		for _, r := range p.redirs {
			if r.write && r.target.ok && r.target.lit != "/dev/null" && !s.writeAccepted(r.target.lit, mode) {
				return nil
			}
			if r.write && !r.target.ok {
				return nil
			}
		}
	}
	if whole != nil {
		return whole
	}
	var first *Rule
	for _, p := range a.parts {
		r := s.allowRuleFor(p)
		if r == nil {
			if q.Read || readOnlyPart(p) && len(a.parts) > 1 {
				continue
			}
			return nil
		}
		if first == nil {
			first = r
		}
	}
	return first
}

// allowRuleFor is the first allow rule that approves one part as the client matches it.
func (s *Set) allowRuleFor(p *part) *Rule {
	text, prog, ok := p.allowForm()
	if !ok {
		return nil
	}
	onlyExact := slices.Contains(execWrappers, filepath.Base(prog))
	if filepath.Base(prog) == "find" {
		_, args := p.program()
		for _, a := range args {
			if strings.HasPrefix(a.lit, "-exec") || strings.HasPrefix(a.lit, "-ok") || a.lit == "-delete" {
				onlyExact = true
			}
		}
	}
	for _, r := range s.rules {
		if r.Behavior != Allow || r.Tool != "Bash" || r.bash == nil {
			continue
		}
		if onlyExact && r.bash.kind != exact {
			continue
		}
		if r.bash.match(text) {
			return r
		}
	}
	return nil
}

// writeAccepted reports whether the client writes a file a redirection names without asking:
// an Edit allow rule covers it, or the mode accepts writes there (acceptEdits inside the working
// directories, bypassPermissions anywhere), and it is not a protected path.
func (s *Set) writeAccepted(target, mode string) bool {
	abs := absPath(target, s.cwd, s.home)
	if mode == "bypassPermissions" {
		return true
	}
	if protectedPath(abs) {
		return false
	}
	an := anchors{cwd: s.cwd, home: s.home}
	for _, r := range s.rules {
		if r.Behavior == Allow && r.Tool == "Edit" {
			if r.Whole() {
				return true
			}
			if pp, ok := compilePath(r.Content, r, an); ok && !pp.negated && pp.match(abs, false) {
				return true
			}
		}
	}
	return mode == "acceptEdits" && s.inWorkingDirs(abs)
}

func (s *Set) inWorkingDirs(abs string) bool {
	for _, d := range s.dirs {
		if _, ok := under(filepath.Clean(d), abs); ok {
			return true
		}
	}
	return false
}

// protectedDirs and protectedFiles are the client's protected paths: writes there are never
// approved without asking, but in bypassPermissions mode.
var (
	protectedDirs  = []string{".git", ".vscode", ".idea", ".husky", ".claude"}
	claudeWritable = []string{"commands", "agents", "skills", "worktrees"}
	protectedFiles = []string{".gitconfig", ".gitmodules", ".bashrc", ".bash_profile", ".zshrc", ".zprofile", ".profile", ".ripgreprc", ".mcp.json", ".claude.json"}
	fsCommands     = []string{"mkdir", "touch", "rm", "rmdir", "mv", "cp", "sed"}
)

func protectedPath(abs string) bool {
	segs := strings.Split(abs, "/")
	for i, s := range segs {
		if slices.Contains(protectedDirs, s) && i < len(segs)-1 {
			if s == ".claude" && i+1 < len(segs)-1 && slices.Contains(claudeWritable, segs[i+1]) {
				continue
			}
			return true
		}
	}
	return slices.Contains(protectedFiles, segs[len(segs)-1])
}

// criticalRemoval finds an rm or rmdir of a critical path: the root, a directory right under it,
// the home directory, or a working directory or one above it.
func (s *Set) criticalRemoval(a *anatomy) (string, bool) {
	found := ""
	forEachPart(a, 0, func(p *part) bool {
		prog, args := p.program()
		if prog != "rm" && prog != "rmdir" {
			return false
		}
		for _, w := range args {
			if !w.ok || strings.HasPrefix(w.lit, "-") {
				continue
			}
			abs := absPath(w.lit, s.cwd, s.home)
			critical := strings.Count(strings.TrimSuffix(abs, "/"), "/") <= 1 || abs == filepath.Clean(s.home)
			for _, d := range s.dirs {
				if _, ok := under(abs, filepath.Clean(d)); ok {
					critical = true
				}
			}
			if critical {
				found = w.lit
				return true
			}
		}
		return false
	})
	return found, found != ""
}

// byMode is what the permission mode does with a command no rule decided (2.1.328, live and as
// documented): a read runs in every mode; bypassPermissions runs the rest; dontAsk refuses it;
// acceptEdits runs file changes inside the working directories; auto leaves it to the client's
// classifier; default and plan ask.
func (s *Set) byMode(a *anatomy, q policy.ClientQuery, mode string) policy.ClientVerdict {
	shown := clip.Short(q.Call.Command)
	if q.Read {
		return policy.ClientVerdict{Verdict: hook.Allow, By: "a read, which the client runs without asking",
			Reason: "hookctl: a read-only command; no rule of yours applies to it, and Claude Code runs reads without asking."}
	}
	suggest := " hookctl asks in the client's place: Claude Code cannot offer \"don't ask again\" for a command hookctl runs rewritten. " +
		"To stop being asked, add " + s.suggestion(a) + " to permissions.allow (/permissions, or .claude/settings.local.json)."
	switch mode {
	case "bypassPermissions":
		return policy.ClientVerdict{Verdict: hook.Allow, By: "the client's bypassPermissions mode",
			Reason: "hookctl: no rule of yours applies, and Claude Code is in bypassPermissions mode."}
	case "dontAsk":
		return policy.ClientVerdict{Verdict: hook.Deny, By: "the client's dontAsk mode",
			Reason: "Permission to use Bash has been denied because Claude Code is running in don't ask mode: no permission rule of yours allows " + shown + "."}
	case "acceptEdits":
		if s.editsOnly(a) {
			return policy.ClientVerdict{Verdict: hook.Allow, By: "the client's acceptEdits mode",
				Reason: "hookctl: Claude Code's acceptEdits mode accepts this file change inside your working directories."}
		}
		return policy.ClientVerdict{Verdict: hook.Ask, By: "the client's acceptEdits mode",
			Reason: "Claude Code asks before " + shown + " (acceptEdits accepts only file changes inside your working directories; no rule of yours allows it)." + suggest}
	case "auto":
		if s.allowsRewrite(q.Rewrite) {
			return policy.ClientVerdict{Verdict: hook.Ask, By: "the client's auto mode",
				Reason: "One of your allow rules would approve hookctl's rewrite of this command without the auto mode's check, which you did not mean: confirm " + shown + "."}
		}
		return policy.ClientVerdict{Verdict: hook.Pass, By: "the client's auto mode"}
	}
	m := mode
	if m == "" {
		m = "default"
	}
	return policy.ClientVerdict{Verdict: hook.Ask, By: "the client's " + m + " mode",
		Reason: "Claude Code asks before " + shown + " in its " + m + " mode: no permission rule of yours allows it." + suggest}
}

// editsOnly reports whether acceptEdits runs the command without asking: plain, each part a file
// command (mkdir, touch, rm, rmdir, mv, cp, sed) or a read, every file written inside the working
// directories and none protected, and no cd before a write.
func (s *Set) editsOnly(a *anatomy) bool {
	if !a.parsed || !a.plain {
		return false
	}
	for _, p := range a.parts {
		prog, _ := p.program()
		if prog == "cd" && len(a.parts) > 1 {
			return false
		}
		if !slices.Contains(fsCommands, prog) && !readOnlyProgram(p) {
			return false
		}
		for _, f := range p.accesses() {
			if !f.write {
				continue
			}
			abs := absPath(f.path, s.cwd, s.home)
			if !s.inWorkingDirs(abs) || protectedPath(abs) {
				return false
			}
		}
		for _, r := range p.redirs {
			if r.write && !r.target.ok {
				return false
			}
		}
	}
	return true
}

// allowsRewrite reports whether an allow rule of the user's would approve the rewritten command
// as the client sees it.
func (s *Set) allowsRewrite(rewrite string) bool {
	a := newAnatomy(lexer.NewCommandLine(rewrite))
	for _, p := range a.parts {
		if s.allowRuleFor(p) != nil {
			return true
		}
	}
	return false
}

// suggestion is the rule the client's own prompt would offer to remember: the program and its
// subcommand, and a wildcard ("npm test *").
func (s *Set) suggestion(a *anatomy) string {
	for _, p := range a.parts {
		if readOnlyPart(p) && len(a.parts) > 1 {
			continue
		}
		ws, _ := unwrap(p.words, false)
		if len(ws) == 0 || !ws[0].ok {
			break
		}
		words := []string{ws[0].lit}
		if len(ws) > 1 && ws[1].ok && subcommandWord(ws[1].lit) {
			words = append(words, ws[1].lit)
		}
		return "\"Bash(" + strings.Join(words, " ") + " *)\""
	}
	return "a Bash(…) rule for it"
}

// subcommandWord reports whether a word reads as a subcommand (test, run, log), not an option,
// a path or a value.
func subcommandWord(w string) bool {
	for i, c := range w {
		letter := c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z'
		if !letter && (i == 0 || !(c >= '0' && c <= '9' || strings.ContainsRune("_.:-", c))) {
			return false
		}
	}
	return w != ""
}
