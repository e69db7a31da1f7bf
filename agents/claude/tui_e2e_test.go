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
	"github.com/hookctl/hookctl/session"
)

// TestRealTUIReadonlyToggle installs hookctl the way the README says (hookctl install, into the
// user's settings), starts the interactive client in tmux, and types /readonly off and
// /readonly on: the session's mode follows, the status line shows it, and the model is never
// sent the command.
func TestRealTUIReadonlyToggle(t *testing.T) {
	ct.Tmux(t)
	s, hookctl, home := newSession(t)

	install(t, s, hookctl)

	tui := s.StartTUI(110, 30)
	tui.WaitFor("🔒 READ-ONLY", 20*time.Second)

	mode := func() hook.Mode { return onlySessionMode(t, home) }
	if m := mode(); m != hook.ModeReadOnly {
		t.Fatalf("a new session is %v", m)
	}

	tui.Submit("/readonly off")
	tui.WaitFor("this session is now ✏ EDIT", 20*time.Second)
	if m := mode(); m != hook.ModeEdit {
		t.Fatalf("after /readonly off: %v", m)
	}
	// The status line follows within its refresh interval.
	tui.WaitUntil("the ✏ EDIT badge in the status line", 20*time.Second, func(screen string) bool {
		return strings.Contains(lastLines(screen, 4), "✏ EDIT")
	})

	tui.Submit("/readonly on")
	tui.WaitFor("this session is now 🔒 READ-ONLY", 20*time.Second)
	if m := mode(); m != hook.ModeReadOnly {
		t.Fatalf("after /readonly on: %v", m)
	}
	tui.WaitUntil("the 🔒 READ-ONLY badge in the status line", 20*time.Second, func(screen string) bool {
		return strings.Contains(lastLines(screen, 4), "🔒 READ-ONLY")
	})
	if s.API.Saw("/readonly") || s.API.Saw("readonly off") {
		t.Error("the model was sent the /readonly command")
	}
}

// onlySessionMode is the mode of the one session hookctl's home holds.
func onlySessionMode(t *testing.T, home string) hook.Mode {
	t.Helper()
	list, err := session.NewStore(home).List()
	if err != nil || len(list) != 1 {
		t.Fatalf("sessions: %v %v", list, err)
	}
	return list[0].Mode
}

// lastLines returns the last n non-empty lines of a screen: the status line sits under the
// input box at the bottom.
func lastLines(screen string, n int) string {
	var lines []string
	for _, l := range strings.Split(screen, "\n") {
		if strings.TrimSpace(l) != "" {
			lines = append(lines, l)
		}
	}
	if len(lines) > n {
		lines = lines[len(lines)-n:]
	}
	return strings.Join(lines, "\n")
}

// TestRealTUIPlanBadgeFollowsShiftTab (issue 30): a session in edit mode, put in the client's
// plan mode with Shift+Tab, shows "(⏸ plan mode: read-only)" once a prompt reports it; Shift+Tab
// out of plan mode takes the badge away at the redraw it causes, not at the next prompt (the
// status line's input does not carry the permission mode; the redraw does).
func TestRealTUIPlanBadgeFollowsShiftTab(t *testing.T) {
	ct.Tmux(t)
	s, hookctl, home := newSession(t)
	if err := os.WriteFile(filepath.Join(home, "config.toml"), []byte("default_mode = \"edit\"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	install(t, s, hookctl)
	const badge = "plan mode: read-only"
	tui := s.StartTUI(120, 30)
	tui.WaitFor("✏ EDIT", 20*time.Second)
	tui.Key("BTab")
	tui.WaitFor("accept edits on", 10*time.Second)
	tui.Key("BTab")
	tui.WaitFor("plan mode on", 10*time.Second)
	tui.Submit("hello")
	tui.WaitUntil("the plan badge in the status line", 30*time.Second, func(screen string) bool {
		return strings.Contains(lastLines(screen, 4), badge)
	})
	tui.Key("BTab")
	tui.WaitUntil("the plan badge gone after Shift+Tab left plan mode", 15*time.Second, func(screen string) bool {
		last := lastLines(screen, 4)
		return !strings.Contains(last, "plan mode on") && strings.Contains(last, "✏ EDIT") && !strings.Contains(last, badge)
	})
}

// TestRealTUIReadmeScreens: what the README shows the user of a mode switch and of a refusal is
// what the real client shows: each line of the two text blocks after the README's marker is on
// the screen (white space aside). The client's wording around hookctl's ("Operation stopped by
// hook", "hook error") is its own, and the only channel it gives (../shared/claude-code-facts.md).
func TestRealTUIReadmeScreens(t *testing.T) {
	ct.Binary(t)
	ct.Tmux(t)
	b, err := os.ReadFile(filepath.Join("..", "..", "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	readme := string(b)
	_, after, ok := strings.Cut(readme, "<!-- the real-client test TestRealTUIReadmeScreens finds")
	if !ok {
		t.Fatal("README.md has no marker for this test")
	}
	var blocks [][]string
	for len(blocks) < 2 {
		_, rest, ok := strings.Cut(after, "```text\n")
		if !ok {
			t.Fatal("README.md: fewer than two text blocks after the marker")
		}
		body, rest2, _ := strings.Cut(rest, "```")
		blocks = append(blocks, strings.Split(strings.TrimRight(body, "\n"), "\n"))
		after = rest2
	}
	squash := func(s string) string { return strings.Join(strings.Fields(s), " ") }

	s, hookctl, _ := newSession(t)
	install(t, s, hookctl)
	s.Script.Main = []ct.Call{{Name: "Write", Input: map[string]any{"file_path": filepath.Join(s.Project, "notes.md"), "content": "x\n"}}}
	tui := s.StartTUI(220, 40)
	tui.WaitFor("🔒 READ-ONLY", 20*time.Second)
	check := func(lines []string, what string) {
		t.Helper()
		tui.WaitUntil(what, 30*time.Second, func(screen string) bool {
			for _, l := range lines {
				if !strings.Contains(squash(screen), squash(l)) {
					return false
				}
			}
			return true
		})
	}
	tui.Submit("/readonly off")
	check(blocks[0], "the README's mode switch on screen")
	tui.Submit("/readonly on")
	tui.WaitFor("this session is now 🔒 READ-ONLY", 20*time.Second)
	tui.Submit("write the notes")
	check(blocks[1], "the README's refusal on screen")
	if _, err := os.Stat(filepath.Join(s.Project, "notes.md")); err == nil {
		t.Error("notes.md was written in read-only mode")
	}
}
