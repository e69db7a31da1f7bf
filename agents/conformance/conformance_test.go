package conformance

import (
	"flag"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/hookctl/hookctl/agents/agenttest"
	"github.com/hookctl/hookctl/audit"
	"github.com/hookctl/hookctl/internal/testbin"
)

var record = flag.Bool("record", false, "write the payloads each client sent to fixtures/<client>")

// TestMain runs the tests with only the loopback network (agenttest.IsolateNetwork), and removes
// the hookctl they built.
func TestMain(m *testing.M) {
	code := agenttest.IsolateNetwork(m)
	testbin.Cleanup()
	os.Exit(code)
}

// row is one behaviour every client must show.
type row struct {
	name string
	run  func(t *testing.T, c *agenttest.Client)
}

// rows are the behaviours, each run against every client.
var rows = []row{
	{"ReadOnly", readOnly},
	{"InstalledHook", installedHook},
	{"ShellFindsItsSession", shellFindsItsSession},
	{"WebReadGoesToTheRetriever", webRead},
	{"UserRules", userRules},
	{"ClientVersionPolicy", clientVersionPolicy},
}

// cell is a cell of the table that is not run here, and why: see names the test of the client's
// own package that holds the behaviour and asserts more than the row does ("dir TestName"); lacks
// says why the client cannot show it, or what about it is unverified.
type cell struct {
	client     *agenttest.Client
	row        string
	see, lacks string
}

// cells are the table's known differences (beside the clients' own fields: AsWritten, TellsMode,
// Absent, …).
var cells = []cell{
	{client: agenttest.Claude, row: "UserRules", see: "agents/claude/permissions TestRealClientUserRules"},
	{client: agenttest.Codex, row: "InstalledHook", see: "agents/codex TestRealCodexInstallTrustsItsHook"},
	{client: agenttest.Qwen, row: "UserRules", lacks: "Qwen Code takes no rewrite, so its permission rules see the command as the model " +
		"wrote it; whether its deny rules still hold after the hook's allow is not verified"},
}

// TestConformance runs the table: each client in parallel, its rows in order.
func TestConformance(t *testing.T) {
	for _, c := range cells {
		if c.see != "" && !testExists(t, c.see) {
			t.Errorf("%s %s: the table sends it to %s, which does not exist", c.client.Name, c.row, c.see)
		}
	}
	for _, c := range agenttest.Clients {
		t.Run(strings.ReplaceAll(c.Name, " ", ""), func(t *testing.T) {
			if c.Absent != "" {
				t.Skip(c.Absent)
			}
			t.Parallel()
			for _, r := range rows {
				t.Run(r.name, func(t *testing.T) {
					for _, d := range cells {
						switch {
						case d.client != c || d.row != r.name:
						case d.see != "":
							t.Logf("held by %s", d.see)
							return
						default:
							t.Skip(d.lacks)
						}
					}
					r.run(t, c)
				})
			}
		})
	}
}

// testExists says whether "dir TestName" names a test function in dir, from the repository's root.
func testExists(t *testing.T, see string) bool {
	dir, name, _ := strings.Cut(see, " ")
	files, _ := filepath.Glob(filepath.Join(agenttest.RepoRoot(t), dir, "*_test.go"))
	for _, f := range files {
		if b, err := os.ReadFile(f); err == nil && strings.Contains(string(b), "\nfunc "+name+"(t *testing.T) {") {
			return true
		}
	}
	return false
}

// readOnly: in a new session (read-only by default) the model tries sed -i, a redirect out of
// the project and the client's write tool, then git log and an admitted read. The file must
// survive, each write must come back to the model as hookctl's refusal, git log must run (its
// output reaching the model), and the admitted read must run in hookctl's sandbox, the client
// taking the rewrite. A client that takes none (AsWritten) runs the admitted read as written,
// outside the sandbox, and git is refused: it is a read only with the pins hookctl's rewrite adds
// (issue 23, item 8: without them the repository's configuration runs programs).
func readOnly(t *testing.T, c *agenttest.Client) {
	s := c.NewSession(t, func(p *agenttest.Project) []agenttest.Step {
		if c.AsWritten {
			return append(p.ReadOnlyScript(), agenttest.Shell("cat f")) // and a plain read, which runs
		}
		return p.ReadOnlyScript()
	})
	s.Register(t)
	s.Run(t, "Try to change the project.")
	refusals := []string{c.Refused + "hookctl read-only: sed: `-i` edits files in place",
		c.Refused + "hookctl read-only: `>` (redirection) is not allowed here",
		c.Refused + "hookctl read-only: `" + c.WriteTool + "` changes things"}
	if c.AsWritten {
		// (Qwen Code puts the latest commits in its own prompt, so the commit's subject reaching
		// the model proves nothing either way; the refusal is what shows git did not run.)
		s.CheckRefusals(t, s.API.Saw, append(refusals, "and `git` is a read only with the settings hookctl's rewrite adds")...)
	} else {
		s.CheckReadOnly(t, s.API.Saw, refusals...)
	}
	if in, ok := agenttest.Sandboxed(s.API.Saw); !ok || in == c.AsWritten {
		t.Errorf("the admitted read: sandboxed %v, seen %v; %s takes the rewrite: %v", in, ok, c.Name, !c.AsWritten)
	}
	payloads := agenttest.Payloads(t, s.HookDir)
	want := len(s.ReadOnlyScript())
	if c.TellsMode {
		want++ // the session's start
		if !s.API.Saw("hookctl: this session is in READ-ONLY mode") {
			t.Errorf("the session start did not tell the model its mode")
		}
	}
	if len(payloads) < want {
		t.Errorf("the hook saw %d calls, want %d", len(payloads), want)
	}
	if *record && c.Fixtures != "" {
		agenttest.Record(t, c.Fixtures, payloads, s.Replacements())
	}
}

// installedHook: what `hookctl install --agent` writes is a hook the client runs (its matcher
// and timeout as the client reads them): sed -i is refused.
func installedHook(t *testing.T, c *agenttest.Client) {
	s := c.NewSession(t, func(*agenttest.Project) []agenttest.Step { return []agenttest.Step{agenttest.Shell("sed -i s/a/b/ f")} })
	s.Install(t)
	s.Run(t, "Try to change the project.")
	if b, _ := os.ReadFile(s.F); string(b) != "a\n" || !s.API.Saw(c.Refused+"hookctl read-only: sed: `-i` edits files in place") {
		t.Errorf("the installed hook did not refuse sed -i (f is %q)", b)
	}
}

// shellFindsItsSession: `hookctl readonly` typed in a shell the client started finds the session
// it runs in through the process tree (the installed hook noted the client process that ran
// it): with two sessions in the project, where the project alone cannot tell them apart, the
// second run's shell names the second session. (Here the model's own shell asks, which only
// reads the mode; the user's `!` shell is a child of the same process.) A client that takes no
// rewrite runs `hookctl` as written, so it is on the shell's PATH, as make install puts it.
func shellFindsItsSession(t *testing.T, c *agenttest.Client) {
	s := c.NewSession(t, func(*agenttest.Project) []agenttest.Step {
		return []agenttest.Step{agenttest.Shell("ls"), agenttest.Shell("hookctl readonly status")}
	})
	s.Install(t)
	env := s.Env()
	if c.AsWritten {
		env = agenttest.PrependPath(env, filepath.Dir(s.Hookctl))
	}
	out1 := s.RunEnv(t, env, "What mode is this session in?")
	before, first := s.Sessions(), len(s.API.Requests())
	out2 := s.RunEnv(t, env, "What mode is this session in?")
	after := s.Sessions()
	if len(before) != 1 || len(after) != 2 {
		t.Fatalf("hookctl saw sessions %v, then %v", before, after)
	}
	second := after[0]
	if second == before[0] {
		second = after[1]
	}
	if c.SessionID != nil {
		if id1, id2 := c.SessionID(out1), c.SessionID(out2); id1 != before[0] || id2 != second {
			t.Errorf("%s ran sessions %q and %q; hookctl recorded %s, then %s", c.Name, id1, id2, before[0], second)
		}
	}
	// The status names the session by its shortest unique prefix: "session PREFIX (DIR): MODE".
	text := strings.Join(s.API.Requests()[first:], "\n")
	named := agenttest.StatusSession(text)
	if named == "" || !strings.HasPrefix(second, named) || strings.HasPrefix(before[0], named) || !strings.Contains(text, "): 🔒 READ-ONLY") {
		t.Errorf("the second run's hookctl readonly status named %q; the sessions are %s, then %s", named, before[0], second)
	}
}

// webRead: a shell web read is answered by hookctl's quarantined retriever, not run: the client
// takes the rewrite into `hookctl retrieve fetch`, whose answer (here its refusal of a loopback
// address, which only the retriever words) reaches the model, and the audit records the
// retrieval with the session and the client's shell tool. Nothing of the page is fetched by the
// client's shell: the server sees no request. A client that takes no rewrite is refused the
// read, with the retriever's command as the hint, and nothing is retrieved.
func webRead(t *testing.T, c *agenttest.Client) {
	var hits atomic.Int32
	page := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		hits.Add(1)
		io.WriteString(w, "page text")
	}))
	defer page.Close()
	url := page.URL + "/notes"
	s := c.NewSession(t, func(*agenttest.Project) []agenttest.Step { return []agenttest.Step{agenttest.Shell("curl -s " + url)} })
	s.Config(t, "[retriever]\ndistiller = \"command\"\n[retriever.command]\nargv = [\"/bin/sh\", \"-c\", \"cat >/dev/null; echo distilled\"]\n")
	s.Register(t)
	s.Run(t, "Read the notes.")
	answer := "hookctl refused this retrieval: refused: 127.0.0.1 is a loopback address"
	if c.AsWritten {
		answer = "web reads come through the retriever: run hookctl retrieve fetch URL"
	}
	if !s.API.Saw(answer) {
		t.Errorf("the model was not told %q", answer)
	}
	if n := hits.Load(); n != 0 {
		t.Errorf("the page was fetched %d times", n)
	}
	entries, _, err := audit.AuditAt(s.HookctlHome()).Entries()
	switch {
	case c.AsWritten && (err != nil || len(entries) != 0):
		t.Errorf("audit: %v %+v, want nothing retrieved", err, entries)
	case !c.AsWritten && (err != nil || len(entries) != 1 || entries[0].URL != url || entries[0].Tool != c.ShellTool || entries[0].Session == ""):
		t.Errorf("audit: %v %+v", err, entries)
	}
}

// rulesCase is how a client's own permission rules are written and what they decide.
type rulesCase struct {
	// Cmds are the script; a `touch X` ran if X exists, an `rm -f X` if X is gone, any other
	// command if the model saw Saw[i] (its output).
	Cmds []string
	Saw  map[int]string
	// Setup writes the user's rules.
	Setup func(t *testing.T, s *agenttest.Session)
	// Variants are the client's arguments (nil: its Args) and which of Cmds run under them
	// without hookctl.
	Variants []variant
	// Modes are hookctl's modes the script runs under after the control; Says what the model
	// must be told of the rules in edit mode.
	Modes []string
	Says  []string
}

type variant struct {
	Args []string
	Want []bool
}

// rules are the clients' rules cases (issue 25). Each client matches its rules against hookctl's
// rewrite, which would change what they decide, so hookctl applies them to the command as the
// model wrote it.
var rules = map[*agenttest.Client]rulesCase{
	// Codex's exec policy: 0.169.0, live, ran a forbidden `rm` and `touch a1` through the
	// edit-mode rewrite. A prompt rule refuses (codex exec asks no one).
	agenttest.Codex: {
		Cmds: []string{"touch a1", "touch a2", "touch a3", "rm -f keep.txt", "cat f"},
		Saw:  map[int]string{4: `Output:\na\n`},
		Setup: func(t *testing.T, s *agenttest.Session) {
			write(t, filepath.Join(agenttest.CodexHome(s.Project), "rules", "default.rules"),
				`prefix_rule(pattern = ["touch", "a1"], decision = "forbidden", justification = "no a1 here")
prefix_rule(pattern = ["touch", "a2"], decision = "prompt")
prefix_rule(pattern = ["touch", "a3"], decision = "allow")
prefix_rule(pattern = ["rm"], decision = "forbidden")
`)
		},
		Variants: []variant{{Want: []bool{false, false, true, false, true}}},
		Modes:    []string{"edit", "read-only"},
		Says: []string{"no a1 here", "default.rules:1",
			"Your Codex rule prefix_rule(pattern=[\\\"touch\\\", \\\"a2\\\"], decision=\\\"prompt\\\")"},
	},
	// Gemini CLI's policy, in yolo mode: 0.61.0, live, ran `touch a1` past a deny rule and
	// `touch a2` past an ask_user rule through the edit-mode rewrite. ask_user refuses (-p asks
	// no one); a command no rule names runs.
	agenttest.Gemini: {
		Cmds: []string{"touch a1", "touch a2", "touch a3", "touch a4"},
		Setup: func(t *testing.T, s *agenttest.Session) {
			write(t, filepath.Join(s.Home, ".gemini", "policies", "mine.toml"), `[[rule]]
toolName = "run_shell_command"
commandPrefix = "touch a1"
decision = "deny"
priority = 500

[[rule]]
toolName = "run_shell_command"
commandPrefix = "touch a2"
decision = "ask_user"
priority = 500

[[rule]]
toolName = "run_shell_command"
commandPrefix = "touch a3"
decision = "allow"
priority = 500
`)
		},
		Variants: []variant{{Want: []bool{false, false, true, true}}},
		Modes:    []string{"edit"},
		Says:     []string{"hookctl applies it to `touch a1` as written"},
	},
	// Copilot CLI's --allow-tool and --deny-tool: 1.0.102, live, runs a call hookctl allows with
	// modifiedArgs without its own check (the edit-mode rewrite ran `rm` past --deny-tool
	// 'shell(rm)' and, with only --allow-tool 'shell(touch a3)', ran `touch a1` and `touch a4`,
	// which -p refuses without hookctl), so hookctl reads the flags from the copilot process.
	agenttest.Copilot: {
		Cmds: []string{"touch a1", "touch a3", "rm -f keep.txt", "touch a4"},
		Variants: []variant{
			{[]string{"--allow-all-tools", "--deny-tool", "shell(rm)", "--deny-tool", "shell(touch a1)", "-p"}, []bool{false, true, false, true}},
			// A second word is a subcommand to Copilot: shell(touch a3) allows no touch (live).
			{[]string{"--allow-tool", "shell(touch a3)", "--deny-tool", "shell(rm)", "-p"}, []bool{false, false, false, false}},
			{[]string{"--allow-tool", "shell(touch)", "--deny-tool", "shell(touch a1)", "--deny-tool", "shell(rm)", "-p"}, []bool{false, true, false, true}},
		},
		Modes: []string{"edit"},
		Says:  []string{"denied due to the following rules: `shell(rm)` (--deny-tool"},
	},
}

// userRules: the client's own rules hold under hookctl as they do without it. The script runs
// without hookctl (the control, which must show the client's own behaviour), then under hookctl
// in each mode: what the rules refuse is refused, what they allow runs (in edit mode; read-only
// mode refuses every write, whatever the user allows), and the refusal names the user's rule.
func userRules(t *testing.T, c *agenttest.Client) {
	rc, ok := rules[c]
	if !ok {
		t.Fatalf("the table has no rules case for %s", c.Name)
	}
	for n, v := range rc.Variants {
		// No parentheses in a subtest's name: Copilot runs a hook's path through a shell, and
		// the test's directories carry the name.
		t.Run(fmt.Sprint("args", n), func(t *testing.T) {
			t.Logf("args %q", v.Args)
			control, _ := rc.run(t, c, v.Args, "")
			for i, cmd := range rc.Cmds {
				if control[i] != v.Want[i] {
					t.Errorf("without hookctl, %q ran=%v, want %v: %s's own behaviour changed", cmd, control[i], v.Want[i], c.Name)
				}
			}
			for _, mode := range rc.Modes {
				got, s := rc.run(t, c, v.Args, mode)
				for i, cmd := range rc.Cmds {
					want := control[i]
					if mode == "read-only" && writes(cmd) {
						want = false // read-only mode refuses every write, whatever the user allows
					}
					if got[i] != want {
						t.Errorf("%s mode, %q ran=%v, without hookctl %v", mode, cmd, got[i], control[i])
					}
				}
				for _, say := range rc.Says {
					if mode == "edit" && !s.API.Saw(say) {
						t.Errorf("%s mode: the model was not told %q", mode, say)
					}
				}
			}
		})
	}
}

// run runs the script with args, under hookctl in mode, or without it where mode is "", and
// says which commands ran.
func (rc rulesCase) run(t *testing.T, c *agenttest.Client, args []string, mode string) ([]bool, *agenttest.Session) {
	var steps []agenttest.Step
	for _, cmd := range rc.Cmds {
		steps = append(steps, agenttest.Shell(cmd))
	}
	s := c.NewSession(t, func(*agenttest.Project) []agenttest.Step { return steps })
	write(t, filepath.Join(s.Dir, "keep.txt"), "k\n")
	if rc.Setup != nil {
		rc.Setup(t, s)
	}
	switch mode {
	case "":
	case "edit":
		s.Config(t, "default_mode = \"edit\"\n")
		s.Register(t)
	default:
		s.Register(t)
	}
	s.Run(t, "Work through the task.", args...)
	var ran []bool
	for i, cmd := range rc.Cmds {
		words := strings.Fields(cmd)
		file := filepath.Join(s.Dir, words[len(words)-1])
		_, err := os.Stat(file)
		switch {
		case words[0] == "touch":
			ran = append(ran, err == nil)
		case words[0] == "rm":
			ran = append(ran, err != nil)
		default:
			ran = append(ran, s.API.Saw(rc.Saw[i]))
		}
	}
	return ran, s
}

// writes says whether a command of a rules case writes.
func writes(cmd string) bool {
	return slices.Contains([]string{"touch", "rm"}, strings.Fields(cmd)[0])
}

func write(t *testing.T, path, content string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
}
