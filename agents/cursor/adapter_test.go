package cursor

import (
	"testing"

	"github.com/hookctl/hookctl/agents/agenttest"
	"github.com/hookctl/hookctl/hook"
)

// TestEncodeShapes: every decision comes out as the one shape this client takes as that
// decision, never one it reads as invalid (and so runs the tool): a deny always with a
// non-empty reason, and each failure of the runner a deny.
func TestEncodeShapes(t *testing.T) {
	agenttest.CheckAnswers(t, Adapter{}, `{"conversation_id":"c","hook_event_name":"preToolUse","workspace_roots":["/p"],"tool_name":"Shell","tool_input":{"command":"ls"}}`, []agenttest.Answer{
		{D: hook.Decision{Verdict: hook.Deny, Reason: "no"}, Want: denyOf("no")},
		{D: hook.Decision{Verdict: hook.Deny}, Want: denyOf("hookctl refused this call")},
		{D: hook.Decision{Verdict: hook.Ask, Reason: "publish?"}, Want: denyOf("publish?" + askRefusal)},
		{D: hook.Decision{Verdict: hook.Allow, Reason: "ok", Command: "sb ls"}, Want: `{"permission":"allow","updated_input":{"command":"sb ls"}}`},
		{D: hook.Decision{Verdict: hook.Pass}, Want: `{}`},
	}, denyOf)
}

func denyOf(reason string) string {
	return `{"permission":"deny","user_message":"` + reason + `","agent_message":"` + reason + `"}`
}

// TestFileToolWithoutPathRefused: a file tool whose input names no file is not guessed at.
func TestFileToolWithoutPathRefused(t *testing.T) {
	if _, err := (Adapter{}).Decode([]byte(`{"conversation_id":"c","hook_event_name":"preToolUse","tool_name":"Write","tool_input":{"target":"/etc/x"}}`)); err == nil {
		t.Error("decoded")
	}
	if _, err := (Adapter{}).Decode([]byte(`{"conversation_id":"c","hook_event_name":"beforeShellExecution","command":"ls"}`)); err == nil {
		t.Error("an event hookctl does not register was decoded")
	}
}
