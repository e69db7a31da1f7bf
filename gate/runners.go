package gate

import (
	"fmt"
	"strings"

	"github.com/hookctl/hookctl/lexer"
)

// A read-only runner is a command of the user's own config (read_only_runners) that read-only
// mode admits although it runs the repository's code: a test runner. It is matched on its whole
// argv, word for word (an entry ending in " *" admits further arguments), never as a prefix,
// and it runs only inside the sandbox, where the code it runs can read what the user can read
// but write nothing outside the session's scratch directory and reach no network. Its caches
// go to the scratch directory (the launcher points GOCACHE, CARGO_TARGET_DIR, npm's cache,
// Python's bytecode and pytest's cache there).

// runnerEntry is one parsed read_only_runners entry.
type runnerEntry struct {
	words []string
	more  bool // the entry ended in " *"
}

// parseRunner parses one read_only_runners entry: plain words, as the lexer reads them.
func parseRunner(entry string) (runnerEntry, error) {
	var r runnerEntry
	text := strings.TrimSpace(entry)
	if rest, ok := strings.CutSuffix(text, " *"); ok {
		text, r.more = strings.TrimSpace(rest), true
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
		r.words = append(r.words, w.Value)
	}
	return r, nil
}

// runner says whether c is one of the user's read-only runners.
func (c *Config) runner(cmd *lexer.SimpleCommand) bool {
	if len(c.runners) == 0 {
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
	for _, r := range c.runners {
		if len(argv) < len(r.words) || !r.more && len(argv) != len(r.words) {
			continue
		}
		match := true
		for i, w := range r.words {
			match = match && argv[i] == w
		}
		if match {
			return true
		}
	}
	return false
}
