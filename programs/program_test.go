package programs

import (
	"go/ast"
	"go/parser"
	"go/token"
	"path/filepath"
	"strings"
	"testing"

	"github.com/hookctl/hookctl/internal/testrows"
	"github.com/hookctl/hookctl/internal/wordlist"
)

// allOptions lists every option table, so a malformed one fails here and never in a hook run.
// TestAllOptionsListed keeps the list complete.
func allOptions() map[string]*Options {
	m := map[string]*Options{
		"git (global)":     gitGlobal,
		"hookctl check":    hookctlCheckOpts,
		"hookctl readonly": hookctlReadonlyOpts,
		"hookctl (plain)":  hookctlPlainOpts,
		"hookctl retrieve": hookctlRetrieveOpts,
		"cargo metadata":   cargoMetadataOpts,
		"cargo tree":       cargoTreeOpts,
		"xargs":            xargsOptions,
		"npm ls":           npmLsOpts,
	}
	for _, p := range all {
		if p.Opts != nil {
			m[p.Name] = p.Opts
		}
	}
	for _, s := range gitSubcommands {
		m["git "+s.name] = s.opts
	}
	return m
}

// TestAllOptionsListed: allOptions reaches every option table the package's source writes. Parse
// trusts its tables (nothing validates them at run time), so a table TestOptionTables did not
// see could reach a user malformed.
func TestAllOptionsListed(t *testing.T) {
	files, err := filepath.Glob("*.go")
	if err != nil {
		t.Fatal(err)
	}
	written := 0
	fset := token.NewFileSet()
	for _, name := range files {
		if strings.HasSuffix(name, "_test.go") {
			continue
		}
		f, err := parser.ParseFile(fset, name, nil, 0)
		if err != nil {
			t.Fatal(err)
		}
		ast.Inspect(f, func(n ast.Node) bool {
			if lit, ok := n.(*ast.CompositeLit); ok {
				if id, ok := lit.Type.(*ast.Ident); ok && id.Name == "Options" {
					written++
				}
			}
			return true
		})
	}
	distinct := map[*Options]bool{}
	for _, o := range allOptions() {
		distinct[o] = true
	}
	if written < 10 || len(distinct) != written {
		t.Errorf("the source writes %d option tables; allOptions reaches %d: add the missing ones", written, len(distinct))
	}
}

// TestOptionsValidate: validate finds each kind of malformed table.
func TestOptionsValidate(t *testing.T) {
	for _, c := range []struct {
		o    Options
		want string
	}{
		{Options{Flags: "-a -b", Valued: "--count"}, ""},
		{Options{Flags: "-a  -b "}, ""}, // runs of spaces separate too
		{Options{Flags: "-a -b -a"}, "listed twice"},
		{Options{Flags: "-a", Optional: "-a"}, "listed twice"},
		{Options{Flags: "-ab"}, "malformed"},
		{Options{Flags: "count"}, "malformed"},
		{Options{Flags: "- --"}, "malformed"},
		{Options{Flags: "-a\t-b"}, "malformed"}, // listed splits on spaces only
		{Options{Flags: "-a\n--all"}, "malformed"},
		{Options{Flags: "-e", Patterns: "-e"}, "pattern option is not valued"},
		{Options{Valued: "-e", Patterns: "-f"}, "pattern option is not valued"},
		{Options{Optional: "--merged", LastArgDefault: "--merged"}, "last-argument default"},
		{Options{Flags: "-i", Refused: Refusals{{"-i", "edits files in place"}}}, "both allowed and refused"},
	} {
		err := c.o.validate()
		switch {
		case c.want == "" && err != nil:
			t.Errorf("%+v: %v", c.o, err)
		case c.want != "" && (err == nil || !strings.Contains(err.Error(), c.want)):
			t.Errorf("%+v: got %v, want an error saying %q", c.o, err, c.want)
		}
	}
}

// TestOptionKindIsFieldMembership: Options.kind, which scans the lists in place, says what a set
// of each list's fields would: for every listed name, and for words a scan could mistake for one
// — a name's prefixes and extensions (-n inside -nv, --all inside --all-match), neighbours joined
// by a space ("-a -b" is one argument, no option), and names with a space at either end.
func TestOptionKindIsFieldMembership(t *testing.T) {
	for table, o := range allOptions() {
		want := map[string]optKind{}
		for _, l := range []struct {
			list string
			kind optKind
		}{{o.Flags, optFlag}, {o.Valued, optValued}, {o.Optional, optOptional}} {
			for _, n := range strings.Fields(l.list) {
				want[n] = l.kind
			}
		}
		probes := []string{"", " ", "-", "--", "-NUM"}
		for _, list := range []string{o.Flags, o.Valued, o.Optional, o.Patterns, o.LastArgDefault} {
			f := strings.Fields(list)
			for i, n := range f {
				probes = append(probes, n, n[:len(n)-1], n+"x", n+" ", " "+n, n+"=")
				if i+1 < len(f) {
					probes = append(probes, n+" "+f[i+1], n+f[i+1])
				}
			}
		}
		for _, p := range probes {
			if got := o.kind(p); got != want[p] {
				t.Errorf("%s: kind(%q) = %d, want %d", table, p, got, want[p])
			}
			if got, want := wordlist.Has(o.Patterns, p), containsWord(strings.Fields(o.Patterns), p); got != want {
				t.Errorf("%s: wordlist.Has(Patterns, %q) = %v, want %v", table, p, got, want)
			}
		}
	}
}

func containsWord(words []string, w string) bool {
	for _, x := range words {
		if x == w {
			return true
		}
	}
	return false
}

// exactOptions are real option names that happen to be prefixes of refused ones. Programs
// match an exact name before trying abbreviations (git's parse-options and GNU getopt_long
// both do), so these mean themselves: git's -a/--text, --list of git branch, tag and config,
// rev-list's --filter, and hexdump's --format (-e, beside the refused --format-file).
var exactOptions = map[string]bool{"--text": true, "--list": true, "--filter": true, "--format": true}

// TestOptionTables validates every table (duplicates, malformed names, options both allowed and
// refused) and checks that no allowed long option is a prefix of a refused one: such a name would
// be an abbreviation the program resolves to the refused option.
func TestOptionTables(t *testing.T) {
	for name, o := range allOptions() {
		if err := o.validate(); err != nil {
			t.Errorf("%s: %v", name, err)
			continue
		}
		dangers := o.Refused
		if strings.HasPrefix(name, "git") {
			dangers = append(append(Refusals(nil), gitDangers...), o.Refused...)
		}
		for _, opt := range strings.Fields(o.Flags + " " + o.Valued + " " + o.Optional) {
			for _, bad := range dangers {
				if exactOptions[opt] {
					continue
				}
				if strings.HasPrefix(opt, "--") && opt != bad.Name && strings.HasPrefix(bad.Name, opt) {
					t.Errorf("%s: allowed %s abbreviates refused %s", name, opt, bad.Name)
				}
				if opt == bad.Name && !(name == "git rev-parse" && opt == "--git-dir") { // rev-parse --git-dir prints a path
					t.Errorf("%s: %s is both allowed and refused", name, opt)
				}
			}
		}
	}
}

// TestGitDangersSorted: the danger list is in name order, so that the abbreviation named in a
// refusal is the first in that order.
func TestGitDangersSorted(t *testing.T) {
	for i := 1; i < len(gitDangers); i++ {
		if gitDangers[i-1].Name >= gitDangers[i].Name {
			t.Errorf("gitDangers: %s before %s", gitDangers[i-1].Name, gitDangers[i].Name)
		}
	}
}

// TestAllowlistWellFormed: every program is listed once and has a rule.
func TestAllowlistWellFormed(t *testing.T) {
	testrows.Distinct(t, "program", len(all), func(i int) string { return all[i].Name })
	for _, p := range all {
		if p.Opts == nil && p.Custom == nil {
			t.Errorf("%s has no rule", p.Name)
		}
		if Lookup(p.Name) != p {
			t.Errorf("Lookup(%s) does not find it", p.Name)
		}
	}
	if Lookup("rm") != nil || Lookup("") != nil {
		t.Error("Lookup finds a program that is not listed")
	}
	testrows.Distinct(t, "find primary", len(findPrimaries), func(i int) string { return findPrimaries[i].name })
}

// TestGitSubcommandsWellFormed: every git subcommand is listed once, so that lookupGitSub's
// linear search finds the only rule there is.
func TestGitSubcommandsWellFormed(t *testing.T) {
	seen := map[string]bool{}
	for _, s := range gitSubcommands {
		if seen[s.name] || s.name == "" || s.opts == nil {
			t.Errorf("git subcommand %q is listed twice or has no option table", s.name)
		}
		seen[s.name] = true
		if lookupGitSub(s.name) == nil || lookupGitSub(s.name).name != s.name {
			t.Errorf("lookupGitSub(%s) does not find it", s.name)
		}
	}
	if lookupGitSub("push") != nil || lookupGitSub("") != nil {
		t.Error("lookupGitSub finds a subcommand that is not listed")
	}
}

// TestWordLists: the space-separated lists read with wordlist.Has are lists wordlist.Has reads
// (testrows.WordList); the network programs' lists are checked in package route.
func TestWordLists(t *testing.T) {
	testrows.WordList(t, "jqPairs", jqPairs)
	if wordlist.Has("-nv --no-verbose", "-n") || !wordlist.Has("-n -nv", "-nv") || wordlist.Has("", "") || wordlist.Has("-a", "") {
		t.Error("listed matches a substring or the empty name")
	}
}

// TestGitExactOptions: gitExactOptions lists exactly the names a git table allows that are
// proper prefixes of a dangerous option, which gitScanDangers would otherwise refuse as
// abbreviations.
func TestGitExactOptions(t *testing.T) {
	want := map[string]bool{}
	tables := []*Options{gitGlobal}
	for _, s := range gitSubcommands {
		tables = append(tables, s.opts)
	}
	for _, o := range tables {
		for _, n := range strings.Fields(o.Flags + " " + o.Valued + " " + o.Optional) {
			for _, d := range gitDangers {
				if len(n) > 2 && n != d.Name && strings.HasPrefix(d.Name, n) {
					want[n] = true
				}
			}
		}
	}
	got := map[string]bool{}
	for _, n := range strings.Fields(gitExactOptions) {
		got[n] = true
	}
	for n := range want {
		if !got[n] {
			t.Errorf("a git table allows %s, a prefix of a dangerous option: add it to gitExactOptions", n)
		}
	}
	for n := range got {
		if !want[n] {
			t.Errorf("gitExactOptions lists %s, which no git table allows as a prefix of a dangerous option", n)
		}
	}
}

// glob is a glob word as the lexer hands it on: a pattern that starts with literal text.
func glob(s string) Arg { return Arg{Value: s, Glob: true} }

// TestGlobOperands: a glob stands only for files a program reads, any number of them (issue 10).
// Where the count matters, where the word is a pattern, a script or an option's value, or where
// it could read as an option, it is refused.
func TestGlobOperands(t *testing.T) {
	check(t, true,
		r("cat", glob("./*.md")),
		r("wc", "-l", glob("src/*.go")),
		r("grep", "-n", "TODO", glob("hook/*.go")),
		r("rg", "-n", "x", glob("./*")),
		r("sed", "-n", "1p", glob("./*.go")),
		r("ls", "-d", glob("./*/")),
		r("head", "-3", glob("./*"), glob("docs/*.md")),
		r("tail", "-n", "2", glob("./*.txt")),
		r("sort", glob("./*.txt")),
		r("echo", glob("./*")),
		r("find", glob("./*"), "-maxdepth", "0"),
	)
	check(t, false,
		r("uniq", glob("./*.txt")).because("glob"),                                                // uniq writes its second operand
		r("diff", glob("./*.go")).because("glob"),                                                 // two files exactly
		r("cmp", glob("./*")).because("glob"),                                                     // two files exactly
		r("basename", glob("./*")).because("glob"),                                                // NAME SUFFIX
		r("git", "log", glob("./*.go")).because("glob"),                                           // git takes no globs
		r("jq", ".", glob("./*.json")).because("glob"),                                            // jq's operands may be --args
		r("grep", glob("./*"), "f").because("glob"),                                               // the pattern
		r("sed", "-n", glob("./*"), "f").because("glob"),                                          // the script
		r("grep", "-e", glob("./*"), "f").because("glob"),                                         // an option's separate value
		r("tail", "-n", glob("./*"), "f").because("glob"),                                         // an option's separate value
		r("ls", glob("-l*")).because("glob in an option"),                                         // a short cluster
		r("cat", "--", glob("-*")).because("glob"),                                                // could read as an option after all
		r("find", ".", "-name", glob("./*.go")).because("glob"),                                   // a primary's value
		r("find", ".", glob("./*"), "-delete").because("deletes files"),                           // a starting point; -delete still refused
		r("tail", glob("+*")).because("obsolete"),                                                 // tail's +N form
		r("sort", "-o", glob("./*")).because("writes"),                                            // a writer stays a writer
		r("grep", loopGlob("./a.go"), "f").because("glob"),                                        // a loop variable over a glob as the pattern
		r("sed", "-n", "-e", loopGlob("./x"), "f").because("glob"),                                // … as a script
		r("find", ".", "-exec", "cat", pat("{}"), pat(";"), "-name", glob("./*")).because("glob"), // after -exec
	)
}
