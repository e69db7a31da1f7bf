package claude_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/hookctl/hookctl/agents/claude"
	ct "github.com/hookctl/hookctl/agents/claude/claudetest"
	"github.com/hookctl/hookctl/audit"
	"github.com/hookctl/hookctl/hook"
	"github.com/hookctl/hookctl/session"
)

// TestRealClientReviewPublishAsks runs the real client in a session the user put in review mode
// (/readonly review). A publish gets the hook's ask; claude -p cannot ask anyone, and 2.1.328
// then refuses the call — whatever --permission-mode says, --allowedTools Bash included — gives
// the model the ask's reason as the tool's error, and lists the call in permission_denials with
// the hook's rewritten input (so updatedInput is applied to an ask). The refused forms are
// denied by the hook itself; gh never runs; every decision is in the audit; and a read-only
// command still runs.
func TestRealClientReviewPublishAsks(t *testing.T) {
	s, hookctl, home := newSession(t)
	s.InitGitRepo(commitSubject)
	// A gh that records being run: the publish must not run under -p, nor any refused form.
	bin := ct.TrustedBin(t)
	ran := filepath.Join(t.TempDir(), "gh-ran")
	os.WriteFile(filepath.Join(bin, "gh"), []byte("#!/bin/sh\necho \"$@\" >> "+ran+"\n"), 0o755)
	s.Env = append(s.Env, "PATH="+bin+":"+os.Getenv("PATH"))
	hookOn(s, hookctl, modeEvents...)
	cmd := claude.ReadonlyCommandPath(s.Home)
	os.MkdirAll(filepath.Dir(cmd), 0o755)
	os.WriteFile(cmd, claude.ReadonlyCommand, 0o644)

	r := s.Run("/readonly review")
	id := r.Output.SessionID
	store := session.NewStore(home)
	if sess, err := store.Load(id); err != nil || sess.Mode != hook.ModeReview {
		r.Fatalf(t, "after /readonly review: %+v %v", sess, err)
	}
	s.Args = []string{"--resume", id}
	s.Script.Main = []ct.Call{
		ct.Bash(`gh pr review 7 --comment -b "Looks good to me."`), // 0: asked; -p refuses
		ct.Bash(`gh pr review --body-file .env 7 --comment`),       // 1: the hook denies
		ct.Bash(`gh api -X POST repos/o/r/issues/7/comments -f body=x`),
		ct.Bash(`gh pr merge 7`),
		ct.Bash(`git log --oneline -1`), // 4: read-only commands still run
	}
	r = s.Run("Review PR 7.")
	ask, _ := s.API.ResultFor(ct.Main, 0)
	if !ask.IsError || !strings.Contains(ask.Text, "publish to GitHub?") || !strings.Contains(ask.Text, "pull request #7") ||
		!strings.Contains(ask.Text, "infers from this project's git remotes") {
		r.Errorf(t, "the publish: is_error=%v %q", ask.IsError, ask.Text)
	}
	// The client words the two refusals apart: a hook's deny is a "hook error", an ask it could
	// not put to anyone is the ask's reason alone. Both are permission denials.
	if deny, _ := s.API.ResultFor(ct.Main, 1); strings.HasPrefix(ask.Text, "PreToolUse:") || !strings.HasPrefix(deny.Text, "PreToolUse:Bash hook error: ") {
		r.Errorf(t, "ask %q, deny %q", ask.Text, deny.Text)
	}
	if n := len(r.Output.PermissionDenials); n != 4 {
		r.Errorf(t, "%d permission denials, want the ask and the three denies", n)
	}
	var asked *ct.Denial
	for i, d := range r.Output.PermissionDenials {
		if c, _ := d.ToolInput["command"].(string); strings.Contains(c, "pr review 7 --comment --body 'Looks good to me.'") {
			asked = &r.Output.PermissionDenials[i]
		}
	}
	if asked == nil || !strings.Contains(asked.ToolInput["command"].(string), "sandbox --profile publish --session "+id+" -- ") ||
		!strings.Contains(asked.ToolInput["command"].(string), filepath.Join(bin, "gh")) {
		r.Errorf(t, "permission_denials lacks the rewritten publish: %+v", r.Output.PermissionDenials)
	}
	for i, want := range map[int]string{1: "reads the text from a file", 2: "not a publish review mode allows", 3: "not a publish review mode allows"} {
		if tr, _ := s.API.ResultFor(ct.Main, i); !tr.IsError || !strings.Contains(tr.Text, want) || !strings.Contains(tr.Text, "review mode publishes only") {
			r.Errorf(t, "call %d: is_error=%v %q, want %q", i, tr.IsError, tr.Text, want)
		}
	}
	if tr, _ := s.API.ResultFor(ct.Main, 4); tr.IsError || !strings.Contains(tr.Text, commitSubject) {
		r.Errorf(t, "git log in review mode: is_error=%v %q", tr.IsError, tr.Text)
	}
	if b, err := os.ReadFile(ran); err == nil {
		t.Errorf("gh ran: %q", b)
	}
	es, _, err := audit.AuditAt(home).Entries()
	if err != nil {
		t.Fatal(err)
	}
	var outcomes []string
	for _, e := range es {
		if e.Kind == audit.KindPublish {
			outcomes = append(outcomes, e.Outcome+":"+e.GitHub)
		}
	}
	if got := strings.Join(outcomes, " | "); got != "asked:pr review --comment inferred 7 | refused: | refused: | refused:" {
		t.Errorf("audit: %s", got)
	}
}
