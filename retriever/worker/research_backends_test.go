package worker

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/hookctl/hookctl/retriever"
	"github.com/hookctl/hookctl/retriever/settings"
)

// The same multi-page need through every backend a user can configure, by the worker's whole
// path (job.retrieve): native tool calling for anthropic and openai, the text protocol for
// openai with protocol = "text", command and claude-cli. Each fake model is content-driven: it
// asks for the two pages only after the caller's page arrived, and answers with a page's fact
// only when that page arrived.

// multiPageAnswer is what every fake answers once both pages arrived.
func multiPageAnswer(siteURL string) string {
	return "Open takes a context (FACT-CHANGE); run widget fix (FACT-MIGRATE).\n\nSources:\n- " + siteURL + "/docs/changes-v2\n- " + siteURL + "/docs/migrate\n"
}

// requests counts and keeps what a fake API received.
type requests struct {
	mu   sync.Mutex
	seen []string
}

func (q *requests) add(s string) int {
	q.mu.Lock()
	defer q.mu.Unlock()
	q.seen = append(q.seen, s)
	return len(q.seen)
}

func (q *requests) all() []string {
	q.mu.Lock()
	defer q.mu.Unlock()
	return append([]string(nil), q.seen...)
}

func fakeAnthropicResearcher(t *testing.T, siteURL string, q *requests) *httptest.Server {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		q.add(string(b))
		var req struct {
			Messages []struct {
				Content json.RawMessage `json:"content"`
			} `json:"messages"`
		}
		json.Unmarshal(b, &req)
		body := string(b)
		var content []any
		switch {
		case !strings.Contains(body, "tool_result") && strings.Contains(body, "Widget 2 is out"):
			content = []any{
				map[string]any{"type": "text", "text": "I will read the two pages."},
				map[string]any{"type": "tool_use", "id": "tu_1", "name": "fetch", "input": map[string]any{"url": siteURL + "/docs/changes-v2"}},
				map[string]any{"type": "tool_use", "id": "tu_2", "name": "fetch", "input": map[string]any{"url": siteURL + "/docs/migrate"}},
			}
		case strings.Contains(body, "FACT-CHANGE") && strings.Contains(body, "FACT-MIGRATE"):
			content = []any{map[string]any{"type": "text", "text": multiPageAnswer(siteURL)}}
		default:
			content = []any{map[string]any{"type": "text", "text": "Nothing arrived."}}
		}
		json.NewEncoder(w).Encode(map[string]any{"id": "m", "type": "message", "role": "assistant", "content": content, "stop_reason": "end_turn"})
	}))
	t.Cleanup(srv.Close)
	return srv
}

func fakeOpenAIResearcher(t *testing.T, siteURL string, q *requests, text bool) *httptest.Server {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		q.add(string(b))
		body := string(b)
		msg := map[string]any{"role": "assistant"}
		first := !strings.Contains(body, `"role":"tool"`) && !strings.Contains(body, "RESULTS OF YOUR TURN")
		switch {
		case first && strings.Contains(body, "Widget 2 is out") && text:
			msg["content"] = "CALL {\"tool\": \"fetch\", \"url\": \"" + siteURL + "/docs/changes-v2\"}\nCALL {\"tool\": \"fetch\", \"url\": \"" + siteURL + "/docs/migrate\"}"
		case first && strings.Contains(body, "Widget 2 is out"):
			msg["content"] = nil
			msg["tool_calls"] = []any{
				map[string]any{"id": "c1", "type": "function", "function": map[string]any{"name": "fetch", "arguments": `{"url":"` + siteURL + `/docs/changes-v2"}`}},
				map[string]any{"id": "c2", "type": "function", "function": map[string]any{"name": "fetch", "arguments": `{"url":"` + siteURL + `/docs/migrate"}`}},
			}
		case strings.Contains(body, "FACT-CHANGE") && strings.Contains(body, "FACT-MIGRATE"):
			msg["content"] = multiPageAnswer(siteURL)
		default:
			msg["content"] = "Nothing arrived."
		}
		json.NewEncoder(w).Encode(map[string]any{"choices": []any{map[string]any{"message": msg, "finish_reason": "stop"}}})
	}))
	t.Cleanup(srv.Close)
	return srv
}

// textScript is a program that speaks the text protocol: it reads the whole prompt on stdin,
// asks for the two pages on its first turn, and answers once both facts arrived. It records
// each prompt and its arguments in dir.
const textScript = `#!/bin/sh
site="$SITE"
in=$(cat)
n=$(ls "$REC" | wc -l)
printf '%s' "$in" > "$REC/prompt-$n"
printf '%s\n' "$@" > "$REC/args-$n"
case "$in" in
*"RESULTS OF YOUR TURN 1"*)
  case "$in" in
  *FACT-CHANGE*FACT-MIGRATE*) printf 'Open takes a context (FACT-CHANGE); run widget fix (FACT-MIGRATE).\n\nSources:\n- %s/docs/changes-v2\n- %s/docs/migrate\n' "$site" "$site" ;;
  *) echo "Nothing arrived." ;;
  esac ;;
*"Widget 2 is out"*)
  printf 'Let me read the pages.\nCALL {"tool": "fetch", "url": "%s/docs/changes-v2"}\nCALL {"tool": "fetch", "url": "%s/docs/migrate"}\n' "$site" "$site" ;;
*) echo "Nothing arrived." ;;
esac
`

func TestResearchEveryBackend(t *testing.T) {
	s := newSite(t, releasePages)
	need := "What changed between v1 and v2, and how do I migrate?"
	for _, c := range []struct {
		name  string
		setup func(t *testing.T, cfg *settings.Config, env *[]string) func() []string
	}{
		{"anthropic-native", func(t *testing.T, cfg *settings.Config, env *[]string) func() []string {
			q := &requests{}
			cfg.Distiller, cfg.Anthropic.BaseURL, cfg.Anthropic.APIKeyEnv = "anthropic", fakeAnthropicResearcher(t, s.URL, q).URL, "K"
			*env = append(*env, "K=sk-test")
			return q.all
		}},
		{"openai-native", func(t *testing.T, cfg *settings.Config, env *[]string) func() []string {
			q := &requests{}
			cfg.Distiller, cfg.OpenAI.BaseURL, cfg.OpenAI.Model = "openai", fakeOpenAIResearcher(t, s.URL, q, false).URL, "llama3.1"
			return q.all
		}},
		{"openai-text", func(t *testing.T, cfg *settings.Config, env *[]string) func() []string {
			q := &requests{}
			cfg.Distiller, cfg.OpenAI.BaseURL, cfg.OpenAI.Model = "openai", fakeOpenAIResearcher(t, s.URL, q, true).URL, "tiny-local"
			cfg.Research.Protocol = "text"
			return q.all
		}},
		{"command", func(t *testing.T, cfg *settings.Config, env *[]string) func() []string {
			cfg.Distiller, cfg.Command.Argv = "command", []string{scriptIn(t, "model.sh")}
			return records(t, env, s.URL)
		}},
		{"claude-cli", func(t *testing.T, cfg *settings.Config, env *[]string) func() []string {
			cfg.Distiller, cfg.ClaudeCLI.Path = "claude-cli", scriptIn(t, "claude")
			*env = append(*env, "CLAUDE_CODE_OAUTH_TOKEN=sk-ant-oat01-test")
			return records(t, env, s.URL)
		}},
	} {
		t.Run(c.name, func(t *testing.T) {
			var cfg settings.Config
			env := []string{"PATH=/usr/bin:/bin"}
			seen := c.setup(t, &cfg, &env)
			j := &job{in: &retriever.WorkerInput{Request: retriever.Request{Kind: retriever.KindFetch, URL: s.URL + "/docs", Need: need}, Config: cfg},
				environ: env, fetcher: newTestFetcher(fetchLoopbackPublic), github: &GitHub{}}
			docs, ans, err := j.retrieve(context.Background())
			if err != nil {
				t.Fatal(err)
			}
			if !strings.Contains(ans.Text, "FACT-CHANGE") || !strings.Contains(ans.Text, "FACT-MIGRATE") || len(ans.Citations) != 2 {
				t.Errorf("answer %q, citations %+v", ans.Text, ans.Citations)
			}
			if len(docs) != 3 || j.usage.Pages != 3 || j.usage.Turns != 2 || len(j.steps) != 3 || j.steps[1].Tool != "fetch" || j.steps[1].N != 1 {
				t.Errorf("%d docs, usage %+v, steps %+v", len(docs), j.usage, j.steps)
			}
			got := seen()
			if len(got) != 2 {
				t.Fatalf("the model was called %d times", len(got))
			}
			// The first call offers the tools; the second carries both pages, fenced.
			switch c.name {
			case "anthropic-native":
				if !strings.Contains(got[0], `"input_schema"`) || !strings.Contains(got[1], `"tool_result"`) {
					t.Errorf("native tool blocks missing:\n%s", got[1])
				}
			case "openai-native":
				if !strings.Contains(got[0], `"type":"function"`) || !strings.Contains(got[1], `"role":"tool"`) {
					t.Errorf("native tool messages missing:\n%s", got[1])
				}
			default:
				if strings.Contains(got[0], `"tools"`) || !strings.Contains(got[0]+got[1], TextCallPrefix+"{") {
					t.Errorf("the text protocol is not in the prompt:\n%s", got[0])
				}
			}
			if strings.Count(got[1], "END UNTRUSTED-CONTENT ") < 3+1 {
				t.Errorf("the pages are not fenced:\n%s", got[1])
			}
		})
	}
}

// scriptIn writes textScript to an executable file in a new directory.
func scriptIn(t *testing.T, name string) string {
	p := filepath.Join(t.TempDir(), name)
	if err := os.WriteFile(p, []byte(textScript), 0o755); err != nil {
		t.Fatal(err)
	}
	return p
}

// records sets up the script's environment and returns a reader of what it was given: each
// turn's arguments and prompt.
func records(t *testing.T, env *[]string, siteURL string) func() []string {
	dir := t.TempDir()
	*env = append(*env, "SITE="+siteURL, "REC="+dir)
	return func() []string {
		var out []string
		for i := 0; ; i++ {
			p, err := os.ReadFile(filepath.Join(dir, fmt.Sprintf("prompt-%d", i*2)))
			if err != nil {
				return out
			}
			a, _ := os.ReadFile(filepath.Join(dir, fmt.Sprintf("args-%d", i*2)))
			out = append(out, string(a)+string(p))
		}
	}
}

// TestExtractDoesNotResearch: the extract backend has no model, so it answers from the caller's
// own retrieval alone, as before, whatever the research config says.
func TestExtractDoesNotResearch(t *testing.T) {
	s := newSite(t, releasePages)
	j := &job{in: &retriever.WorkerInput{Request: retriever.Request{Kind: retriever.KindFetch, URL: s.URL + "/docs", Need: "n"},
		Config: settings.Config{Distiller: "extract"}}, fetcher: newTestFetcher(fetchLoopbackPublic), github: &GitHub{}}
	docs, ans, err := j.retrieve(context.Background())
	if err != nil || !ans.Weak || !strings.HasPrefix(ans.Text, ExtractLabel) || len(docs) != 1 || j.usage.Calls != 0 || s.hit("/docs/migrate") != 0 {
		t.Errorf("%v %+v %d docs, usage %+v", err, ans, len(docs), j.usage)
	}
}
