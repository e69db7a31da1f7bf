package policy

import (
	"regexp"
	"slices"
	"strings"
	"sync"

	"github.com/hookctl/hookctl/hook"
	"github.com/hookctl/hookctl/internal/clip"
	"github.com/hookctl/hookctl/internal/secrets"
	"github.com/hookctl/hookctl/lexer"
	"github.com/hookctl/hookctl/programs"
)

// A command that runs without hookctl's launcher: a client that takes no rewrite (Qwen Code)
// runs the text as written, in its own shell and its own environment; without hookctl's path the
// rewrite runs, but in the client's shell. Neither gets the launcher's environment allowlist or
// its time bound, and the first gets none of the rewrite's pins or exclusions. Such a command is
// judged as it will really run (issue 23, item 8): admitted only where it is safe without them.

// judgeUnlaunched refuses, for a command no launcher runs, what is a read only with what the
// launcher or the rewrite adds: a program whose rewrite pins off configuration that runs code
// (git), a program that prints the whole environment, and a word that reads a variable outside
// the launcher's allowlist (its value is the client's, and a name that says nothing can hold a
// token: APP_SETTING=ghp_…).
// Test: TestSecretsCorpus (no-rewrite rows); TestNoRewriteJudgedAsRun.
func judgeUnlaunched(c *hook.ToolCall, sc *lexer.Script, j *judged) *Refusal {
	if c.NoRewrite {
		var r *Refusal
		sc.Visit(func(pl *lexer.Pipeline, loop *lexer.For) bool {
			for _, cmd := range pl.Cmds {
				if r = needsPins(c.Tool, cmd); r != nil {
					return false
				}
			}
			return true
		})
		if r != nil {
			return r
		}
	}
	if j.need.launcher != "" {
		return &Refusal{What: j.need.launcher + ", and `" + c.Tool + "` runs it as written, in the client's own environment"}
	}
	for _, name := range j.env {
		if !slices.Contains(secrets.PassedEnv, name) && !slices.Contains(secrets.ToolchainEnv, name) {
			return &Refusal{What: "`$" + clip.Short(name) + "` is read from the client's own environment, where any variable may hold a token, " +
				"and hookctl's launcher, which keeps only " + strings.Join(secrets.PassedEnv[:4], ", ") + " and the like, does not run this command"}
		}
	}
	return nil
}

// needsPins refuses a command whose program's rewrite is what makes it a read (git's pins), when
// the client runs it as written.
func needsPins(tool string, cmd *lexer.SimpleCommand) *Refusal {
	prog := programs.Lookup(cmd.Name.Value)
	if prog == nil || prog.Rewrite == nil || prog.RewriteDepth {
		return nil
	}
	words := make([]string, len(cmd.Args))
	for i, w := range cmd.Args {
		words[i] = w.Value
	}
	env, out := prog.RewriteArgs(words)
	if len(env) == 0 && slices.Equal(out, words) {
		return nil
	}
	return &Refusal{What: "`" + tool + "` runs its command as written, and `" + prog.Name + "` is a read only with the settings hookctl's rewrite adds " +
		"(for git: no fsmonitor, hooks, pager, diff or textconv drivers, signature programs or transports the repository configures), which this client cannot take"}
}

// endlessInputs are the devices a read never comes to the end of.
var endlessInputs = []string{"/dev/zero", "/dev/urandom", "/dev/random", "/dev/full", "/dev/tty", "/dev/console", "/dev/ptmx",
	"/dev/stdin", "/dev/fd/0", "/proc/self/fd/0", "/dev/kmsg"}

// loopWords are the words of awk and jq programs that make a loop whose end hookctl cannot see,
// compiled on first use.
func loopWords() *regexp.Regexp {
	loops.once.Do(func() { loops.re = regexp.MustCompile(`\b(while|for|do|repeat|until|recurse|getline)\b`) })
	return loops.re
}

var loops struct {
	once sync.Once
	re   *regexp.Regexp
}

// unboundedUnlaunched refuses, for a command no launcher runs (so that nothing of hookctl's
// bounds its time: only the client's own timeout does), what may never end by construction: an
// endless device as an input (sort /dev/zero), an awk or jq program with a loop, and a glob the
// shell would spend longer expanding than hookctl checks (ls /*/*/*/*/*/*) (issue 23, item 9).
func (p *Policy) unboundedUnlaunched(sc *lexer.Script, dir string) *Refusal {
	var r *Refusal
	glob := p.world().Globs()
	sc.Visit(func(pl *lexer.Pipeline, loop *lexer.For) bool {
		for _, cmd := range pl.Cmds {
			name := cmd.Name.Value
			for _, w := range cmd.Args {
				switch {
				case slices.Contains(endlessInputs, w.Value):
					r = &Refusal{What: "`" + name + "` would read " + w.Value + ", which never ends, and no hookctl time bound holds this client's commands"}
				case (strings.HasSuffix(name, "awk") || name == "jq") && !strings.HasPrefix(w.Value, "-") && loopWords().MatchString(w.Value):
					r = &Refusal{What: "`" + name + "` runs a loop whose end hookctl cannot see, and no hookctl time bound holds this client's commands"}
				case w.Glob != "":
					if _, err := glob(absIn(dir, w.Value), true); err != nil {
						r = &Refusal{What: "the shell would expand `" + clip.Short(w.Value) + "` over more files than hookctl bounds, and no hookctl time bound holds this client's commands"}
					}
				}
				if r != nil {
					return false
				}
			}
		}
		return true
	})
	return r
}
