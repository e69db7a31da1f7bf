package programs

import (
	"strings"
	"testing"
)

// allOptions lists every option table, so a malformed one fails here and never in a hook run.
func allOptions() map[string]*Options {
	m := map[string]*Options{"git (global)": gitGlobal}
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

// exactOptions are real option names that happen to be prefixes of refused ones. Programs
// match an exact name before trying abbreviations (git's parse-options and GNU getopt_long
// both do), so these mean themselves: git's -a/--text, --list of git branch, tag and config,
// and rev-list's --filter.
var exactOptions = map[string]bool{"--text": true, "--list": true, "--filter": true}

// TestOptionTables builds every table (duplicates, malformed names and options both allowed and
// refused panic) and checks that no allowed long option is a prefix of a refused one: such a
// name would be an abbreviation the program resolves to the refused option.
func TestOptionTables(t *testing.T) {
	for name, o := range allOptions() {
		func() {
			defer func() {
				if r := recover(); r != nil {
					t.Errorf("%s: %v", name, r)
				}
			}()
			tab := o.table()
			dangers := o.Refused
			if strings.HasPrefix(name, "git") {
				dangers = append(append(Refusals(nil), gitDangers...), o.Refused...)
			}
			for opt := range tab.kinds {
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
		}()
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
	seen := map[string]bool{}
	for _, p := range all {
		if seen[p.Name] {
			t.Errorf("%s is listed twice", p.Name)
		}
		seen[p.Name] = true
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
	seen = map[string]bool{}
	for _, p := range findPrimaries {
		if seen[p.name] {
			t.Errorf("find primary %s is listed twice", p.name)
		}
		seen[p.name] = true
	}
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

// TestWordLists: the space-separated lists read with listed hold names separated by spaces only
// (listed splits on nothing else), and listed finds each of their names and nothing that merely
// overlaps one (-n in -nv, -s in -sS, two neighbours joined by a space).
func TestWordLists(t *testing.T) {
	for name, list := range map[string]string{
		"curlDropFlags": curlDropFlags, "curlDropValued": curlDropValued,
		"wgetDropFlags": wgetDropFlags, "wgetDropValued": wgetDropValued, "jqPairs": jqPairs,
	} {
		words := strings.Fields(list)
		var split []string
		for _, w := range strings.Split(list, " ") {
			if w != "" {
				split = append(split, w)
			}
		}
		if strings.Join(words, " ") != strings.Join(split, " ") {
			t.Errorf("%s is separated by something other than spaces", name)
		}
		for i, w := range words {
			if !listed(list, w) {
				t.Errorf("listed(%s, %q) = false", name, w)
			}
			for _, near := range []string{w[:len(w)-1], w + "x", w + " ", " " + w, "x" + w} {
				if listed(list, near) != containsWord(words, near) {
					t.Errorf("listed(%s, %q) = %v", name, near, !containsWord(words, near))
				}
			}
			if i+1 < len(words) && listed(list, w+" "+words[i+1]) {
				t.Errorf("listed(%s, %q) = true", name, w+" "+words[i+1])
			}
		}
	}
	if listed("-nv --no-verbose", "-n") || !listed("-n -nv", "-nv") || listed("", "") || listed("-a", "") {
		t.Error("listed matches a substring or the empty name")
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
