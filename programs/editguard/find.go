package editguard

// The edit guard (see doc.go): find, whose expression can delete and run commands.

import (
	"path"
	"strings"

	"github.com/hookctl/hookctl/internal/wordlist"
	"github.com/hookctl/hookctl/lexer/nested"
	"github.com/hookctl/hookctl/programs"
)

// findRule: find -exec, -execdir, -ok, -okdir and -delete.
//
// Why: `find / -name x -delete` and `find ~ -exec rm -rf {} +` delete outside the project.
// What: each -exec/-execdir/-ok/-okdir COMMAND … ; or + is judged with {} standing for a path
// found: inside the project when every starting point is inside it (or is the project and the
// expression has a test, so that the project itself is not among the results), unknown
// otherwise. -delete is refused unless every starting point is inside the project, or is the
// project with a test in the expression. When a starting point holds a protected path and the
// -name/-path tests do not rule it out, {} and -delete may reach it and a write or delete is
// refused. rm, unlink, chmod, chown, chgrp, truncate and shred run by -exec on what a search
// from outside the project finds are refused: per file, they are a recursive rm or chmod there.
// -fprint, -fprint0, -fprintf and -fls write their file.
// Test: TestRecursion (find rows).
var findRule = &rule{
	names: []string{"find"},
	judge: judgeFind,
}

// findPerFile are the programs that, run by find on each file it finds, amount to a recursive
// delete or permission change of the starting points: `find / -exec chmod 000 {} +`.
var findPerFile = []string{"rm", "unlink", "chmod", "chown", "chgrp", "truncate", "shred"}

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
	// The primaries that run a command, from the shell's wrapper table (lexer/nested): looked up
	// here, not in a package variable, which every hook process would initialise.
	findExprs := nested.LookupWrapper("find").Exprs
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
		if wordlist.Has(findExprs, v) {
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
		default:
			if !wordlist.Has(findExprs, v) {
				if containsString(findValued, v) {
					k++
				}
				continue
			}
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
			if !inside && len(cmd) > 0 {
				if name, ok := cmd[0].base(); ok && containsString(findPerFile, name) {
					return refuse(c.prog, hintRm, "`find … -exec %s` from `%s` runs %s on every file found, and a starting point is outside the project, is the project with no test, or cannot be resolved",
						name, starts[0].show(), name)
				}
			}
			if r := j.argv(cmd, c.st.clone()); r != nil {
				return r
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
