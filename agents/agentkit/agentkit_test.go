package agentkit

import (
	"strings"
	"testing"

	"github.com/tidwall/gjson"

	"github.com/hookctl/hookctl/hook"
)

// TestParseRefusesWhatReadersDisagreeOn: a key twice (anywhere), a non-object, invalid JSON.
func TestParseRefusesWhatReadersDisagreeOn(t *testing.T) {
	for _, in := range []string{`{"a":1,"a":2}`, `{"tool_input":{"command":"ls","command":"rm -rf ~"}}`, `[]`, `"x"`, `{`, ``} {
		if _, err := Parse([]byte(in)); err == nil {
			t.Errorf("Parse(%q): no error", in)
		}
	}
	if _, err := Parse([]byte(`{"a":{"b":1},"c":{"b":2}}`)); err != nil {
		t.Errorf("one key in two objects: %v", err)
	}
}

// TestFillCallNeedsWhatItJudges: a shell tool without a string command, a write without its
// path, a fetch without its URL are errors (the call is refused), never a call judged on less.
func TestFillCallNeedsWhatItJudges(t *testing.T) {
	shell := Tool{Name: "sh", Kind: hook.KindShell, Command: "command", Dir: "dir"}
	write := Tool{Name: "w", Kind: hook.KindFileWrite, Write: "path"}
	fetch := Tool{Name: "f", Kind: hook.KindWeb, URL: "url"}
	for _, tc := range []struct {
		t  Tool
		in string
	}{
		{shell, `{}`}, {shell, `{"command":["rm","-rf","/"]}`}, {shell, `{"command":""}`}, {shell, `{"command":"ls","dir":1}`},
		{write, `{"content":"x"}`}, {write, `{"path":7}`}, {fetch, `{"prompt":"x"}`}, {shell, `"ls"`},
	} {
		c := &hook.ToolCall{Tool: tc.t.Name, Cwd: "/p"}
		if err := FillCall(c, tc.t, "tool_input", gjson.Parse(tc.in)); err == nil {
			t.Errorf("%s %s: no error (%+v)", tc.t.Name, tc.in, c)
		}
	}
	c := &hook.ToolCall{Cwd: "/p"}
	if err := FillCall(c, shell, "tool_input", gjson.Parse(`{"command":"cat x","dir":"../etc"}`)); err != nil || c.Cwd != "/etc" || c.Command != "cat x" {
		t.Errorf("the directory a command runs in: %+v %v", c, err)
	}
}

// TestPatchPaths: every header that names a file counts, a Move to as well; a patch that names
// none, or a header without a path, is an error.
func TestPatchPaths(t *testing.T) {
	got, err := PatchPaths("*** Begin Patch\n*** Update File: a\n@@\n-x\n+*** Add File: not-a-header\n*** Move to: b\n*** Delete File: c\r\n*** End Patch")
	if err != nil || strings.Join(got, ",") != "a,b,c" {
		t.Errorf("got %q, %v", got, err)
	}
	// A header Codex reads after trimming Unicode white space (a no-break space, an ideographic
	// space) names a file too: missing it would let a patch write a protected file in edit mode.
	got, err = PatchPaths("*** Begin Patch\n*** Update File: ok.go\n@@\n-a\n+b\n\u00a0*** Add File: /home/u/.bashrc\n+x\n\u3000\t*** Delete File: /etc/x \n*** End Patch")
	if err != nil || strings.Join(got, ",") != "ok.go,/home/u/.bashrc,/etc/x" {
		t.Errorf("headers after Unicode white space: %q, %v", got, err)
	}
	for _, bad := range []string{"*** Begin Patch\n*** End Patch", "*** Add File:   \n", ""} {
		if _, err := PatchPaths(bad); err == nil {
			t.Errorf("%q: no error", bad)
		}
	}
}

// testProtocol is a client with every feature of a Protocol: Claude-shaped keys, one event
// acted on among several, a table, external tools, and an input that may come as a string.
var testProtocol = Protocol{Name: "Test", Fields: ClaudeFields, Events: "Pre Post Start", InputMayBeString: true,
	Acts:  []Act{{Name: "Pre", Event: hook.EventToolCall}, {Name: "Start", Event: hook.EventSessionStart}},
	Tools: Tools{{Name: "sh", Kind: hook.KindShell, Command: "cmd"}}, External: "ext__"}

// TestReadIsStrict: the prologue's refusals, each with what it says; the cap holds at
// hook.MaxPayload and refuses one byte past it.
func TestReadIsStrict(t *testing.T) {
	only := testProtocol
	only.OnlyActs = true
	call := func(extra string) string {
		return `{"hook_event_name":"Pre","session_id":"s","tool_name":"sh","tool_input":{"cmd":"ls"}` + extra + `}`
	}
	pad := func(n int) string { // a payload of exactly n bytes
		return call(`,"pad":"` + strings.Repeat("a", n-len(call(`,"pad":""`))) + `"`)
	}
	for _, tc := range []struct {
		p       *Protocol
		payload string
		want    string
	}{
		{&testProtocol, pad(hook.MaxPayload + 1), "over 1048576 bytes"},
		{&testProtocol, `{"session_id":"s"}`, "hook_event_name is missing"},
		{&testProtocol, `{"hook_event_name":"Other"}`, `unknown hook event "Other"`},
		{&only, `{"hook_event_name":"Post"}`, "hookctl answers Test's Pre and Start only, not Post"},
		{&testProtocol, `{"hook_event_name":"Start"}`, "session_id is missing"},
		{&testProtocol, `{"hook_event_name":"Pre","session_id":"s","tool_name":"sh","tool_input":"{\"cmd\":1}"}`, "tool_input: cmd is not a string"},
		{&testProtocol, `{"hook_event_name":"Pre","session_id":"s","tool_name":"sh","tool_input":"{"}`, "tool_input: the payload is not valid JSON"},
		{&testProtocol, `{"hook_event_name":"Pre","session_id":"s","tool_name":"sh"}`, "tool_input is missing or not an object"},
		{&testProtocol, `{"hook_event_name":"Pre","session_id":"s","tool_name":"sh","agent_type":1,"tool_input":{"cmd":"ls"}}`, "agent_type is not a string"},
	} {
		if _, err := tc.p.Read([]byte(tc.payload)); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%.80s: %v, want %q", tc.payload, err, tc.want)
		}
	}
	if ev, err := testProtocol.Decode([]byte(pad(hook.MaxPayload))); err != nil || ev.Call.Command != "ls" {
		t.Errorf("a payload at the cap: %+v %v", ev, err)
	}
	if ev, err := testProtocol.Decode([]byte(`{"hook_event_name":"Post","cwd":7}`)); err != nil || ev.Name != hook.EventOther {
		t.Errorf("an event hookctl does not act on: %+v %v", ev, err)
	}
	ev, err := testProtocol.Decode([]byte(`{"hook_event_name":"Pre","session_id":"s","tool_name":"ext__x","tool_input":"{\"cmd\":\"ls\"}"}`))
	if err != nil || ev.Call.Kind != hook.KindOther || ev.Call.Command != "" || string(ev.Call.Input) != `{"cmd":"ls"}` {
		t.Errorf("an external tool, its input a string: %+v %v", ev, err)
	}
	for name, kind := range map[string]hook.Kind{"sh": hook.KindShell, "ext__y": hook.KindOther, "other": hook.KindUnknown} {
		if got := testProtocol.Lookup(name).Kind; got != kind {
			t.Errorf("Lookup(%s) = %v, want %v", name, got, kind)
		}
	}
}

// TestRewriteReplacesTheMemberJudged: the rewrite lands in the field the tool's entry names,
// every other byte kept; a tool that has no command field takes no rewrite.
func TestRewriteReplacesTheMemberJudged(t *testing.T) {
	ev, err := testProtocol.Decode([]byte(`{"hook_event_name":"Pre","session_id":"s","tool_name":"sh","tool_input":{"command":"x", "cmd":"ls"}}`))
	if err != nil {
		t.Fatal(err)
	}
	in, err := testProtocol.Rewrite(ev.Call, "sb ls")
	if err != nil || string(in) != `{"command":"x", "cmd":"sb ls"}` {
		t.Errorf("%s %v", in, err)
	}
	ev.Call.Tool = "ext__x"
	if _, err := testProtocol.Rewrite(ev.Call, "sb ls"); err == nil {
		t.Error("a tool without a command field was rewritten")
	}
}

// TestEnclosing: a client's project files in the session's directory and every one above it,
// home's left to the user's files, and nothing for a directory that is not absolute.
func TestEnclosing(t *testing.T) {
	names := []string{".c/hooks.json", ".c/settings.json"}
	got := strings.Join(Enclosing([]string{"/etc/c"}, "/home/u", "/home/u/p/../q/", names), " ")
	want := "/etc/c /home/u/q/.c/hooks.json /home/u/q/.c/settings.json /home/.c/hooks.json /home/.c/settings.json /.c/hooks.json /.c/settings.json"
	if got != want {
		t.Errorf("got  %s\nwant %s", got, want)
	}
	if got := Enclosing(nil, "/home/u", "p", names); len(got) != 0 {
		t.Errorf("a relative directory: %v", got)
	}
}

// TestShellIsTheToolThatTakesRewrites: the shell tool a command judged outside a payload is
// taken to run in is the one that takes the rewrite back, not one that streams it as written.
func TestShellIsTheToolThatTakesRewrites(t *testing.T) {
	ts := Tools{{Name: "Monitor", Kind: hook.KindShell, NoRewrite: true}, {Name: "Read", Kind: hook.KindFileRead}, {Name: "Bash", Kind: hook.KindShell}}
	if got := ts.Shell(); got != "Bash" {
		t.Errorf("Shell() = %q, want Bash", got)
	}
	if got := ts[:2].Shell(); got != "" {
		t.Errorf("Shell() without a rewriting shell = %q", got)
	}
}
