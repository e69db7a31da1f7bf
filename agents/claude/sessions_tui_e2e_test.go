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

// TestRealTUITwoSessionsInOneDirectory (issue 11): two interactive sessions in one project.
// `! hookctl readonly …` typed inside each acts on that one and leaves the other alone (it
// locked the most recent one), from a subdirectory too; the model's next request states the
// new mode (it never heard of a toggle); a bare /readonly, as autocompletion submits it after
// /read, shows the mode and changes nothing (it unlocked); a resumed session is found as well,
// and after /clear the client's new session.
func TestRealTUITwoSessionsInOneDirectory(t *testing.T) {
	ct.Tmux(t)
	s, hookctl, home := newSession(t)
	os.MkdirAll(filepath.Join(s.Project, "sub"), 0o755)
	install(t, s, hookctl)
	store := session.NewStore(home)
	mode := func(id string) hook.Mode {
		t.Helper()
		m, _, err := store.Peek(id)
		if err != nil {
			t.Fatalf("state of %s: %v", id, err)
		}
		return m
	}
	ids := func() []string {
		list, _ := store.List()
		var out []string
		for _, sess := range list {
			out = append(out, sess.ID)
		}
		return out
	}
	// start runs one more client in the same HOME and project, with the same fake model.
	start := func(args ...string) *ct.TUI {
		t.Helper()
		c := *s
		c.Args = args
		tui := c.StartTUI(130, 30)
		tui.WaitFor("hookctl: this session is", 20*time.Second)
		return tui
	}
	// bang types `! command` and waits for want on screen; it returns the request that carried
	// the output to the model, which 2.1.328 sends at once.
	bang := func(tui *ct.TUI, command, want string) string {
		t.Helper()
		seen := len(s.API.Requests())
		tui.SendKeys("!")
		tui.WaitFor("! for shell mode", 5*time.Second)
		tui.SendKeys(command)
		time.Sleep(300 * time.Millisecond)
		tui.Enter()
		tui.WaitFor(want, 20*time.Second)
		var body string
		tui.WaitUntil("the request with the output of "+command, 20*time.Second, func(string) bool {
			for _, q := range s.API.Requests()[seen:] {
				in := "<bash-input>" + command + "</bash-input>"
				if i := strings.LastIndex(string(q.Body), in); q.Thread == ct.Main && i >= 0 {
					body = string(q.Body)[i:]
				}
			}
			return body != ""
		})
		return body
	}
	// told waits for the request that carries prompt and returns it.
	told := func(tui *ct.TUI, prompt string) string {
		t.Helper()
		tui.Submit(prompt)
		var body string
		tui.WaitUntil("the model's request with "+prompt, 20*time.Second, func(string) bool {
			for _, q := range s.API.Requests() {
				if q.Thread == ct.Main && strings.Contains(string(q.Body), `"`+prompt+`"`) {
					body = string(q.Body)
					return true
				}
			}
			return false
		})
		return body
	}

	a := start()
	if len(ids()) != 1 {
		t.Fatalf("sessions after the first start: %v", ids())
	}
	idA := ids()[0]
	b := start()
	var idB string
	for _, id := range ids() {
		if id != idA {
			idB = id
		}
	}
	if idB == "" {
		t.Fatalf("sessions after the second start: %v", ids())
	}
	shortA, shortB := store.Short(idA), store.Short(idB)

	// The older session's shell switches the older session (the most recent used to win), and
	// its model's next request, the one with the command's output, states the new mode.
	out := bang(a, hookctl+" readonly off", "session "+shortA+": 🔒 READ-ONLY → ✏ EDIT")
	if mode(idA) != hook.ModeEdit || mode(idB) != hook.ModeReadOnly {
		t.Fatalf("after ! readonly off in A: A %v, B %v", mode(idA), mode(idB))
	}
	if !strings.Contains(out, "switched this session from READ-ONLY to EDIT mode") || !strings.Contains(out, "you may change files") {
		t.Errorf("A's next request does not state EDIT mode: %s", out)
	}
	out = bang(b, "cd sub && "+hookctl+" readonly review", "session "+shortB+": 🔒 READ-ONLY → 👁 REVIEW")
	if mode(idA) != hook.ModeEdit || mode(idB) != hook.ModeReview {
		t.Fatalf("after ! cd sub && readonly review in B: A %v, B %v", mode(idA), mode(idB))
	}
	if !strings.Contains(out, "switched this session from READ-ONLY to REVIEW mode") {
		t.Errorf("B's next request does not state REVIEW mode: %s", out)
	}
	// Told once: the next prompt does not repeat it.
	if body := told(a, "hello from A"); strings.Count(body, "switched this session from READ-ONLY to EDIT mode") != 1 || strings.Contains(body, "to REVIEW mode") {
		t.Errorf("A's next prompt: the notice is not there exactly once, or B's is: %s", lastUserTurn(body))
	}

	// /read and Enter: autocompletion submits the bare command, which only shows the mode.
	a.Submit("/read")
	a.WaitFor("this session is ✏ EDIT. Nothing changed", 20*time.Second)
	a.Submit("/readonly status")
	time.Sleep(time.Second)
	if mode(idA) != hook.ModeEdit {
		t.Fatalf("a bare /readonly changed A to %v", mode(idA))
	}
	a.Submit("/readonly on")
	// Shown as the command's answer, not as "UserPromptExpansion operation blocked by hook".
	if screen := a.WaitFor("Operation stopped by hook: hookctl: this session is now 🔒 READ-ONLY", 20*time.Second); strings.Contains(screen, "operation blocked by hook") {
		t.Errorf("a toggle's answer is shown as a block:\n%s", screen)
	}
	// A slash command is blocked before the model sees it: the next prompt carries the notice,
	// as UserPromptSubmit's additionalContext (2.1.328, live).
	if body := told(a, "second from A"); !strings.Contains(body, "UserPromptSubmit hook additional context: hookctl: the user has switched this session from EDIT to READ-ONLY mode") {
		t.Errorf("after /readonly on, A's next request does not state READ-ONLY mode: %s", lastUserTurn(body))
	}
	if mode(idB) != hook.ModeReview {
		t.Errorf("B changed to %v", mode(idB))
	}

	// A resumed session: its start tells the model the mode (switched meanwhile from a terminal
	// to review mode), and its new client process is found by `! hookctl` too.
	a.Close()
	session.ToggleReview.Apply(store, idA, "cli", "", hook.ModeReadOnly, nil)
	before := len(s.API.Requests())
	a = start("--resume", idA)
	out = bang(a, hookctl+" readonly off", "session "+shortA+": 👁 REVIEW → ✏ EDIT")
	if mode(idA) != hook.ModeEdit || mode(idB) != hook.ModeReview {
		t.Fatalf("after ! readonly off in resumed A: A %v, B %v", mode(idA), mode(idB))
	}
	if !strings.Contains(out, "switched this session from REVIEW to EDIT mode") {
		t.Errorf("resumed A's next request does not state EDIT mode: %s", out)
	}
	var resumed string
	for _, q := range s.API.Requests()[before:] {
		if q.Thread == ct.Main {
			resumed = string(q.Body)
			break
		}
	}
	if !strings.Contains(resumed, "SessionStart hook additional context: hookctl: this session is in REVIEW mode") {
		t.Errorf("the resumed session's first request does not state its mode at the resume: %s", lastUserTurn(resumed))
	}
	// /clear starts a new session in the same client process: its shell now means the new one.
	b.Submit("/clear")
	var idC string
	b.WaitUntil("a third session", 20*time.Second, func(string) bool {
		for _, id := range ids() {
			if id != idA && id != idB {
				idC = id
			}
		}
		return idC != ""
	})
	bang(b, hookctl+" readonly off", "session "+store.Short(idC)+": 🔒 READ-ONLY → ✏ EDIT")
	if mode(idC) != hook.ModeEdit || mode(idB) != hook.ModeReview || mode(idA) != hook.ModeEdit {
		t.Errorf("after /clear and ! readonly off in B's client: A %v, B %v, new %v", mode(idA), mode(idB), mode(idC))
	}

	// The model reads hookctl's word "/readonly on" in its notices, but never a command typed.
	for _, typed := range []string{`"/read"`, `"/readonly status"`, `"/readonly on"`, "<command-name>/readonly"} {
		if s.API.Saw(typed) {
			t.Errorf("the model was sent %s", typed)
		}
	}
}
