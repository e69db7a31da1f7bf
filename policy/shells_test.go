package policy

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/hookctl/hookctl/config"
	"github.com/hookctl/hookctl/internal/corpus"
	"github.com/hookctl/hookctl/internal/testbin"
	"github.com/hookctl/hookctl/lexer"
	"github.com/hookctl/hookctl/programs"
)

// stubs defines every allowed program, and cd, as a shell function that records the words it
// was called with instead of running. A shell running a command with these stubs tells us the
// argv each program would have received.
func stubs() string {
	var b strings.Builder
	// One printf per record: pipeline stages run at once, and a single small O_APPEND write
	// cannot interleave with another. `builtin printf`: printf is on the allowlist, so it is
	// one of the stubs, which would call __t again without end.
	b.WriteString(`__t() { local __r="$1"; shift; for __a in "$@"; do __r="$__r"$'\037'"$__a"; done; builtin printf '%s\036' "$__r" >>"$HOOKCTL_TRACE"; }` + "\n")
	for _, name := range append(programs.Names(), "cd") {
		fmt.Fprintf(&b, "%s() { __t %s \"$@\"; }\n", name, name)
	}
	return b.String()
}

// expectedTrace lists the argv of every command the script runs, as judged, with every stub
// succeeding: every item of a list but those after `||`; an if runs its condition and
// then-branch; a loop runs its body once per word. With rewrite, the words are those the hook's
// rewrite sends (its pins included). A glob stands for the names it matches in dir (globFiles
// seeds it), or for itself when it matches none.
func expectedTrace(sc *lexer.Script, rewritten bool, dir string) []string {
	var out []string
	argv := func(c *lexer.SimpleCommand, loopVar, item string) string {
		words := append([]lexer.Word{c.Name}, c.Args...)
		if rewritten {
			words = rewrite(c).Words
		}
		var vals []string
		for _, w := range words {
			switch {
			case w.Var != "" && w.Var == loopVar:
				vals = append(vals, item)
			case w.Var != "":
				vals = append(vals, traceEnv(w.Var))
			case w.Parts != nil:
				var b strings.Builder
				for _, p := range w.Parts {
					switch {
					case p.Var == "":
						b.WriteString(p.Text)
					case p.Var == loopVar:
						b.WriteString(item)
					default:
						b.WriteString(traceEnv(p.Var))
					}
				}
				vals = append(vals, b.String())
			case w.Glob != "":
				names, _ := expandGlob(dir, w)
				vals = append(vals, names...)
			default:
				vals = append(vals, w.Value)
			}
		}
		return strings.Join(vals, "\x1f")
	}
	body := func(pls []*lexer.Pipeline, loopVar, item string) {
		for _, pl := range pls {
			if pl.Op == lexer.TokOrOr {
				continue
			}
			for _, c := range pl.Cmds {
				out = append(out, argv(c, loopVar, item))
			}
		}
	}
	if sc.Cd != nil {
		out = append(out, "cd\x1f"+sc.Cd.Value)
	}
	for _, it := range sc.Items {
		if it.Op == lexer.TokOrOr {
			continue
		}
		switch {
		case it.Pipeline != nil:
			body([]*lexer.Pipeline{it.Pipeline}, "", "")
		case it.If != nil:
			body([]*lexer.Pipeline{it.If.Cond}, "", "")
			body(it.If.Then, "", "")
		case it.For != nil:
			for _, w := range it.For.Items {
				vals := []string{w.Value}
				if w.Glob != "" {
					vals, _ = expandGlob(dir, w)
				}
				for _, v := range vals {
					if w.Tilde {
						v = "HOME" + v[1:]
					}
					body(it.For.Body, it.For.Var, v)
				}
			}
		}
	}
	slices.Sort(out)
	return out
}

// globFiles are the names shellTrace seeds its directory with, so that the corpus's globs match
// something, hostile names among them: a glob must never turn into an option.
var globFiles = []string{"README.md", "go.mod", "go.sum", "package.json", "-rf.md", "--output=x.md", "a.go", "-delete.go", "src/b.go", "src/-n.rs",
	"src/c.rs", "docs/d.md", "crates/e.rs", "hook/f.go", "lexer/g.go", "cmd/h/i.go", "x.txt"}

// expandGlob is what the shells make of a glob word in dir: the names it matches, sorted, or
// the word itself when it matches none (zsh is run with nonomatch, as bash behaves by default).
// A pattern ending in / matches directories only. zsh reads **/ as any depth of directories and
// bash (without globstar) as */, so the trace of such a row is not predicted (ok false).
func expandGlob(dir string, w lexer.Word) (names []string, ok bool) {
	if strings.Contains(w.Glob, "**") {
		return nil, false
	}
	pat := w.Glob
	if !filepath.IsAbs(pat) {
		pat = filepath.Join(dir, pat)
	}
	m, _ := filepath.Glob(pat)
	for _, p := range m {
		if strings.HasSuffix(w.Glob, "/") {
			if fi, err := os.Stat(p); err != nil || !fi.IsDir() {
				continue
			}
		}
		name := p
		if !filepath.IsAbs(w.Glob) {
			name, _ = filepath.Rel(dir, p)
			if strings.HasPrefix(w.Glob, "./") {
				name = "./" + name
			}
		}
		if strings.HasSuffix(w.Glob, "/") {
			name += "/"
		}
		names = append(names, name)
	}
	if len(names) == 0 {
		return []string{w.Value}, true
	}
	return names, true
}

// seedGlobFiles makes globFiles in dir.
func seedGlobFiles(t *testing.T, dir string) {
	for _, f := range globFiles {
		p := filepath.Join(dir, f)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, nil, 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

// shellTrace runs command in shell with the stubs and returns the recorded argv, sorted (the
// stages of a pipeline run concurrently).
func shellTrace(t *testing.T, shell []string, dir, command string) ([]string, error) {
	trace := filepath.Join(t.TempDir(), "trace")
	cmd := exec.Command(shell[0], append(shell[1:], stubs()+command)...)
	cmd.Env = append(os.Environ(), "HOOKCTL_TRACE="+trace, "HOME=HOME", "LC_ALL=C", "HOOKCTL_TEST_WORD=a:b/c")
	cmd.Dir = dir
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

// traceEnv is a variable's value in shellTrace's environment.
func traceEnv(name string) string {
	switch name {
	case "HOME":
		return "HOME"
	case "LC_ALL":
		return "C"
	case "HOOKCTL_TEST_WORD":
		return "a:b/c"
	}
	return os.Getenv(name)
}

// predictable reports whether every glob of sc has a trace expandGlob can predict, and every
// variable outside the loop's a value the shells leave one word.
func predictable(sc *lexer.Script) bool {
	unpredictable := sc.AnyWord(func(w lexer.Word) bool {
		if w.Glob != "" {
			if _, p := expandGlob("", w); !p {
				return true
			}
		}
		if w.Env {
			for _, name := range w.Vars() {
				if traceEnv(name) == "" || strings.ContainsAny(traceEnv(name), " \t\n*?[") {
					return true
				}
			}
		}
		return false
	})
	return !unpredictable
}

// hasDotSlash reports whether the lexer put ./ before a glob of sc, so that the command as
// written differs from what was judged.
func hasDotSlash(sc *lexer.Script) bool {
	return sc.AnyWord(func(w lexer.Word) bool { return w.DotSlash })
}

var testShells = []struct {
	name string
	argv []string
}{
	{"bash", []string{"bash", "--norc", "--noprofile", "-c"}},
	{"zsh", []string{"zsh", "-f", "-o", "nonomatch", "-c"}},
}

// TestShellsRunWhatWasJudged runs every allowed corpus command (with the sandbox's rewrite for
// those admitted only there) in real bash and zsh, with every
// program replaced by a recording stub, and checks that each program receives exactly the words
// the judge judged — for the command as the agent wrote it, and for the hook's rewrite of it. A
// glob is run in a directory of hostile names (globFiles) and must become only names that start
// as the judged pattern does; its form as written is not compared, since the rewrite puts ./
// before a leading glob character (`*.md` as written can become `-rf.md`).
func TestShellsRunWhatWasJudged(t *testing.T) {
	rows, err := corpus.Load("allow")
	if err != nil {
		t.Fatal(err)
	}
	for _, sh := range testShells {
		t.Run(sh.name, func(t *testing.T) {
			if _, err := exec.LookPath(sh.argv[0]); err != nil {
				testbin.RequireTool(t, sh.argv[0])
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
				rewritten, ref := judgeInSandbox(r.Command, &config.Config{})
				if ref != nil || !predictable(sc) {
					continue
				}
				wg.Add(1)
				sem <- struct{}{}
				go func() {
					defer wg.Done()
					defer func() { <-sem }()
					dir := t.TempDir()
					seedGlobFiles(t, dir)
					runs := []struct {
						label, cmd string
						want       []string
					}{
						{"rewritten", rewritten, expectedTrace(sc, true, dir)},
					}
					if !hasDotSlash(sc) {
						runs = append(runs, struct {
							label, cmd string
							want       []string
						}{"as written", r.Command, expectedTrace(sc, false, dir)})
					}
					for _, run := range runs {
						got, err := shellTrace(t, sh.argv, dir, run.cmd)
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
