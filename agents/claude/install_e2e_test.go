package claude_test

import (
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	ct "github.com/hookctl/hookctl/agents/claude/claudetest"
	"github.com/hookctl/hookctl/audit"
	"github.com/hookctl/hookctl/hook"
	"github.com/hookctl/hookctl/session"
)

// installCopy puts a copy of hookctl where make install puts it, ~/.local/bin, so that the test
// can delete it, and runs `hookctl install --scope scope` from the project as the README says.
func installCopy(t *testing.T, s *ct.Session, scope string) string {
	t.Helper()
	bin := filepath.Join(s.Home, ".local", "bin", "hookctl")
	os.MkdirAll(filepath.Dir(bin), 0o755)
	src, err := os.Open(buildHookctl(t))
	if err != nil {
		t.Fatal(err)
	}
	defer src.Close()
	dst, err := os.OpenFile(bin, os.O_CREATE|os.O_WRONLY, 0o755)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := io.Copy(dst, src); err != nil || dst.Close() != nil {
		t.Fatal(err)
	}
	install := exec.Command(bin, "install", "--scope", scope)
	install.Env, install.Dir = s.Environ(), s.Project
	if out, err := install.CombinedOutput(); err != nil {
		t.Fatalf("hookctl install --scope %s: %v\n%s", scope, err, out)
	}
	return bin
}

// recoveryCommand is the command a refusal names: `sh …/uninstall.sh`.
var recoveryCommand = regexp.MustCompile(`sh (/\S+/uninstall\.sh)`)

// TestRealClientMissingBinaryRecovery (issue 11, item 7) follows the recovery literally: hookctl
// is installed and runs; its binary is deleted, and the real client refuses the next prompt,
// naming the command that gets it out; that command, run as the refusal gives it, with no
// hookctl anywhere, gives the settings back as they were before the install; and the client
// works again.
func TestRealClientMissingBinaryRecovery(t *testing.T) {
	ct.Binary(t)
	for _, scope := range []string{"user", "project"} {
		t.Run(scope, func(t *testing.T) {
			s := ct.NewSession(t)
			s.InitGitRepo(commitSubject)
			settings := filepath.Join(s.Home, ".claude", "settings.json")
			if scope == "project" {
				settings = filepath.Join(s.Project, ".claude", "settings.json")
			}
			before := "{\n  \"model\": \"sonnet\",\n  \"env\": {\"FOO\": \"1\"}\n}\n"
			os.MkdirAll(filepath.Dir(settings), 0o755)
			os.WriteFile(settings, []byte(before), 0o644)
			bin := installCopy(t, s, scope)
			s.Script = ct.Script{Main: []ct.Call{ct.Bash("git log --oneline -1")}}

			// Installed: the hook runs the read in its sandbox.
			r := s.Run("What is the last commit?")
			if tr, _ := s.API.ResultFor(ct.Main, 0); tr.IsError || !strings.Contains(tr.Text, commitSubject) {
				r.Fatalf(t, "with hookctl installed, git log: %q", tr.Text)
			}
			if sessions, _ := session.NewStore(filepath.Join(s.Home, ".config", "hookctl")).List(); len(sessions) != 1 {
				r.Fatalf(t, "hookctl did not run: sessions %v", sessions)
			}

			// The binary is deleted: every prompt is refused, and the refusal says what to run.
			if err := os.Remove(bin); err != nil {
				t.Fatal(err)
			}
			asked := len(s.API.Requests())
			r = s.Run("What is the last commit?")
			m := recoveryCommand.FindStringSubmatch(r.Output.Result)
			if !strings.Contains(r.Output.Result, "UserPromptSubmit operation blocked by hook") || m == nil ||
				!strings.Contains(r.Output.Result, "hookctl: "+filepath.Join(s.Home, ".config", "hookctl", "bin", "hookctl")+" is missing") {
				r.Fatalf(t, "the refusal does not name the way out: %q", r.Output.Result)
			}
			for _, q := range s.API.Requests()[asked:] {
				if q.Thread == ct.Main {
					r.Fatalf(t, "the model was asked while hookctl was missing")
				}
			}

			// The command, as the refusal gives it, from the project, without hookctl.
			recover := exec.Command("sh", "-c", m[0])
			recover.Env, recover.Dir = s.Environ(), s.Project
			out, err := recover.CombinedOutput()
			if err != nil || !strings.Contains(string(out), "removed hookctl from "+settings) {
				t.Fatalf("%s: %v\n%s", m[0], err, out)
			}
			if got, _ := os.ReadFile(settings); string(got) != before {
				t.Errorf("after %s the settings are\n%s\nwant\n%s", m[0], got, before)
			}
			if _, err := os.Stat(filepath.Join(s.Home, ".claude", "commands", "readonly.md")); err == nil {
				t.Errorf("the /readonly command is left")
			}
			if backups, _ := filepath.Glob(filepath.Join(s.Home, ".config", "hookctl", "backups", "*uninstall.sh*")); len(backups) != 1 {
				t.Errorf("backups: %v", backups)
			}

			// The client works again, without hookctl.
			r = s.Run("What is the last commit?")
			if tr, ok := s.API.ResultFor(ct.Main, 0); !ok || tr.IsError || !strings.Contains(tr.Text, commitSubject) || r.Output.IsError {
				r.Fatalf(t, "after the recovery, git log: %q", tr.Text)
			}
		})
	}
}

// TestRealClientUserAndProjectRegistrations (issue 11, item 6): a member's own install and the
// project's committed registration, both in force. The client runs both registrations'
// tool-call hooks (they differ) and one of each of the others (they are the same entries);
// the answers agree, and the session's state is that of one hook: one session, one
// decision-log line a call, the session's mode told once.
func TestRealClientUserAndProjectRegistrations(t *testing.T) {
	ct.Binary(t)
	s := ct.NewSession(t)
	s.InitGitRepo(commitSubject)
	installCopy(t, s, "project")
	bin := installCopy(t, s, "user")
	hh := filepath.Join(s.Home, ".config", "hookctl")

	// The link the hooks run leads through a shim that notes each hookctl process and its event.
	log := filepath.Join(t.TempDir(), "runs")
	shim := filepath.Join(t.TempDir(), "hookctl")
	os.WriteFile(shim, []byte("#!/bin/sh\nin=$(mktemp)\ncat >\"$in\"\n"+
		"grep -o '\"hook_event_name\":\"[A-Za-z]*\"' \"$in\" >>"+log+"\nexec "+bin+" \"$@\" <\"$in\"\n"), 0o755)
	link := filepath.Join(hh, "bin", "hookctl")
	os.Remove(link)
	os.Symlink(shim, link)

	f := filepath.Join(s.Project, "f")
	s.Script = ct.Script{Main: []ct.Call{
		ct.Bash("git log --oneline -1"),
		{Name: "Read", Input: map[string]any{"file_path": f}},
		{Name: "Write", Input: map[string]any{"file_path": f, "content": "changed\n"}},
	}}
	r := s.Run("Look around.")
	if tr, _ := s.API.ResultFor(ct.Main, 0); tr.IsError || !strings.Contains(tr.Text, commitSubject) {
		r.Errorf(t, "git log: %q", tr.Text)
	}
	if tr, _ := s.API.ResultFor(ct.Main, 2); !tr.IsError || !strings.Contains(tr.Text, "hookctl read-only") {
		r.Errorf(t, "the Write was not refused: %q", tr.Text)
	}
	if b, _ := os.ReadFile(f); string(b) != "a\n" {
		r.Errorf(t, "f changed: %q", b)
	}

	b, _ := os.ReadFile(log)
	runs := map[string]int{}
	for _, l := range strings.Fields(string(b)) {
		runs[strings.TrimSuffix(strings.TrimPrefix(l, `"hook_event_name":"`), `"`)]++
	}
	if runs["PreToolUse"] != 6 || runs["SessionStart"] != 1 || runs["UserPromptSubmit"] != 1 {
		r.Errorf(t, "hookctl processes by event: %v; want 6 PreToolUse (two a call), one SessionStart and one UserPromptSubmit", runs)
	}
	entries, _, err := audit.DecisionLogAt(hh).Entries()
	tools := 0
	for _, e := range entries {
		if e.Event == "tool" {
			tools++
		}
	}
	if err != nil || tools != 3 {
		r.Errorf(t, "decision log: %d tool entries (%v), want 3", tools, err)
	}
	if sessions, _ := session.NewStore(hh).List(); len(sessions) != 1 || sessions[0].Mode != hook.ModeReadOnly {
		r.Errorf(t, "sessions: %v", sessions)
	}
	first := s.API.Requests()
	for _, q := range first {
		if q.Thread == ct.Main {
			if n := strings.Count(string(q.Body), "this session is in READ-ONLY mode"); n != 1 {
				r.Errorf(t, "the model's first request states the mode %d times, want once", n)
			}
			break
		}
	}
}
