package qwen

import (
	"strings"
	"testing"

	"github.com/hookctl/hookctl/hook"
)

// TestEncodeShapes: every decision comes out as the one shape this client takes as that
// decision, never one it reads as invalid (and so runs the tool): a deny always with a
// non-empty reason, and each failure of the runner a deny.
func TestEncodeShapes(t *testing.T) {
	ev, err := Adapter{}.Decode([]byte(`{"session_id":"s","cwd":"/p","hook_event_name":"PreToolUse","tool_name":"run_shell_command","tool_input":{"command":"ls"},"tool_use_id":"t"}`))
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		d    hook.Decision
		want string
	}{
		{hook.Decision{Verdict: hook.Deny, Reason: "no"}, denyOf("no")},
		{hook.Decision{Verdict: hook.Deny}, denyOf("hookctl: deny")},
		{hook.Decision{Verdict: hook.Allow, Reason: "ok", Command: "/bin/hookctl retrieve"}, `{"hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecision":"allow","permissionDecisionReason":"ok"}}`},
		{hook.Decision{Verdict: hook.Ask, Reason: "publish?"}, `{"hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecision":"ask","permissionDecisionReason":"publish?"}}`},
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
