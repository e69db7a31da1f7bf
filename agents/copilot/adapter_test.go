package copilot

import (
	"testing"

	"github.com/hookctl/hookctl/agents/agenttest"
	"github.com/hookctl/hookctl/hook"
)

// TestEncodeShapes: every decision comes out as the one shape this client takes as that
// decision, never one it reads as invalid (and so runs the tool): a deny always with a
// non-empty reason, and each failure of the runner a deny.
func TestEncodeShapes(t *testing.T) {
	agenttest.CheckAnswers(t, Adapter{}, `{"sessionId":"s","timestamp":1,"cwd":"/p","toolName":"bash","toolArgs":"{\"command\":\"ls\",\"description\":\"d\"}"}`, []agenttest.Answer{
		{D: hook.Decision{Verdict: hook.Deny, Reason: "no"}, Want: denyOf("no")},
		{D: hook.Decision{Verdict: hook.Deny}, Want: denyOf("hookctl refused this call")},
		{D: hook.Decision{Verdict: hook.Ask, Reason: "publish?"}, Want: denyOf("publish?" + askRefusal)},
		{D: hook.Decision{Verdict: hook.Allow, Reason: "ok", Command: "sb ls"}, Want: `{"permissionDecision":"allow","permissionDecisionReason":"ok","modifiedArgs":{"command":"sb ls","description":"d"}}`},
		{D: hook.Decision{Verdict: hook.Pass}, Want: `{}`},
	}, denyOf)
}

func denyOf(reason string) string {
	return `{"permissionDecision":"deny","permissionDecisionReason":"` + reason + `"}`
}

// TestToolArgsStringHeldStrictly: toolArgs in its documented string form is read as strictly as
// the payload: a duplicate key inside it is refused.
func TestToolArgsStringHeldStrictly(t *testing.T) {
	if _, err := (Adapter{}).Decode([]byte(`{"sessionId":"s","toolName":"bash","toolArgs":"{\"command\":\"ls\",\"command\":\"rm -rf /\"}"}`)); err == nil {
		t.Error("a duplicate command inside toolArgs was read")
	}
}
