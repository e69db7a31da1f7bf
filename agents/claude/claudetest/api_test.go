package claudetest_test

import (
	"encoding/json"
	"io"
	"net/http"
	"strings"
	"testing"

	ct "github.com/hookctl/hookctl/agents/claude/claudetest"
)

// post sends a Messages API request body to the fake and returns the reply.
func post(t *testing.T, api *ct.API, path string, body any) string {
	t.Helper()
	b, err := json.Marshal(body)
	if err != nil {
		t.Fatal(err)
	}
	resp, err := http.Post(api.URL()+path, "application/json", strings.NewReader(string(b)))
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	out, _ := io.ReadAll(resp.Body)
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("POST %s: %s: %s", path, resp.Status, out)
	}
	return string(out)
}

var bashTool = []any{map[string]any{"name": "Bash", "input_schema": map[string]any{"type": "object"}}}

func userText(s string) map[string]any {
	return map[string]any{"role": "user", "content": []any{map[string]any{"type": "text", "text": s}}}
}

func toolResult(id, text string, isError bool) map[string]any {
	return map[string]any{"role": "user", "content": []any{map[string]any{
		"type": "tool_result", "tool_use_id": id, "is_error": isError, "content": text}}}
}

func TestFakeAPIPlaysEachThreadsScript(t *testing.T) {
	api := ct.NewAPI(t, ct.Script{
		Marker: "MARK",
		Main:   []ct.Call{ct.Bash("ls"), ct.Bash("pwd")},
		Sub:    []ct.Call{ct.Bash("git log")},
	})
	for _, row := range []struct {
		name     string
		messages []any
		want     []string // substrings of the event stream
	}{
		{"main first call", []any{userText("hi")},
			[]string{`"id":"toolu_main_00"`, `"partial_json":"{\"command\":\"ls\"`, `"stop_reason":"tool_use"`, "event: message_stop"}},
		{"main second call after one result", []any{userText("hi"), toolResult("toolu_main_00", "x", false)},
			[]string{`"id":"toolu_main_01"`, `pwd`}},
		{"main script run out", []any{userText("hi"), toolResult("toolu_main_00", "x", false), toolResult("toolu_main_01", "y", true)},
			[]string{`"text_delta"`, `"text":"Done."`, `"stop_reason":"end_turn"`}},
		{"subagent by marker in its first message", []any{userText("MARK: explore")},
			[]string{`"id":"toolu_sub_00"`, `git log`}},
		{"marker later in the main thread is not a subagent", []any{userText("hi"), userText("MARK"), toolResult("toolu_main_00", "x", false)},
			[]string{`"id":"toolu_main_01"`}},
	} {
		got := post(t, api, "/v1/messages?beta=true", map[string]any{"model": "m", "stream": true, "tools": bashTool, "messages": row.messages})
		for _, w := range row.want {
			if !strings.Contains(got, w) {
				t.Errorf("%s: reply lacks %s:\n%s", row.name, w, got)
			}
		}
	}

	if got := post(t, api, "/v1/messages", map[string]any{"model": "m", "messages": []any{userText("title?")}}); !strings.Contains(got, `"text":"Done."`) {
		t.Errorf("a request without tools should get plain text, got %s", got)
	}
	if got := post(t, api, "/v1/messages/count_tokens", map[string]any{"messages": []any{}}); !strings.Contains(got, "input_tokens") {
		t.Errorf("count_tokens: got %s", got)
	}

	results := api.ToolResults()
	if len(results) != 2 || results[0].ToolUseID != "toolu_main_00" || results[0].Tool != "Bash" ||
		results[1].ToolUseID != "toolu_main_01" || !results[1].IsError || results[1].Text != "y" {
		t.Errorf("ToolResults: want main_00 and main_01 (error, text y) once each, got %+v", results)
	}
	if r, ok := api.ResultFor(ct.Main, 1); !ok || r.Text != "y" {
		t.Errorf("ResultFor(main, 1) = %+v, %v", r, ok)
	}
	if !api.Saw("MARK: explore") || api.Saw("never sent") {
		t.Error("Saw does not match what was sent")
	}
	if got := api.Tools(ct.Sub); len(got) != 1 || got[0] != "Bash" {
		t.Errorf("Tools(sub) = %v", got)
	}
}
