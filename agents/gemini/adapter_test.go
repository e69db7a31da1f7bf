package gemini

import (
	"testing"

	"github.com/hookctl/hookctl/agents/agenttest"
	"github.com/hookctl/hookctl/hook"
)

// TestEncodeShapes: every decision comes out as the one shape this client takes as that
// decision, never one it reads as invalid (and so runs the tool): a deny always with a
// non-empty reason, and each failure of the runner a deny.
func TestEncodeShapes(t *testing.T) {
	agenttest.CheckAnswers(t, Adapter{}, `{"session_id":"s","cwd":"/p","hook_event_name":"BeforeTool","tool_name":"run_shell_command","tool_input":{"command":"ls","description":"d"}}`, []agenttest.Answer{
		{D: hook.Decision{Verdict: hook.Deny, Reason: "no"}, Want: denyOf("no")},
		{D: hook.Decision{Verdict: hook.Deny, Reason: "\n"}, Want: denyOf("hookctl refused this call")},
		{D: hook.Decision{Verdict: hook.Ask, Reason: "publish?"}, Want: denyOf("publish?" + askRefusal)},
		{D: hook.Decision{Verdict: hook.Allow, Reason: "ok", Command: "sb ls"}, Want: `{"decision":"allow","reason":"ok","hookSpecificOutput":{"hookEventName":"BeforeTool","tool_input":{"command":"sb ls"}}}`},
		{D: hook.Decision{Verdict: hook.Pass, Command: "sb ls"}, Want: `{"hookSpecificOutput":{"hookEventName":"BeforeTool","tool_input":{"command":"sb ls"}}}`},
		{D: hook.Decision{Verdict: hook.Pass}, Want: `{}`},
	}, denyOf)
}

func denyOf(reason string) string { return `{"decision":"deny","reason":"` + reason + `"}` }
