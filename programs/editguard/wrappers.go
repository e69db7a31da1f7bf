package editguard

// The edit guard (see doc.go): wrappers: programs that run their operands as a command.

import (
	"path"
	"strings"

	"github.com/hookctl/hookctl/programs"
	"mvdan.cc/sh/v3/syntax"
)

// editWrapper describes one wrapper: its options, the operands before the command, and the
// options that mean no command is run.
type editWrapper struct {
	names   []string
	opts    *optionSpec
	skip    int      // operands before the command (timeout's DURATION)
	assigns bool     // NAME=VALUE words come before the command (env)
	noRun   []string // options after which the operands are not a command (command -v, ionice -p)
}

var editWrappers = []*editWrapper{
	{names: []string{"env"}, opts: &optionSpec{valued: "uCSP", long: []string{"--unset", "--chdir", "--split-string"}, posix: true}, assigns: true},
	{names: []string{"nice"}, opts: &optionSpec{valued: "n", long: []string{"--adjustment"}, posix: true}},
	{names: []string{"nohup", "builtin", "busybox", "toybox"}, opts: &optionSpec{posix: true}},
	{names: []string{"timeout"}, opts: &optionSpec{valued: "sk", long: []string{"--signal", "--kill-after"}, posix: true}, skip: 1},
	{names: []string{"time"}, opts: &optionSpec{valued: "of", long: []string{"--output", "--format"}, posix: true}},
	{names: []string{"command"}, opts: &optionSpec{posix: true}, noRun: []string{"-v", "-V"}},
	{names: []string{"exec"}, opts: &optionSpec{valued: "a", posix: true}},
	{names: []string{"stdbuf"}, opts: &optionSpec{valued: "ioe", long: []string{"--input", "--output", "--error"}, posix: true}},
	{names: []string{"ionice"}, opts: &optionSpec{valued: "cnpPu", long: []string{"--class", "--classdata", "--pid", "--pgid", "--uid"}, posix: true},
		noRun: []string{"-p", "-P", "-u", "--pid", "--pgid", "--uid"}},
	{names: []string{"setsid"}, opts: &optionSpec{posix: true}},
	{names: []string{"sudo", "doas"}, opts: &optionSpec{valued: "ugCDhpRrtTU", long: []string{"--user", "--group", "--chdir"}, posix: true}},
}

func lookupWrapper(name string) *editWrapper {
	for _, w := range editWrappers {
		if containsString(w.names, name) {
			return w
		}
	}
	return nil
}

// peel returns the command a wrapper runs, or false when it runs none.
func (w *editWrapper) peel(args []word) (parsedArgs, []word, bool) {
	p := w.opts.parse(args)
	if p.has(w.noRun...) {
		return p, nil, false
	}
	// posix parsing stopped at the first operand: re-slice from there.
	rest := args[len(args)-len(p.operands):]
	if len(p.operands) == 0 {
		rest = nil
	}
	for w.assigns && len(rest) > 0 && rest[0].known() && strings.Contains(rest[0].s, "=") && !strings.HasPrefix(rest[0].s, "=") {
		rest = rest[1:]
	}
	if len(rest) < w.skip {
		return p, nil, false
	}
	return p, rest[w.skip:], true
}

// wrapperRule: env, nice, nohup, timeout, time, command, exec, builtin, stdbuf, ionice, setsid,
// busybox and toybox run the rest of their arguments as a command.
//
// Why: `env rm -rf ~`, `nohup rm -rf / &`, `command rm -rf ~`: the wrapper changes nothing
// about what the command does.
// What: the wrapper's options (with their values) are skipped, and env's NAME=VALUE words and
// timeout's DURATION; the command that remains is judged as if written alone. env -C DIR moves
// the directory; env -S STRING is parsed as a command line; time -o FILE is a write.
// Test: TestRecursion.
var wrapperRule = &rule{
	names: []string{"env", "nice", "nohup", "timeout", "time", "command", "exec", "builtin", "stdbuf", "ionice", "setsid", "busybox", "toybox"},
	judge: func(j *judge, c *invocation) *programs.Refusal {
		w := lookupWrapper(c.prog)
		p, inner, ok := w.peel(c.args)
		st := c.st
		if c.prog == "time" {
			for _, o := range p.values("-o", "--output") {
				if r := j.write(c.prog, "`time -o`", o, st, false); r != nil {
					return r
				}
			}
		}
		if c.prog == "env" {
			for _, d := range p.values("-C", "--chdir") {
				st = st.clone()
				if paths, ok := j.resolve(d, st); ok {
					st.dirs = paths
				} else {
					st.dirs = nil
				}
			}
			for _, s := range p.values("-S", "--split-string") {
				if !s.known() {
					return refuse(c.prog, hintLiteral, "`env -S` with a string that is not a literal cannot be judged")
				}
				line := s.s
				for _, a := range inner {
					line += " " + a.s
				}
				return j.script(line, st, syntax.LangBash)
			}
		}
		if !ok {
			return nil
		}
		return j.argv(inner, st)
	},
}

// xargsRule: xargs runs a command with operands read from its input.
//
// Why: `find . | xargs rm -rf` deletes whatever the input names.
// What: xargs' options are skipped and the command (echo by default) is judged with one more
// operand that cannot be resolved, or, with -I/-i/--replace, with each word holding the
// replacement string unknown.
// Test: TestRecursion.
var xargsRule = &rule{
	names: []string{"xargs"},
	judge: func(j *judge, c *invocation) *programs.Refusal {
		p := (&optionSpec{valued: "adEILnPs", optional: "eil", posix: true, long: []string{"--arg-file", "--delimiter",
			"--max-lines", "--max-args", "--max-procs", "--max-chars", "--process-slot-var"}}).parse(c.args)
		inner := c.args[len(c.args)-len(p.operands):]
		if len(p.operands) == 0 {
			inner = []word{lit("echo")}
		}
		repl := ""
		for _, o := range p.opts {
			switch {
			case o.name == "-I":
				repl = o.value.s
			case o.name == "-i" || strings.HasPrefix(o.name, "--replace"):
				repl = "{}"
				if o.value.s != "" {
					repl = o.value.s
				}
			}
		}
		cmd := append([]word(nil), inner...)
		if repl != "" {
			for i := 1; i < len(cmd); i++ {
				if strings.Contains(cmd[i].s, repl) {
					cmd[i] = word{s: strings.ReplaceAll(cmd[i].s, repl, unknown), glob: -1}
				}
			}
		} else {
			cmd = append(cmd, unknownWord)
		}
		return j.argv(cmd, c.st.clone())
	},
}

// findRule: find -exec, -execdir, -ok, -okdir and -delete.
//
// Why: `find / -name x -delete` and `find ~ -exec rm -rf {} +` delete outside the project.
// What: each -exec/-execdir/-ok/-okdir COMMAND … ; or + is judged with {} standing for a path
// found: inside the project when every starting point is inside it (or is the project and the
// expression has a test, so that the project itself is not among the results), unknown
// otherwise. -delete is refused unless every starting point is inside the project, or is the
// project with a test in the expression. When a starting point holds a protected path and the
// -name/-path tests do not rule it out, {} and -delete may reach it and a write or delete is
// refused. -fprint, -fprint0, -fprintf and -fls write their file.
// Test: TestRecursion (find rows).
var findRule = &rule{
	names: []string{"find"},
	judge: judgeFind,
}

// findValued are find's primaries that take one value.
var findValued = []string{"-name", "-iname", "-path", "-ipath", "-wholename", "-iwholename", "-regex", "-iregex",
	"-type", "-xtype", "-user", "-group", "-uid", "-gid", "-perm", "-size", "-mtime", "-atime", "-ctime", "-mmin",
	"-amin", "-cmin", "-newer", "-anewer", "-cnewer", "-maxdepth", "-mindepth", "-links", "-inum", "-samefile",
	"-used", "-fstype", "-context", "-lname", "-ilname", "-printf", "-fprint", "-fprint0", "-fls", "-regextype",
	"-files0-from"}

// findNoTest are the primaries that select nothing: an expression of only these finds the
// starting point itself too.
var findNoTest = []string{"-delete", "-depth", "-print", "-print0", "-printf", "-fprint", "-fprint0", "-fprintf",
	"-fls", "-ls", "-xdev", "-mount", "-follow", "-ignore_readdir_race", "-noignore_readdir_race", "-noleaf",
	"-daystart", "-maxdepth", "-regextype", "-warn", "-nowarn", "-true", "-exec", "-execdir", "-ok", "-okdir",
	"-prune", "-quit"}

func judgeFind(j *judge, c *invocation) *programs.Refusal {
	args := c.args
	i := 0
	for i < len(args) && (args[i].s == "-H" || args[i].s == "-L" || args[i].s == "-P" || strings.HasPrefix(args[i].s, "-O") || args[i].s == "-D") {
		if args[i].s == "-D" {
			i++
		}
		i++
	}
	var starts []word
	for i < len(args) {
		v := args[i].s
		if strings.HasPrefix(v, "-") || v == "(" || v == "!" || v == ")" || v == "," {
			break
		}
		starts = append(starts, args[i])
		i++
	}
	if len(starts) == 0 {
		starts = []word{lit(".")}
	}
	expr := args[i:]
	// Which tests does the expression have, and which name patterns?
	hasTest, negated := false, false
	var names, paths []string
	for k := 0; k < len(expr); k++ {
		v := expr[k].s
		if v == "!" {
			negated = true
		}
		if !strings.HasPrefix(v, "-") {
			continue
		}
		if v == "-o" || v == "-or" || v == "-not" {
			negated = true // the name tests no longer all have to hold
		}
		if v == "-mindepth" {
			hasTest = hasTest || (k+1 < len(expr) && expr[k+1].s != "0")
		} else if !containsString(findNoTest, v) && v != "-o" && v != "-or" && v != "-a" && v != "-and" && v != "-not" {
			hasTest = true
		}
		if (v == "-name" || v == "-iname") && k+1 < len(expr) {
			names = append(names, expr[k+1].s)
		}
		if (v == "-path" || v == "-ipath" || v == "-wholename") && k+1 < len(expr) {
			paths = append(paths, expr[k+1].s)
		}
		if containsString(findValued, v) {
			k++
		}
		if v == "-fprintf" {
			k++
		}
		if v == "-exec" || v == "-execdir" || v == "-ok" || v == "-okdir" {
			for k+1 < len(expr) && expr[k+1].s != ";" && !(expr[k+1].s == "+" && expr[k].s == "{}") {
				k++
			}
			k++
		}
	}
	// Where can the found paths be?
	if negated {
		names, paths = nil, nil
	}
	inside, mayProtect := true, false
	for _, s := range starts {
		switch k := j.howFar(s, c.st); {
		case k == reachInside || (k == reachProject && hasTest):
		default:
			inside = false
		}
		if ps, ok := j.resolve(s, c.st); ok {
			for _, p := range ps {
				if j.findMayReachProtected(p, s.s, names, paths) {
					mayProtect = true
				}
			}
		}
	}
	found := unknownWord
	if inside {
		found = word{s: unknown, glob: -1, inside: true, mayProtect: mayProtect}
	}
	for k := 0; k < len(expr); k++ {
		v := expr[k].s
		switch v {
		case "-delete":
			if !inside {
				return refuse(c.prog, hintRm, "`find -delete` from `%s`: a starting point is outside the project, is the project with no test, or cannot be resolved", starts[0].show())
			}
			if mayProtect {
				return refuse(c.prog, hintProtected, "`find -delete` may delete a protected file: a starting point holds one and the tests do not rule it out")
			}
		case "-fprint", "-fprint0", "-fprintf", "-fls":
			if k+1 < len(expr) {
				if r := j.write(c.prog, "`find "+v+"`", expr[k+1], c.st, false); r != nil {
					return r
				}
			}
		case "-exec", "-execdir", "-ok", "-okdir":
			var cmd []word
			k++
			for k < len(expr) && expr[k].s != ";" && !(expr[k].s == "+" && expr[k-1].s == "{}") {
				w := expr[k]
				if strings.Contains(w.s, "{}") {
					w = found
				}
				cmd = append(cmd, w)
				k++
			}
			if r := j.argv(cmd, c.st.clone()); r != nil {
				return r
			}
		default:
			if containsString(findValued, v) {
				k++
			}
		}
	}
	return nil
}

// findMayReachProtected reports whether find from start may name a protected path or a
// directory holding one, given its -name and -path patterns (no patterns: it may).
func (j *judge) findMayReachProtected(start, written string, names, paths []string) bool {
	for _, q := range j.ctx.Protected {
		if q == "" {
			continue
		}
		q = path.Clean(q)
		if !within(q, start) {
			continue
		}
		for p := q; within(p, start); p = path.Dir(p) {
			ok := true
			for _, n := range names {
				if m, err := path.Match(n, path.Base(p)); !m && err == nil {
					ok = false
				}
			}
			for _, n := range paths { // find matches -path against the path as it prints it
				shown := strings.TrimSuffix(written, "/") + strings.TrimPrefix(p, start)
				if m, err := path.Match(n, shown); !m && err == nil {
					ok = false
				}
			}
			if ok {
				return true
			}
			if p == start || p == "/" {
				break
			}
		}
	}
	return false
}

// parallelRule: GNU parallel runs a command line for each input.
//
// Why: `parallel rm -rf ::: ~ /` runs the delete for each argument.
// What: best effort: the words before ::: (after parallel's options) are joined into a command
// line with each replacement string ({}, {.}, {/}, {//}, {/.}, {#}, {%}, {1}, …) unknown, or an
// unknown operand appended when there is none, and judged as a shell command.
// Test: TestRecursion.
var parallelRule = &rule{
	names: []string{"parallel"},
	judge: func(j *judge, c *invocation) *programs.Refusal {
		p := (&optionSpec{valued: "jPnNaIdSElCX", posix: true, long: []string{"--jobs", "--max-args", "--arg-file", "--delimiter",
			"--sshlogin", "--joblog", "--results", "--colsep", "--tmpdir", "--workdir", "--timeout", "--delay", "--retries",
			"--halt", "--memfree", "--load", "--tagstring", "--basefile", "--return"}}).parse(c.args)
		inner := c.args[len(c.args)-len(p.operands):]
		if len(p.operands) == 0 {
			return nil // commands read from the input: cannot be judged, best effort
		}
		var parts []string
		replaced := false
		for _, a := range inner {
			if strings.HasPrefix(a.s, ":::") || a.s == "::::" {
				break
			}
			s := a.s
			if strings.Contains(s, "{") && strings.Contains(s, "}") {
				replaced = true
				s = replaceParallel(s)
			}
			parts = append(parts, strings.ReplaceAll(s, unknown, "$__hookctl_arg"))
		}
		if !replaced {
			parts = append(parts, "$__hookctl_arg")
		}
		return j.script(strings.Join(parts, " "), c.st.child(), syntax.LangBash)
	},
}

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

// watchRule: watch runs its arguments as a shell command line, again and again.
//
// Why: `watch -n1 'rm -rf /tmp/x'` is a delete on a timer.
// What: watch's options are skipped; with -x or --exec the rest is judged as a command, otherwise
// it is joined with spaces and judged as a shell command line.
// Test: TestRecursion.
var watchRule = &rule{
	names: []string{"watch"},
	judge: func(j *judge, c *invocation) *programs.Refusal {
		p := (&optionSpec{valued: "nq", optional: "d", posix: true, long: []string{"--interval", "--equexit"}}).parse(c.args)
		inner := c.args[len(c.args)-len(p.operands):]
		if len(p.operands) == 0 {
			return nil
		}
		if p.has("-x", "--exec") {
			return j.argv(inner, c.st.clone())
		}
		parts := make([]string, 0, len(inner))
		for _, a := range inner {
			parts = append(parts, strings.ReplaceAll(a.s, unknown, "$__hookctl_arg"))
		}
		return j.script(strings.Join(parts, " "), c.st.child(), syntax.LangBash)
	},
}
