package editguard

// The edit guard (see doc.go): wrappers, the programs that run another command. How each one
// parses its arguments is data, in the shell's wrapper table (nested.Wrappers); this file judges
// what the table finds.

import (
	"strings"

	"github.com/hookctl/hookctl/internal/wordlist"
	"github.com/hookctl/hookctl/lexer/nested"
	"github.com/hookctl/hookctl/programs"

	"mvdan.cc/sh/v3/syntax"
)

// wrapperRule: every program in the shell's wrapper table (lexer/nested) that runs an argv or a
// shell line.
//
// Why: `timeout 5 rm -rf ~`, `flock /tmp/l hookctl uninstall`, `chronic hookctl uninstall` and
// `script -qc 'hookctl readonly off --session victim' /dev/null` (which switched another,
// read-only session to edit): a wrapper changes nothing about what the command it runs does,
// and each wrapper parses its arguments its own way.
// What: the wrapper's arguments are peeled by its table (nested.Wrapper.Peel): its options
// with their values, NAME=VALUE words, and the operands before the command (timeout's
// DURATION, flock's FILE, taskset's mask, chrt's priority, chroot's NEWROOT). The command that
// remains is judged as if written alone, or, for wrappers that run a shell line (watch, sg,
// parallel, entr -s), parsed and judged in a new shell; so is every shell line an option
// carries (script -c, flock FILE -c, su -c, perf stat --pre, rlwrap -z, strace -o '|CMD',
// systemd-run -p ExecStartPre=CMD). Files the wrapper writes (time -o, strace -o, script's
// typescript, xvfb-run -e) are judged as writes. env -C, unshare -w and systemd-run
// --working-directory move the directory; systemd-run without -d runs elsewhere; env -S is split
// into the command. xargs and parallel add an operand that cannot be known, or replace their
// replacement strings with one. Where the table cannot place the command with confidence (an
// option it does not list, a word that may begin with `-`, a perf subcommand it does not know),
// every word from there on is judged as a possible start of the command; where the wrapper
// permutes its options (GNU getopt), the command as a parser that does not permute reads it is
// judged too. sudo, doas, su and runuser are the privilege rule's.
// Test: TestWrappers, TestRecursion.
var wrapperRule = &rule{match: plainWrapper, judge: func(j *judge, c *invocation) *programs.Refusal {
	return j.wrapped(nested.LookupWrapper(c.prog), c.prog, c.args, c.st)
}}

// plainWrapper reports whether a program is one of the wrappers wrapperRule judges: those
// without a language of their own. Each name stands in one wrapper of the table
// (TestPlainWrapper), so the one LookupWrapper finds is the only one.
func plainWrapper(name string) bool {
	w := nested.LookupWrapper(name)
	return w != nil && w.Language == ""
}

// wrapperArgs is how the wrapper table sees words: a word that starts with an unknown part may
// be an option.
func wrapperArgs(args []word) []nested.WrapperArg {
	out := make([]nested.WrapperArg, len(args))
	for i, a := range args {
		out[i] = nested.WrapperArg{Value: a.s, Open: a.startsUnknown()}
	}
	return out
}

// optionValues returns the words holding an option's values.
func optionValues(args []word, o nested.PeeledOption) []word {
	if o.HasAttached {
		return []word{lit(o.Attached)}
	}
	out := make([]word, 0, len(o.Values))
	for _, i := range o.Values {
		out = append(out, args[i])
	}
	return out
}

func pick(args []word, at []int) []word {
	out := make([]word, len(at))
	for k, i := range at {
		out[k] = args[i]
	}
	return out
}

// wrapped judges a wrapper's arguments by its table.
func (j *judge) wrapped(w *nested.Wrapper, prog string, args []word, st *state) *programs.Refusal {
	if w.Privileged {
		return privilegeRule.judge(j, &invocation{prog: prog, args: args, st: st})
	}
	if r := j.tick(len(args)); r != nil { // peeling reads every word
		return r
	}
	if w.Names[0] == "env" {
		args = envDash(args)
	}
	p := w.Peel(wrapperArgs(args))
	// The environment it gives the command.
	for _, i := range p.Assigns {
		if r := j.setsVariable(wordName(args[i]), "`"+prog+"` setting"); r != nil {
			return r
		}
	}
	for _, o := range p.Option(w.Env + " " + w.Unset) {
		if vs := optionValues(args, o); len(vs) > 0 {
			if r := j.setsVariable(wordName(vs[0]), "`"+prog+" "+o.Name+"` of"); r != nil {
				return r
			}
		}
	}
	// What the wrapper itself writes and runs.
	for _, o := range p.Option(w.Writes) {
		for _, v := range optionValues(args, o) {
			what := "`" + prog + " " + o.Name + "`"
			if w.WritePipes && (strings.HasPrefix(v.s, "|") || strings.HasPrefix(v.s, "!")) {
				v.s = v.s[1:]
				if r := j.line(prog, what, v, st); r != nil {
					return r
				}
				continue
			}
			if r := j.write(prog, what, v, st, false); r != nil {
				return r
			}
		}
	}
	if w.WritesOperand && len(p.Operands) > 0 {
		if r := j.write(prog, "`"+prog+"`", args[p.Operands[0]], st, false); r != nil {
			return r
		}
	}
	for _, o := range p.Option(w.Shell) {
		for _, v := range optionValues(args, o) {
			if r := j.line(prog, "`"+prog+" "+o.Name+"`", v, st); r != nil {
				return r
			}
		}
	}
	if p.Then >= 0 {
		if r := j.line(prog, "`"+prog+" "+args[p.Then-1].s+"`", args[p.Then], st); r != nil {
			return r
		}
	}
	for _, o := range p.Option(w.ExecProperties) {
		for _, v := range optionValues(args, o) {
			if r := j.execProperty(prog, v, st); r != nil {
				return r
			}
		}
	}
	if o := p.Option(w.Unknowable); len(o) > 0 {
		return refuse(prog, hintLiteral, "`%s %s` reads the command's words from elsewhere, so it cannot be judged", prog, o[0].Name)
	}
	if p.NoRun {
		return nil
	}
	// Where the command runs.
	inner := st
	for _, o := range p.Option(w.Chdir) {
		for _, d := range optionValues(args, o) {
			inner = inner.clone()
			if paths, ok := j.resolve(d, inner); ok {
				inner.dirs = paths
			} else {
				inner.dirs = nil
			}
		}
	}
	if w.ElsewhereUnless != "" && len(p.Option(w.ElsewhereUnless)) == 0 {
		inner = inner.clone()
		inner.dirs = nil
	}
	for _, o := range p.Option(w.Split) {
		for _, s := range optionValues(args, o) {
			if !s.known() {
				return refuse(prog, hintLiteral, "`%s %s` with a string that is not a literal cannot be judged", prog, o.Name)
			}
			line := s.s
			for _, a := range pick(args, p.Command) {
				line += " " + a.s
			}
			return j.script(line, inner, syntax.LangBash)
		}
	}
	if len(w.Subcommands) > 0 {
		switch {
		case p.SubAt < 0:
			return nil
		case p.Sub != nil:
			return j.wrapped(p.Sub, prog+" "+args[p.SubAt].s, args[p.SubAt+1:], inner)
		}
		return j.anywhere(prog, w, args, p.SubAt+1, inner)
	}
	// The command, as the table places it.
	cmd := pick(args, p.Command)
	joined := (w.Joined && len(p.Option(w.Exec)) == 0) || len(p.Option(w.JoinedIf)) > 0
	if len(cmd) == 0 && w.Default != "" {
		cmd = []word{lit(w.Default)}
	}
	if r := j.wrappedCommand(prog, w, p, args, cmd, joined, inner, false); r != nil {
		return r
	}
	// The other readings: without permutation, without the optional operands, and from every
	// word on when the table is not sure.
	if p.Posix >= 0 && (len(p.Command) == 0 || p.Posix != p.Command[0]) {
		if r := j.wrappedCommand(prog, w, p, args, args[p.Posix:], joined, inner, true); r != nil {
			return r
		}
	}
	if w.OperandsOptional && len(p.Operands) > 0 {
		if r := j.wrappedCommand(prog, w, p, args, args[p.Operands[0]:], joined, inner, true); r != nil {
			return r
		}
	}
	if !p.Confident {
		return j.anywhere(prog, w, args, p.Unsure, inner)
	}
	return nil
}

// envDash rewrites env's obsolete `-` (POSIX: the same as -i), which getopt would read as the
// command, to -i: `env - git reset --hard` runs git.
func envDash(args []word) []word {
	for i, a := range args {
		switch {
		case a.s == "-" && a.known():
			out := append([]word(nil), args...)
			out[i] = lit("-i")
			return out
		case a.s == "--" || !strings.HasPrefix(a.s, "-") && !strings.Contains(a.s, "="):
			return args
		}
	}
	return args
}

// wrappedCommand judges the command a wrapper runs: an argv, or (joined) a shell line made of its
// words. speculative marks a reading the wrapper may not take: a line that does not parse is
// then no command at all.
func (j *judge) wrappedCommand(prog string, w *nested.Wrapper, p nested.Peeled, args, cmd []word, joined bool, st *state, speculative bool) *programs.Refusal {
	if len(cmd) == 0 {
		if joined && !speculative {
			return j.inputLines(prog, w, cmd, st)
		}
		return nil
	}
	if joined {
		return j.joinedLine(prog, w, cmd, st, speculative)
	}
	if w.Input {
		cmd = withInput(w, p, args, cmd)
	}
	return j.argv(cmd, st.clone())
}

// anywhere judges every word of args from the index from on as a possible start of the
// command: where the table cannot place it, fail closed.
func (j *judge) anywhere(prog string, w *nested.Wrapper, args []word, from int, st *state) *programs.Refusal {
	joined := w.Joined || w.JoinedIf != ""
	for k := max(from, 0); k < len(args); k++ {
		if r := j.tick(len(args) - k); r != nil {
			return r
		}
		if r := j.argv(args[k:], st.clone()); r != nil {
			return refuse(r.Program, r.Hint, "%s (read as the command `%s` runs, whose arguments the edit guard cannot place with certainty)", r.What, prog)
		}
		if joined {
			if r := j.joinedLine(prog, w, args[k:], st, true); r != nil {
				return r
			}
		}
	}
	return nil
}

// withInput gives xargs' command the operand it reads from its input: each replacement string
// becomes a word that cannot be known, or one is appended.
func withInput(w *nested.Wrapper, p nested.Peeled, args, cmd []word) []word {
	repl, replacing := "", false
	for _, o := range p.Options {
		switch {
		case wordlist.Has(w.Replace, o.Name):
			if v := optionValues(args, o); len(v) > 0 {
				repl, replacing = v[0].s, true
			}
		case wordlist.Has(w.ReplaceBraces, o.Name):
			repl, replacing = "{}", true
			if o.HasAttached && o.Attached != "" {
				repl = o.Attached
			}
		}
	}
	out := append([]word(nil), cmd...)
	if !replacing {
		return append(out, unknownWord)
	}
	for i := 1; i < len(out); i++ {
		switch {
		case repl == "" || strings.Contains(repl, unknown):
			out[i] = unknownWord // the replacement string cannot be known: any operand may hold it
		case strings.Contains(out[i].s, repl):
			out[i] = word{s: strings.ReplaceAll(out[i].s, repl, unknown), glob: -1}
		}
	}
	return out
}

// joinedLine judges the shell line a wrapper makes of its words (watch, sg, parallel): joined
// with spaces and run by sh -c. A part that cannot be known, or a replacement string of
// parallel's ({}, {.}, {1}, …), becomes a variable the inner shell does not know; parallel
// appends its input when the line has no replacement string.
func (j *judge) joinedLine(prog string, w *nested.Wrapper, cmd []word, st *state, speculative bool) *programs.Refusal {
	parts := make([]string, 0, len(cmd)+1)
	replaced := false
	for _, a := range cmd {
		if w.Separators != "" && wordlist.Has(w.Separators, a.s) {
			break
		}
		s := a.s
		if w.Input && strings.Contains(s, "{") && strings.Contains(s, "}") {
			if r := replaceParallel(s); r != s {
				replaced, s = true, r
			}
		}
		if a.inside {
			s = unknown
		}
		s = strings.NewReplacer(unknown, "$__hookctl_arg", tempPath, "$__hookctl_arg").Replace(s)
		parts = append(parts, s)
	}
	if len(parts) == 0 {
		return j.inputLines(prog, w, cmd, st)
	}
	if w.Input && !replaced {
		parts = append(parts, "$__hookctl_arg")
	}
	line := strings.Join(parts, " ")
	if speculative {
		return j.scriptIfParses(line, st.child(), syntax.LangBash)
	}
	return j.script(line, st.child(), syntax.LangBash)
}

// inputLines judges what parallel runs when it is given no command: each input is a command
// line. The inputs after ::: are judged; inputs read from elsewhere (standard input, ::::
// files) cannot be, and the command is refused.
func (j *judge) inputLines(prog string, w *nested.Wrapper, cmd []word, st *state) *programs.Refusal {
	if w.Separators == "" {
		return nil
	}
	if len(cmd) == 0 || cmd[0].s != ":::" {
		if len(cmd) == 0 && j.input != nil {
			return j.script(*j.input, st.child(), syntax.LangBash)
		}
		return refuse(prog, hintLiteral, "`%s` without a command runs each line of its input as a command, which the guard cannot read", prog)
	}
	for _, a := range cmd[1:] {
		if wordlist.Has(w.Separators, a.s) {
			if a.s != ":::" {
				return refuse(prog, hintLiteral, "`%s` without a command runs inputs read from a file as commands, which the guard cannot read", prog)
			}
			continue
		}
		if r := j.line(prog, "`"+prog+" :::`", a, st); r != nil {
			return r
		}
	}
	return nil
}

// replaceParallel replaces parallel's replacement strings with a variable the inner shell does
// not know.
func replaceParallel(s string) string {
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		if s[i] == '{' {
			if k := strings.IndexByte(s[i:], '}'); k >= 0 && strings.Trim(s[i+1:i+k], "./#%0123456789") == "" {
				b.WriteString("$__hookctl_arg")
				i += k
				continue
			}
		}
		b.WriteByte(s[i])
	}
	return b.String()
}

// line judges a shell command line given as one word (script -c, flock -c, su -c), in a new
// shell. A line that is not a literal cannot be judged and is refused.
func (j *judge) line(prog, what string, w word, st *state) *programs.Refusal {
	if !w.known() {
		return refuse(prog, hintLiteral, "%s runs a string that is not a literal (`%s`), so it cannot be judged", what, w.show())
	}
	return j.script(w.s, st.child(), syntax.LangBash)
}

// execProperty judges a systemd-run -p NAME=VALUE: an Exec… property's value is a command line
// (its leading @ - : + ! prefixes removed).
func (j *judge) execProperty(prog string, v word, st *state) *programs.Refusal {
	name, val, ok := strings.Cut(v.s, "=")
	if !ok || !strings.HasPrefix(strings.ToLower(name), "exec") {
		return nil
	}
	v.s = strings.TrimLeft(val, "@-:+!|")
	return j.line(prog, "`"+prog+" -p "+name+"=`", v, st)
}
