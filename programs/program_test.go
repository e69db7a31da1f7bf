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
	for n, s := range gitSubcommands {
		m["git "+n] = s.opts
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
