package permissions_test

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	ct "github.com/hookctl/hookctl/agents/claude/claudetest"
	"github.com/hookctl/hookctl/audit"
	"github.com/hookctl/hookctl/hook"
	"github.com/hookctl/hookctl/internal/testbin"
	"github.com/hookctl/hookctl/session"
)

// The user's own permission rules, with and without hookctl (issue 25). Each scope's rules are
// put to the real client twice over: once without hookctl (the control: what the client itself
// does with them) and once under hookctl in each of its modes; the two are compared call by call.

// ruleSet is the rules of one scope.
type ruleSet struct{ allow, ask, deny []string }

// matrixRules are the rules every scope gets (the command line has no ask list).
var matrixRules = ruleSet{
	deny:  []string{"Bash(cat denied.txt)", "Bash(rm:*)", "Read(./secrets/**)", "Edit(docs/**)"},
	ask:   []string{"Bash(cat asked.txt)"},
	allow: []string{"Bash(touch allowed.txt)", "Edit(notes/**)", "Bash(git log:*)"},
}

// matrixCall is one call of the script, and how to tell that it ran.
type matrixCall struct {
	name string
	call func(s *ct.Session) ct.Call
	ran  func(s *ct.Session, tr ct.ToolResult) bool
}

func exists(s *ct.Session, rel string) bool {
	_, err := os.Stat(filepath.Join(s.Project, rel))
	return err == nil
}

var matrixCalls = []matrixCall{
	{"Bash deny: cat denied.txt", func(*ct.Session) ct.Call { return ct.Bash("cat denied.txt") },
		func(_ *ct.Session, tr ct.ToolResult) bool { return strings.Contains(tr.Text, "DENIED-CONTENT") }},
	{"Bash ask: cat asked.txt", func(*ct.Session) ct.Call { return ct.Bash("cat asked.txt") },
		func(_ *ct.Session, tr ct.ToolResult) bool { return strings.Contains(tr.Text, "ASKED-CONTENT") }},
	{"Bash allow: touch allowed.txt", func(*ct.Session) ct.Call { return ct.Bash("touch allowed.txt") },
		func(s *ct.Session, _ ct.ToolResult) bool { return exists(s, "allowed.txt") }},
	{"Bash, no rule: touch other.txt", func(*ct.Session) ct.Call { return ct.Bash("touch other.txt") },
		func(s *ct.Session, _ ct.ToolResult) bool { return exists(s, "other.txt") }},
	{"Bash deny, one part of a compound: ls && rm -f keep.txt", func(*ct.Session) ct.Call { return ct.Bash("ls && rm -f keep.txt") },
		func(s *ct.Session, _ ct.ToolResult) bool { return !exists(s, "keep.txt") }},
	{"Read deny on Bash: cat secrets/k", func(*ct.Session) ct.Call { return ct.Bash("cat secrets/k") },
		func(_ *ct.Session, tr ct.ToolResult) bool { return strings.Contains(tr.Text, "SECRET-CONTENT") }},
	{"Read deny on the Read tool: secrets/k", func(s *ct.Session) ct.Call {
		return ct.Call{Name: "Read", Input: map[string]any{"file_path": filepath.Join(s.Project, "secrets", "k")}}
	}, func(_ *ct.Session, tr ct.ToolResult) bool { return strings.Contains(tr.Text, "SECRET-CONTENT") }},
	{"Edit deny on the Write tool: docs/new.md", func(s *ct.Session) ct.Call {
		return ct.Call{Name: "Write", Input: map[string]any{"file_path": filepath.Join(s.Project, "docs", "new.md"), "content": "x\n"}}
	}, func(s *ct.Session, _ ct.ToolResult) bool { return exists(s, "docs/new.md") }},
	{"Edit allow on the Write tool: notes/n.md", func(s *ct.Session) ct.Call {
		return ct.Call{Name: "Write", Input: map[string]any{"file_path": filepath.Join(s.Project, "notes", "n.md"), "content": "x\n"}}
	}, func(s *ct.Session, _ ct.ToolResult) bool { return exists(s, "notes/n.md") }},
	{"Bash allow, a read: git log --oneline -1", func(*ct.Session) ct.Call { return ct.Bash("git log --oneline -1") },
		func(_ *ct.Session, tr ct.ToolResult) bool { return strings.Contains(tr.Text, commitSubject) }},
	{"Bash, no rule, a read: cat README.md", func(*ct.Session) ct.Call { return ct.Bash("cat README.md") },
		func(_ *ct.Session, tr ct.ToolResult) bool { return strings.Contains(tr.Text, "README-CONTENT") }},
}

// The calls hookctl's read-only and review modes refuse whatever the user's rules allow: a
// user's allow never widens read-only mode.
var readOnlyRefuses = map[int]bool{2: true, 8: true}

// matrixScope is where a case puts its rules.
type matrixScope struct {
	name  string
	rules ruleSet
	put   func(t *testing.T, s *ct.Session, r ruleSet, settings map[string]any)
}

func permissionsOf(r ruleSet) map[string]any {
	p := map[string]any{}
	for k, v := range map[string][]string{"allow": r.allow, "ask": r.ask, "deny": r.deny} {
		if len(v) > 0 {
			p[k] = v
		}
	}
	return p
}

func writeJSON(t *testing.T, path string, v any) {
	t.Helper()
	b, err := json.MarshalIndent(v, "", "  ")
	if err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, b, 0o644); err != nil {
		t.Fatal(err)
	}
}

// trustProject records that the user accepted the workspace trust dialog for the project,
// which the client needs before it applies a project's allow rules.
func trustProject(t *testing.T, s *ct.Session) {
	t.Helper()
	writeJSON(t, filepath.Join(s.Home, ".claude.json"), map[string]any{
		"projects": map[string]any{s.Project: map[string]any{"hasTrustDialogAccepted": true}}})
}

var matrixScopes = []matrixScope{
	{"user", matrixRules, func(t *testing.T, s *ct.Session, r ruleSet, _ map[string]any) {
		writeJSON(t, filepath.Join(s.Home, ".claude", "settings.json"), map[string]any{"permissions": permissionsOf(r)})
	}},
	{"project", matrixRules, func(t *testing.T, s *ct.Session, r ruleSet, settings map[string]any) {
		settings["permissions"] = permissionsOf(r)
		trustProject(t, s)
	}},
	{"local", matrixRules, func(t *testing.T, s *ct.Session, r ruleSet, _ map[string]any) {
		writeJSON(t, filepath.Join(s.Project, ".claude", "settings.local.json"), map[string]any{"permissions": permissionsOf(r)})
	}},
	{"managed", matrixRules, func(t *testing.T, s *ct.Session, r ruleSet, _ map[string]any) {
		managed(t, s, map[string]any{"permissions": permissionsOf(r)})
	}},
	{"command line", ruleSet{deny: matrixRules.deny, allow: matrixRules.allow}, func(t *testing.T, s *ct.Session, r ruleSet, _ map[string]any) {
		s.Args = append(s.Args, "--disallowedTools", strings.Join(r.deny, ","), "--allowedTools", strings.Join(r.allow, " "))
	}},
}

// managedClaude runs the client with /etc/claude-code/managed-settings.json as $MANAGED_SRC,
// in a mount namespace of its own where /etc is an overlay: the machine's /etc, which other
// sessions' clients read, is never written.
const managedClaude = `#!/bin/sh
exec unshare -m --propagation private sh -c 'd=$(mktemp -d) && mkdir "$d/up" "$d/wk" &&
mount -t overlay overlay -o "lowerdir=/etc,upperdir=$d/up,workdir=$d/wk" /etc &&
mkdir -p /etc/claude-code && cp "$MANAGED_SRC" /etc/claude-code/managed-settings.json &&
exec "$REAL_CLAUDE" "$@"' sh "$@"
`

// managed gives the session managed settings.
func managed(t *testing.T, s *ct.Session, settings map[string]any) {
	t.Helper()
	if os.Geteuid() != 0 {
		if os.Getenv("HOOKCTL_REQUIRE_ALL") == "1" {
			t.Fatal("managed settings live in /etc/claude-code, which only root can overlay (HOOKCTL_REQUIRE_ALL=1)")
		}
		t.Skip("managed settings live in /etc/claude-code, which only root can overlay for a test")
	}
	if _, err := exec.LookPath("unshare"); err != nil {
		t.Fatal("unshare is needed to give the client managed settings without writing /etc")
	}
	dir := t.TempDir()
	src := filepath.Join(dir, "managed-settings.json")
	writeJSON(t, src, settings)
	wrapper := filepath.Join(dir, "claude")
	if err := os.WriteFile(wrapper, []byte(managedClaude), 0o755); err != nil {
		t.Fatal(err)
	}
	s.Env = append(s.Env, "MANAGED_SRC="+src, "REAL_CLAUDE="+s.Bin)
	s.Bin = wrapper
}

// matrixSessionID names the review-mode session, whose mode the test sets before the client
// starts (--session-id).
const matrixSessionID = "2b5f8f7e-4c51-4a43-9d6e-25e0c0b2c925"

// runMatrix runs the script once: without hookctl when mode is "", else under hookctl in that
// mode. It returns what each call did, and the session.
func runMatrix(t *testing.T, sc matrixScope, hookctl, mode string) ([]ct.ToolResult, []bool, *ct.Session, string) {
	t.Helper()
	s := ct.NewSession(t)
	s.NoAllowedTools = true
	s.InitGitRepo(commitSubject)
	s.WriteFile("denied.txt", "DENIED-CONTENT\n")
	s.WriteFile("asked.txt", "ASKED-CONTENT\n")
	s.WriteFile("keep.txt", "keep\n")
	s.WriteFile("README.md", "README-CONTENT\n")
	s.WriteFile("secrets/k", "SECRET-CONTENT\n")
	os.MkdirAll(filepath.Join(s.Project, "docs"), 0o755)
	os.MkdirAll(filepath.Join(s.Project, "notes"), 0o755)
	settings := map[string]any{}
	home := ""
	if hookctl != "" {
		home = t.TempDir()
		s.Env = append(s.Env, "HOOKCTL_HOME="+home)
		if mode == "edit" {
			os.WriteFile(filepath.Join(home, "config.toml"), []byte("default_mode = \"edit\"\n"), 0o600)
		}
		if mode == "review" {
			if _, _, err := session.ToggleReview.Apply(session.NewStore(home), matrixSessionID, "cli", s.Project, hook.ModeReadOnly, nil); err != nil {
				t.Fatal(err)
			}
			s.Args = append(s.Args, "--session-id", matrixSessionID)
		}
		entry := map[string]any{"type": "command", "command": hookctl, "args": []string{"hook"}, "timeout": 10, "onFailure": "block"}
		settings["hooks"] = map[string]any{"PreToolUse": []any{map[string]any{"matcher": "*", "hooks": []any{entry}}}}
	}
	sc.put(t, s, sc.rules, settings)
	if len(settings) > 0 {
		writeJSON(t, filepath.Join(s.Project, ".claude", "settings.json"), settings)
	}
	for _, c := range matrixCalls {
		s.Script.Main = append(s.Script.Main, c.call(s))
	}
	r := s.Run("Work through the task.")
	var trs []ct.ToolResult
	var ran []bool
	for i, c := range matrixCalls {
		tr, ok := s.API.ResultFor(ct.Main, i)
		if !ok {
			r.Fatalf(t, "call %d (%s) has no result", i, c.name)
		}
		trs = append(trs, tr)
		ran = append(ran, !tr.IsError && c.ran(s, tr))
	}
	return trs, ran, s, home
}

// TestRealClientUserRules is the matrix: each scope's deny, ask and allow rules, for Bash and
// the file tools, without hookctl and under hookctl in read-only, edit and review mode, in -p.
// Under hookctl the client does what it does without: a deny refuses, naming the rule and its
// file; an ask asks (which -p refuses); an allow runs (sandboxed); no rule asks (default mode);
// only hookctl's read-only and review modes refuse more, whatever the user allows.
func TestRealClientUserRules(t *testing.T) {
	ct.Binary(t)
	hookctl := buildHookctl(t)
	for _, sc := range matrixScopes {
		t.Run(sc.name, func(t *testing.T) {
			_, control, _, _ := runMatrix(t, sc, "", "")
			want := []bool{false, false, true, false, false, false, false, false, true, true, true}
			if len(sc.rules.ask) == 0 {
				want[1] = true // no ask list on the command line: a read with no rule runs
			}
			for i, c := range matrixCalls {
				if control[i] != want[i] {
					t.Errorf("control (no hookctl), %s: ran=%v, want %v: the client's own behaviour changed", c.name, control[i], want[i])
				}
			}
			for _, mode := range []string{"read-only", "edit", "review"} {
				trs, got, s, home := runMatrix(t, sc, hookctl, mode)
				if sc.name == "local" && mode == "edit" {
					checkLogWhy(t, hookctl, s, home)
				}
				for i, c := range matrixCalls {
					exp := control[i]
					if mode != "edit" && readOnlyRefuses[i] {
						exp = false
						if !strings.Contains(trs[i].Text, "read-only") && !strings.Contains(trs[i].Text, "READ-ONLY") {
							t.Errorf("%s mode, %s: refused without naming read-only mode: %q", mode, c.name, trs[i].Text)
						}
					}
					if got[i] != exp {
						t.Errorf("%s mode, %s: ran=%v, without hookctl ran=%v: %q", mode, c.name, got[i], control[i], trs[i].Text)
					}
				}
				// A deny of the user's names the rule and where it is written.
				for _, i := range []int{0, 5} {
					if !strings.Contains(trs[i].Text, "denied by your Claude Code rule") {
						t.Errorf("%s mode, %s: the refusal does not name the user's rule: %q", mode, matrixCalls[i].name, trs[i].Text)
					}
				}
				if mode == "edit" && !strings.Contains(trs[4].Text, "Bash(rm:*)") {
					t.Errorf("edit mode: the compound command's refusal does not name Bash(rm:*): %q", trs[4].Text)
				}
			}
		})
	}
}

// modeCase is one short script under one set of local rules and client flags, run without
// hookctl and under hookctl in edit mode, which must end alike.
type modeCase struct {
	name  string
	rules ruleSet
	args  []string
	env   []string
	calls []string
	// want says, per call, whether it ran (its file exists, or it printed), in both runs.
	want []bool
	// effect tells whether call i ran.
	effect func(s *ct.Session, i int, tr ct.ToolResult) bool
}

func runModeCase(t *testing.T, c modeCase, hookctl string) ([]ct.ToolResult, []bool) {
	t.Helper()
	s := ct.NewSession(t)
	s.NoAllowedTools = true
	s.Args = append([]string(nil), c.args...)
	s.Env = append(s.Env, c.env...)
	s.InitGitRepo(commitSubject)
	s.WriteFile("keep.txt", "keep\n")
	s.WriteFile("README.md", "README-CONTENT\n")
	writeJSON(t, filepath.Join(s.Project, ".claude", "settings.local.json"), map[string]any{"permissions": permissionsOf(c.rules)})
	if hookctl != "" {
		home := t.TempDir()
		s.Env = append(s.Env, "HOOKCTL_HOME="+home)
		os.WriteFile(filepath.Join(home, "config.toml"), []byte("default_mode = \"edit\"\n"), 0o600)
		s.Hooks = []ct.Hook{{Command: hookctl, Args: []string{"hook"}}}
	}
	for _, cmd := range c.calls {
		s.Script.Main = append(s.Script.Main, ct.Bash(cmd))
	}
	r := s.Run("Work through the task.")
	var trs []ct.ToolResult
	var ran []bool
	for i := range c.calls {
		tr, ok := s.API.ResultFor(ct.Main, i)
		if !ok {
			r.Fatalf(t, "call %d has no result", i)
		}
		trs = append(trs, tr)
		ran = append(ran, !tr.IsError && c.effect(s, i, tr))
	}
	return trs, ran
}

// fileEffect: call i ran if the file the call names last exists, or (rm) no longer does.
func fileEffect(s *ct.Session, i int, tr ct.ToolResult, cmd string) bool {
	f := strings.Fields(cmd)
	last := f[len(f)-1]
	switch {
	case strings.Contains(cmd, "rm "):
		return !exists(s, last)
	case strings.HasPrefix(cmd, "cat ") || strings.HasPrefix(cmd, "git log"):
		return strings.Contains(tr.Text, "README-CONTENT") || strings.Contains(tr.Text, commitSubject)
	}
	return exists(s, last)
}

// TestRealClientDenyUnderBashAllow is issue 25's report, in edit mode: with "allow": ["Bash"]
// and deny rules for rm and echo, hookctl's rewrite let rm delete the file and echo write it;
// without hookctl both were refused. And "allow": ["Bash(touch ok.txt)", "Bash(git log:*)"] was
// refused in -p. Each case also runs in the client's other modes, against its own control.
func TestRealClientDenyUnderBashAllow(t *testing.T) {
	ct.Binary(t)
	hookctl := buildHookctl(t)
	cases := []modeCase{
		{name: "allow Bash, deny rm and echo", rules: ruleSet{allow: []string{"Bash"}, deny: []string{"Bash(rm:*)", "Bash(echo:*)"}},
			calls: []string{"rm -f keep.txt", "echo hi > g.txt", "touch h.txt"}, want: []bool{false, false, true}},
		{name: "allow touch ok.txt and git log", rules: ruleSet{allow: []string{"Bash(touch ok.txt)", "Bash(git log:*)"}},
			calls: []string{"touch ok.txt", "git log --oneline -1", "touch other.txt"}, want: []bool{true, true, false}},
		{name: "dontAsk", rules: ruleSet{allow: []string{"Bash(touch ok.txt)"}}, args: []string{"--permission-mode", "dontAsk"},
			calls: []string{"touch ok.txt", "touch m1", "cat README.md"}, want: []bool{true, false, true}},
		{name: "acceptEdits", rules: ruleSet{deny: []string{"Bash(touch denied.txt)"}}, args: []string{"--permission-mode", "acceptEdits"},
			calls: []string{"touch m2", "mkdir m3", "rm -f keep.txt", "touch /tmp/hookctl-rules-outside-" + strings.ReplaceAll(t.Name(), "/", "-"), "touch denied.txt"},
			want:  []bool{true, true, true, false, false}},
		{name: "bypassPermissions", rules: ruleSet{deny: []string{"Bash(touch m9)"}, ask: []string{"Bash(touch m10)"}},
			args: []string{"--permission-mode", "bypassPermissions"}, env: []string{"IS_SANDBOX=1"},
			calls: []string{"touch m8", "touch m9", "touch m10"}, want: []bool{true, false, false}},
	}
	for _, c := range cases {
		c.effect = func(s *ct.Session, i int, tr ct.ToolResult) bool { return fileEffect(s, i, tr, c.calls[i]) }
		t.Run(c.name, func(t *testing.T) {
			_, control := runModeCase(t, c, "")
			trs, got := runModeCase(t, c, hookctl)
			for i, cmd := range c.calls {
				if control[i] != c.want[i] {
					t.Errorf("without hookctl, %q ran=%v, want %v: the client's own behaviour changed", cmd, control[i], c.want[i])
				}
				if got[i] != control[i] {
					t.Errorf("under hookctl (edit mode), %q ran=%v, without hookctl %v: %q", cmd, got[i], control[i], trs[i].Text)
				}
			}
		})
	}
}

// TestRealClientRulePrecedence: a deny or ask at any scope beats an allow at any other, and a
// project's allow counts once the workspace is trusted; without hookctl and under it in edit
// mode alike.
func TestRealClientRulePrecedence(t *testing.T) {
	ct.Binary(t)
	hookctl := buildHookctl(t)
	calls := []string{"touch a1", "touch a2", "touch a3", "touch a4"}
	want := []bool{false, false, false, true}
	run := func(hookctl string) ([]ct.ToolResult, []bool) {
		s := ct.NewSession(t)
		s.NoAllowedTools = true
		managed(t, s, map[string]any{"permissions": map[string]any{"deny": []string{"Bash(touch a1)"}, "ask": []string{"Bash(touch a2)"}}})
		writeJSON(t, filepath.Join(s.Project, ".claude", "settings.local.json"), map[string]any{"permissions": map[string]any{
			"allow": []string{"Bash(touch a1)", "Bash(touch a2)", "Bash(touch a3)"}}})
		writeJSON(t, filepath.Join(s.Home, ".claude", "settings.json"), map[string]any{"permissions": map[string]any{"deny": []string{"Bash(touch a3)"}}})
		project := map[string]any{"permissions": map[string]any{"allow": []string{"Bash(touch a4)"}}}
		trustProject(t, s)
		if hookctl != "" {
			home := t.TempDir()
			s.Env = append(s.Env, "HOOKCTL_HOME="+home)
			os.WriteFile(filepath.Join(home, "config.toml"), []byte("default_mode = \"edit\"\n"), 0o600)
			project["hooks"] = map[string]any{"PreToolUse": []any{map[string]any{"matcher": "*", "hooks": []any{
				map[string]any{"type": "command", "command": hookctl, "args": []string{"hook"}, "timeout": 10, "onFailure": "block"}}}}}
		}
		writeJSON(t, filepath.Join(s.Project, ".claude", "settings.json"), project)
		for _, c := range calls {
			s.Script.Main = append(s.Script.Main, ct.Bash(c))
		}
		r := s.Run("Work through the task.")
		var trs []ct.ToolResult
		var ran []bool
		for i, c := range calls {
			tr, ok := s.API.ResultFor(ct.Main, i)
			if !ok {
				r.Fatalf(t, "call %d has no result", i)
			}
			trs = append(trs, tr)
			ran = append(ran, !tr.IsError && exists(s, strings.Fields(c)[1]))
		}
		return trs, ran
	}
	_, control := run("")
	trs, got := run(hookctl)
	for i, c := range calls {
		if control[i] != want[i] {
			t.Errorf("without hookctl, %q ran=%v, want %v", c, control[i], want[i])
		}
		if got[i] != control[i] {
			t.Errorf("under hookctl, %q ran=%v, without %v: %q", c, got[i], control[i], trs[i].Text)
		}
	}
	if !strings.Contains(trs[0].Text, "managed settings /etc/claude-code/managed-settings.json") {
		t.Errorf("the managed deny's refusal does not name its file: %q", trs[0].Text)
	}
}

// checkLogWhy: the decision log records which of the user's rules decided, and `hookctl log why`
// says so.
func checkLogWhy(t *testing.T, hookctl string, s *ct.Session, home string) {
	t.Helper()
	entries, _, err := audit.DecisionLogAt(home).Entries()
	if err != nil {
		t.Fatal(err)
	}
	var e *hook.LogEntry
	for i := range entries {
		if entries[i].Command == "ls && rm -f keep.txt" {
			e = &entries[i]
		}
	}
	if e == nil {
		t.Fatalf("the decision log has no entry for the compound command: %+v", entries)
	}
	if e.Verdict != "deny" || !strings.HasPrefix(e.UserRule, "deny Bash(rm:*) in "+s.Project) || !strings.Contains(e.Rule, "your permission rule") {
		t.Errorf("the log entry does not name the user's rule: %+v", *e)
	}
	cmd := exec.Command(hookctl, "log", "why", e.ID)
	cmd.Env = append(s.Environ(), "HOOKCTL_HOME="+home)
	out, err := cmd.CombinedOutput()
	if err != nil || !strings.Contains(string(out), "your own permission rule decided") || !strings.Contains(string(out), "Bash(rm:*)") {
		t.Errorf("hookctl log why %s: %v\n%s", e.ID, err, out)
	}
}

// commitSubject is the subject of the one commit in a test's project.
const commitSubject = "initial commit of the e2e project"

// buildHookctl is the hookctl the tests register: $HOOKCTL_E2E_HOOK, or one built as released.
func buildHookctl(t *testing.T) string {
	t.Helper()
	if p := os.Getenv("HOOKCTL_E2E_HOOK"); p != "" {
		return p
	}
	return testbin.Hookctl(t)
}

// TestMain removes the hookctl the tests built.
func TestMain(m *testing.M) {
	code := m.Run()
	testbin.Cleanup()
	os.Exit(code)
}
