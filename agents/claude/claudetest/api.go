// Package claudetest runs the real Claude Code client against a scripted, loopback-only fake of
// the Anthropic Messages API, so tests can watch what the client sends to hooks and what the
// model is shown afterwards.
//
// The fake plays the model: it answers each request with the next tool call of a script and ends
// the turn with text when the script runs out. It never reaches the network; the client is pointed
// at it with ANTHROPIC_BASE_URL and runs in a temporary HOME and project directory.
//
// Out of scope: the interactive terminal UI, MCP servers, and any claim about what a real model
// would do. A script says what the model calls; the test checks what the client and the hook did.
package claudetest

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
)

// Thread says which conversation a request to the fake belongs to.
type Thread string

const (
	// Main is the session's own conversation, started by the prompt given to claude -p.
	Main Thread = "main"
	// Sub is a subagent's conversation: its first user message carries Script.Marker.
	Sub Thread = "sub"
	// Aux is a request without client tools: titles, summaries, WebFetch's page digest.
	Aux Thread = "aux"
)

// Call is one tool call the fake model makes.
type Call struct {
	Name  string // tool name as offered, e.g. "Bash"
	Input any    // marshalled to JSON as the tool input
}

// Bash is shorthand for a Bash call with a description, as the model sends it.
func Bash(command string) Call {
	return Call{Name: "Bash", Input: map[string]any{"command": command, "description": "run " + command}}
}

// Script is what the fake model does: one tool call per turn, in order, on each thread.
type Script struct {
	Main   []Call
	Sub    []Call
	Marker string // a string that appears only in the prompt the main thread gives the subagent
	// BeforeCall, if set, runs before the fake answers with the i-th call of thread, and the
	// answer waits for it: a test changes the world between two calls of one turn this way.
	BeforeCall func(thread Thread, i int)
}

// Request is one request the client made to the fake.
type Request struct {
	Path   string
	Thread Thread
	Body   []byte
	// Credential is what the request authenticated with: its X-Api-Key, or its Authorization.
	Credential string
}

// ToolResult is a tool_result block the client sent back to the model.
type ToolResult struct {
	Thread    Thread
	ToolUseID string
	Tool      string // name of the scripted call this answers, "" if the ID is not ours
	IsError   bool
	Text      string // the content, text blocks joined by newlines
}

// API is a fake Messages API on 127.0.0.1. Its zero value is not usable; call NewAPI.
type API struct {
	srv *httptest.Server

	mu       sync.Mutex
	script   Script
	requests []Request
	calls    map[string]Call // tool_use_id → the scripted call that produced it
}

// NewAPI starts a fake that plays script. It is closed when the test ends.
func NewAPI(t testing.TB, script Script) *API {
	t.Helper()
	a := &API{script: script, calls: map[string]Call{}}
	a.srv = httptest.NewServer(http.HandlerFunc(a.serve))
	t.Cleanup(a.srv.Close)
	return a
}

// SetScript replaces the script; call it before the client starts.
func (a *API) SetScript(script Script) {
	a.mu.Lock()
	defer a.mu.Unlock()
	a.script = script
}

// URL is the base URL to give the client as ANTHROPIC_BASE_URL.
func (a *API) URL() string { return a.srv.URL }

// Requests returns a copy of every request received so far, in arrival order.
func (a *API) Requests() []Request {
	a.mu.Lock()
	defer a.mu.Unlock()
	return append([]Request(nil), a.requests...)
}

// Saw reports whether s appeared in any request body, as written or JSON-escaped.
func (a *API) Saw(s string) bool {
	esc, _ := json.Marshal(s)
	escaped := string(esc[1 : len(esc)-1])
	for _, r := range a.Requests() {
		if bytes.Contains(r.Body, []byte(s)) || bytes.Contains(r.Body, []byte(escaped)) {
			return true
		}
	}
	return false
}

// Tools returns the names of the tools offered in the first request of thread, or nil if there
// was none.
func (a *API) Tools(thread Thread) []string {
	for _, r := range a.Requests() {
		if r.Thread != thread {
			continue
		}
		var req messagesRequest
		if json.Unmarshal(r.Body, &req) != nil {
			continue
		}
		var names []string
		for _, tl := range req.Tools {
			names = append(names, tl.Name)
		}
		return names
	}
	return nil
}

// ToolResults returns each tool_result block the model was shown, once, in the order first seen.
func (a *API) ToolResults() []ToolResult {
	a.mu.Lock()
	defer a.mu.Unlock()
	seen := map[string]bool{}
	var out []ToolResult
	for _, r := range a.requests {
		var req messagesRequest
		if r.Thread == Aux || json.Unmarshal(r.Body, &req) != nil {
			continue
		}
		for _, m := range req.Messages {
			for _, b := range m.blocks() {
				if b.Type != "tool_result" || seen[b.ToolUseID] {
					continue
				}
				seen[b.ToolUseID] = true
				out = append(out, ToolResult{
					Thread:    r.Thread,
					ToolUseID: b.ToolUseID,
					Tool:      a.calls[b.ToolUseID].Name,
					IsError:   b.IsError,
					Text:      contentText(b.Content),
				})
			}
		}
	}
	return out
}

// ResultFor returns the tool result for the i-th scripted call (from 0) on thread.
func (a *API) ResultFor(thread Thread, i int) (ToolResult, bool) {
	id := toolUseID(thread, i)
	for _, r := range a.ToolResults() {
		if r.ToolUseID == id {
			return r, true
		}
	}
	return ToolResult{}, false
}

// toolUseID names the i-th scripted call of a thread; it is stable so tests can find results.
func toolUseID(thread Thread, i int) string {
	return fmt.Sprintf("toolu_%s_%02d", thread, i)
}

type messagesRequest struct {
	Model    string    `json:"model"`
	Stream   bool      `json:"stream"`
	Tools    []tool    `json:"tools"`
	Messages []message `json:"messages"`
}

type tool struct {
	Name string `json:"name"`
	Type string `json:"type"` // set for server tools such as web_search; empty for client tools
}

type message struct {
	Role    string          `json:"role"`
	Content json.RawMessage `json:"content"` // a string or a list of blocks
}

type block struct {
	Type      string          `json:"type"`
	Text      string          `json:"text"`
	ToolUseID string          `json:"tool_use_id"`
	IsError   bool            `json:"is_error"`
	Content   json.RawMessage `json:"content"`
}

// blocks returns the message content as blocks; a plain string becomes one text block.
func (m message) blocks() []block {
	var s string
	if json.Unmarshal(m.Content, &s) == nil {
		return []block{{Type: "text", Text: s}}
	}
	var bs []block
	_ = json.Unmarshal(m.Content, &bs)
	return bs
}

// contentText flattens a tool_result content, which is a string or a list of text blocks.
func contentText(raw json.RawMessage) string {
	var s string
	if json.Unmarshal(raw, &s) == nil {
		return s
	}
	var bs []block
	_ = json.Unmarshal(raw, &bs)
	var parts []string
	for _, b := range bs {
		if b.Type == "text" {
			parts = append(parts, b.Text)
		}
	}
	return strings.Join(parts, "\n")
}

// thread classifies a request. Server tools (web_search and the like) don't count as client
// tools, so WebSearch's own model call is Aux, not a turn of the main thread.
func (a *API) thread(req messagesRequest, marker string) Thread {
	clientTools := 0
	for _, tl := range req.Tools {
		if tl.Type == "" || tl.Type == "custom" {
			clientTools++
		}
	}
	if clientTools == 0 {
		return Aux
	}
	if marker != "" && len(req.Messages) > 0 {
		for _, b := range req.Messages[0].blocks() {
			if b.Type == "text" && strings.Contains(b.Text, marker) {
				return Sub
			}
		}
	}
	return Main
}

func (a *API) serve(w http.ResponseWriter, r *http.Request) {
	body, _ := io.ReadAll(r.Body)
	path := r.URL.Path
	cred := r.Header.Get("X-Api-Key")
	if cred == "" {
		cred = r.Header.Get("Authorization")
	}
	record := func(q Request) {
		q.Credential = cred
		a.record(q)
	}
	if !strings.HasPrefix(path, "/v1/messages") {
		record(Request{Path: path, Thread: Aux, Body: body})
		http.Error(w, "not found", http.StatusNotFound)
		return
	}
	if strings.HasSuffix(path, "/count_tokens") {
		record(Request{Path: path, Thread: Aux, Body: body})
		writeJSON(w, map[string]any{"input_tokens": 100})
		return
	}
	var req messagesRequest
	if err := json.Unmarshal(body, &req); err != nil {
		record(Request{Path: path, Thread: Aux, Body: body})
		http.Error(w, "bad json", http.StatusBadRequest)
		return
	}
	a.mu.Lock()
	script := a.script
	a.mu.Unlock()
	th := a.thread(req, script.Marker)
	record(Request{Path: path, Thread: th, Body: body})

	var next *Call
	var id string
	if th != Aux {
		calls := script.Main
		if th == Sub {
			calls = script.Sub
		}
		n := 0
		for _, m := range req.Messages {
			for _, b := range m.blocks() {
				if b.Type == "tool_result" {
					n++
				}
			}
		}
		if n < len(calls) {
			if script.BeforeCall != nil {
				script.BeforeCall(th, n)
			}
			next, id = &calls[n], toolUseID(th, n)
			a.mu.Lock()
			a.calls[id] = *next
			a.mu.Unlock()
		}
	}
	model := req.Model
	if model == "" {
		model = "claude-fake"
	}
	if req.Stream {
		streamReply(w, model, next, id)
		return
	}
	writeJSON(w, messageReply(model, next, id))
}

func (a *API) record(r Request) {
	a.mu.Lock()
	defer a.mu.Unlock()
	a.requests = append(a.requests, r)
}

// doneText is what the fake model says when its script has run out.
const doneText = "Done."

func messageReply(model string, next *Call, id string) map[string]any {
	content := []any{map[string]any{"type": "text", "text": doneText}}
	stop := "end_turn"
	if next != nil {
		content = []any{map[string]any{"type": "tool_use", "id": id, "name": next.Name, "input": next.Input}}
		stop = "tool_use"
	}
	return map[string]any{
		"id": "msg_" + id, "type": "message", "role": "assistant", "model": model,
		"content": content, "stop_reason": stop, "stop_sequence": nil,
		"usage": map[string]any{"input_tokens": 100, "output_tokens": 10},
	}
}

// streamReply writes the server-sent events of one assistant message: a tool call whose whole
// input arrives in one input_json_delta, or the closing text.
func streamReply(w http.ResponseWriter, model string, next *Call, id string) {
	w.Header().Set("Content-Type", "text/event-stream")
	w.Header().Set("Cache-Control", "no-cache")
	w.WriteHeader(http.StatusOK)
	msgID := "msg_" + id
	if id == "" {
		msgID = "msg_text"
	}
	event(w, "message_start", map[string]any{"type": "message_start", "message": map[string]any{
		"id": msgID, "type": "message", "role": "assistant", "model": model, "content": []any{},
		"stop_reason": nil, "stop_sequence": nil,
		"usage": map[string]any{"input_tokens": 100, "output_tokens": 1},
	}})
	stop := "end_turn"
	if next != nil {
		input, err := json.Marshal(next.Input)
		if err != nil {
			input = []byte("{}")
		}
		stop = "tool_use"
		event(w, "content_block_start", map[string]any{"type": "content_block_start", "index": 0,
			"content_block": map[string]any{"type": "tool_use", "id": id, "name": next.Name, "input": map[string]any{}}})
		event(w, "content_block_delta", map[string]any{"type": "content_block_delta", "index": 0,
			"delta": map[string]any{"type": "input_json_delta", "partial_json": string(input)}})
	} else {
		event(w, "content_block_start", map[string]any{"type": "content_block_start", "index": 0,
			"content_block": map[string]any{"type": "text", "text": ""}})
		event(w, "content_block_delta", map[string]any{"type": "content_block_delta", "index": 0,
			"delta": map[string]any{"type": "text_delta", "text": doneText}})
	}
	event(w, "content_block_stop", map[string]any{"type": "content_block_stop", "index": 0})
	event(w, "message_delta", map[string]any{"type": "message_delta",
		"delta": map[string]any{"stop_reason": stop, "stop_sequence": nil},
		"usage": map[string]any{"output_tokens": 10}})
	event(w, "message_stop", map[string]any{"type": "message_stop"})
}

func event(w http.ResponseWriter, name string, data any) {
	b, _ := json.Marshal(data)
	fmt.Fprintf(w, "event: %s\ndata: %s\n\n", name, b)
	if f, ok := w.(http.Flusher); ok {
		f.Flush()
	}
}

func writeJSON(w http.ResponseWriter, v any) {
	w.Header().Set("Content-Type", "application/json")
	_ = json.NewEncoder(w).Encode(v)
}
