//go:build unix

package claude_test

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	ct "github.com/hookctl/hookctl/agents/claude/claudetest"
	"github.com/hookctl/hookctl/hook"
)

// TestRealTUIReviewPublishIsAsked: in the interactive client, /readonly review switches the
// session (the status line shows 👁 REVIEW), and a publish is put to the user: the dialog shows
// hookctl's reason and the rewritten command, and the command runs only when the user approves —
// as rewritten, with gh's environment pinned.
func TestRealTUIReviewPublishIsAsked(t *testing.T) {
	ct.Binary(t)
	ct.Tmux(t)
	hookctl := buildHookctl(t)
	s := ct.NewSession(t)
	s.InitGitRepo(commitSubject)
	home := t.TempDir()
	bin := t.TempDir()
	ran := filepath.Join(t.TempDir(), "gh-ran")
	// The fake gh records its arguments and the pinned variables.
	os.WriteFile(filepath.Join(bin, "gh"), []byte("#!/bin/sh\n{ echo \"args: $*\"; echo \"GH_PAGER=$GH_PAGER BROWSER=$BROWSER GH_BROWSER=$GH_BROWSER GH_PROMPT_DISABLED=$GH_PROMPT_DISABLED GH_REPO=[$GH_REPO]\"; } >> "+ran+"\n"), 0o755)
	s.Env = append(s.Env, "HOOKCTL_HOME="+home, "PATH="+bin+":"+os.Getenv("PATH"))
	install := exec.Command(hookctl, "install")
	install.Env = s.Environ()
	install.Dir = s.Project
	if out, err := install.CombinedOutput(); err != nil {
		t.Fatalf("hookctl install: %v\n%s", err, out)
	}
	s.Script.Main = []ct.Call{ct.Bash(`gh pr comment 7 -b "Looks good."`)}

	tui := s.StartTUI(140, 40)
	tui.WaitFor("🔒 READ-ONLY", 20*time.Second)
	tui.Submit("/readonly review")
	tui.WaitFor("this session is now 👁 REVIEW", 20*time.Second)
	tui.WaitUntil("the 👁 REVIEW badge in the status line", 20*time.Second, func(screen string) bool {
		return strings.Contains(lastLines(screen, 4), "👁 REVIEW")
	})
	if list, _ := hook.NewStore(home).List(); len(list) != 1 || list[0].Mode != hook.ModeReview {
		t.Fatalf("sessions %+v", list)
	}
	tui.Submit("Post the review.")
	screen := tui.WaitUntil("the ask dialog", 30*time.Second, func(screen string) bool {
		return strings.Contains(screen, "publish to GitHub?") && strings.Contains(screen, "Do you want to proceed?")
	})
	// The dialog shows hookctl's reason and the command as rewritten (the gh path may wrap).
	flat := strings.Join(strings.Fields(strings.ReplaceAll(screen, "│", " ")), " ")
	for _, want := range []string{"requires confirmation", "pull request #7", "GH_PAGER=cat PAGER=cat BROWSER=false GH_BROWSER=false",
		"gh pr comment 7 --body 'Looks good.'", "outside hookctl's sandbox"} {
		if !strings.Contains(flat, want) {
			t.Errorf("the ask dialog does not show %q:\n%s", want, screen)
		}
	}
	if _, err := os.Stat(ran); err == nil {
		t.Fatal("gh ran before the user answered")
	}
	time.Sleep(time.Second) // the dialog takes keys once drawn and settled
	tui.Key("1")            // Yes
	tui.WaitUntil("gh to run", 20*time.Second, func(string) bool { _, err := os.Stat(ran); return err == nil })
	b, _ := os.ReadFile(ran)
	if got := string(b); !strings.Contains(got, "args: pr comment 7 --body Looks good.") ||
		!strings.Contains(got, "GH_PAGER=cat BROWSER=false GH_BROWSER=false GH_PROMPT_DISABLED=1 GH_REPO=[]") {
		t.Errorf("gh ran as %q", got)
	}
}
