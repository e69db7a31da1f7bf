package main

import (
	"bytes"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	ct "github.com/hookctl/hookctl/agents/claude/claudetest"
)

// runCLI runs hookctl in memory with HOOKCTL_HOME set to home.
func runCLI(t *testing.T, home, stdin string, args ...string) (code int, stdout, stderr string) {
	t.Helper()
	t.Setenv("HOOKCTL_HOME", home)
	var out, errb bytes.Buffer
	s := &streams{in: strings.NewReader(stdin), out: &out, err: &errb}
	root := newRootCmd(s)
	root.SetArgs(args)
	err := root.Execute()
	code = exitOK
	if err != nil {
		if c, ok := err.(exitCode); ok {
			code = int(c)
		} else {
			errb.WriteString(err.Error())
			code = exitError
		}
	}
	return code, out.String(), errb.String()
}

func TestCheckVerdicts(t *testing.T) {
	home := t.TempDir()
	for _, c := range []struct {
		cmd      string
		code     int
		contains string
	}{
		{"sed -i s/a/b/ f", exitDenied, "`-i` edits files in place"},
		{"git log --oneline -3", exitOK, " -- bash --noprofile --norc -c 'GIT_CONFIG_NOSYSTEM=1 GIT_ALLOW_PROTOCOL= GIT_NO_LAZY_FETCH=1 git --no-pager"},
		{"echo x > f", exitDenied, "redirection"},
		{"rg --pre cat x", exitDenied, "--pre"},
		{"ls -la 2>/dev/null", exitOK, " sandbox --session '' --timeout 2m0s -- bash --noprofile --norc -c 'ls -la 2>/dev/null'\nunder: sandbox: landlock ABI "},
	} {
		code, out, _ := runCLI(t, home, "", "check", "--", c.cmd)
		if code != c.code || !strings.Contains(out, c.contains) {
			t.Errorf("check %q: exit %d, %q; want exit %d containing %q", c.cmd, code, out, c.code, c.contains)
		}
	}
}

func TestCheckJSON(t *testing.T) {
	code, out, _ := runCLI(t, t.TempDir(), "", "check", "--json", "--", "find . -delete")
	var r checkResult
	if err := json.Unmarshal([]byte(out), &r); err != nil || code != exitDenied || r.Verdict != "deny" || !strings.Contains(r.Reason, "-delete") {
		t.Errorf("exit %d %q (%v)", code, out, err)
	}
}

func TestCheckPayload(t *testing.T) {
	fixture := filepath.Join("..", "..", "fixtures", "claude", "explore-bash-sed-i.json")
	code, out, _ := runCLI(t, t.TempDir(), "", "check", "--payload", fixture)
	if code != exitDenied || !strings.Contains(out, "This agent type is read-only") {
		t.Errorf("exit %d %q", code, out)
	}
	b, _ := os.ReadFile(filepath.Join("..", "..", "fixtures", "claude", "explore-read.json"))
	code, out, _ = runCLI(t, t.TempDir(), string(b), "check", "--payload", "-")
	if code != exitOK || !strings.HasPrefix(out, "pass") {
		t.Errorf("stdin payload: exit %d %q", code, out)
	}
}

// TestCheckExplain: --explain prints the judge's stages in order, stops at the one that
// refuses, and leaves the verdict and exit status as they are without it.
func TestCheckExplain(t *testing.T) {
	home := t.TempDir()
	code, out, _ := runCLI(t, home, "", "check", "--explain", "--", "ls *.md && cat README.md")
	want := []string{"1. tokens: ok — ls · *.md (glob ./*.md) · && · cat · README.md", "2. shape: ok — ", "3. second parser: ok",
		"4. program: ok — `ls ./*.md`: ls may ", "5. program: ok — `cat README.md`", "6. files read: ok", "7. rewrite: ok — ls ./*.md && cat README.md",
		"8. sandbox: ok — wanted, not required", "decided by: read-only rules\nallow\nruns: "}
	at := 0
	for _, w := range want {
		i := strings.Index(out[at:], w)
		if i < 0 {
			t.Fatalf("exit %d; no %q after byte %d of:\n%s", code, w, at, out)
		}
		at += i + len(w)
	}
	if code != exitOK {
		t.Errorf("exit %d", code)
	}
	code, out, _ = runCLI(t, home, "", "check", "--explain", "--", "ls && sed -i s/a/b/ f && cat x")
	if code != exitDenied || !strings.Contains(out, "5. program: REFUSED — `sed -i s/a/b/ f`: sed: `-i` edits files in place") ||
		strings.Contains(out, "cat x") || strings.Contains(out, "6.") {
		t.Errorf("exit %d:\n%s", code, out)
	}
	code, out, _ = runCLI(t, home, "", "check", "--explain", "--json", "--", "echo $(id)")
	var r checkResult
	if err := json.Unmarshal([]byte(out), &r); err != nil || code != exitDenied || len(r.Steps) != 1 || r.Steps[0].Stage != "tokens" || r.Steps[0].OK {
		t.Errorf("exit %d %q (%v)", code, out, err)
	}
}

func TestCheckUsage(t *testing.T) {
	for _, args := range [][]string{{"check"}, {"check", "--", "a", "b"}, {"check", "--payload", "x", "--", "ls"}} {
		if code, _, errOut := runCLI(t, t.TempDir(), "", args...); code != exitError || errOut == "" {
			t.Errorf("%v: exit %d, stderr %q", args, code, errOut)
		}
	}
}

func TestCheckBrokenConfig(t *testing.T) {
	home := t.TempDir()
	os.WriteFile(filepath.Join(home, "config.toml"), []byte("read_only_agents = [\"x\"]\nbogus = 1\n"), 0o600)
	code, _, errOut := runCLI(t, home, "", "check", "--", "ls")
	if code != exitError || !strings.Contains(errOut, "config.toml:2: unknown key \"bogus\"") {
		t.Errorf("exit %d, stderr %q", code, errOut)
	}
}

// TestConfigOnlyTightens: deny_programs removes a program; read_only_agents adds a type.
func TestConfigOnlyTightens(t *testing.T) {
	home := t.TempDir()
	os.WriteFile(filepath.Join(home, "config.toml"), []byte("deny_programs = [\"jq\"]\nread_only_agents = [\"reviewer\"]\n"), 0o600)
	if code, out, _ := runCLI(t, home, "", "check", "--", "jq . f.json"); code != exitDenied {
		t.Errorf("jq after deny_programs: exit %d %q", code, out)
	}
	payload := `{"session_id":"s","hook_event_name":"PreToolUse","agent_type":"reviewer","tool_name":"Write","tool_input":{"file_path":"/x","content":""}}`
	if code, out, _ := runCLI(t, home, payload, "check", "--payload", "-"); code != exitDenied {
		t.Errorf("Write by a configured read-only agent: exit %d %q", code, out)
	}
}

func TestVersion(t *testing.T) {
	if code, out, _ := runCLI(t, t.TempDir(), "", "version"); code != exitOK || !strings.HasPrefix(out, "hookctl ") {
		t.Errorf("exit %d %q", code, out)
	}
}

// TestHookProcessFailsClosed runs the real binary: a payload that never ends is refused at the
// hook's own deadline with a deny on stdout and exit 2, well inside the client's timeout; a
// broken config file is reported with its line.
func TestHookProcessFailsClosed(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the binary")
	}
	bin := filepath.Join(t.TempDir(), "hookctl")
	if out, err := exec.Command("go", "build", "-o", bin, ".").CombinedOutput(); err != nil {
		t.Fatalf("build: %v\n%s", err, out)
	}
	home := t.TempDir()
	cmd := exec.Command(bin, "hook")
	cmd.Env = append(os.Environ(), "HOOKCTL_HOME="+home)
	w, err := cmd.StdinPipe() // kept open: the payload never ends
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	var out bytes.Buffer
	cmd.Stdout = &out
	start := time.Now()
	err = cmd.Run()
	elapsed := time.Since(start)
	ee, _ := err.(*exec.ExitError)
	if ee == nil || ee.ExitCode() != 2 || !strings.Contains(out.String(), `"permissionDecision":"deny"`) {
		t.Errorf("err %v, stdout %q", err, out.String())
	}
	if elapsed < time.Second || elapsed > 4*time.Second {
		t.Errorf("decided after %v, want about 2s", elapsed)
	}

	os.WriteFile(filepath.Join(home, "config.toml"), []byte("read_only_agents = 3\n"), 0o600)
	cmd = exec.Command(bin, "hook")
	cmd.Env = append(os.Environ(), "HOOKCTL_HOME="+home)
	cmd.Stdin = strings.NewReader(`{"session_id":"s","hook_event_name":"PreToolUse","tool_name":"Read","tool_input":{"file_path":"/x"}}`)
	b, err := cmd.Output()
	if err != nil || !strings.Contains(string(b), `"permissionDecision":"deny"`) || !strings.Contains(string(b), "config.toml") {
		t.Errorf("broken config: err %v, stdout %q", err, b)
	}
}

// TestVersionFlagsAndExitCodes (issue 11): --version and -V print what hookctl version prints,
// and --help documents the exit codes.
func TestVersionFlagsAndExitCodes(t *testing.T) {
	home := t.TempDir()
	_, want, _ := runCLI(t, home, "", "version")
	for _, flag := range []string{"--version", "-V"} {
		if code, out, errOut := runCLI(t, home, "", flag); code != exitOK || out != want || want == "" {
			t.Errorf("%s: exit %d %q %q, want %q", flag, code, out, errOut, want)
		}
	}
	_, help, _ := runCLI(t, home, "", "--help")
	for _, want := range []string{"Exit codes:", "0  success", "1  hookctl check: the command is refused", "2  hookctl check: the hook would ask you", "hookctl hook: the call", "3  a usage or runtime error"} {
		if !strings.Contains(help, want) {
			t.Errorf("--help does not say %q:\n%s", want, help)
		}
	}
	if code, _, _ := runCLI(t, home, "", "nonsense"); code != exitError {
		t.Errorf("an unknown command: exit %d", code)
	}
}

// TestCheckModes: check judges as the hook does in each mode, with the project's own config,
// and its exit status says which verdict: 0 allow or pass, 1 deny, 2 ask, 3 usage.
func TestCheckModes(t *testing.T) {
	home := t.TempDir()
	bin := ct.TrustedBin(t) // not in a temporary directory, where hookctl never trusts a gh
	os.WriteFile(filepath.Join(bin, "gh"), []byte("#!/bin/sh\nexit 0\n"), 0o755)
	t.Setenv("PATH", bin+":"+os.Getenv("PATH"))
	project := t.TempDir()
	t.Setenv("HOME", filepath.Dir(project)) // the project file is found up to the home
	t.Chdir(project)
	for _, c := range []struct {
		mode, cmd string
		code      int
		contains  string
	}{
		{"edit", "sed -i s/a/b/ f", exitOK, "pass: hookctl has no objection, and your permission rules decide\nruns: "},
		{"edit", "rm -rf /", exitDenied, "edit-mode guard"},
		{"review", `gh pr comment 7 -b "Looks good."`, exitAsked, "ask: hookctl review mode: publish to GitHub?"},
		{"read-only", `gh pr comment 7 -b "Looks good."`, exitDenied, "deny:"},
		{"read-only", "jq . x.json", exitOK, "allow"},
	} {
		code, out, errOut := runCLI(t, home, "", "check", "--mode", c.mode, "--", c.cmd)
		if code != c.code || !strings.Contains(out, c.contains) {
			t.Errorf("check --mode %s %q: exit %d, %q %q; want exit %d containing %q", c.mode, c.cmd, code, out, errOut, c.code, c.contains)
		}
	}
	// The project's .hookctl.toml tightens the rules as it does for the hook.
	os.WriteFile(filepath.Join(project, ".hookctl.toml"), []byte("deny_programs = [\"jq\"]\n"), 0o644)
	if code, out, _ := runCLI(t, home, "", "check", "--", "jq . x.json"); code != exitDenied {
		t.Errorf("with the project's deny_programs: exit %d %q", code, out)
	}
	if code, _, errOut := runCLI(t, home, "", "check", "--mode", "sideways", "--", "ls"); code != exitError || !strings.Contains(errOut, "sideways") {
		t.Errorf("a bad mode: exit %d %q", code, errOut)
	}
}

// TestHelpNamesEveryClient: the verbs that take --agent (or act on any client's session) do not
// read as if they were for Claude Code alone.
func TestHelpNamesEveryClient(t *testing.T) {
	for _, verb := range []string{"install", "uninstall", "hook", "readonly"} {
		_, out, _ := runCLI(t, t.TempDir(), "", verb, "--help")
		for _, want := range []string{"codex", "Claude Code"} {
			if !strings.Contains(strings.ToLower(strings.Join(strings.Fields(out), " ")), strings.ToLower(want)) {
				t.Errorf("hookctl %s --help does not name %s:\n%s", verb, want, out)
			}
		}
	}
}
