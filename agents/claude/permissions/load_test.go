package permissions

import (
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/hookctl/hookctl/hook"
	"github.com/hookctl/hookctl/lexer"
	"github.com/hookctl/hookctl/policy"
)

func TestParseArgs(t *testing.T) {
	cl := parseArgs([]string{"-p", "hi", "--allowedTools", "Bash(git log *) Edit", "Read,Grep", "--output-format", "json",
		"--disallowed-tools=Bash(rm:*)", "--settings", "s.json", "--setting-sources", "user,local", "--add-dir", "/a", "/b", "--", "--allowedTools", "X"})
	if len(cl.rules) != 2 {
		t.Fatalf("rules %+v", cl.rules)
	}
	if got := strings.Join(cl.rules[0].allow, "|"); got != "Bash(git log *)|Edit|Read|Grep" {
		t.Errorf("allow %q", got)
	}
	if got := strings.Join(cl.rules[1].deny, "|"); got != "Bash(rm:*)" || cl.rules[1].flag != "--disallowed-tools" {
		t.Errorf("deny %q from %s", got, cl.rules[1].flag)
	}
	if cl.settings != "s.json" || !slices.Equal(cl.sources, []string{"user", "local"}) || !slices.Equal(cl.addDirs, []string{"/a", "/b"}) {
		t.Errorf("settings %q sources %q dirs %q", cl.settings, cl.sources, cl.addDirs)
	}
	if got := splitTools([]string{"Bash(touch f1),Bash(git log:*)", " Bash(a (b) c)\tWrite "}); !slices.Equal(got, []string{"Bash(touch f1)", "Bash(git log:*)", "Bash(a (b) c)", "Write"}) {
		t.Errorf("splitTools %q", got)
	}
}

func write(t *testing.T, path, text string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
}

func ruleTexts(s *Set) []string {
	var out []string
	for _, r := range s.Rules() {
		out = append(out, r.Behavior.String()+" "+r.Text+" @"+r.Source.Scope.String())
	}
	return out
}

// TestLoadScopes: every scope the client reads, in its order of precedence, and what each
// holds back as the client does (live, 2.1.328: a project's allow rules without the workspace's
// trust; a file with a comment, which the client ignores whole).
func TestLoadScopes(t *testing.T) {
	base := t.TempDir()
	home, proj, managed := filepath.Join(base, "home"), filepath.Join(base, "proj"), filepath.Join(base, "etc")
	sub := filepath.Join(proj, "sub")
	os.MkdirAll(sub, 0o755)
	os.MkdirAll(filepath.Join(proj, ".git"), 0o755) // the repository's root: local settings live there
	write(t, filepath.Join(managed, "managed-settings.json"), `{"permissions":{"deny":["Bash(m1)"]}}`)
	write(t, filepath.Join(managed, "managed-settings.d", "10-x.json"), `{"permissions":{"ask":["Bash(m2)"]}}`)
	write(t, filepath.Join(home, ".claude", "settings.json"), `{"permissions":{"allow":["Bash(u1)"],"deny":["Bash(u2)"]}}`)
	write(t, filepath.Join(proj, ".claude", "settings.local.json"), `{"permissions":{"allow":["Bash(l1)"],"additionalDirectories":["../extra"]}}`)
	write(t, filepath.Join(sub, ".claude", "settings.json"), `{"permissions":{"allow":["Bash(p1)"],"deny":["Bash(p2)"]}}`)
	write(t, filepath.Join(base, "flag.json"), `{"permissions":{"allow":["Bash(f1)"]}}`)
	o := Options{Home: home, Cwd: sub, ManagedDir: managed, ArgsKnown: true, ClientDir: base,
		Args: []string{"--settings", "flag.json", "--disallowedTools", "Bash(c1)"}}
	s := Load(o)
	want := []string{"deny Bash(m1) @managed", "ask Bash(m2) @managed", "deny Bash(c1) @command line", "allow Bash(f1) @--settings",
		"allow Bash(l1) @local", "deny Bash(p2) @project", "deny Bash(u2) @user", "allow Bash(u1) @user"}
	if got := ruleTexts(s); !slices.Equal(got, want) {
		t.Errorf("untrusted project:\n got %q\nwant %q", got, want)
	}
	if !slices.Contains(s.dirs, filepath.Join(sub, "..", "extra")) && !slices.Contains(s.dirs, filepath.Join(proj, "extra")) {
		t.Errorf("dirs %q: the local file's additional directory is missing", s.dirs)
	}
	if !strings.Contains(strings.Join(s.Problems, "\n"), "not been trusted") {
		t.Errorf("problems %q: the held project rules are not named", s.Problems)
	}

	// Trusted: the project's allow rules apply.
	write(t, filepath.Join(home, ".claude.json"), `{"projects":{"`+proj+`":{"hasTrustDialogAccepted":true}}}`)
	if got := ruleTexts(Load(o)); !slices.Contains(got, "allow Bash(p1) @project") {
		t.Errorf("trusted project: %q", got)
	}

	// --setting-sources: only those of user, project and local are read.
	o2 := o
	o2.Args = []string{"--setting-sources", "user"}
	if got := ruleTexts(Load(o2)); slices.Contains(got, "allow Bash(l1) @local") || !slices.Contains(got, "allow Bash(u1) @user") {
		t.Errorf("--setting-sources user: %q", got)
	}

	// allowManagedPermissionRulesOnly: managed rules alone.
	write(t, filepath.Join(managed, "managed-settings.d", "20-only.json"), `{"allowManagedPermissionRulesOnly":true}`)
	if got := ruleTexts(Load(o)); !slices.Equal(got, []string{"deny Bash(m1) @managed", "ask Bash(m2) @managed"}) {
		t.Errorf("managed only: %q", got)
	}
	os.Remove(filepath.Join(managed, "managed-settings.d", "20-only.json"))

	// A file with a comment is ignored whole, as the client ignores it, and named.
	write(t, filepath.Join(home, ".claude", "settings.json"), "{\n// mine\n\"permissions\":{\"deny\":[\"Bash(u2)\"]}}")
	s = Load(o)
	if slices.Contains(ruleTexts(s), "deny Bash(u2) @user") || !strings.Contains(strings.Join(s.Problems, "\n"), "ignores") {
		t.Errorf("commented file: rules %q problems %q", ruleTexts(s), s.Problems)
	}

	// Unknown command line: said.
	o.ArgsKnown = false
	if s := Load(o); !strings.Contains(strings.Join(s.Problems, "\n"), "command line could not be read") {
		t.Errorf("problems %q", s.Problems)
	}

	// CLAUDE_CONFIG_DIR holds the user's settings instead of ~/.claude.
	cfg := filepath.Join(base, "cfg")
	write(t, filepath.Join(cfg, "settings.json"), `{"permissions":{"deny":["Bash(x1)"]}}`)
	o.ConfigDir = cfg
	if got := ruleTexts(Load(o)); !slices.Contains(got, "deny Bash(x1) @user") {
		t.Errorf("CLAUDE_CONFIG_DIR: %q", got)
	}
}

// TestLocalInGit: a local settings file tracked by git is the repository's: its allow rules
// wait for trust, as the client holds them.
func TestLocalInGit(t *testing.T) {
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("git not installed")
	}
	base := t.TempDir()
	home, proj := filepath.Join(base, "home"), filepath.Join(base, "proj")
	write(t, filepath.Join(proj, ".claude", "settings.local.json"), `{"permissions":{"allow":["Bash(l1)"],"deny":["Bash(l2)"]}}`)
	o := Options{Home: home, Cwd: proj, ArgsKnown: true}
	run := func(args ...string) {
		cmd := exec.Command("git", args...)
		cmd.Dir = proj
		cmd.Env = append(os.Environ(), "GIT_CONFIG_NOSYSTEM=1", "HOME="+home)
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("git %v: %v\n%s", args, err, out)
		}
	}
	run("init", "-q")
	if got := ruleTexts(Load(o)); !slices.Contains(got, "allow Bash(l1) @local") {
		t.Errorf("untracked: %q", got)
	}
	run("add", "-f", ".claude/settings.local.json")
	got := ruleTexts(Load(o))
	if slices.Contains(got, "allow Bash(l1) @local") || !slices.Contains(got, "deny Bash(l2) @local") {
		t.Errorf("tracked: %q", got)
	}
}

func TestWrapperRules(t *testing.T) {
	s := set("allow Bash(/home/u/.local/bin/hookctl sandbox *)", "allow Bash(/opt/x/hookctl:*)", "allow Bash(npm test *)",
		"allow Bash(hookctl retrieve fetch https://x)", "deny Bash(hookctl readonly off)")
	var got []string
	for _, r := range s.WrapperRules("/home/u/.local/bin/hookctl") {
		got = append(got, r.Text)
	}
	want := []string{"Bash(/home/u/.local/bin/hookctl sandbox *)", "Bash(/opt/x/hookctl:*)", "Bash(hookctl retrieve fetch https://x)"}
	if !slices.Equal(got, want) {
		t.Errorf("wrapper rules %q, want %q", got, want)
	}
}

// BenchmarkLoadAndJudge is what the hook adds to an admitted Bash call: reading the rules of
// every scope, and judging one compound command by them.
func BenchmarkLoadAndJudge(b *testing.B) {
	base := b.TempDir()
	home, proj := filepath.Join(base, "home"), filepath.Join(base, "proj")
	os.MkdirAll(filepath.Join(proj, ".git"), 0o755)
	os.MkdirAll(filepath.Join(proj, ".claude"), 0o755)
	os.MkdirAll(filepath.Join(home, ".claude"), 0o755)
	os.WriteFile(filepath.Join(proj, ".claude", "settings.local.json"), []byte(`{"permissions":{"allow":["Bash(npm test *)","Bash(git log:*)"],"deny":["Bash(rm:*)","Read(./secrets/**)"],"ask":["Bash(git push:*)"]}}`), 0o644)
	os.WriteFile(filepath.Join(home, ".claude", "settings.json"), []byte(`{"permissions":{"deny":["Bash(curl:*)"],"allow":["Edit(src/**)"]}}`), 0o644)
	cmd := "cd src && git log --oneline -3 | head -2 && npm test 2>&1 > /dev/null"
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		s := Load(Options{Home: home, Cwd: proj, ManagedDir: filepath.Join(base, "etc"), ArgsKnown: true, Args: []string{"-p", "x", "--allowedTools", "Bash(make:*)"}})
		c := &hook.ToolCall{Tool: "Bash", Kind: hook.KindShell, Command: cmd, Cwd: proj, PermissionMode: "default"}
		s.Judge(policy.ClientQuery{Call: c, Line: lexer.NewCommandLine(cmd)})
	}
}
