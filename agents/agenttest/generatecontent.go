package agenttest

import (
	"encoding/json"
	"fmt"
	"net/http"
	"slices"
	"strings"
	"testing"
)

// GenerateContent is a fake Gemini API (models/MODEL:generateContent and
// :streamGenerateContent), which Gemini CLI speaks. A request without tools (its model router,
// its next-speaker check) gets a JSON answer that satisfies each of them.
type GenerateContent struct{ fake }

// NewGenerateContent starts the fake on loopback; it stops when the test ends.
func NewGenerateContent(t testing.TB, script []Step) *GenerateContent {
	g := &GenerateContent{}
	g.start(t, script, g.serve)
	return g
}

// URL is the base URL (GOOGLE_GEMINI_BASE_URL).
func (g *GenerateContent) URL() string { return g.srv.URL }

type geminiRequest struct {
	Contents []struct {
		Parts []map[string]json.RawMessage `json:"parts"`
	} `json:"contents"`
	Tools []struct {
		FunctionDeclarations []struct {
			Name string `json:"name"`
		} `json:"functionDeclarations"`
	} `json:"tools"`
}

// noToolAnswer satisfies the CLI's requests that want JSON back: the router's and the
// next-speaker check's.
const noToolAnswer = `{"complexity_reasoning":"a scripted test","complexity_score":1,"reasoning":"the script is done","next_speaker":"user"}`

func (g *GenerateContent) serve(w http.ResponseWriter, req *http.Request, body []byte) {
	stream := strings.Contains(req.URL.Path, ":streamGenerateContent")
	if !stream && !strings.Contains(req.URL.Path, ":generateContent") {
		if strings.Contains(req.URL.Path, ":countTokens") {
			writeJSON(w, map[string]any{"totalTokens": 10})
			return
		}
		http.NotFound(w, req)
		return
	}
	rq := decode[geminiRequest](body)
	done, names := rq.results(), rq.names()
	var part map[string]any
	switch {
	case len(names) == 0:
		part = map[string]any{"text": noToolAnswer}
	case done < len(g.script):
		s := g.script[done]
		switch {
		case s.Shell != "" && slices.Contains(names, "run_shell_command"):
			part = map[string]any{"functionCall": map[string]any{"name": "run_shell_command",
				"args": map[string]any{"command": s.Shell, "description": "a step of the test's script"}}}
		case s.Write != "" && slices.Contains(names, "write_file"):
			part = map[string]any{"functionCall": map[string]any{"name": "write_file",
				"args": map[string]any{"file_path": s.Write, "content": s.Content}}}
		}
	}
	if part == nil {
		part = map[string]any{"text": Done}
	}
	resp := map[string]any{
		"candidates":    []any{map[string]any{"content": map[string]any{"role": "model", "parts": []any{part}}, "finishReason": "STOP", "index": 0}},
		"usageMetadata": map[string]any{"promptTokenCount": 10, "candidatesTokenCount": 10, "totalTokenCount": 20},
		"modelVersion":  "gemini-2.5-pro",
	}
	if !stream {
		writeJSON(w, resp)
		return
	}
	w.Header().Set("Content-Type", "text/event-stream")
	b, _ := json.Marshal(resp)
	fmt.Fprintf(w, "data: %s\r\n\r\n", b)
}

// ToolNames are the tools the first request with tools offered.
func (g *GenerateContent) ToolNames() []string { return toolNames[geminiRequest](&g.fake) }

func (rq *geminiRequest) results() (n int) {
	for _, c := range rq.Contents {
		for _, p := range c.Parts {
			if _, ok := p["functionResponse"]; ok {
				n++
			}
		}
	}
	return n
}

// names are the functions the request's tools declare.
func (rq *geminiRequest) names() (out []string) {
	for _, t := range rq.Tools {
		for _, f := range t.FunctionDeclarations {
			out = append(out, f.Name)
		}
	}
	return out
}
