package worker

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"github.com/hookctl/hookctl/retriever"
	"github.com/hookctl/hookctl/retriever/settings"
)

// A chat-completions API as a distiller: OpenAI's, or a local server that speaks it (Ollama,
// llama.cpp's server, vLLM, LM Studio). The base URL includes the version path, as those
// servers document it ("http://127.0.0.1:11434/v1"); /chat/completions is appended.

type openAIDistiller struct{ modelAPI }

// newOpenAI builds the chat-completions client c describes (retriever.ChooseDistiller checked
// it); a server that needs no key gets none.
func newOpenAI(c *retriever.DistillerChoice, environ []string) (*openAIDistiller, error) {
	var key string
	if c.KeyEnv != "" {
		if key = retriever.EnvValue(environ, c.KeyEnv); key == "" {
			return nil, fmt.Errorf("openai.api_key_env names $%s, which is not set", c.KeyEnv)
		}
	}
	return &openAIDistiller{newModelAPI(c, "/chat/completions", key)}, nil
}

func (o *openAIDistiller) Name() string   { return settings.BackendOpenAI }
func (o *openAIDistiller) String() string { return "openai:" + o.model }

type chatRequest struct {
	Model     string        `json:"model"`
	Messages  []chatMessage `json:"messages"`
	MaxTokens int           `json:"max_tokens"`
	Stream    bool          `json:"stream"`
}

type chatMessage struct {
	Role    string `json:"role"`
	Content string `json:"content"`
}

type chatResponse struct {
	Choices []struct {
		Message struct {
			Content *string `json:"content"`
		} `json:"message"`
		FinishReason string `json:"finish_reason"`
	} `json:"choices"`
}

func (o *openAIDistiller) Distill(ctx context.Context, need string, docs []retriever.Document) (*retriever.Answer, error) {
	req := chatRequest{
		Model: o.model, MaxTokens: distillMaxTokens,
		Messages: []chatMessage{
			{Role: "system", Content: SystemPrompt},
			{Role: "user", Content: BuildPrompt(need, docs)},
		},
	}
	body, err := o.post(ctx, req)
	if err != nil {
		return nil, err
	}
	var resp chatResponse
	if err := json.Unmarshal(body, &resp); err != nil {
		return nil, fmt.Errorf("failed to distill with openai: failed to decode the response: %w", err)
	}
	if len(resp.Choices) == 0 || resp.Choices[0].Message.Content == nil {
		return nil, errors.New("failed to distill with openai: the response has no message content")
	}
	text := stripThinking(*resp.Choices[0].Message.Content)
	if strings.TrimSpace(text) == "" {
		return nil, errors.New("failed to distill with openai: the model returned no text")
	}
	if resp.Choices[0].FinishReason == "length" {
		text += "\n[the model's answer was cut at its token limit]"
	}
	return finishAnswer(o.String(), text), nil
}

// stripThinking drops a leading <think>…</think> block, which reasoning models served by Ollama
// or llama.cpp put in the content; it is the model's scratch work, not its answer.
func stripThinking(s string) string {
	t := strings.TrimLeft(s, " \t\r\n")
	if !strings.HasPrefix(t, "<think>") {
		return s
	}
	if _, after, ok := strings.Cut(t, "</think>"); ok {
		return strings.TrimLeft(after, " \t\r\n")
	}
	return s
}
