package programs

import (
	"slices"
	"strings"

	"github.com/hookctl/hookctl/internal/clip"
)

// find walks directory trees. Its expression language can run programs (-exec, -execdir, -ok,
// -okdir), delete files (-delete) and write files (-fprint, -fprint0, -fprintf, -fls), so the
// rule allowlists primaries instead of refusing those: a primary the table does not name is
// refused, whatever it is. Names are matched exactly as find does (find has no abbreviations),
// on the value the program receives, so a quoted '-exec' or -ex”ec is still -exec.
//
// Refuses: -exec, -execdir, -ok, -okdir, -delete, -fprint, -fprint0, -fprintf, -fls, -D, and
// every primary not listed. Test: TestFindRefusesExecAndWrites (find_test.go).
var findRule = &Program{
	Name: "find", Summary: "walk directory trees (no -exec, -ok, -delete, -fprint*, -fls)", NamesOnly: true,
	BSD:    &BSD{Getopt: "EHLPXdf:sx", Note: "getopt(3) `EHLPXdf:sx` before the paths: only -E -H -L -P -s -x are admitted, each as its own word; -f PATH and -d are refused, and so is a number after -depth (BSD reads `-depth N` as a test)"},
	Custom: judgeFind,
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

var findRefused = Refusals{{"-exec", "runs a program"}, {"-execdir", "runs a program"}, {"-ok", "runs a program"}, {"-okdir", "runs a program"}, {"-delete", "deletes files"}, {"-fprint", "writes to a file"}, {"-fprint0", "writes to a file"}, {"-fprintf", "writes to a file"}, {"-fls", "writes to a file"}}

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
	}
	for ; i < len(args); i++ {
		a := args[i]
		name := a.Value
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
		if a.Var {
			return refuse("find", "a loop variable may only be a starting point")
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
		if args[i].Var {
			return refuse("find", "a loop variable may only be a starting point, not the value of `%s`", name)
		}
		if args[i].Pattern && !slices.Contains(findPatternValues, name) {
			return refuse("find", "shell syntax in the value of `%s` is not allowed", name)
		}
	}
	return nil
}
