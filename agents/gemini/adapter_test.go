package gemini

import (
	"strings"
	"testing"

	"github.com/hookctl/hookctl/hook"
)

// TestEncodeShapes: every decision comes out as the one shape this client takes as that
// decision, never one it reads as invalid (and so runs the tool): a deny always with a
// non-empty reason, and each failure of the runner a deny.
func TestEncodeShapes(t *testing.T) {
	ev, err := Adapter{}.Decode([]byte(`{"session_id":"s","cwd":"/p","hook_event_name":"BeforeTool","tool_name":"run_shell_command","tool_input":{"command":"ls","description":"d"}}`))
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		d    hook.Decision
		want string
	}{
		{hook.Decision{Verdict: hook.Deny, Reason: "no"}, denyOf("no")},
		{hook.Decision{Verdict: hook.Deny, Reason: "\n"}, denyOf("hookctl refused this call")},
		{hook.Decision{Verdict: hook.Ask, Reason: "publish?"}, denyOf("publish?" + askRefusal)},
		{hook.Decision{Verdict: hook.Allow, Reason: "ok", Command: "sb ls"}, `{"decision":"allow","reason":"ok","hookSpecificOutput":{"hookEventName":"BeforeTool","tool_input":{"command":"sb ls"}}}`},
		{hook.Decision{Verdict: hook.Pass, Command: "sb ls"}, `{"hookSpecificOutput":{"hookEventName":"BeforeTool","tool_input":{"command":"sb ls"}}}`},
		{hook.Decision{Verdict: hook.Pass}, `{}`},
	} {
		out, err := Adapter{}.Encode(ev, tc.d)
		if err != nil {
			t.Fatal(err)
		}
		if got := strings.TrimSpace(string(out)); got != tc.want {
			t.Errorf("%+v:\n got %s\nwant %s", tc.d, got, tc.want)
		}
	}
	for _, p := range []string{"", "{", strings.Repeat("x", 64)} {
		if got, want := strings.TrimSpace(string(Adapter{}.Refuse([]byte(p), "broken"))), denyOf("broken"); got != want {
			t.Errorf("Refuse(%q) = %s, want %s", p, got, want)
		}
	}
}

func denyOf(reason string) string { return `{"decision":"deny","reason":"` + reason + `"}` }
