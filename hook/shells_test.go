package hook

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/hookctl/hookctl/internal/corpus"
	"github.com/hookctl/hookctl/lexer"
	"github.com/hookctl/hookctl/programs"
)

// stubs defines every allowed program, and cd, as a shell function that records the words it
// was called with instead of running. A shell running a command with these stubs tells us the
// argv each program would have received.
func stubs() string {
	var b strings.Builder
	// One printf per record: pipeline stages run at once, and a single small O_APPEND write
	// cannot interleave with another.
	b.WriteString(`__t() { local __r="$1"; shift; for __a in "$@"; do __r="$__r"$'\037'"$__a"; done; printf '%s\036' "$__r" >>"$HOOKCTL_TRACE"; }` + "\n")
	for _, name := range append(programs.Names(), "cd") {
		fmt.Fprintf(&b, "%s() { __t %s \"$@\"; }\n", name, name)
	}
	return b.String()
}

// expectedTrace lists the argv of every command the script runs, as judged, with every stub
// succeeding: an if runs its condition and then-branch; a loop runs its body once per word.
// With rewrite, the words are those the hook's rewrite sends (its pins included).
func expectedTrace(sc *lexer.Script, rewritten bool) []string {
	var out []string
	argv := func(c *lexer.SimpleCommand, loopVar, item string) string {
		words := append([]lexer.Word{c.Name}, c.Args...)
		if rewritten {
			words = rewrite(c).Words
		}
		vals := make([]string, len(words))
		for i, w := range words {
			vals[i] = w.Value
			if w.Var != "" && w.Var == loopVar {
				vals[i] = item
			}
		}
		return strings.Join(vals, "\x1f")
	}
	pipeline := func(pl *lexer.Pipeline, loopVar, item string) {
		for _, c := range pl.Cmds {
			out = append(out, argv(c, loopVar, item))
		}
	}
	if sc.Cd != nil {
		out = append(out, "cd\x1f"+sc.Cd.Value)
	}
	switch {
	case sc.Pipeline != nil:
		pipeline(sc.Pipeline, "", "")
	case sc.If != nil:
		pipeline(sc.If.Cond, "", "")
		for _, pl := range sc.If.Then {
			pipeline(pl, "", "")
		}
	case sc.For != nil:
		for _, it := range sc.For.Items {
			v := it.Value
			if it.Tilde {
				v = "HOME" + v[1:]
			}
			for _, pl := range sc.For.Body {
				pipeline(pl, sc.For.Var, v)
			}
		}
	}
	slices.Sort(out)
	return out
}

// shellTrace runs command in shell with the stubs and returns the recorded argv, sorted (the
// stages of a pipeline run concurrently).
func shellTrace(t *testing.T, shell []string, command string) ([]string, error) {
	trace := filepath.Join(t.TempDir(), "trace")
	cmd := exec.Command(shell[0], append(shell[1:], stubs()+command)...)
	cmd.Env = append(os.Environ(), "HOOKCTL_TRACE="+trace, "HOME=HOME")
	cmd.Dir = t.TempDir()
	if out, err := cmd.CombinedOutput(); err != nil {
		return nil, fmt.Errorf("%v: %s", err, out)
	}
	b, err := os.ReadFile(trace)
	if err != nil {
		return nil, err
	}
	recs := strings.Split(strings.TrimSuffix(string(b), "\x1e"), "\x1e")
	slices.Sort(recs)
	return recs, nil
}

var testShells = []struct {
	name string
	argv []string
}{
	{"bash", []string{"bash", "--norc", "--noprofile", "-c"}},
	{"zsh", []string{"zsh", "-f", "-c"}},
}

// TestShellsRunWhatWasJudged runs every allowed corpus command in real bash and zsh, with every
// program replaced by a recording stub, and checks that each program receives exactly the words
// the judge judged — for the command as the agent wrote it, and for the hook's rewrite of it.
func TestShellsRunWhatWasJudged(t *testing.T) {
	rows, err := corpus.Load("allow")
	if err != nil {
		t.Fatal(err)
	}
	for _, sh := range testShells {
		t.Run(sh.name, func(t *testing.T) {
			if _, err := exec.LookPath(sh.argv[0]); err != nil {
				requireTool(t, sh.argv[0])
			}
			t.Parallel()
			var mu sync.Mutex
			sem := make(chan struct{}, 4)
			var wg sync.WaitGroup
			for _, r := range rows {
				sc, err := lexer.Parse(r.Command)
				if err != nil {
					continue // TestCorpusAllowed reports it
				}
				rewritten, ref := judgeReadOnly(r.Command, &Config{})
				if ref != nil {
					continue
				}
				wg.Add(1)
				sem <- struct{}{}
				go func() {
					defer wg.Done()
					defer func() { <-sem }()
					for _, run := range []struct {
						label, cmd string
						want       []string
					}{
						{"as written", r.Command, expectedTrace(sc, false)},
						{"rewritten", rewritten, expectedTrace(sc, true)},
					} {
						got, err := shellTrace(t, sh.argv, run.cmd)
						mu.Lock()
						switch {
						case err != nil:
							t.Errorf("%s %s: %v", r, run.label, err)
						case !slices.Equal(got, run.want):
							t.Errorf("%s %s:\n got  %q\n want %q", r, run.label, got, run.want)
						}
						mu.Unlock()
					}
				}()
			}
			wg.Wait()
		})
	}
}
