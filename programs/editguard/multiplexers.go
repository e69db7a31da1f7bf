package editguard

// The edit guard (see doc.go): tmux and screen, which run commands of their own language in
// terminals the guard never sees.

import (
	"strconv"
	"strings"

	"github.com/hookctl/hookctl/lexer/nested"
	"github.com/hookctl/hookctl/programs"

	"mvdan.cc/sh/v3/syntax"
)

// tmuxRule: tmux runs shell commands, keys typed into panes and tmux commands.
//
// Why: `tmux new -d 'hookctl uninstall'`, `tmux run-shell 'hookctl uninstall'` and
// `tmux send-keys 'hookctl uninstall' Enter` run a command in a pane, after the call returns.
// What: tmux's global options are peeled by the wrapper table (-c CMD is a shell line); its
// commands, separated by `;` words, are read by nested.TmuxCommands (a name, its alias or a
// unique prefix of the name). The shell-command of new-session, new-window, split-window,
// respawn-pane, respawn-window, display-popup, pipe-pane and run-shell is judged as a line (one
// operand) or an argv (several, which tmux runs directly). send-keys' keys are joined into the
// text typed (Enter, C-m and C-j are newlines; -H keys are decoded from hex) and judged as typed
// text (typed). bind-key's command, if-shell's commands and the command lines of set-hook,
// confirm-before, command-prompt and run-shell -C are judged as tmux commands. A command the
// table does not list, or options it does not know: every literal operand is judged as a
// possible shell line and a possible tmux command line.
// Test: TestMultiplexers.
var tmuxRule = &rule{names: []string{"tmux"}, judge: judgeTmux}

func judgeTmux(j *judge, c *invocation) *programs.Refusal {
	w := nested.LookupWrapper(c.prog)
	p := w.Peel(wrapperArgs(c.args))
	for _, o := range p.Option(w.Shell) {
		for _, v := range optionValues(c.args, o) {
			if r := j.line(c.prog, "`tmux "+o.Name+"`", v, c.st); r != nil {
				return r
			}
		}
	}
	if p.NoRun {
		return nil
	}
	if !p.Confident {
		return j.tmuxLoose(c.args[max(p.Unsure, 0):], c.st)
	}
	return j.tmuxCommands(pick(c.args, p.Command), c.st)
}

// tmuxCommands judges a sequence of tmux commands, separated by `;` words (or words ending in
// an unescaped `;`).
func (j *judge) tmuxCommands(words []word, st *state) *programs.Refusal {
	var cur []word
	for i, w := range words {
		end := i == len(words)-1
		switch {
		case w.s == ";":
			end = true
		case w.known() && strings.HasSuffix(w.s, ";") && !strings.HasSuffix(w.s, `\;`):
			w.s = strings.TrimSuffix(w.s, ";")
			cur, end = append(cur, w), true
		default:
			cur = append(cur, w)
		}
		if end && len(cur) > 0 {
			if r := j.tmuxCommand(cur, st); r != nil {
				return r
			}
			cur = nil
		}
	}
	return nil
}

// lookupTmux finds a tmux command by name, alias or unique prefix of a name.
func lookupTmux(name string) *nested.TmuxCommand {
	var found *nested.TmuxCommand
	for i := range nested.TmuxCommands {
		c := &nested.TmuxCommands[i]
		if containsString(c.Names, name) {
			return c
		}
		if name != "" && strings.HasPrefix(c.Names[0], name) {
			if found != nil {
				return nil // ambiguous: tmux refuses it too
			}
			found = c
		}
	}
	return found
}

func (j *judge) tmuxCommand(argv []word, st *state) *programs.Refusal {
	if r := j.enter(); r != nil {
		return r
	}
	defer j.leave()
	tc := lookupTmux(argv[0].s)
	switch {
	case !argv[0].known() || tc == nil:
		// Not a tmux command tmux knows, or not known here: it may be a shell command line
		// (set-hook's value) or anything.
		if r := j.argv(argv, st.clone()); r != nil {
			return r
		}
		return j.tmuxLoose(argv[1:], st)
	case tc.Runs == "none":
		return nil
	case tc.Runs == "":
		return j.tmuxLoose(argv[1:], st)
	}
	opts, vals, ops, sure := tmuxOptions(tc, argv[1:])
	if !sure {
		if r := j.tmuxLoose(argv[1:], st); r != nil {
			return r
		}
	}
	what := "`tmux " + tc.Names[0] + "`"
	for _, v := range vals['e'] {
		if r := j.setsVariable(wordName(v), what+" -e of"); r != nil {
			return r
		}
	}
	switch tc.Runs {
	case "env":
		if len(ops) > 0 {
			return j.setsVariable(wordName(ops[0]), what+" of")
		}
	case "shell":
		switch {
		case len(ops) == 0:
			return nil
		case strings.Contains(opts, "C"): // run-shell -C: a tmux command
			return j.tmuxLine(what, ops[0], st)
		case len(ops) == 1:
			return j.line("tmux", what, ops[0], st)
		}
		return j.argv(ops, st.clone())
	case "keys":
		return j.typed("tmux", what, tmuxKeys(ops, opts), st)
	case "tmux":
		if len(ops) > tc.At {
			return j.tmuxCommands(ops[tc.At:], st)
		}
	case "line":
		if len(ops) > tc.At {
			return j.tmuxLine(what, ops[tc.At], st)
		}
	case "if":
		for i, o := range ops {
			var r *programs.Refusal
			switch {
			case i > 0:
				r = j.tmuxLine(what, o, st)
			case !strings.Contains(opts, "F"): // with -F the condition is a format, not run
				r = j.line("tmux", what, o, st)
			}
			if r != nil {
				return r
			}
		}
	}
	return nil
}

// tmuxOptions splits a tmux command's arguments into its option letters, their values and its
// operands, as tmux's parser does: options up to the first operand or `--`. sure is false for
// an option the table does not know, or a word that may begin with `-` (read as the first
// operand).
func tmuxOptions(tc *nested.TmuxCommand, args []word) (opts string, vals map[byte][]word, ops []word, sure bool) {
	sure = true
	vals = map[byte][]word{}
	i := 0
scan:
	for ; i < len(args); i++ {
		a := args[i]
		v := a.s
		switch {
		case a.startsUnknown():
			sure = false
			break scan
		case v == "--":
			i++
			break scan
		case len(v) < 2 || v[0] != '-':
			break scan
		}
		for k := 1; k < len(v); k++ {
			switch {
			case strings.IndexByte(tc.Flags, v[k]) >= 0:
				opts += v[k : k+1]
			case strings.IndexByte(tc.Valued, v[k]) >= 0:
				opts += v[k : k+1]
				if k < len(v)-1 {
					vals[v[k]] = append(vals[v[k]], lit(v[k+1:]))
				} else if i+1 < len(args) {
					i++ // the value is the next word
					vals[v[k]] = append(vals[v[k]], args[i])
				}
				k = len(v)
			default:
				sure = false
			}
		}
	}
	if i >= len(args) {
		return opts, vals, nil, sure
	}
	return opts, vals, args[i:], sure
}

// tmuxLine judges a tmux command line given as one word (set-hook's command, if-shell's): it is
// split into commands and words as a shell would, which for tmux's syntax is close enough, and
// each is judged as a tmux command.
func (j *judge) tmuxLine(what string, w word, st *state) *programs.Refusal {
	if !w.known() {
		return refuse("tmux", hintLiteral, "%s runs a tmux command line that is not a literal (`%s`), so it cannot be judged", what, w.show())
	}
	f, r := j.parse(w.s, syntax.LangBash)
	if r != nil {
		return r
	}
	if f == nil {
		return j.tmuxLoose(splitFields(w.s), st)
	}
	var calls [][]word
	syntax.Walk(f, func(n syntax.Node) bool {
		c, ok := n.(*syntax.CallExpr)
		if !ok {
			return true
		}
		if argv := literalWords(c.Args); len(argv) > 0 {
			calls = append(calls, argv)
		}
		return false
	})
	for _, argv := range calls {
		if r := j.tmuxCommand(argv, st); r != nil {
			return r
		}
	}
	return nil
}

// tmuxLoose judges words tmux reads in a way the table does not model: each literal word as a
// possible shell line and tmux command line, and, from every word that names a tmux command,
// the rest as that command.
func (j *judge) tmuxLoose(words []word, st *state) *programs.Refusal {
	for i, w := range words {
		if r := j.tick(1); r != nil {
			return r
		}
		if !w.known() {
			continue
		}
		if r := j.typed("tmux", "`tmux`", w.s, st); r != nil {
			return r
		}
		if strings.ContainsAny(w.s, " \t\n;") {
			if r := j.tmuxLine("`tmux`", w, st); r != nil {
				return r
			}
		}
		if i > 0 && lookupTmux(w.s) != nil {
			if r := j.tmuxCommands(words[i:], st); r != nil {
				return r
			}
		}
	}
	return nil
}

func splitFields(s string) []word {
	var out []word
	for _, f := range strings.Fields(s) {
		out = append(out, lit(f))
	}
	return out
}

// tmuxKeys returns the text send-keys types: literal keys as they are, key names as what they
// do to a shell's line (Enter, C-m, C-j and any other key name end it), -H keys decoded from hex.
func tmuxKeys(keys []word, opts string) string {
	var b strings.Builder
	for _, k := range keys {
		switch {
		case !k.known():
			b.WriteString("$__hookctl_arg")
		case strings.Contains(opts, "H"):
			if n, err := strconv.ParseUint(k.s, 16, 8); err == nil {
				b.WriteByte(byte(n))
			}
		case strings.Contains(opts, "l"):
			b.WriteString(k.s)
		default:
			b.WriteString(tmuxKey(k.s))
		}
	}
	return b.String()
}

// tmuxKey is what one send-keys argument types.
func tmuxKey(k string) string {
	switch k {
	case "Space":
		return " "
	case "Tab", "C-i":
		return "\t"
	}
	if len(k) > 2 && (k[1] == '-' && strings.IndexByte("CMS", k[0]) >= 0) || containsString(tmuxKeyNames, k) {
		return "\n" // Enter, C-m, C-c, Up, …: the line ends, or is abandoned
	}
	return k
}

// tmuxKeyNames are the key names send-keys types as keys that end or abandon the line. A slice,
// not a map, so that nothing is built when the hook starts.
var tmuxKeyNames = []string{
	"Enter", "KPEnter", "Escape", "BSpace", "Up", "Down", "Left",
	"Right", "Home", "End", "NPage", "PPage", "PageUp", "PageDown",
	"IC", "DC", "Insert", "Delete", "BTab",
}

// screenRule: screen runs a command in a new window, and commands of its own.
//
// Why: `screen -dmS x hookctl uninstall` runs a command detached; `screen -X stuff
// 'hookctl uninstall\n'` types it into a running session.
// What: screen's options are peeled by the wrapper table. Without -X or -Q the operands are the
// command a new window runs, judged as an argv. With -X or -Q they are a screen command: stuff's
// text (^M, ^J, \n and \r are newlines, \NNN is octal) is judged as typed text; exec's and
// screen's commands as an argv (exec's fd pattern and screen's own options skipped); eval's
// arguments as screen command lines; any other command's literal arguments as possible shell
// lines. -c FILE reads a configuration the guard does not open.
// Test: TestMultiplexers.
var screenRule = &rule{names: []string{"screen"}, judge: judgeScreen}

func judgeScreen(j *judge, c *invocation) *programs.Refusal {
	w := nested.LookupWrapper(c.prog)
	p := w.Peel(wrapperArgs(c.args))
	cmd := pick(c.args, p.Command)
	if len(p.Option("-X -Q")) > 0 {
		return j.screenCommand(cmd, c.st)
	}
	if !p.Confident {
		return j.anywhere(c.prog, w, c.args, p.Unsure, c.st)
	}
	if p.NoRun || len(cmd) == 0 {
		return nil
	}
	return j.argv(cmd, c.st.clone())
}

func (j *judge) screenCommand(words []word, st *state) *programs.Refusal {
	if len(words) == 0 {
		return nil
	}
	if r := j.enter(); r != nil {
		return r
	}
	defer j.leave()
	args := words[1:]
	switch words[0].s {
	case "stuff":
		parts := make([]string, 0, len(args))
		for _, a := range args {
			if !a.known() {
				parts = append(parts, "$__hookctl_arg")
				continue
			}
			parts = append(parts, screenText(a.s))
		}
		return j.typed("screen", "`screen -X stuff`", strings.Join(parts, " "), st)
	case "exec":
		if len(args) > 0 && args[0].known() && strings.Trim(args[0].s, ".!:|") == "" {
			args = args[1:]
		}
		return j.argv(args, st.clone())
	case "screen":
		return j.wrapped(nested.LookupWrapper("screen"), "screen", args, st)
	case "eval":
		for _, a := range args {
			if !a.known() {
				return refuse("screen", hintLiteral, "`screen -X eval` of a string that is not a literal (`%s`) cannot be judged", a.show())
			}
			if r := j.screenCommand(splitFields(a.s), st); r != nil {
				return r
			}
		}
		return nil
	}
	for _, a := range args {
		if a.known() {
			if r := j.typed("screen", "`screen -X "+words[0].show()+"`", a.s, st); r != nil {
				return r
			}
		}
	}
	return nil
}

// screenText decodes the escapes screen reads in stuff's text.
func screenText(s string) string {
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c == '^' && i+1 < len(s) && (s[i+1] == 'M' || s[i+1] == 'J'):
			b.WriteByte('\n')
			i++
		case c == '\\' && i+1 < len(s) && (s[i+1] == 'n' || s[i+1] == 'r'):
			b.WriteByte('\n')
			i++
		case c == '\\' && i+3 < len(s) && isOctal(s[i+1:i+4]):
			n, _ := strconv.ParseUint(s[i+1:i+4], 8, 8)
			b.WriteByte(byte(n))
			i += 3
		default:
			b.WriteByte(c)
		}
	}
	return b.String()
}

func isOctal(s string) bool { return len(s) == 3 && strings.Trim(s, "01234567") == "" }

// typed judges text a shell reads as a script (keys typed into a terminal by tmux send-keys or
// screen stuff, a here-document on bash's input): the whole, or where it does not parse, each
// line that does, is judged as shell code; text that does not parse runs nothing.
//
// Text typed in pieces (`send-keys hook ctl`) or code the guard cannot parse is also scanned
// (scanCode) for what it names.
func (j *judge) typed(prog, what, text string, st *state) *programs.Refusal {
	if r := j.scanCode(prog, what, text); r != nil {
		return r
	}
	text = shellText(text)
	f, r := j.parse(text, syntax.LangBash)
	if r != nil {
		return r
	}
	if f != nil {
		return j.judgeFile(f, text, st.child())
	}
	for _, l := range strings.Split(text, "\n") {
		if r := j.scriptIfParses(l, st.child(), syntax.LangBash); r != nil {
			return r
		}
	}
	return nil
}
