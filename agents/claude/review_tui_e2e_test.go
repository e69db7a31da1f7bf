//go:build unix

package claude_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	ct "github.com/hookctl/hookctl/agents/claude/claudetest"
	"github.com/hookctl/hookctl/hook"
	"github.com/hookctl/hookctl/internal/fakegithub"
	"github.com/hookctl/hookctl/session"
)

// TestRealTUIReviewPublishIsAsked: in the interactive client, /readonly review switches the
// session (the status line shows 👁 REVIEW), and a publish is put to the user: the dialog shows
// hookctl's reason and the rewritten command — gh in hookctl's publish sandbox — and the command
// runs only when the user approves, posting the text to the GitHub API exactly once (a fake API,
// reached as through a user's corporate proxy: internal/fakegithub).
func TestRealTUIReviewPublishIsAsked(t *testing.T) {
	ct.Tmux(t)
	s, hookctl, home := newSession(t)
	s.InitGitRepo(commitSubject)
	bin := ct.TrustedBin(t)
	os.WriteFile(filepath.Join(bin, "gh"), []byte(fakegithub.GH), 0o755)
	api := fakegithub.New(t, bin)
	s.Env = append(s.Env, "PATH="+bin+":"+os.Getenv("PATH"), "GH_TOKEN=gho_tuiToken",
		"NO_PROXY=127.0.0.1,localhost", "no_proxy=127.0.0.1,localhost") // the client's own API is on loopback
	s.Env = append(s.Env, api.Env()...)
	install(t, s, hookctl)
	s.Script.Main = []ct.Call{ct.Bash(`gh pr comment 7 -b "Looks good."`)}

	tui := s.StartTUI(140, 40)
	tui.WaitFor("🔒 READ-ONLY", 20*time.Second)
	tui.Submit("/readonly review")
	tui.WaitFor("this session is now 👁 REVIEW", 20*time.Second)
	tui.WaitUntil("the 👁 REVIEW badge in the status line", 20*time.Second, func(screen string) bool {
		return strings.Contains(lastLines(screen, 4), "👁 REVIEW")
	})
	if list, _ := session.NewStore(home).List(); len(list) != 1 || list[0].Mode != hook.ModeReview {
		t.Fatalf("sessions %+v", list)
	}
	tui.Submit("Post the review.")
	screen := tui.WaitUntil("the ask dialog", 30*time.Second, func(screen string) bool {
		return strings.Contains(screen, "publish to GitHub?") && strings.Contains(screen, "Do you want to proceed?")
	})
	// The dialog shows hookctl's reason and the command as rewritten (the gh path may wrap).
	flat := strings.Join(strings.Fields(strings.ReplaceAll(screen, "│", " ")), " ")
	for _, want := range []string{"requires confirmation", "pull request #7", "sandbox --profile publish --session",
		"gh pr comment 7 --body 'Looks good.'", "runs in hookctl's publish sandbox"} {
		if !strings.Contains(flat, want) {
			t.Errorf("the ask dialog does not show %q:\n%s", want, screen)
		}
	}
	if n := len(api.Posts()); n != 0 {
		t.Fatalf("gh posted %d times before the user answered", n)
	}
	time.Sleep(time.Second) // the dialog takes keys once drawn and settled
	tui.Key("1")            // Yes
	tui.WaitUntil("gh to post", 20*time.Second, func(string) bool { return len(api.Posts()) > 0 })
	time.Sleep(500 * time.Millisecond)
	posts := api.Posts()
	if len(posts) != 1 || posts[0].Path != "/repos/o/r/issues/7/comments" || posts[0].Auth != "token gho_tuiToken" ||
		!strings.Contains(posts[0].Body, `"Looks good."`) {
		t.Errorf("the API received %+v, want the comment once", posts)
	}
	if tunnels := api.Tunnels(); len(tunnels) != 1 || tunnels[0] != "api.github.com:443" {
		t.Errorf("the publish's connections: %q, want only the API", tunnels)
	}
}
