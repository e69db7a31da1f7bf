package agenttest

import (
	"encoding/json"
	"fmt"
	"net/http"
	"slices"
	"testing"
)

// Responses is a fake OpenAI Responses API (POST /v1/responses, streamed), which Codex speaks.
type Responses struct{ fake }

// NewResponses starts the fake on loopback; it stops when the test ends.
func NewResponses(t testing.TB, script []Step) *Responses {
	r := &Responses{}
	r.start(t, script, r.serve)
	return r
}

// URL is the base URL a client's provider points at (…/v1).
func (r *Responses) URL() string { return r.srv.URL + "/v1" }

type responsesTool struct {
	Type       string `json:"type"`
	Name       string `json:"name"`
	Parameters struct {
		Properties map[string]struct {
			Type any `json:"type"`
		} `json:"properties"`
	} `json:"parameters"`
}

type responsesRequest struct {
	Input []struct {
		Type string `json:"type"`
	} `json:"input"`
	Tools []responsesTool `json:"tools"`
}

func (r *Responses) serve(w http.ResponseWriter, req *http.Request, body []byte) {
	if req.URL.Path != "/v1/responses" {
		http.NotFound(w, req)
		return
	}
	rq := decode[responsesRequest](body)
	done := rq.results()
	var item map[string]any
	if done < len(r.script) && len(rq.Tools) > 0 {
		item = r.call(rq.Tools, r.script[done], fmt.Sprintf("call_%d", done+1))
	}
	if item == nil {
		item = map[string]any{"type": "message", "role": "assistant", "id": fmt.Sprintf("msg_%d", done+1),
			"content": []any{map[string]any{"type": "output_text", "text": Done, "annotations": []any{}}}}
	}
	w.Header().Set("Content-Type", "text/event-stream")
	id := fmt.Sprintf("resp_%d", len(r.Requests()))
	sse(w, "response.created", map[string]any{"type": "response.created", "response": map[string]any{"id": id}})
	sse(w, "response.output_item.done", map[string]any{"type": "response.output_item.done", "output_index": 0, "item": item})
	sse(w, "response.completed", map[string]any{"type": "response.completed", "response": map[string]any{"id": id,
		"usage": map[string]any{"input_tokens": 10, "output_tokens": 10, "total_tokens": 20}}})
}

// call is the output item that makes step s with the tools the request offers: the shell tool
// with its arguments built from its schema, apply_patch (freeform or a function) for a write.
func (r *Responses) call(tools []responsesTool, s Step, id string) map[string]any {
	if s.Write != "" && !offers(tools, "apply_patch") {
		// Codex runs a shell call of apply_patch as its apply_patch tool (and hooks it as one)
		// when the model has no apply_patch tool of its own.
		s = Shell("apply_patch <<'EOF'\n" + patchFor(s) + "EOF\n")
	}
	for _, t := range tools {
		switch {
		case s.Shell != "" && (t.Name == "exec_command" || t.Name == "shell" || t.Name == "shell_command"):
			args := map[string]any{}
			for k, p := range t.Parameters.Properties {
				switch {
				case k == "cmd":
					args["cmd"] = s.Shell
				case k == "command" && p.Type == "array":
					args["command"] = []string{"bash", "-lc", s.Shell}
				case k == "command":
					args["command"] = s.Shell
				}
			}
			b, _ := json.Marshal(args)
			return map[string]any{"type": "function_call", "id": "fc_" + id, "call_id": id, "name": t.Name, "arguments": string(b)}
		case s.Write != "" && t.Name == "apply_patch":
			patch := patchFor(s)
			if t.Type == "custom" {
				return map[string]any{"type": "custom_tool_call", "id": "ctc_" + id, "call_id": id, "name": t.Name, "input": patch}
			}
			b, _ := json.Marshal(map[string]string{"input": patch})
			return map[string]any{"type": "function_call", "id": "fc_" + id, "call_id": id, "name": t.Name, "arguments": string(b)}
		}
	}
	return nil
}

// patchFor is a Codex patch that adds the file a write step writes.
func patchFor(s Step) string {
	patch := "*** Begin Patch\n*** Add File: " + s.Write + "\n"
	for _, line := range splitLines(s.Content) {
		patch += "+" + line + "\n"
	}
	return patch + "*** End Patch\n"
}

func offers(tools []responsesTool, name string) bool {
	return slices.ContainsFunc(tools, func(t responsesTool) bool { return t.Name == name })
}

// ToolNames are the tools the first request with tools offered.
func (r *Responses) ToolNames() []string { return toolNames[responsesRequest](&r.fake) }

func (rq *responsesRequest) results() (n int) {
	for _, it := range rq.Input {
		if it.Type == "function_call_output" || it.Type == "custom_tool_call_output" {
			n++
		}
	}
	return n
}

func (rq *responsesRequest) names() (out []string) {
	for _, t := range rq.Tools {
		out = append(out, t.Type+":"+t.Name)
	}
	return out
}

func splitLines(s string) []string {
	var out []string
	for len(s) > 0 {
		i := 0
		for i < len(s) && s[i] != '\n' {
			i++
		}
		out = append(out, s[:i])
		if i < len(s) {
			i++
		}
		s = s[i:]
	}
	return out
}

// sse writes one server-sent event.
func sse(w http.ResponseWriter, name string, data any) {
	b, _ := json.Marshal(data)
	if name != "" {
		fmt.Fprintf(w, "event: %s\n", name)
	}
	fmt.Fprintf(w, "data: %s\n\n", b)
	if f, ok := w.(http.Flusher); ok {
		f.Flush()
	}
}
