package qwen

import (
	"testing"

	"github.com/hookctl/hookctl/agents/agenttest"
	"github.com/hookctl/hookctl/hook"
)

// TestEncodeShapes: every decision comes out as the one shape this client takes as that
// decision, never one it reads as invalid (and so runs the tool): a deny always with a
// non-empty reason, and each failure of the runner a deny.
func TestEncodeShapes(t *testing.T) {
	agenttest.CheckAnswers(t, Adapter{}, `{"session_id":"s","cwd":"/p","hook_event_name":"PreToolUse","tool_name":"run_shell_command","tool_input":{"command":"ls"},"tool_use_id":"t"}`, []agenttest.Answer{
		{D: hook.Decision{Verdict: hook.Deny, Reason: "no"}, Want: denyOf("no")},
		{D: hook.Decision{Verdict: hook.Deny}, Want: denyOf("hookctl: deny")},
		{D: hook.Decision{Verdict: hook.Allow, Reason: "ok", Command: "/bin/hookctl retrieve"}, Want: `{"hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecision":"allow","permissionDecisionReason":"ok"}}`},
		{D: hook.Decision{Verdict: hook.Ask, Reason: "publish?"}, Want: `{"hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecision":"ask","permissionDecisionReason":"publish?"}}`},
		{D: hook.Decision{Verdict: hook.Pass}, Want: `{}`},
		{D: hook.Decision{Verdict: hook.Pass, Context: "mode: edit"}, Want: `{"hookSpecificOutput":{"hookEventName":"PreToolUse","additionalContext":"mode: edit"}}`},
	}, denyOf)
}

func denyOf(reason string) string {
	return `{"hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecision":"deny","permissionDecisionReason":"` + reason + `"}}`
}

// TestShellIsNoRewrite: Qwen Code takes no rewritten input, so its shell calls are judged as
// commands that must run as written, from the directory the model named.
func TestShellIsNoRewrite(t *testing.T) {
	ev, err := Adapter{}.Decode([]byte(`{"session_id":"s","cwd":"/p","hook_event_name":"PreToolUse","tool_name":"run_shell_command","tool_input":{"command":"ls","directory":"sub"}}`))
	if err != nil || !ev.Call.NoRewrite || ev.Call.Cwd != "/p/sub" {
		t.Fatalf("%+v %v", ev.Call, err)
	}
	for tool, kind := range map[string]hook.Kind{"write_file": hook.KindFileWrite, "save_memory": hook.KindOther, "mcp__x__y": hook.KindOther, "brand_new": hook.KindUnknown} {
		if got := protocol.Lookup(tool).Kind; got != kind {
			t.Errorf("%s: %v, want %v", tool, got, kind)
		}
	}
}
