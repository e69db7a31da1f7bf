package programs

import (
	"path/filepath"
	"slices"
	"strings"

	"github.com/hookctl/hookctl/internal/clip"

	"github.com/hookctl/hookctl/internal/secrets"
)

// find walks directory trees. Its expression language can run programs (-exec, -execdir, -ok,
// -okdir), delete files (-delete) and write files (-fprint, -fprint0, -fprintf, -fls), so the
// rule allowlists primaries instead of refusing those: a primary the table does not name is
// refused, whatever it is. Names are matched exactly as find does (find has no abbreviations),
// on the value the program receives, so a quoted '-exec' or -ex”ec is still -exec.
//
// -exec CMD … {} + and -exec CMD … ; are admitted when CMD is itself on the allowlist and its
// words, with each {} standing for a file name (judged as a glob is: any number of names, all
// starting with a starting point, which cannot start with `-`, so never an option), pass CMD's
// own rule (judgeFindExec). CMD may not be find, nor a program whose rule needs the hook's
// rewrite (git, rg: find would run it without the pins).
//
// Refuses: -execdir, -ok, -okdir, -delete, -fprint, -fprint0, -fprintf, -fls, -D, -exec of a
// program not on the allowlist or refused by its rule, and every primary not listed.
// Test: TestFindRefusesExecAndWrites, TestFindExec (find_test.go); TestCorpusRefused
// (deny/find.txt), TestExecuteAdmittedRows (allow/find.txt, run in the hostile world).
var findRule = &Program{
	Name: "find", Summary: "walk directory trees (no -ok, -delete, -fprint*, -fls; -exec only of an allowed read)", Files: true,
	NamesOnly: true, // its own words name directories to walk; what a -exec reads is judged in judgeFind
	AccessOf:  findAccess,
	BSD:       &BSD{Getopt: "EHLPXdf:sx", Note: "getopt(3) `EHLPXdf:sx` before the paths: only -E -H -L -P -s -x are admitted, each as its own word; -f PATH and -d are refused, and so is a number after -depth (BSD reads `-depth N` as a test)"},
	Custom:    judgeFind,
}

// findPrimaries lists each allowed primary with the number of values it takes.
var findPrimaries = []struct {
	name  string
	arity int
}{
	// tests
	{"-name", 1}, {"-iname", 1}, {"-path", 1}, {"-ipath", 1}, {"-wholename", 1}, {"-iwholename", 1},
	{"-regex", 1}, {"-iregex", 1}, {"-lname", 1}, {"-ilname", 1}, {"-type", 1}, {"-xtype", 1}, {"-size", 1},
	{"-mtime", 1}, {"-mmin", 1}, {"-atime", 1}, {"-amin", 1}, {"-ctime", 1}, {"-cmin", 1}, {"-newer", 1},
	{"-anewer", 1}, {"-cnewer", 1}, {"-perm", 1}, {"-user", 1}, {"-group", 1}, {"-uid", 1}, {"-gid", 1},
	{"-links", 1}, {"-inum", 1}, {"-samefile", 1}, {"-used", 1}, {"-fstype", 1},
	{"-empty", 0}, {"-readable", 0}, {"-writable", 0}, {"-executable", 0}, {"-nouser", 0}, {"-nogroup", 0},
	{"-true", 0}, {"-false", 0},
	// options
	{"-maxdepth", 1}, {"-mindepth", 1}, {"-regextype", 1}, {"-depth", 0}, {"-xdev", 0}, {"-mount", 0},
	{"-follow", 0}, {"-noleaf", 0}, {"-daystart", 0}, {"-ignore_readdir_race", 0}, {"-noignore_readdir_race", 0},
	// actions that print to standard output
	{"-print", 0}, {"-print0", 0}, {"-printf", 1}, {"-ls", 0}, {"-prune", 0}, {"-quit", 0},
	// operators
	{"-not", 0}, {"-a", 0}, {"-o", 0}, {"-and", 0}, {"-or", 0}, {"(", 0}, {")", 0}, {"!", 0}, {",", 0},
}

// findPatternValues are the primaries whose value is a pattern or format.
var findPatternValues = []string{"-name", "-iname", "-path", "-ipath", "-wholename", "-iwholename", "-regex", "-iregex", "-lname", "-ilname", "-printf"}

var findRefused = Refusals{{"-execdir", "runs a program from each file's directory"}, {"-ok", "runs a program"}, {"-okdir", "runs a program"}, {"-delete", "deletes files"}, {"-fprint", "writes to a file"}, {"-fprint0", "writes to a file"}, {"-fprintf", "writes to a file"}, {"-fls", "writes to a file"}}

// findOptions are the options before the starting points (GNU and BSD).
var findOptions = []string{"-H", "-L", "-P", "-E", "-x", "-s"}

// findArity returns how many values an allowed primary takes.
func findArity(name string) (int, bool) {
	for _, p := range findPrimaries {
		if p.name == name {
			return p.arity, true
		}
	}
	return 0, false
}

func judgeFind(args []Arg) *Refusal {
	var starts []string
	// For the sensitive-file rule: a -exec of a program that reads content reads every file
	// find yields, so the expression must keep secret files out (execReadsFiles).
	var execContent, alternatives bool
	var names []string
	i := 0
	for i < len(args) && slices.Contains(findOptions, args[i].Value) {
		i++
	}
	if i < len(args) && (args[i].Value == "-D" || args[i].Value == "-O" || strings.HasPrefix(args[i].Value, "-O")) {
		return refuse("find", "`%s` is not on the read-only allowlist", clip.Short(args[i].Value))
	}
	// Starting points: operands up to the first expression token.
	for ; i < len(args); i++ {
		v := args[i].Value
		if strings.HasPrefix(v, "-") || v == "(" || v == ")" || v == "!" || v == "," {
			break
		}
		if args[i].Pattern {
			return refuse("find", "shell syntax in the starting point `%s` is not allowed", clip.Short(v))
		}
		starts = append(starts, v)
		if args[i].Var && args[i].Glob {
			continue // a file name from a glob: a starting point too
		}
	}
	for ; i < len(args); i++ {
		a := args[i]
		name := a.Value
		if a.Glob {
			return refuse("find", "a glob (`%s`) in the expression is not allowed; quote the pattern, e.g. -name '*.go'", clip.Short(name))
		}
		if name == "-exec" && !a.Pattern {
			for _, st := range starts {
				if strings.HasPrefix(st, "@") {
					// Every name find yields starts with its starting point, and strings
					// (binutils) reads an argument @FILE as a file of options: @o/x.go
					// reads o/x.go's words (a red team's find).
					return refuse("find", "`-exec` after the starting point `%s`: each name would start with @, which strings reads as a file of options; start at ./%s", clip.Short(st), clip.Short(st))
				}
			}
			n, r := judgeFindExec(args[i+1:])
			if r != nil {
				return r
			}
			if prog := lookupExec(args[i+1].Value); prog != nil && !prog.NamesOnly {
				execContent = true
			}
			i += n
			continue
		}
		switch name {
		case "-o", "-or", "!", "-not", "(", ")", ",":
			alternatives = true
		case "-name", "-iname":
			if i+1 < len(args) && !args[i+1].Glob && !args[i+1].Var {
				if !secrets.PatternMayMatch(args[i+1].Value, name == "-iname") {
					names = append(names, args[i+1].Value)
				}
			}
		}
		if why, ok := findRefused.why(name); ok {
			return &Refusal{Program: "find", What: "`" + name + "` " + why, Hint: "find may only test and print; run one read command per file instead"}
		}
		n, ok := findArity(name)
		if !ok {
			if len(name) == len("-newerXY") && strings.HasPrefix(name, "-newer") &&
				strings.IndexByte("aBcm", name[6]) >= 0 && strings.IndexByte("aBcmt", name[7]) >= 0 {
				n, ok = 1, true // -newerXY, e.g. -newermt 2024-01-01
			}
		}
		if !ok {
			if strings.HasPrefix(name, "-") {
				return refuse("find", "`%s` is not on the read-only allowlist", clip.Short(name))
			}
			return refuse("find", "unexpected `%s` in the expression (a starting point must come before the expression)", clip.Short(name))
		}
		if a.Var && a.Glob {
			return refuse("find", "a loop variable over a glob may only be a starting point")
		}
		if a.Pattern && name != "(" && name != ")" && name != "!" {
			return refuse("find", "shell syntax in `%s` is not allowed", clip.Short(name))
		}
		if n == 0 {
			continue
		}
		if i+1 >= len(args) {
			return refuse("find", "`%s` needs a value", name)
		}
		i++
		if args[i].Glob {
			return refuse("find", "a glob may not be the value of `%s`; quote the pattern", name)
		}
		if args[i].Pattern && !slices.Contains(findPatternValues, name) {
			return refuse("find", "shell syntax in the value of `%s` is not allowed", name)
		}
	}
	if execContent {
		return execReadsFiles(starts, names, alternatives)
	}
	return nil
}

// findAccess is what a find the rule admitted reads (issue 23, items 3 and 5): each -exec
// command's own reads but the {} it is given (`find . -exec cat {} .env \;` reads .env), its
// files of names, and, for a -exec of a program that reads content, a walk of the starting
// points whose every yielded name the program opens: following links as -L, -H or -follow say,
// and as the program's open does for every link find names; only names that match every -name
// and -iname pattern, when the expression is a plain conjunction.
// Test: TestFindAccess (find_test.go); TestSecretsCorpus (hook).
func findAccess(args []Arg) Access {
	var acc Access
	follow := FollowNone
	i := 0
	for ; i < len(args) && slices.Contains(findOptions, args[i].Value); i++ {
		switch args[i].Value {
		case "-L":
			follow = FollowAll
		case "-H":
			follow = FollowRoots
		case "-P":
			follow = FollowNone
		}
	}
	var starts []string
	for ; i < len(args); i++ {
		v := args[i].Value
		if strings.HasPrefix(v, "-") || v == "(" || v == ")" || v == "!" || v == "," {
			break
		}
		starts = append(starts, v)
	}
	if len(starts) == 0 {
		starts = []string{"."}
	}
	var names []string
	fold, alternatives, reader := false, false, false
	for ; i < len(args); i++ {
		switch name := args[i].Value; name {
		case "-follow":
			follow = FollowAll
		case "-o", "-or", "!", "-not", "(", ")", ",":
			alternatives = true
		case "-name", "-iname":
			if i+1 < len(args) {
				names = append(names, args[i+1].Value)
				fold = fold || name == "-iname"
				i++
			}
		case "-exec":
			n, inner, prog := execCommand(args[i+1:])
			i += n
			if prog == nil {
				continue
			}
			var a Access
			if prog.JudgeAccess(inner, &a) == nil {
				for _, f := range a.Files {
					if f != "./{}" {
						acc.Files = append(acc.Files, f)
					}
				}
				acc.Lists = append(acc.Lists, a.Lists...)
				acc.Walks = append(acc.Walks, a.Walks...)
			}
			reader = reader || !prog.NamesOnly
		default:
			if n, ok := findArity(name); ok {
				i += n
			}
		}
	}
	if reader {
		w := Walk{Roots: starts, Follow: follow, OpensLinks: true, Fold: fold}
		if !alternatives {
			w.Names = names
		}
		acc.Walks = append(acc.Walks, w)
	}
	return acc
}

// execCommand returns the words of a -exec command up to its terminator (with {} as the glob
// ./{} that judgeFindExec judged), how many words it spans, and its program's rule.
func execCommand(args []Arg) (int, []Arg, *Program) {
	if len(args) == 0 {
		return 0, nil, nil
	}
	prog := lookupExec(args[0].Value)
	var inner []Arg
	for j := 1; j < len(args); j++ {
		a := args[j]
		switch {
		case a.Value == ";" && a.Pattern, a.Value == "+" && j > 1 && args[j-1].Value == "{}" && args[j-1].Pattern:
			return j + 1, inner, prog
		case a.Value == "{}" && a.Pattern:
			inner = append(inner, Arg{Value: "./{}", Glob: true})
		default:
			inner = append(inner, a)
		}
	}
	return len(args), inner, prog
}

// execReadsFiles judges a find whose -exec reads the content of the files it yields, for the
// sensitive-file rule: the expression must be a plain conjunction (no -o, !, parentheses) with a
// -name or -iname whose pattern cannot match a secret file's name (.env, *.pem, id_*: see
// secrets.PatternMayMatch), and the walk must stay below the working directory (a relative
// starting point without `..`), where the credential stores of the home are not.
// Test: TestCorpusRefused (deny/secrets.txt), TestCorpusAllowed (allow/find.txt).
func execReadsFiles(starts, names []string, alternatives bool) *Refusal {
	hint := "find -exec of a program that reads files needs a -name pattern that cannot match secret files, " +
		"e.g. find . -name '*.go' -exec grep -n TODO {} +"
	switch {
	case alternatives:
		return &Refusal{Program: "find", What: "-exec of a program that reads files, with -o, ! or parentheses in the expression, could read secret files", Hint: hint}
	case len(names) == 0:
		return &Refusal{Program: "find", What: "-exec of a program that reads files, without a -name that keeps secret files (.env, *.pem, id_*) out", Hint: hint}
	}
	if len(starts) == 0 {
		starts = []string{"."}
	}
	for _, s := range starts {
		if filepath.IsAbs(s) || s == ".." || strings.HasPrefix(s, "../") || strings.Contains(s, "/../") || strings.HasPrefix(s, "~") {
			return &Refusal{Program: "find", What: "-exec of a program that reads files walks `" + clip.Short(s) + "`, outside the working directory",
				Hint: "start the walk at a directory below the working directory, e.g. find src -name '*.go' -exec grep -n TODO {} +"}
		}
	}
	return nil
}

// lookupExec finds the rule of a program find runs; set in init, since the allowlist holds find.
var lookupExec func(string) *Program

func init() { lookupExec = Lookup }

// judgeFindExec judges the command of a -exec: its program and words, up to `;`, or `{} +`.
// It returns how many words it read, the terminator included.
func judgeFindExec(args []Arg) (int, *Refusal) {
	if len(args) == 0 {
		return 0, refuse("find", "`-exec` needs a command")
	}
	name := args[0]
	if name.Pattern || name.Var || name.Glob || strings.HasPrefix(name.Value, "-") {
		return 0, refuse("find", "`-exec` must name a program as a plain word")
	}
	prog := lookupExec(name.Value)
	switch {
	case prog == nil:
		return 0, &Refusal{Program: "find", What: "`-exec " + clip.Short(name.Value) + "` runs a program that is not on the read-only allowlist",
			Hint: "find may run only an allowed read: -exec grep -n PATTERN {} +"}
	case prog.Name == "find" || prog.Rewrite != nil && rewrites(prog, args[1:]):
		return 0, refuse("find", "`-exec %s` is not allowed: find would run it without the hook's pins; run it on its own", name.Value)
	}
	var inner []Arg
	for j := 1; j < len(args); j++ {
		a := args[j]
		switch {
		case a.Value == ";" && a.Pattern:
			return j + 1, judgeExecArgs(prog, inner)
		case a.Value == "+" && j > 1 && args[j-1].Value == "{}" && args[j-1].Pattern:
			return j + 1, judgeExecArgs(prog, inner)
		case a.Value == "{}" && a.Pattern:
			// A file name find found: it starts with a starting point, and a starting point
			// cannot start with `-`. Judged as a glob, any number of names.
			inner = append(inner, Arg{Value: "./{}", Glob: true})
		case strings.Contains(a.Value, "{}"):
			return 0, refuse("find", "`{}` inside the word `%s` is not allowed; give it as a word of its own", clip.Short(a.Value))
		case a.Var && a.Glob:
			return 0, refuse("find", "a loop variable over a glob may not be part of a -exec command")
		default:
			inner = append(inner, a)
		}
	}
	return 0, refuse("find", "`-exec` must end with `\\;` or `{} +`")
}

// rewrites says whether prog's rewrite would change the words of a -exec command (up to its
// terminator): a rewrite the hook adds (git's pins, grep -r's exclusions), which find would not.
func rewrites(prog *Program, args []Arg) bool {
	var words []string
	for _, a := range args {
		if a.Value == ";" || a.Value == "+" {
			break
		}
		words = append(words, a.Value)
	}
	env, out := prog.Rewrite(words)
	return len(env) > 0 || !slices.Equal(out, words)
}

// judgeExecArgs judges a -exec command's words by its program's own rule.
func judgeExecArgs(prog *Program, args []Arg) *Refusal {
	if r := prog.Judge(args); r != nil {
		return &Refusal{Program: "find", What: "in -exec, " + r.Error()}
	}
	return nil
}
