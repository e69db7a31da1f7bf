package main

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/hookctl/hookctl/hook"
)

// TestLogCommand: decisions the hook made are listed by hookctl log, filtered by verdict and
// by a unique prefix of the session's id, printed as JSON lines, and explained one by one.
func TestLogCommand(t *testing.T) {
	hh := t.TempDir()
	t.Setenv("GITHUB_TOKEN", "ghp_notarealtokenbutlong0123")
	call := func(session, command string) {
		payload, _ := json.Marshal(map[string]any{"session_id": session, "cwd": t.TempDir(), "hook_event_name": "PreToolUse",
			"tool_name": "Bash", "tool_input": map[string]any{"command": command}})
		if code, out, errOut := runCLI(t, hh, string(payload), "hook"); code != 0 {
			t.Fatalf("hook: %d %s %s", code, out, errOut)
		}
	}
	call("aaaa1111-first", "git log --oneline -3")
	call("aaaa1111-first", "sed -i s/a/b/ README.md")
	call("bbbb2222-second", "curl -H 'Authorization: token ghp_notarealtokenbutlong0123' https://api.github.com/user")

	_, out, _ := runCLI(t, hh, "", "log")
	for _, want := range []string{"git log --oneline -3", "sed -i s/a/b/ README.md", "read-only rules", "aaaa1111", "bbbb2222"} {
		if !strings.Contains(out, want) {
			t.Errorf("hookctl log lacks %q:\n%s", want, out)
		}
	}
	if strings.Contains(out, "ghp_notarealtokenbutlong0123") {
		t.Errorf("hookctl log shows the token:\n%s", out)
	}
	if _, out, _ = runCLI(t, hh, "", "log", "--denied", "--session", "aaaa"); strings.Contains(out, "git log") || !strings.Contains(out, "sed -i") {
		t.Errorf("--denied --session aaaa:\n%s", out)
	}
	if code, _, errOut := runCLI(t, hh, "", "log", "--session", "cccc"); code == 0 || !strings.Contains(errOut, "no decisions of a session") {
		t.Errorf("an unknown session: %d %q", code, errOut)
	}
	_, out, _ = runCLI(t, hh, "", "log", "--json", "--session", "aaaa1111-first")
	var entries []hook.LogEntry
	for _, line := range strings.Split(strings.TrimSpace(out), "\n") {
		var e hook.LogEntry
		if err := json.Unmarshal([]byte(line), &e); err != nil {
			t.Fatalf("--json line %q: %v", line, err)
		}
		entries = append(entries, e)
	}
	if len(entries) != 2 || entries[0].Verdict != "allow" || !entries[0].Rewrite || entries[1].Verdict != "deny" {
		t.Fatalf("--json: %+v", entries)
	}
	_, out, _ = runCLI(t, hh, "", "log", "why", entries[1].ID)
	for _, want := range []string{"1. ", "called Bash in session aaaa1111-first (read-only)", "decided by: read-only rules", "verdict: deny",
		"today the same command in the same mode gets the same verdict"} {
		if !strings.Contains(out, want) {
			t.Errorf("log why lacks %q:\n%s", want, out)
		}
	}
	if code, _, _ := runCLI(t, hh, "", "log", "why", "nope"); code == 0 {
		t.Error("log why of an unknown id succeeded")
	}
}

// TestLogHoldsEveryModeChange (issue 27): the human's toggles are in the decision log as what
// they are — how they were made (the prompt's /readonly, the command line), the mode before and
// after, and allow for a change carried out — never as a deny, and never missing for a CLI one.
func TestLogHoldsEveryModeChange(t *testing.T) {
	bin := hookctlBinary(t)
	home := t.TempDir()
	hh := filepath.Join(home, ".config", "hookctl")
	run := func(stdin string, args ...string) string {
		t.Helper()
		cmd := exec.Command(bin, args...)
		cmd.Env = append(os.Environ(), "HOME="+home, "HOOKCTL_HOME="+hh, "CLAUDE_CONFIG_DIR=")
		cmd.Dir, cmd.Stdin = home, strings.NewReader(stdin)
		out, _ := cmd.CombinedOutput()
		return string(out)
	}
	run("", "install", "--scope", "user")
	const session = "5e55e55e-0000-4000-8000-00000000d0d0"
	prompt := func(id, args string) string {
		return `{"session_id":"` + session + `","cwd":"` + home + `","prompt_id":"` + id + `","hook_event_name":"UserPromptExpansion","command_name":"readonly",` +
			`"command_args":"` + args + `","command_source":"userSettings","prompt":"/readonly ` + args + `"}`
	}
	run(`{"session_id":"`+session+`","cwd":"`+home+`","hook_event_name":"SessionStart","source":"startup"}`, "hook")
	if out := run(prompt("p1", "off"), "hook"); !strings.Contains(out, "now ✏ EDIT") {
		t.Fatalf("/readonly off:\n%s", out)
	}
	run(prompt("p2", ""), "hook")
	if out := run("", "readonly", "on", "--session", session); !strings.Contains(out, "→ 🔒 READ-ONLY") {
		t.Fatalf("readonly on:\n%s", out)
	}
	var toggles []hook.LogEntry
	for _, line := range strings.Split(strings.TrimSpace(run("", "log", "--json", "--session", session)), "\n") {
		var e hook.LogEntry
		if json.Unmarshal([]byte(line), &e) == nil && e.Event == "toggle" {
			toggles = append(toggles, e)
		}
	}
	want := []string{"prompt read-only→edit allow", "prompt edit→edit allow", "cli edit→read-only allow"}
	var got []string
	for _, e := range toggles {
		got = append(got, e.How+" "+e.From+"→"+e.To+" "+e.Verdict)
	}
	if strings.Join(got, "; ") != strings.Join(want, "; ") {
		t.Errorf("the log's mode changes: %q, want %q", got, want)
	}
	if out := run("", "log", "--session", session); !strings.Contains(out, "(mode change, cli: edit → read-only)") || !strings.Contains(out, "(mode change, prompt: read-only → edit)") {
		t.Errorf("hookctl log:\n%s", out)
	}
}
