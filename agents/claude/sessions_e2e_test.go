package claude_test

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	ct "github.com/hookctl/hookctl/agents/claude/claudetest"
	"github.com/hookctl/hookctl/hook"
	"github.com/hookctl/hookctl/session"
)

// TestRealClientModeNoticeAtToolCall (issue 11, item 1): the user switches the mode while the
// model is in the middle of a turn (from a terminal, say); the model's next request, after its
// next tool call, states the new mode: additionalContext on PreToolUse reaches the model with
// the call's result, allowed or refused (2.1.328, live).
func TestRealClientModeNoticeAtToolCall(t *testing.T) {
	s, hookctl, home := newSession(t)
	s.InitGitRepo(commitSubject)
	hookOn(s, hookctl, modeEvents...)
	f := filepath.Join(s.Project, "f")
	store := session.NewStore(home)
	current := func() string {
		list, err := store.List()
		if err != nil || len(list) != 1 {
			t.Errorf("sessions %v %v", list, err)
			return "none"
		}
		return list[0].ID
	}
	s.Script = ct.Script{
		Main: []ct.Call{
			{Name: "Read", Input: map[string]any{"file_path": f}},                         // 0: read-only
			{Name: "Read", Input: map[string]any{"file_path": f}},                         // 1: the user switched to edit before it
			{Name: "Write", Input: map[string]any{"file_path": f, "content": "second\n"}}, // 2: and back to read-only: refused
		},
		BeforeCall: func(th ct.Thread, i int) {
			switch {
			case th != ct.Main:
			case i == 1:
				session.ToggleOff.Apply(store, current(), "cli", "", hook.ModeReadOnly, nil)
			case i == 2:
				session.ToggleOn.Apply(store, current(), "cli", "", hook.ModeReadOnly, nil)
			}
		},
	}
	r := s.Run("Look at f, then change it.")
	if tr, _ := s.API.ResultFor(ct.Main, 2); !tr.IsError {
		r.Fatalf(t, "the Write after /readonly on ran: %q", tr.Text)
	}
	// The request carrying call i's result is the first that shows it; what it says first is the
	// notice, if any.
	after := func(i int) string {
		id := "toolu_main_0" + string(rune('0'+i))
		for _, q := range s.API.Requests() {
			if q.Thread == ct.Main && strings.Contains(string(q.Body), `"tool_use_id":"`+id+`"`) {
				return string(q.Body)
			}
		}
		return ""
	}
	const toEdit, toReadOnly = "switched this session from READ-ONLY to EDIT mode", "switched this session from EDIT to READ-ONLY mode"
	if b := after(0); b == "" || strings.Contains(b, "switched this session") {
		r.Errorf(t, "after call 0 (no change yet): notice present or request missing")
	}
	if b := after(1); !strings.Contains(b, toEdit) || !strings.Contains(b, "you may change files") || strings.Contains(b, toReadOnly) {
		r.Errorf(t, "after call 1 (switched to edit), the model was not told: %s", lastUserTurn(b))
	}
	if b := after(2); !strings.Contains(b, toReadOnly) {
		r.Errorf(t, "after call 2 (refused, switched back), the model was not told: %s", lastUserTurn(b))
	}
	if n := strings.Count(after(2), toEdit); n != 1 {
		r.Errorf(t, "the notice of edit mode appears %d times in the last request, want once (told once)", n)
	}
}

// lastUserTurn is the last message of a request body, for failure messages.
func lastUserTurn(body string) string {
	var req struct {
		Messages []json.RawMessage `json:"messages"`
	}
	if json.Unmarshal([]byte(body), &req) != nil || len(req.Messages) == 0 {
		return body
	}
	return string(req.Messages[len(req.Messages)-1])
}

// TestRealClientPlanModeIsReadOnly (issue 11, item 9): in the client's own plan mode
// (--permission-mode plan; Shift+Tab in the TUI) a session hookctl holds in edit mode gets
// read-only rules: the user asked for a plan, not changes. The client reports the mode in each
// PreToolUse payload as permission_mode "plan" (2.1.328, live).
func TestRealClientPlanModeIsReadOnly(t *testing.T) {
	s, hookctl, home := newSession(t)
	s.InitGitRepo(commitSubject)
	os.WriteFile(filepath.Join(home, "config.toml"), []byte("default_mode = \"edit\"\n"), 0o600)
	hookOn(s, hookctl, "PreToolUse", "UserPromptSubmit", "SessionStart")
	f := filepath.Join(s.Project, "f")
	s.Script.Main = []ct.Call{
		{Name: "Write", Input: map[string]any{"file_path": f, "content": "planned\n"}},
		ct.Bash("touch g"),
	}
	s.Args = []string{"--permission-mode", "plan"}
	r := s.Run("Plan a change to f.")
	for i := range s.Script.Main {
		if tr, _ := s.API.ResultFor(ct.Main, i); !tr.IsError || !strings.Contains(tr.Text, "plan mode") {
			r.Errorf(t, "call %d in plan mode: is_error=%v %q", i, tr.IsError, tr.Text)
		}
	}
	if b, _ := os.ReadFile(f); string(b) != "a\n" {
		t.Errorf("f changed in plan mode: %q", b)
	}
	if _, err := os.Stat(filepath.Join(s.Project, "g")); err == nil {
		t.Error("g was created in plan mode")
	}
	list, _ := session.NewStore(home).List()
	if len(list) != 1 || list[0].Mode != hook.ModeEdit || !session.NewStore(home).InPlanMode(list[0].ID) {
		t.Errorf("sessions %+v: want one, in edit mode, noted in plan mode", list)
	}
	// Out of plan mode, the same session writes.
	s.Args = []string{"--resume", r.Output.SessionID}
	s.Script.Main = append(s.Script.Main, s.Script.Main[0]) // the fake counts the results so far: call 2
	r = s.Run("Now change f.")
	if b, _ := os.ReadFile(f); string(b) != "planned\n" {
		r.Errorf(t, "f after plan mode: %q", b)
	}
	if session.NewStore(home).InPlanMode(r.Output.SessionID) {
		t.Error("the session is still noted in plan mode (the status line would say so)")
	}
}
