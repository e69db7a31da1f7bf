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
				dangers = merge(gitDangers, o.Refused)
			}
			for opt := range tab.kinds {
				for bad := range dangers {
					if exactOptions[opt] {
						continue
					}
					if strings.HasPrefix(opt, "--") && opt != bad && strings.HasPrefix(bad, opt) {
						t.Errorf("%s: allowed %s abbreviates refused %s", name, opt, bad)
					}
				}
			}
		}()
	}
}
