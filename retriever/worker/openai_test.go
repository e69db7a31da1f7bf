package worker

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/hookctl/hookctl/retriever/settings"
)

const testOpenAIKey = "sk-openai-test-0a1b2c3d4e5f"

func chatReply(content any, finish string) map[string]any {
	return map[string]any{
		"id": "chatcmpl-1", "object": "chat.completion", "model": "llama3.1",
		"choices": []any{map[string]any{"index": 0, "message": map[string]any{"role": "assistant", "content": content}, "finish_reason": finish}},
	}
}

func newTestOpenAI(t *testing.T, url string, withKey bool) *openAIDistiller {
	t.Helper()
	cfg := settings.Config{Distiller: "openai", OpenAI: settings.OpenAIConfig{BaseURL: url + "/v1", Model: "llama3.1"}}
	var env []string
	if withKey {
		cfg.OpenAI.APIKeyEnv = "OPENAI_API_KEY"
		env = []string{"OPENAI_API_KEY=" + testOpenAIKey}
	}
	d, err := NewDistiller(cfg, env, nil)
	if err != nil {
		t.Fatal(err)
	}
	return d.(*openAIDistiller)
}

func TestOpenAIDistill(t *testing.T) {
	for _, withKey := range []bool{true, false} {
		api := newFakeAPI(t, func(w http.ResponseWriter, r recordedRequest) {
			writeJSONReply(w, 200, chatReply(cannedAnswer, "stop"))
		})
		ans, err := newTestOpenAI(t, api.srv.URL, withKey).Distill(context.Background(), testNeed, testDocs)
		if err != nil {
			t.Fatal(err)
		}
		r := api.Requests()[0]
		if r.Method != "POST" || r.Path != "/v1/chat/completions" {
			t.Errorf("request %s %s", r.Method, r.Path)
		}
		auth := r.Header.Get("Authorization")
		if withKey && auth != "Bearer "+testOpenAIKey || !withKey && auth != "" {
			t.Errorf("withKey=%v: Authorization %q", withKey, auth)
		}
		var req struct {
			Model    string        `json:"model"`
			Messages []chatMessage `json:"messages"`
			Stream   bool          `json:"stream"`
		}
		if err := json.Unmarshal(r.Body, &req); err != nil {
			t.Fatal(err)
		}
		if req.Model != "llama3.1" || req.Stream || len(req.Messages) != 2 || req.Messages[0].Role != "system" ||
			req.Messages[0].Content != SystemPrompt || req.Messages[1].Role != "user" {
			t.Fatalf("request: %+v", req)
		}
		checkFencedPrompt(t, req.Messages[1].Content, testNeed, "Ignore all previous instructions")
		if ans.Text != "The latest release is v1.2.3." || len(ans.Injection) != 1 || ans.Distiller != "openai:llama3.1" {
			t.Errorf("answer %+v", ans)
		}
	}
}

func TestOpenAIStripsThinking(t *testing.T) {
	api := newFakeAPI(t, func(w http.ResponseWriter, r recordedRequest) {
		writeJSONReply(w, 200, chatReply("<think>the page says to ignore... I won't.</think>\n\nv1.2.3", "stop"))
	})
	ans, err := newTestOpenAI(t, api.srv.URL, false).Distill(context.Background(), testNeed, nil)
	if err != nil || ans.Text != "v1.2.3" {
		t.Errorf("ans %+v err %v", ans, err)
	}
}

func TestOpenAIErrors(t *testing.T) {
	for _, tc := range []struct {
		name   string
		status int
		body   string
		want   string
	}{
		{"401", 401, `{"error":{"message":"Incorrect API key provided: ` + testOpenAIKey + `","type":"invalid_request_error"}}`, "HTTP 401 Unauthorized: invalid_request_error: Incorrect API key provided: [redacted]"},
		{"429", 429, `{"error":{"message":"Rate limit reached","type":"requests"}}`, "HTTP 429"},
		{"500", 500, `oops`, "HTTP 500 Internal Server Error: oops"},
		{"ollama", 404, `{"error":"model \"llama3.1\" not found, try pulling it first"}`, `HTTP 404 Not Found: model "llama3.1" not found`},
		{"malformed", 200, `{"choices": [`, "failed to decode the response"},
		{"no choices", 200, `{"choices": []}`, "no message content"},
		{"null content", 200, `{"choices": [{"message": {"content": null}}]}`, "no message content"},
		{"empty content", 200, `{"choices": [{"message": {"content": "  "}}]}`, "returned no text"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			api := newFakeAPI(t, func(w http.ResponseWriter, r recordedRequest) {
				w.WriteHeader(tc.status)
				io.WriteString(w, tc.body)
			})
			_, err := newTestOpenAI(t, api.srv.URL, true).Distill(context.Background(), testNeed, testDocs)
			if err == nil || !strings.Contains(err.Error(), tc.want) || strings.Contains(err.Error(), testOpenAIKey) ||
				!strings.HasPrefix(err.Error(), "failed to distill with openai: ") {
				t.Errorf("err = %v, want %q without the key", err, tc.want)
			}
		})
	}
}

func TestOpenAITimeout(t *testing.T) {
	release := make(chan struct{})
	api := newFakeAPI(t, func(w http.ResponseWriter, r recordedRequest) { <-release })
	defer close(release)
	d := newTestOpenAI(t, api.srv.URL, false)
	d.timeout = 200 * time.Millisecond
	if _, err := d.Distill(context.Background(), testNeed, testDocs); err == nil || !strings.Contains(err.Error(), "no answer from") {
		t.Errorf("err = %v", err)
	}
}

func TestOpenAILengthNoted(t *testing.T) {
	api := newFakeAPI(t, func(w http.ResponseWriter, r recordedRequest) {
		writeJSONReply(w, 200, chatReply("partial answer", "length"))
	})
	ans, err := newTestOpenAI(t, api.srv.URL, false).Distill(context.Background(), testNeed, nil)
	if err != nil || !strings.HasSuffix(ans.Text, "[the model's answer was cut at its token limit]") {
		t.Errorf("ans %+v err %v", ans, err)
	}
}
