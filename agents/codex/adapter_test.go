package codex

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/hookctl/hookctl/hook"
)

// TestDecodeRecordedPayloads reads every payload Codex 0.169.0 sent (fixtures/codex, recorded by
// agents/conformance with -record) into the call the policy judges.
func TestDecodeRecordedPayloads(t *testing.T) {
	files, _ := filepath.Glob("../../fixtures/codex/*.json")
	if len(files) == 0 {
		t.Fatal("no fixtures")
	}
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		ev, err := Adapter{}.Decode(b)
		if err != nil {
			t.Fatalf("%s: %v", f, err)
		}
		if ev.Name == hook.EventSessionStart {
			if ev.Session == "" || ev.Cwd != "/home/user/proj" {
				t.Errorf("%s: decoded as %+v", f, ev)
			}
			continue
		}
		c := ev.Call
		if ev.Name != hook.EventToolCall || c.Session == "" || c.UseID == "" || c.Cwd != "/home/user/proj" {
			t.Errorf("%s: decoded as %+v", f, c)
		}
		switch c.Tool {
		case "Bash":
			if c.Kind != hook.KindShell || c.Command == "" {
				t.Errorf("%s: decoded as %+v", f, c)
			}
		case "apply_patch":
			if c.Kind != hook.KindFileWrite || strings.Join(c.Paths, " ") != "/home/user/proj/f" {
				t.Errorf("%s: decoded as %+v", f, c)
			}
		default:
			t.Errorf("%s: tool %q", f, c.Tool)
		}
	}
}

func call(t *testing.T, tool, input string) *hook.Event {
	t.Helper()
	ev, err := Adapter{}.Decode([]byte(`{"session_id":"s1","turn_id":"t","cwd":"/p","hook_event_name":"PreToolUse","model":"m",` +
		`"permission_mode":"bypassPermissions","tool_name":"` + tool + `","tool_input":` + input + `,"tool_use_id":"call_1"}`))
	if err != nil {
		t.Fatalf("%s %s: %v", tool, input, err)
	}
	return ev
}

// TestToolKinds: Bash is the shell, apply_patch a write of the files its headers name, mcp__
// tools change things, and any other tool is unknown (refused in read-only mode).
func TestToolKinds(t *testing.T) {
	if c := call(t, "Bash", `{"command":"ls"}`).Call; c.Kind != hook.KindShell || c.Command != "ls" || c.NoRewrite {
		t.Errorf("Bash: %+v", c)
	}
	patch := `{"command":"*** Begin Patch\n*** Update File: a.go\n@@\n-x\n+y\n*** Move to: b.go\n*** Add File: /etc/c\n+z\n*** End Patch\n"}`
	if c := call(t, "apply_patch", patch).Call; c.Kind != hook.KindFileWrite || strings.Join(c.Paths, " ") != "a.go b.go /etc/c" {
		t.Errorf("apply_patch: %+v", c)
	}
	if c := call(t, "mcp__fs__write", `{"path":"x"}`).Call; c.Kind != hook.KindOther {
		t.Errorf("mcp: %+v", c)
	}
	if c := call(t, "write_stdin", `{"chars":"rm -rf /\n"}`).Call; c.Kind != hook.KindUnknown {
		t.Errorf("unknown tool: %+v", c)
	}
	for _, bad := range []string{`{"command":"*** Begin Patch\n*** End Patch\n"}`, `{"command":"*** Add File: \n"}`, `{}`} {
		if _, err := (Adapter{}).Decode([]byte(`{"session_id":"s","hook_event_name":"PreToolUse","tool_name":"apply_patch","tool_input":` + bad + `}`)); err == nil {
			t.Errorf("apply_patch %s: decoded", bad)
		}
	}
}

// TestEncodeNeverFailsOpen: every decision comes out in a shape Codex's parser takes as that
// decision (codex-rs/hooks engine/output_parser.rs): a deny always has a non-empty reason, an ask
// is a deny, a rewrite is allow with updatedInput, and nothing else carries a decision.
func TestEncodeNeverFailsOpen(t *testing.T) {
	ev := call(t, "Bash", `{"command":"ls *.go"}`)
	for _, tc := range []struct {
		d    hook.Decision
		want string
	}{
		{hook.Decision{Verdict: hook.Deny, Reason: "no"}, `{"hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecision":"deny","permissionDecisionReason":"no"}}`},
		{hook.Decision{Verdict: hook.Deny, Reason: " "}, `{"hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecision":"deny","permissionDecisionReason":"hookctl refused this call"}}`},
		{hook.Decision{Verdict: hook.Ask, Reason: "publish?"}, `{"hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecision":"deny","permissionDecisionReason":"publish?` + askRefusal + `"}}`},
		{hook.Decision{Verdict: hook.Allow, Reason: "ok", Command: "ls a.go"}, `{"hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecision":"allow","permissionDecisionReason":"ok","updatedInput":{"command":"ls a.go"}}}`},
		{hook.Decision{Verdict: hook.Pass, Command: "sandboxed"}, `{"hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecision":"allow","updatedInput":{"command":"sandboxed"}}}`},
		{hook.Decision{Verdict: hook.Allow, Reason: "ok"}, `{}`},
		{hook.Decision{Verdict: hook.Pass, Reason: "r"}, `{}`},
		{hook.Decision{Verdict: hook.Pass, Context: "mode"}, `{"hookSpecificOutput":{"hookEventName":"PreToolUse","additionalContext":"mode"}}`},
	} {
		out, err := Adapter{}.Encode(ev, tc.d)
		if err != nil {
			t.Fatal(err)
		}
		if got := strings.TrimSpace(string(out)); got != tc.want {
			t.Errorf("%+v:\n got %s\nwant %s", tc.d, got, tc.want)
		}
		var m map[string]any
		if json.Unmarshal(out, &m) != nil {
			t.Errorf("not JSON: %s", out)
		}
	}
}

// TestRefuseIsADeny: the runner's failures (a panic, the deadline, an oversized or broken
// payload) come out as a deny with a reason, whatever the payload.
func TestRefuseIsADeny(t *testing.T) {
	for _, p := range []string{"", "{", `{"hook_event_name":"PreToolUse"}`, strings.Repeat("x", 100)} {
		out := Adapter{}.Refuse([]byte(p), "broken")
		if string(out) != `{"hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecision":"deny","permissionDecisionReason":"broken"}}`+"\n" {
			t.Errorf("%q: %s", p, out)
		}
	}
	if out := (Adapter{}).Refuse([]byte(`{"hook_event_name":"UserPromptSubmit"}`), ""); string(out) != `{"decision":"block","reason":"hookctl refused this call"}`+"\n" {
		t.Errorf("prompt: %s", out)
	}
}
