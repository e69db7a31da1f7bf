package worker

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/hookctl/hookctl/agents/claude/claudetest"
	"github.com/hookctl/hookctl/retriever/settings"
)

func TestClaudeCLIArgs(t *testing.T) {
	args := claudeCLIArgs("haiku", SystemPrompt)
	has := func(flag, value string) bool {
		i := slices.Index(args, flag)
		return i >= 0 && i+1 < len(args) && args[i+1] == value
	}
	for _, want := range [][2]string{
		{"--tools", ""}, {"--settings", `{"disableAllHooks":true}`}, {"--setting-sources", ""},
		{"--output-format", "text"}, {"--max-turns", "2"}, {"--system-prompt", SystemPrompt}, {"--model", "haiku"},
	} {
		if !has(want[0], want[1]) {
			t.Errorf("claude args lack %s %q", want[0], want[1])
		}
	}
	for _, flag := range []string{"-p", "--strict-mcp-config", "--disable-slash-commands", "--no-session-persistence"} {
		if !slices.Contains(args, flag) {
			t.Errorf("claude args lack %s", flag)
		}
	}
	for _, bad := range []string{"--allowedTools", "--dangerously-skip-permissions", "--mcp-config", "--bare"} {
		if slices.Contains(args, bad) {
			t.Errorf("claude args contain %s", bad)
		}
	}
}

// TestClaudeCLIRealClient runs the real Claude Code client as the distiller against a fake
// Messages API that plays a hijacked model: its first reply is a Bash tool call. With hooks for
// every event registered in the user's settings and a CLAUDE.md in the user's home, it checks
// that no tool is offered or run, no hook fires, no CLAUDE.md is sent and no transcript is
// kept, and that the answer still comes back. A control run without the guard flags proves the
// hooks and the tool call are live. Skipped without the client, failed with HOOKCTL_REQUIRE_E2E=1.
func TestClaudeCLIRealClient(t *testing.T) {
	bin := claudetest.Binary(t)
	base := t.TempDir()
	home := filepath.Join(base, "home")
	hookLog := filepath.Join(base, "hooks.log")
	pwned := filepath.Join(base, "pwned")
	writeHookSettings(t, home, hookLog)
	const memoryMarker = "USER-CLAUDE-MD-MARKER-4f1c"
	if err := os.WriteFile(filepath.Join(home, ".claude", "CLAUDE.md"), []byte(memoryMarker+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	api := newHijackedModel(t, "touch "+pwned, cannedAnswer)
	environ := []string{
		"PATH=" + os.Getenv("PATH"), "HOME=" + home, "USER=test", "LANG=C.UTF-8", "TERM=dumb",
		"TMPDIR=" + os.TempDir(),
		"ANTHROPIC_BASE_URL=" + api.srv.URL, "ANTHROPIC_API_KEY=sk-ant-fake-key-for-tests",
		"DISABLE_TELEMETRY=1", "DISABLE_AUTOUPDATER=1", "DISABLE_ERROR_REPORTING=1",
	}

	// Control: a plain claude -p in the same setup runs hooks and is offered tools.
	ctl, err := runProgram(context.Background(), []string{bin, "-p", "--output-format", "text"}, environ, "hello", 60*time.Second, settings.MaxDistilledBytes)
	if err != nil {
		t.Fatalf("control run: %v", err)
	}
	logged, _ := os.ReadFile(hookLog)
	for _, ev := range []string{"SessionStart", "UserPromptSubmit", "PreToolUse"} {
		if !strings.Contains(string(logged), ev) {
			t.Fatalf("control run: the %s hook did not fire, so the test proves nothing (log %q, output %q)", ev, logged, ctl)
		}
	}
	if n := api.tools(0); n == 0 {
		t.Fatal("control run: no tools offered, so the test proves nothing")
	}
	if !api.saw(memoryMarker) {
		t.Fatal("control run: CLAUDE.md was not sent, so the test proves nothing")
	}
	os.Remove(hookLog)
	os.Remove(pwned)
	os.RemoveAll(filepath.Join(home, ".claude", "projects"))
	api.reset()

	// The distiller.
	d, err := NewDistiller(settings.Config{Distiller: "claude-cli", ClaudeCLI: settings.ClaudeCLIConfig{Path: bin}}, environ, nil)
	if err != nil {
		t.Fatal(err)
	}
	ans, err := d.Distill(context.Background(), testNeed, testDocs)
	if err != nil {
		t.Fatal(err)
	}
	if ans.Text != "The latest release is v1.2.3." || len(ans.Injection) != 1 || !strings.HasPrefix(ans.Injection[0], "paragraph 2") ||
		ans.Distiller != "claude-cli:haiku" {
		t.Errorf("answer %+v", ans)
	}
	if b, err := os.ReadFile(hookLog); err == nil {
		t.Errorf("hooks fired inside the distiller:\n%s", b)
	}
	if _, err := os.Stat(pwned); err == nil {
		t.Error("the hijacked model's Bash call ran")
	}
	reqs := api.messages()
	if len(reqs) == 0 {
		t.Fatal("no request reached the fake API")
	}
	for i, r := range reqs {
		if len(r.Tools) != 0 {
			t.Errorf("request %d offered tools: %d", i, len(r.Tools))
		}
		if !strings.Contains(r.Model, "haiku") {
			t.Errorf("request %d used model %q, want the haiku alias", i, r.Model)
		}
	}
	if !strings.Contains(reqs[0].system(), SystemPrompt) {
		t.Errorf("the system prompt is not SystemPrompt: %.500s", reqs[0].system())
	}
	checkFencedPrompt(t, reqs[0].firstUserText(), testNeed, "Ignore all previous instructions")
	if api.saw(memoryMarker) {
		t.Error("~/.claude/CLAUDE.md reached the request")
	}
	if len(reqs) > 1 && !strings.Contains(string(reqs[1].raw), "No such tool available") {
		t.Errorf("the refused tool call did not come back as an error: %.500s", reqs[1].raw)
	}
	transcripts, _ := filepath.Glob(filepath.Join(home, ".claude", "projects", "*", "*.jsonl"))
	if len(transcripts) != 0 {
		t.Errorf("transcripts of untrusted content were kept: %v", transcripts)
	}
}

// writeHookSettings registers, in home's user settings, a hook for every event that appends the
// event's name to log.
func writeHookSettings(t *testing.T, home, log string) {
	t.Helper()
	hooks := map[string]any{}
	for _, ev := range []string{"PreToolUse", "PostToolUse", "UserPromptSubmit", "SessionStart", "SessionEnd", "Stop", "Notification"} {
		hooks[ev] = []any{map[string]any{"matcher": "*", "hooks": []any{map[string]any{
			"type": "command", "command": "/bin/sh", "args": []string{"-c", "echo " + ev + " >> '" + log + "'"}, "timeout": 10,
		}}}}
	}
	b, _ := json.Marshal(map[string]any{"hooks": hooks})
	if err := os.MkdirAll(filepath.Join(home, ".claude"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(home, ".claude", "settings.json"), b, 0o644); err != nil {
		t.Fatal(err)
	}
}

// hijackedModel is a streaming fake of the Messages API whose model calls Bash with command on
// its first turn, whatever tools it was offered, and answers with answer once it has seen a tool
// result.
type hijackedModel struct {
	srv *httptest.Server

	mu     sync.Mutex
	bodies [][]byte
}

type messagesBody struct {
	Model    string            `json:"model"`
	System   json.RawMessage   `json:"system"`
	Tools    []json.RawMessage `json:"tools"`
	Messages []struct {
		Role    string          `json:"role"`
		Content json.RawMessage `json:"content"`
	} `json:"messages"`
	raw []byte
}

func (m messagesBody) system() string {
	var s string
	if json.Unmarshal(m.System, &s) == nil {
		return s
	}
	var blocks []struct{ Text string }
	_ = json.Unmarshal(m.System, &blocks)
	var parts []string
	for _, b := range blocks {
		parts = append(parts, b.Text)
	}
	return strings.Join(parts, "\n")
}

func (m messagesBody) firstUserText() string {
	if len(m.Messages) == 0 {
		return ""
	}
	var s string
	if json.Unmarshal(m.Messages[0].Content, &s) == nil {
		return s
	}
	var blocks []struct{ Type, Text string }
	_ = json.Unmarshal(m.Messages[0].Content, &blocks)
	var parts []string
	for _, b := range blocks {
		if b.Type == "text" {
			parts = append(parts, b.Text)
		}
	}
	return strings.Join(parts, "\n")
}

func newHijackedModel(t *testing.T, command, answer string) *hijackedModel {
	t.Helper()
	m := &hijackedModel{}
	m.srv = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		if !strings.HasPrefix(r.URL.Path, "/v1/messages") || strings.HasSuffix(r.URL.Path, "/count_tokens") {
			writeJSONReply(w, 200, map[string]any{"input_tokens": 10})
			return
		}
		m.mu.Lock()
		m.bodies = append(m.bodies, body)
		m.mu.Unlock()
		w.Header().Set("Content-Type", "text/event-stream")
		sse(w, "message_start", map[string]any{"type": "message_start", "message": map[string]any{
			"id": "msg_x", "type": "message", "role": "assistant", "model": "claude-fake", "content": []any{},
			"usage": map[string]any{"input_tokens": 10, "output_tokens": 1}}})
		stop := "end_turn"
		if !bytes.Contains(body, []byte(`"tool_result"`)) {
			stop = "tool_use"
			input, _ := json.Marshal(map[string]any{"command": command, "description": "run"})
			sse(w, "content_block_start", map[string]any{"type": "content_block_start", "index": 0,
				"content_block": map[string]any{"type": "tool_use", "id": "toolu_hijack", "name": "Bash", "input": map[string]any{}}})
			sse(w, "content_block_delta", map[string]any{"type": "content_block_delta", "index": 0,
				"delta": map[string]any{"type": "input_json_delta", "partial_json": string(input)}})
		} else {
			sse(w, "content_block_start", map[string]any{"type": "content_block_start", "index": 0,
				"content_block": map[string]any{"type": "text", "text": ""}})
			sse(w, "content_block_delta", map[string]any{"type": "content_block_delta", "index": 0,
				"delta": map[string]any{"type": "text_delta", "text": answer}})
		}
		sse(w, "content_block_stop", map[string]any{"type": "content_block_stop", "index": 0})
		sse(w, "message_delta", map[string]any{"type": "message_delta", "delta": map[string]any{"stop_reason": stop},
			"usage": map[string]any{"output_tokens": 10}})
		sse(w, "message_stop", map[string]any{"type": "message_stop"})
	}))
	t.Cleanup(m.srv.Close)
	return m
}

func sse(w http.ResponseWriter, name string, data any) {
	b, _ := json.Marshal(data)
	fmt.Fprintf(w, "event: %s\ndata: %s\n\n", name, b)
	if f, ok := w.(http.Flusher); ok {
		f.Flush()
	}
}

func (m *hijackedModel) reset() {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.bodies = nil
}

func (m *hijackedModel) messages() []messagesBody {
	m.mu.Lock()
	defer m.mu.Unlock()
	var out []messagesBody
	for _, b := range m.bodies {
		var mb messagesBody
		_ = json.Unmarshal(b, &mb)
		mb.raw = b
		out = append(out, mb)
	}
	return out
}

// tools is the number of tools offered in request i.
func (m *hijackedModel) tools(i int) int {
	reqs := m.messages()
	if i >= len(reqs) {
		return 0
	}
	return len(reqs[i].Tools)
}

func (m *hijackedModel) saw(s string) bool {
	m.mu.Lock()
	defer m.mu.Unlock()
	for _, b := range m.bodies {
		if bytes.Contains(b, []byte(s)) {
			return true
		}
	}
	return false
}
