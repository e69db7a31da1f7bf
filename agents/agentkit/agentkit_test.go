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
		if err := FillCall(c, tc.t, gjson.Parse(tc.in)); err == nil {
			t.Errorf("%s %s: no error (%+v)", tc.t.Name, tc.in, c)
		}
	}
	c := &hook.ToolCall{Cwd: "/p"}
	if err := FillCall(c, shell, gjson.Parse(`{"command":"cat x","dir":"../etc"}`)); err != nil || c.Cwd != "/etc" || c.Command != "cat x" {
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
