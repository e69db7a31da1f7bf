package gate

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"sort"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/hookctl/hookctl/config"
	"github.com/hookctl/hookctl/fixtures/hostile"
	"github.com/hookctl/hookctl/hook"
	"github.com/hookctl/hookctl/internal/corpus"
	"github.com/hookctl/hookctl/internal/shellglob"
	"github.com/hookctl/hookctl/internal/testbin"
	"github.com/hookctl/hookctl/policy"
)

// execVariant is one way the execution test gets the command it runs for an admitted row.
type execVariant struct {
	name   string
	policy func(t *testing.T) *policy.Policy
	// gaps are the rows this variant is known to let change the world, each with what it does
	// (see findingsSummary); nil means no row may.
	gaps map[string]string
}

// execVariants: the policy alone, as on a machine without the OS sandbox, whose known gaps are
// the rules' (policyOnlyGaps); and the policy with hookctl's sandbox, as the hook runs admitted
// commands where the probe says it holds, which must leave the world unchanged.
var execVariants = []execVariant{
	{name: "policy-only", policy: func(*testing.T) *policy.Policy {
		return &policy.Policy{World: shellglob.World{}, Client: testClient, Config: &config.Config{}}
	}, gaps: policyOnlyGaps},
	{name: "sandbox", policy: sandboxPolicy, gaps: sandboxGaps},
}

// sandboxGaps: with the sandbox, nothing a sandboxed command runs changes the world. What is
// left is hookctl's own bookkeeping, written by hookctl outside the sandbox by design: the
// retriever's audit of the web reads it answers (which the routed rows run instead of the
// sandbox), and the probe's cache written by a lone `hookctl check` (which reads hookctl's
// directory, so it runs outside). Both go to hookctl's own directory only.
var sandboxGaps = map[string]string{
	"curl -s http://localhost:8080/health": retrieverAudit, // edit-allow/shell.txt:17
	"curl https://example.com":             retrieverAudit, // deny/network.txt:3
	"wget -qO- https://example.com/x":      retrieverAudit, // deny/network.txt:8
	// The GitHub reads that name their repository (the test's policy finds no git remote, so
	// the others are refused).
	"gh pr view 123 -R cli/cli":                                            retrieverAudit,                                                                                                       // allow/github.txt:8
	"gh pr view https://github.com/cli/cli/pull/3":                         retrieverAudit,                                                                                                       // allow/github.txt:15
	"gh issue view 7 -R o/r -c":                                            retrieverAudit,                                                                                                       // allow/github.txt:30
	"gh release list -L 3 -R o/r":                                          retrieverAudit,                                                                                                       // allow/github.txt:42
	"gh api repos/hookctl/hookctl":                                         retrieverAudit,                                                                                                       // allow/github.txt:44
	"gh api 'repos/o/r/issues?state=open'":                                 retrieverAudit,                                                                                                       // allow/github.txt:46
	"gh api 'repos/o/r/issues?state=open&per_page=100'":                    retrieverAudit,                                                                                                       // allow/github.txt:47
	"gh api -X GET repos/o/r/commits":                                      retrieverAudit,                                                                                                       // allow/github.txt:48
	"gh api --method=GET repos/o/r/actions/runs":                           retrieverAudit,                                                                                                       // allow/github.txt:49
	"gh api repos/o/r/commits --jq '.[].sha'":                              retrieverAudit,                                                                                                       // allow/github.txt:50
	"gh api repos/o/r/pulls/3 -q .title":                                   retrieverAudit,                                                                                                       // allow/github.txt:51
	"gh api --paginate repos/o/r/branches":                                 retrieverAudit,                                                                                                       // allow/github.txt:52
	"gh api repos/o/r/tags":                                                retrieverAudit,                                                                                                       // allow/github.txt:53
	"gh api /repos/o/r/contents/docs/README.md":                            retrieverAudit,                                                                                                       // allow/github.txt:54
	"gh api repos/o/r/pulls/3/files":                                       retrieverAudit,                                                                                                       // allow/github.txt:55
	"GH_REPO=o/r gh pr list":                                               retrieverAudit,                                                                                                       // allow/github.txt:57
	"GH_REPO=o/r gh api repos/{owner}/{repo}/pulls":                        retrieverAudit,                                                                                                       // allow/github.txt:58
	"gh pr diff 42 -R o/r | head -n 50":                                    retrieverAudit,                                                                                                       // allow/github.txt:61
	"gh api search/issues -X GET -f q='repo:cli/cli is:open remote'":       retrieverAudit,                                                                                                       // allow/github.txt:68
	"gh api 'search/issues?q=repo:o/r+is:pr+label:bug&per_page=50'":        retrieverAudit,                                                                                                       // allow/github.txt:69
	"gh api -X GET repos/o/r/issues -f state=open":                         retrieverAudit,                                                                                                       // allow/github.txt:70
	"gh api repos/o/r/issues --paginate --slurp":                           retrieverAudit,                                                                                                       // allow/github.txt:71
	"gh api -H 'Accept: application/vnd.github.raw' repos/o/r/contents/x":  retrieverAudit,                                                                                                       // allow/github.txt:72
	"gh api -H 'Accept: application/vnd.github.v3.diff' repos/o/r/pulls/3": retrieverAudit,                                                                                                       // allow/github.txt:73
	"git ls-remote https://github.com/cli/cli.git":                         retrieverAudit,                                                                                                       // allow/github.txt:77
	"hookctl check \"ls -la\"":                                             "added home/.config/hookctl; added home/.config/hookctl/sandbox.json; added home/.config/hookctl/sandbox.probe.lock", // edit-allow/git.txt:55
}

const retrieverAudit = "added home/.config/hookctl; added home/.config/hookctl/audit; added home/.config/hookctl/audit/audit.jsonl"

// sandboxPolicy is the policy with the real launcher, once the probe has shown it holds here.
func sandboxPolicy(t *testing.T) *policy.Policy {
	bin := hookctlBinary(t)
	probe := exec.Command(bin, "sandbox", "--probe")
	probe.Env = append(os.Environ(), "HOOKCTL_HOME="+t.TempDir())
	out, err := probe.CombinedOutput()
	if err != nil {
		if os.Getenv("HOOKCTL_REQUIRE_ALL") == "1" {
			t.Fatalf("no sandbox on this machine (HOOKCTL_REQUIRE_ALL=1): %s", out)
		}
		t.Skipf("no sandbox on this machine: %s", out)
	}
	return &policy.Policy{World: shellglob.World{}, Client: testClient, Config: &config.Config{}, Binary: bin,
		Sandbox: func() policy.Isolation { return policy.Isolation{Available: true, Describe: "probed"} }}
}

// policyOnlyGaps are the admitted rows that, run as the policy rewrites them in the hostile
// world without the OS sandbox, still run a trap: the holes the git rules cannot close, which
// the sandbox contains (docs/residual-risks.md, "Filter drivers"). A row fixed must leave this
// list; a new one fails the test.
var policyOnlyGaps = map[string]string{
	// filter.evil.clean (.gitattributes *.dat) runs when git re-reads data.dat, which has the
	// size the index records but not its stat data; nothing pins filter.*, whose names only the
	// repository's attributes know. The index is no longer rewritten (diff.autoRefreshIndex=false,
	// --no-optional-locks).
	"git status":                                 "canary filter.clean", // allow/git.txt:4
	"git status -s":                              "canary filter.clean", // allow/git.txt:5
	"git status --short --branch":                "canary filter.clean", // allow/git.txt:6
	"git status --porcelain":                     "canary filter.clean", // allow/git.txt:7
	"git status --porcelain=v1 -uno":             "canary filter.clean", // allow/git.txt:8
	"git status --ignored":                       "canary filter.clean", // allow/git.txt:9
	"git ls-files -m":                            "canary filter.clean", // allow/git.txt:112
	"git --no-optional-locks status --porcelain": "canary filter.clean", // allow/git.txt:199
	"if git status --porcelain | grep -q .; then echo dirty; fi": "canary filter.clean", // allow/shapes.txt:43
	"git status --porcelain | wc -l":                             "canary filter.clean", // allow/shapes.txt:73
	"git status 2>&1":                                            "canary filter.clean", // allow/shapes.txt:103
	// filter.proc.process (.gitattributes *.bin) starts when a whole-tree diff reads blob.bin;
	// its failed handshake is fatal, so the diff stops there.
	"git diff":                         "canary filter.process", // allow/git.txt:57
	"git diff --stat":                  "canary filter.process", // allow/git.txt:58
	"git diff --stat HEAD~3":           "canary filter.process", // allow/git.txt:63
	"git diff --check":                 "canary filter.process", // allow/git.txt:68
	"git diff --no-ext-diff --stat":    "canary filter.process", // allow/git.txt:69
	"git diff --numstat":               "canary filter.process", // allow/git.txt:70
	"git diff --shortstat origin/main": "canary filter.process", // allow/git.txt:71
	"git diff -w --stat":               "canary filter.process", // allow/git.txt:73
	"git diff --color=never":           "canary filter.process", // allow/git.txt:76
	"git --no-pager diff --stat":       "canary filter.process", // allow/git.txt:196
	"if git diff --quiet; then echo clean\nelse git diff --stat; fi": "canary filter.process", // allow/shapes.txt:45
	"git diff | head -100":      "canary filter.process", // allow/shapes.txt:85
	"git diff --stat | tail -1": "canary filter.process", // edit-allow/git.txt:44
	// The same drivers, reached from the lists and loops issue 10 admits.
	"for dir in hook lexer; do git -C \"$dir\" status --short; done":                "canary filter.clean",                        // allow/loops.txt:6
	"git log --oneline -10 && git status":                                           "canary filter.clean",                        // allow/lists.txt:3
	"git status --short && git diff --stat && git log --oneline -5":                 "canary filter.clean; canary filter.process", // allow/lists.txt:8
	"git status > /dev/null":                                                        "canary filter.clean",                        // allow/redirection.txt:4
	"if git diff --quiet; then echo clean; else git diff --stat; fi; git status -s": "canary filter.clean; canary filter.process", // allow/lists.txt:13
}

// execShells are the shells an admitted command runs under, without their start-up files.
var execShells = []struct {
	name string
	argv []string
}{
	{"bash", []string{"bash", "--noprofile", "--norc", "-c"}},
	{"zsh", []string{"zsh", "-f", "-c"}},
}

// execTimeout is how long one run may take before it counts as a hang. npm ls, the slowest
// admitted row, takes 1.5–2 s alone on 2 shared cores (node's start and npm's config load) and
// over 5 s with four workers and the machine's other load.
const execTimeout = 15 * time.Second

// TestExecuteAdmittedRows judges every row of every corpus in read-only mode, as the hook does,
// and runs each command the policy admits, as rewritten, under bash and zsh, in a fresh copy of
// the hostile world (fixtures/hostile): a trap that ran, or any change to the project, its
// repositories, HOME or TMPDIR, is a hole. Each variant must show exactly its known gaps.
//
// Out of its sight: writes by absolute path outside the world (/tmp/x, /work/…) and network
// connections other than through the world's trapped transports; the sandbox variant's kernel
// rules forbid those too (cmd/hookctl TestSandboxRefusesWritesAndNetwork proves it for each
// kind). Rows naming this checkout's parent directory are not run at all. It runs
// some 1000 commands (20–45 s on 2 shared cores) and skips only when a shell or git is missing
// and HOOKCTL_REQUIRE_ALL is unset, not under -short.
func TestExecuteAdmittedRows(t *testing.T) {
	for _, tool := range []string{"bash", "zsh", "git"} {
		if _, err := exec.LookPath(tool); err != nil {
			testbin.RequireTool(t, tool)
		}
	}
	rows := execRows(t)
	tmpl := execTemplate(t)
	// The control, in this test too: a raw read springs a trap in this world (a world on a
	// noexec mount, say, would let every row pass).
	w, err := tmpl.Copy(filepath.Join(filepath.Dir(tmpl.Root), "control"))
	if err != nil {
		t.Fatal(err)
	}
	if f, out := runInWorld(w, execShells[0].argv, "git status"); !slices.Contains(f, "canary core.fsmonitor") {
		t.Fatalf("control: a raw git status sprang no trap (%q); the world is not hostile\n%s", f, out)
	}
	os.RemoveAll(w.Root)
	for _, v := range execVariants {
		t.Run(v.name, func(t *testing.T) { runVariant(t, v, tmpl, rows) })
	}
}

// execRow is one distinct command of the corpora, with where it was first found.
type execRow struct {
	corpus.Row
	verdict string // the corpus directory: allow, deny, edit-allow, edit-deny
}

func (r execRow) String() string { return r.verdict + "/" + r.Row.String() }

func execRows(t *testing.T) []execRow {
	t.Helper()
	var rows []execRow
	seen := map[string]bool{}
	for _, v := range []string{"allow", "deny", "edit-allow", "edit-deny", "realistic"} {
		rs, err := corpus.Load(v)
		if err != nil {
			t.Fatal(err)
		}
		for _, r := range rs {
			if !seen[r.Command] {
				seen[r.Command] = true
				rows = append(rows, execRow{r, v})
			}
		}
	}
	return rows
}

// execResult is what running one admitted row under one shell did.
type execResult struct {
	row      execRow
	shell    string
	command  string   // as the policy rewrote it
	findings []string // "canary <name>", diff lines with paths relative to the world's root, "timeout"
	output   string
}

func runVariant(t *testing.T, v execVariant, tmpl *hostile.World, rows []execRow) {
	base := v.policy(t)
	// Each world has its own HOME, which `~` in a command stands for (Config.UserHome).
	withHome := func(home string) *policy.Policy {
		q, c := *base, *base.Config
		c.UserHome = home
		q.Config = &c
		return &q
	}
	p := withHome(tmpl.Home)
	outside := filepath.Dir(moduleRoot(t)) // this checkout and its siblings: not the world's to run in
	var jobs []execRow
	denied, skipped := 0, 0
	for _, r := range rows {
		d := p.Decide(&hook.ToolCall{Session: "exec-test", Tool: "Bash", Kind: hook.KindShell, Command: r.Command, Cwd: tmpl.Project}, policy.SessionState{Mode: hook.ModeReadOnly})
		switch {
		case d.Verdict == hook.Deny:
			denied++
		case d.Verdict != hook.Allow || d.Command == "":
			t.Errorf("%s: %s without a command to run, in read-only mode", r, d.Verdict)
		case strings.Contains(r.Command, outside+"/"):
			skipped++
			t.Logf("not run: %s names %s, outside the world", r, outside)
		default:
			jobs = append(jobs, r)
		}
	}

	start := time.Now()
	results := make(chan execResult)
	work := make(chan [2]int) // row index, shell index
	workers := max(1, min(runtime.NumCPU(), 4))
	var wg sync.WaitGroup
	var mu sync.Mutex
	var copyTime time.Duration
	for i := 0; i < workers; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for j := range work {
				r, sh := jobs[j[0]], execShells[j[1]]
				dir := filepath.Join(filepath.Dir(tmpl.Root), fmt.Sprintf("run-%s-%d-%s", v.name, j[0], sh.name))
				c0 := time.Now()
				w, err := tmpl.Copy(dir)
				mu.Lock()
				copyTime += time.Since(c0)
				mu.Unlock()
				if err != nil {
					results <- execResult{row: r, shell: sh.name, findings: []string{"copy failed: " + err.Error()}}
					continue
				}
				d := withHome(w.Home).Decide(&hook.ToolCall{Session: "exec-test", Tool: "Bash", Kind: hook.KindShell, Command: r.Command, Cwd: w.Project}, policy.SessionState{Mode: hook.ModeReadOnly})
				res := execResult{row: r, shell: sh.name, command: d.Command}
				res.findings, res.output = runInWorld(w, sh.argv, d.Command)
				os.RemoveAll(dir)
				results <- res
			}
		}()
	}
	go func() {
		for i := range jobs {
			for s := range execShells {
				work <- [2]int{i, s}
			}
		}
		close(work)
		wg.Wait()
		close(results)
	}()

	byRow := map[string][]execResult{}
	perShell := map[string]int{}
	for res := range results {
		perShell[res.shell]++
		if len(res.findings) > 0 {
			byRow[res.row.Command] = append(byRow[res.row.Command], res)
		}
	}
	wall := time.Since(start)
	runs := len(jobs) * len(execShells)
	t.Logf("%s: %d rows judged, %d denied, %d admitted and run (%d not run), %d runs (bash %d, zsh %d) by %d workers in %v (copies %v each)",
		v.name, len(rows), denied, len(jobs), skipped, runs, perShell["bash"], perShell["zsh"], workers, wall.Round(time.Millisecond),
		(copyTime / time.Duration(max(runs, 1))).Round(100*time.Microsecond))

	// What each row with findings did, compared with the known gaps.
	var report strings.Builder
	cmds := make([]string, 0, len(byRow))
	for c := range byRow {
		cmds = append(cmds, c)
	}
	sort.Strings(cmds)
	fmt.Fprintf(&report, "# %s: %d of %d admitted rows changed the world or ran a trap\n", v.name, len(cmds), len(jobs))
	realisticFilterGaps := 0
	for _, c := range cmds {
		rs := byRow[c]
		sort.Slice(rs, func(i, j int) bool { return rs[i].shell < rs[j].shell })
		summary := findingsSummary(rs)
		fmt.Fprintf(&report, "\n%s\n  runs: %s\n  gap:  %q\n", rs[0].row, rs[0].command, summary)
		for _, res := range rs {
			fmt.Fprintf(&report, "  %s:\n", res.shell)
			for _, f := range res.findings {
				fmt.Fprintf(&report, "    %s\n", f)
			}
			if out := strings.TrimSpace(res.output); out != "" {
				fmt.Fprintf(&report, "    output: %.300q\n", out)
			}
		}
		want, known := v.gaps[c]
		switch {
		case !known && rs[0].row.verdict == "realistic" && v.name == "policy-only" && filterDriversOnly(summary):
			// The measured corpus, not pinned row by row: a git read of the work tree runs the
			// world's filter drivers without the sandbox, the gap policyOnlyGaps lists for the
			// pinned corpora. Anything else is a new gap.
			realisticFilterGaps++
			continue
		case !known:
			t.Errorf("NEW GAP %s ran as %s and %s", rs[0].row, rs[0].command, summary)
		case want != summary:
			t.Errorf("gap changed: %s now %q, the list says %q: update policyOnlyGaps", rs[0].row, summary, want)
		}
	}
	if realisticFilterGaps > 0 {
		t.Logf("%d realistic rows ran the world's git filter drivers (the known policy-only gap)", realisticFilterGaps)
	}
	for c := range v.gaps {
		if _, still := byRow[c]; !still {
			t.Errorf("FIXED %q no longer changes the world: remove it from the known gaps", c)
		}
	}
	path := os.Getenv("HOOKCTL_EXEC_REPORT")
	if path == "" {
		path = filepath.Join(t.TempDir(), "exec-report.txt")
	}
	if err := os.WriteFile(path, []byte(report.String()), 0o644); err != nil {
		t.Errorf("failed to write the report: %v", err)
	}
	t.Logf("%d rows with findings (report: %s)\n%s", len(cmds), path, report.String())
}

// findingsSummary is what a row's runs did, in the form the known-gaps list keeps: the canaries
// and the changed paths (without sizes), the same for every shell, or per shell if they differ.
func findingsSummary(rs []execResult) string {
	per := map[string]string{}
	for _, res := range rs {
		var parts []string
		for _, f := range res.findings {
			parts = append(parts, compactFinding(f))
		}
		per[res.shell] = strings.Join(parts, "; ")
	}
	var shells []string
	same := len(rs) == len(execShells)
	for _, sh := range execShells {
		if s, ok := per[sh.name]; ok {
			shells = append(shells, sh.name+": "+s)
			same = same && s == per[execShells[0].name]
		}
	}
	if same {
		return per[execShells[0].name]
	}
	return strings.Join(shells, " | ")
}

// filterDriversOnly reports whether a row's summary holds only the canaries of the world's git
// filter drivers (filter.clean, filter.process), in every shell alike.
func filterDriversOnly(summary string) bool {
	for _, part := range strings.Split(summary, "; ") {
		if part != "canary filter.clean" && part != "canary filter.process" {
			return false
		}
	}
	return summary != ""
}

// compactFinding drops the details of a diff line (sizes, modes) that the list need not pin.
func compactFinding(f string) string {
	verb, rest, _ := strings.Cut(f, " ")
	if verb != "added" && verb != "removed" && verb != "changed" {
		return f
	}
	return verb + " " + rest[strings.LastIndexByte(rest, ' ')+1:]
}

// runInWorld runs command under the shell argv in w's project, with w's environment, stdin
// /dev/null, in its own process group, killed at execTimeout; it returns what the run did to
// the world and what it printed.
func runInWorld(w *hostile.World, argv []string, command string) (findings []string, output string) {
	return runInWorldEnv(w, argv, command, w.Env(), execTimeout)
}

// runInWorldEnv is runInWorld with the environment env, killed at timeout.
func runInWorldEnv(w *hostile.World, argv []string, command string, env []string, timeout time.Duration) (findings []string, output string) {
	before, err := hostile.Snapshot(w.Roots()...)
	if err != nil {
		return []string{"snapshot failed: " + err.Error()}, ""
	}
	ctx, cancel := context.WithTimeout(context.Background(), timeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, argv[0], append(argv[1:], command)...)
	cmd.Dir, cmd.Env = w.Project, env
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	cmd.Cancel = func() error { return syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL) }
	cmd.WaitDelay = time.Second
	var out limitedBuffer
	cmd.Stdout, cmd.Stderr = &out, &out
	err = cmd.Run()
	if cmd.Process != nil {
		syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL) // anything it left running in its group
	}
	if errors.Is(ctx.Err(), context.DeadlineExceeded) {
		findings = append(findings, "timeout")
	}
	after, err := hostile.Snapshot(w.Roots()...)
	if err != nil {
		return append(findings, "snapshot failed: "+err.Error()), out.String()
	}
	diffs := hostile.Diff(before, after)
	hh := w.Root + "/home/.config/hookctl"
	onlyScratch := !slices.ContainsFunc(diffs, func(d string) bool {
		path := d[strings.LastIndexByte(d, ' ')+1:]
		return strings.HasPrefix(path, hh+"/") && !strings.HasPrefix(path, hh+"/scratch")
	})
	for _, d := range diffs {
		// The session's scratch directory, in hookctl's home (made, with the home, by the
		// launcher): the one place the sandbox lets a command write.
		if path := d[strings.LastIndexByte(d, ' ')+1:]; path == hh && strings.HasPrefix(d, "added dir ") && onlyScratch ||
			strings.HasPrefix(path, hh+"/scratch") {
			continue
		}
		if name, ok := strings.CutPrefix(d[strings.LastIndexByte(d, ' ')+1:], w.Canary+"/"); ok && strings.HasPrefix(d, "added ") {
			findings = append(findings, "canary "+name)
			continue
		}
		findings = append(findings, strings.ReplaceAll(d, w.Root+"/", ""))
	}
	return findings, strings.ReplaceAll(out.String(), w.Root+"/", "")
}

// limitedBuffer keeps the first 64 KiB written to it.
type limitedBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (b *limitedBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	if room := 64<<10 - b.buf.Len(); room > 0 {
		b.buf.Write(p[:min(len(p), room)])
	}
	return len(p), nil
}

func (b *limitedBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}

// TestExecHarnessSeesChanges proves the detector is not blind: commands run directly (not
// through the policy) that write, or spring a trap, are reported; one that does nothing is not.
func TestExecHarnessSeesChanges(t *testing.T) {
	for _, tool := range []string{"bash", "zsh", "git"} {
		if _, err := exec.LookPath(tool); err != nil {
			testbin.RequireTool(t, tool)
		}
	}
	tmpl := execTemplate(t)
	for _, c := range []struct{ command, want string }{
		{"touch x", "added file(0 bytes) project/x"},
		{"echo > f", "added file(1 bytes) project/f"},
		{"echo >> notes.txt", "changed content"},
		{"touch -m -d @1 go.mod", "changed rewritten (mtime) project/go.mod"},
		{"chmod +x go.mod", "changed mode"},
		{"rm main.go", "removed file"},
		{`echo x > "$TMPDIR/t"`, "added file(2 bytes) tmp/t"},
		{"echo x > ~/.hushlogin", "added file(2 bytes) home/.hushlogin"},
		{".traps/canary self-test", "canary self-test"},
		{"git status", "canary core.fsmonitor"}, // the raw read, unpinned
		{"true", ""},
	} {
		for _, sh := range execShells {
			w, err := tmpl.Copy(filepath.Join(t.TempDir(), "w"))
			if err != nil {
				t.Fatal(err)
			}
			findings, out := runInWorld(w, sh.argv, c.command)
			got := strings.Join(findings, "\n")
			switch {
			case c.want == "" && got != "":
				t.Errorf("%s -c %q: reported %q, want nothing\n%s", sh.name, c.command, got, out)
			case !strings.Contains(got, c.want):
				t.Errorf("%s -c %q: reported %q, want %q\n%s", sh.name, c.command, got, c.want, out)
			}
		}
	}
}

// worldOnce is a hostile world built once per test process.
type worldOnce struct {
	once sync.Once
	w    *hostile.World
	err  error
}

func (o *worldOnce) get(t *testing.T, build func() (*hostile.World, error)) *hostile.World {
	t.Helper()
	o.once.Do(func() { o.w, o.err = build() })
	if o.err != nil {
		t.Fatal(o.err)
	}
	return o.w
}

var execWorld worldOnce

// execTemplate is the hostile world every run copies, built once per test process, on tmpfs
// where there is one (a copy costs 12 ms there and some 70 ms on ext4).
func execTemplate(t *testing.T) *hostile.World {
	t.Helper()
	return execWorld.get(t, func() (*hostile.World, error) {
		base := ""
		if fi, err := os.Stat("/dev/shm"); err == nil && fi.IsDir() {
			base = "/dev/shm"
		}
		dir, err := os.MkdirTemp(base, "hookctl-exec-")
		if err != nil {
			return nil, err
		}
		registerCleanup(dir)
		start := time.Now()
		w, err := hostile.Build(filepath.Join(dir, "template"))
		t.Logf("hostile world built in %v", time.Since(start).Round(time.Millisecond))
		return w, err
	})
}

// hookctlBinary builds cmd/hookctl once per test process and returns its path, for the
// variant whose rewritten commands run hookctl itself (the sandbox launcher).
func hookctlBinary(t *testing.T) string { return testbin.Hookctl(t) }

// moduleRoot is the directory of go.mod: the tests run in hook/.
func moduleRoot(t *testing.T) string {
	t.Helper()
	root, err := filepath.Abs("..")
	if err != nil {
		t.Fatal(err)
	}
	return root
}

// Directories made once per process outlive any one test; TestMain removes them.
var processDirs struct {
	mu   sync.Mutex
	dirs []string
}

func registerCleanup(dir string) {
	processDirs.mu.Lock()
	defer processDirs.mu.Unlock()
	processDirs.dirs = append(processDirs.dirs, dir)
}

func TestMain(m *testing.M) {
	code := m.Run()
	testbin.Cleanup()
	for _, d := range processDirs.dirs {
		os.RemoveAll(d)
	}
	os.Exit(code)
}
