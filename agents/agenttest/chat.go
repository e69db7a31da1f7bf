package agenttest

import (
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"sync/atomic"
	"testing"
)

// Chat is a fake OpenAI Chat Completions API (POST /v1/chat/completions, streamed or not), which
// Qwen Code and Copilot CLI speak.
type Chat struct {
	fake
	// asksAgain: the model asks once more for a shell step whose result came back empty from a
	// command that succeeded (LostOutput), as a model would when a client dropped the output.
	asksAgain  bool
	askedAgain atomic.Int32 // how many steps it asked again for, in the longest conversation
}

// NewChat starts the fake on loopback; it stops when the test ends.
func NewChat(t testing.TB, script []Step) *Chat {
	c := &Chat{}
	c.start(t, script, c.serve)
	t.Cleanup(func() {
		if n := c.askedAgain.Load(); n > 0 {
			t.Logf("the client dropped the output of %d shell step(s), which the model asked for again", n)
		}
	})
	return c
}

// URL is the base URL a client points at (…/v1).
func (c *Chat) URL() string { return c.srv.URL + "/v1" }

type chatTool struct {
	Function struct {
		Name       string `json:"name"`
		Parameters struct {
			Properties map[string]json.RawMessage `json:"properties"`
		} `json:"parameters"`
	} `json:"function"`
}

type chatRequest struct {
	Stream   bool `json:"stream"`
	Messages []struct {
		Role    string          `json:"role"`
		Content json.RawMessage `json:"content"`
	} `json:"messages"`
	Tools []chatTool `json:"tools"`
}

// LostOutput is how Qwen Code reports a shell command's result when it dropped the command's
// output, as the request's JSON has it: none, and exit code 0. Qwen Code 0.24.4 resolves a headless (child_process) command on
// the child's 'exit' event, which Node emits before the child's stdout is read when the two
// race: a command that printed (grep Seccomp: /proc/self/status, exit 0) came back as
// "Output: (empty)" in about one run in five on a loaded machine.
const LostOutput = `\nOutput: (empty)\nError: (none)\nExit Code: 0\n`

// shellTools and writeTools are the clients' shell and write tools, with the argument that
// holds the command, the path and the content.
var shellTools = map[string]string{"run_shell_command": "command", "bash": "command", "shell": "command"}
var writeTools = map[string][2]string{"write_file": {"file_path", "content"}, "create": {"path", "file_text"}}

func (c *Chat) serve(w http.ResponseWriter, req *http.Request, body []byte) {
	if !strings.HasSuffix(req.URL.Path, "/chat/completions") {
		if strings.HasSuffix(req.URL.Path, "/models") {
			writeJSON(w, map[string]any{"object": "list", "data": []any{map[string]any{"id": "gpt-4.1", "object": "model"}}})
			return
		}
		http.NotFound(w, req)
		return
	}
	rq := decode[chatRequest](body)
	// done counts the script's steps the conversation has results for; where the fake asks
	// again, a step whose output was lost counts once its second result is in.
	done, again, results, asked := 0, false, 0, int32(0)
	for _, m := range rq.Messages {
		if m.Role != "tool" {
			continue
		}
		results++
		if c.asksAgain && !again && done < len(c.script) && c.script[done].Shell != "" && strings.Contains(string(m.Content), LostOutput) {
			again, asked = true, asked+1
			continue
		}
		done, again = done+1, false
	}
	for n := c.askedAgain.Load(); asked > n && !c.askedAgain.CompareAndSwap(n, asked); n = c.askedAgain.Load() {
	}
	var name, args string
	if done < len(c.script) && len(rq.Tools) > 0 {
		name, args = c.call(rq.Tools, c.script[done])
	}
	id := fmt.Sprintf("call_%d", results+1)
	if !rq.Stream {
		msg := map[string]any{"role": "assistant", "content": Done}
		finish := "stop"
		if name != "" {
			msg = map[string]any{"role": "assistant", "content": nil, "tool_calls": []any{map[string]any{"id": id, "type": "function",
				"function": map[string]any{"name": name, "arguments": args}}}}
			finish = "tool_calls"
		}
		writeJSON(w, map[string]any{"id": "chatcmpl-" + id, "object": "chat.completion", "created": 1, "model": "gpt-4.1",
			"choices": []any{map[string]any{"index": 0, "message": msg, "finish_reason": finish}},
			"usage":   map[string]any{"prompt_tokens": 10, "completion_tokens": 10, "total_tokens": 20}})
		return
	}
	w.Header().Set("Content-Type", "text/event-stream")
	chunk := func(delta map[string]any, finish any) {
		ch := map[string]any{"id": "chatcmpl-" + id, "object": "chat.completion.chunk", "created": 1, "model": "gpt-4.1",
			"choices": []any{map[string]any{"index": 0, "delta": delta, "finish_reason": finish}}}
		if finish != nil {
			ch["usage"] = map[string]any{"prompt_tokens": 10, "completion_tokens": 10, "total_tokens": 20}
		}
		sse(w, "", ch)
	}
	if name != "" {
		chunk(map[string]any{"role": "assistant", "tool_calls": []any{map[string]any{"index": 0, "id": id, "type": "function",
			"function": map[string]any{"name": name, "arguments": args}}}}, nil)
		chunk(map[string]any{}, "tool_calls")
	} else {
		chunk(map[string]any{"role": "assistant", "content": Done}, nil)
		chunk(map[string]any{}, "stop")
	}
	fmt.Fprint(w, "data: [DONE]\n\n")
}

// call is the tool call that makes step s with the tools the request offers.
func (c *Chat) call(tools []chatTool, s Step) (name, args string) {
	for _, t := range tools {
		n := t.Function.Name
		var a map[string]any
		if key, ok := shellTools[n]; ok && s.Shell != "" {
			a = map[string]any{key: s.Shell}
			if _, ok := t.Function.Parameters.Properties["description"]; ok {
				a["description"] = "a step of the test's script"
			}
		} else if keys, ok := writeTools[n]; ok && s.Write != "" {
			a = map[string]any{keys[0]: s.Write, keys[1]: s.Content}
		}
		if a != nil {
			b, _ := json.Marshal(a)
			return n, string(b)
		}
	}
	return "", ""
}

// ToolNames are the tools the first request with tools offered.
func (c *Chat) ToolNames() []string { return toolNames[chatRequest](&c.fake) }

func (rq *chatRequest) results() (n int) {
	for _, m := range rq.Messages {
		if m.Role == "tool" {
			n++
		}
	}
	return n
}

func (rq *chatRequest) names() (out []string) {
	for _, t := range rq.Tools {
		out = append(out, t.Function.Name)
	}
	return out
}

func writeJSON(w http.ResponseWriter, v any) {
	w.Header().Set("Content-Type", "application/json")
	json.NewEncoder(w).Encode(v)
}
