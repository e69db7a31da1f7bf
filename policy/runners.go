package policy

import (
	"cmp"
	"fmt"
	"strings"

	"github.com/BurntSushi/toml"
	"github.com/hookctl/hookctl/config"
	"github.com/hookctl/hookctl/lexer"
	"github.com/hookctl/hookctl/programs/editguard"
)

// A read-only runner is a command of the user's own config (read_only_runners) that read-only
// mode admits although it runs the repository's code: a test runner. It is matched on its whole
// argv, word for word (an entry ending in " *" admits further arguments), never as a prefix,
// and it runs only inside the sandbox, where the code it runs can read what the user can read
// but write nothing outside the session's scratch directory and reach no network. Its caches
// go to the scratch directory (the launcher points GOCACHE, CARGO_TARGET_DIR, npm's cache,
// Python's bytecode and pytest's cache there).

// checkRunners is the config's check of read_only_runners (a Check): it keeps in c.Runners the
// entries that parse, and says what is wrong with the first that does not.
func checkRunners(c *config.Config) (toml.Key, error) {
	c.Runners = c.Runners[:0]
	var first error
	for _, e := range c.ReadOnlyRunners {
		r, err := parseRunner(e)
		if err != nil {
			first = cmp.Or(first, err)
			continue
		}
		c.Runners = append(c.Runners, r)
	}
	return toml.Key{"read_only_runners"}, first
}

// parseRunner parses one read_only_runners entry: plain words, as the lexer reads them.
func parseRunner(entry string) (config.Runner, error) {
	var r config.Runner
	text := strings.TrimSpace(entry)
	if rest, ok := strings.CutSuffix(text, " *"); ok {
		text, r.More = strings.TrimSpace(rest), true
	}
	sc, err := lexer.NewCommandLine(text).Shape()
	if err != nil || len(sc.Items) != 1 || sc.Items[0].Pipeline == nil || sc.Cd != nil || len(sc.Items[0].Pipeline.Cmds) != 1 {
		return r, fmt.Errorf("read_only_runners entry %q is not one plain command", entry)
	}
	c := sc.Items[0].Pipeline.Cmds[0]
	if len(c.Redirs) > 0 {
		return r, fmt.Errorf("read_only_runners entry %q has a redirection", entry)
	}
	for _, w := range append([]lexer.Word{c.Name}, c.Args...) {
		if w.Var != "" || w.Parts != nil || w.Pattern || w.Tilde || w.Glob != "" {
			return r, fmt.Errorf("read_only_runners entry %q: %q is not a plain word", entry, w.Raw)
		}
		r.Words = append(r.Words, w.Value)
	}
	return r, nil
}

// isRunner says whether cmd is one of the user's read-only runners in c.
func isRunner(c *config.Config, cmd *lexer.SimpleCommand) bool {
	if len(c.Runners) == 0 {
		return false
	}
	for _, r := range cmd.Redirs {
		if r.Kind == lexer.TokIn {
			return false // output may go to /dev/null; input is the runner's own business
		}
	}
	argv := make([]string, 0, len(cmd.Args)+1)
	for _, w := range append([]lexer.Word{cmd.Name}, cmd.Args...) {
		if w.Var != "" || w.Parts != nil || w.Pattern || w.Tilde || w.Glob != "" {
			return false
		}
		argv = append(argv, w.Value)
	}
	for _, r := range c.Runners {
		if len(argv) < len(r.Words) || !r.More && len(argv) != len(r.Words) {
			continue
		}
		match := true
		for i, w := range r.Words {
			match = match && argv[i] == w
		}
		if match {
			return true
		}
	}
	return false
}

// checkEditAllow is the config's check of edit.allow (a Check): each entry names one of the edit
// guard's rule families.
func checkEditAllow(c *config.Config) (toml.Key, error) {
	for _, f := range c.Edit.Allow {
		if !editguard.IsFamily(f) {
			return toml.Key{"edit", "allow"}, fmt.Errorf("edit.allow: %q is not one of the edit guard's families (see docs/edit-guard.md)", f)
		}
	}
	return nil, nil
}

// JudgeChecks are the config's checks that need the judges: every config the gate, the CLI or
// the sandbox launcher reads goes through them (LoadConfig).
var JudgeChecks = []config.Check{checkEditAllow, checkRunners}
