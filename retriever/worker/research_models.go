package worker

// The research loop's backends: native tool calling for the Anthropic Messages API and for
// chat-completions APIs, and a text protocol for every backend without it (claude -p, a user's
// command, a local model served without tool calling): the tools are described in the system
// prompt, the model asks for one with a line CALL {"tool": NAME, …arguments}, and the results
// come back in the next message, fenced like every document.

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/hookctl/hookctl/retriever"
	"github.com/hookctl/hookctl/retriever/settings"
)

// newResearchModel builds the distiller cfg names (NewDistiller) as a research model: with
// tool calls where its API has them (Anthropic's, OpenAI's) unless cfg asks for the text
// protocol, else in the text protocol.
func newResearchModel(cfg settings.Config, environ []string, lookPath func(string) (string, error)) (researchModel, error) {
	d, err := NewDistiller(cfg, environ, lookPath)
	if err != nil {
		return nil, err
	}
	if m, ok := d.(researchModel); ok && cfg.Research.Protocol != "text" {
		return m, nil
	}
	if t, ok := d.(textRunner); ok {
		return &textModel{name: t.String(), run: t.runText}, nil
	}
	return nil, fmt.Errorf("the %s distiller does not research", d.Name())
}

// textRunner is a distiller that answers a prompt with text: every one but extract.
type textRunner interface {
	String() string
	runText(ctx context.Context, system, prompt string) (string, error)
}

// callTimeout is a model call's timeout: the backend's own, cut to what ctx has left.
func callTimeout(ctx context.Context, own time.Duration) time.Duration {
	if dl, ok := ctx.Deadline(); ok {
		return max(min(own, time.Until(dl)), time.Second)
	}
	return own
}

// --- Anthropic: tool_use and tool_result blocks ---

func (a *anthropicDistiller) Turn(ctx context.Context, c *conversation, tools []toolSpec) (*modelReply, error) {
	req := anthropicRequest{Model: a.model, MaxTokens: distillMaxTokens, System: c.System}
	used := false
	for _, m := range c.Msgs {
		used = used || len(m.Calls) > 0
		switch {
		case m.Role == "assistant":
			var blocks []map[string]any
			if strings.TrimSpace(m.Text) != "" {
				blocks = append(blocks, map[string]any{"type": "text", "text": m.Text})
			}
			for _, call := range m.Calls {
				blocks = append(blocks, map[string]any{"type": "tool_use", "id": call.ID, "name": call.Name, "input": call.Args})
			}
			req.Messages = append(req.Messages, anthropicMessage{Role: "assistant", Content: blocks})
		case len(m.Results) > 0:
			var blocks []map[string]any
			for _, r := range m.Results {
				blocks = append(blocks, map[string]any{"type": "tool_result", "tool_use_id": r.ID, "content": r.Text})
			}
			if m.Text != "" {
				blocks = append(blocks, map[string]any{"type": "text", "text": m.Text})
			}
			req.Messages = append(req.Messages, anthropicMessage{Role: "user", Content: blocks})
		default:
			req.Messages = append(req.Messages, anthropicMessage{Role: "user", Content: m.Text})
		}
	}
	offer := tools
	if len(tools) == 0 && used {
		offer = researchTools // a conversation with tool blocks must name the tools; tool_choice none forbids them
	}
	for _, t := range offer {
		req.Tools = append(req.Tools, map[string]any{"name": t.name, "description": t.desc, "input_schema": toolSchema(t)})
	}
	if len(tools) == 0 && used {
		req.ToolChoice = map[string]any{"type": "none"}
	}
	ctx, cancel := context.WithTimeout(ctx, callTimeout(ctx, a.timeout))
	defer cancel()
	resp, err := a.call(ctx, req)
	if err != nil {
		return nil, fmt.Errorf("failed to distill with anthropic: %w", err)
	}
	out := &modelReply{Cut: resp.StopReason == "max_tokens"}
	var text strings.Builder
	for _, raw := range resp.Content {
		var b struct {
			Type  string         `json:"type"`
			Text  string         `json:"text"`
			ID    string         `json:"id"`
			Name  string         `json:"name"`
			Input map[string]any `json:"input"`
		}
		if json.Unmarshal(raw, &b) != nil {
			continue
		}
		switch b.Type {
		case "text":
			text.WriteString(b.Text)
		case "tool_use":
			if len(tools) > 0 {
				out.Calls = append(out.Calls, toolCall{ID: b.ID, Name: b.Name, Args: b.Input})
			}
		}
	}
	out.Text = text.String()
	return out, nil
}

// toolSchema is a tool's parameters as JSON Schema.
func toolSchema(t toolSpec) map[string]any {
	props := map[string]any{}
	required := []string{}
	for _, p := range t.params {
		s := map[string]any{"type": p.kind, "description": p.desc}
		if p.kind == "array" {
			s["items"] = map[string]any{"type": "string"}
		}
		props[p.name] = s
		if p.required {
			required = append(required, p.name)
		}
	}
	return map[string]any{"type": "object", "properties": props, "required": required}
}

// runText is one text-protocol turn through the Messages API.
func (a *anthropicDistiller) runText(ctx context.Context, system, prompt string) (string, error) {
	ctx, cancel := context.WithTimeout(ctx, callTimeout(ctx, a.timeout))
	defer cancel()
	resp, err := a.call(ctx, anthropicRequest{Model: a.model, MaxTokens: distillMaxTokens, System: system,
		Messages: []anthropicMessage{{Role: "user", Content: prompt}}})
	if err != nil {
		return "", fmt.Errorf("failed to distill with anthropic: %w", err)
	}
	var text strings.Builder
	for _, raw := range resp.Content {
		var b anthropicBlock
		if json.Unmarshal(raw, &b) == nil && b.Type == "text" {
			text.WriteString(b.Text)
		}
	}
	return text.String(), nil
}

// --- chat completions: tool_calls and tool messages ---

type chatToolCall struct {
	ID       string `json:"id"`
	Type     string `json:"type"`
	Function struct {
		Name      string `json:"name"`
		Arguments string `json:"arguments"`
	} `json:"function"`
}

type chatToolMessage struct {
	Role       string         `json:"role"`
	Content    *string        `json:"content"`
	ToolCalls  []chatToolCall `json:"tool_calls,omitempty"`
	ToolCallID string         `json:"tool_call_id,omitempty"`
}

func (o *openAIDistiller) Turn(ctx context.Context, c *conversation, tools []toolSpec) (*modelReply, error) {
	str := func(s string) *string { return &s }
	msgs := []chatToolMessage{{Role: "system", Content: str(c.System)}}
	used := false
	for _, m := range c.Msgs {
		used = used || len(m.Calls) > 0
		switch {
		case m.Role == "assistant":
			am := chatToolMessage{Role: "assistant", Content: str(m.Text)}
			for _, call := range m.Calls {
				args, _ := json.Marshal(call.Args)
				tc := chatToolCall{ID: call.ID, Type: "function"}
				tc.Function.Name, tc.Function.Arguments = call.Name, string(args)
				am.ToolCalls = append(am.ToolCalls, tc)
			}
			msgs = append(msgs, am)
		case len(m.Results) > 0:
			for _, r := range m.Results {
				msgs = append(msgs, chatToolMessage{Role: "tool", ToolCallID: r.ID, Content: str(r.Text)})
			}
			if m.Text != "" {
				msgs = append(msgs, chatToolMessage{Role: "user", Content: str(m.Text)})
			}
		default:
			msgs = append(msgs, chatToolMessage{Role: "user", Content: str(m.Text)})
		}
	}
	req := map[string]any{"model": o.model, "messages": msgs, "max_tokens": distillMaxTokens, "stream": false}
	offer := tools
	if len(tools) == 0 && used {
		offer = researchTools
		req["tool_choice"] = "none"
	}
	if len(offer) > 0 {
		var ts []map[string]any
		for _, t := range offer {
			ts = append(ts, map[string]any{"type": "function", "function": map[string]any{"name": t.name, "description": t.desc, "parameters": toolSchema(t)}})
		}
		req["tools"] = ts
	}
	body, err := o.post(ctx, req)
	if err != nil {
		return nil, err
	}
	var resp struct {
		Choices []struct {
			Message struct {
				Content   *string        `json:"content"`
				ToolCalls []chatToolCall `json:"tool_calls"`
			} `json:"message"`
			FinishReason string `json:"finish_reason"`
		} `json:"choices"`
	}
	if err := json.Unmarshal(body, &resp); err != nil || len(resp.Choices) == 0 {
		return nil, errors.New("failed to distill with openai: the response has no choice")
	}
	ch := resp.Choices[0]
	out := &modelReply{Cut: ch.FinishReason == "length"}
	if ch.Message.Content != nil {
		out.Text = stripThinking(*ch.Message.Content)
	}
	if len(tools) > 0 {
		for i, tc := range ch.Message.ToolCalls {
			args := map[string]any{}
			if err := json.Unmarshal([]byte(tc.Function.Arguments), &args); err != nil {
				args = nil
			}
			id := tc.ID
			if id == "" {
				id = fmt.Sprintf("call_%d", i)
			}
			out.Calls = append(out.Calls, toolCall{ID: id, Name: tc.Function.Name, Args: args})
		}
	}
	return out, nil
}

// runText is one text-protocol turn through a chat-completions API.
func (o *openAIDistiller) runText(ctx context.Context, system, prompt string) (string, error) {
	body, err := o.post(ctx, chatRequest{Model: o.model, MaxTokens: distillMaxTokens,
		Messages: []chatMessage{{Role: "system", Content: system}, {Role: "user", Content: prompt}}})
	if err != nil {
		return "", err
	}
	var resp chatResponse
	if err := json.Unmarshal(body, &resp); err != nil || len(resp.Choices) == 0 || resp.Choices[0].Message.Content == nil {
		return "", errors.New("failed to distill with openai: the response has no message content")
	}
	return stripThinking(*resp.Choices[0].Message.Content), nil
}

// post sends one chat-completions request, within the call's time.
func (o *openAIDistiller) post(ctx context.Context, req any) ([]byte, error) {
	ctx, cancel := context.WithTimeout(ctx, callTimeout(ctx, o.timeout))
	defer cancel()
	var headers map[string]string
	if o.key != nil {
		headers = map[string]string{"Authorization": "Bearer " + o.key.value()}
	}
	body, err := postJSON(ctx, o.client, o.endpoint, headers, req, o.key)
	if err != nil {
		return nil, fmt.Errorf("failed to distill with openai: %w", err)
	}
	return body, nil
}

// --- programs: claude -p and a user's command ---

func (c *claudeCLIDistiller) runText(ctx context.Context, system, prompt string) (string, error) {
	argv := append([]string{c.path}, claudeCLIArgs(c.model, system)...)
	env := withEnv(c.environ, retriever.InRetrieverEnv+"=1", "CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC=1")
	out, err := runProgram(ctx, argv, env, prompt, callTimeout(ctx, c.timeout), settings.MaxDistilledBytes)
	if err != nil {
		return "", fmt.Errorf("failed to distill with claude -p: %w", err)
	}
	return out, nil
}

func (c *commandDistiller) runText(ctx context.Context, system, prompt string) (string, error) {
	stdin := system + "\n\n" + CommandPromptSeparator + "\n\n" + prompt
	env := withEnv(c.environ, retriever.InRetrieverEnv+"=1")
	out, err := runProgram(ctx, c.argv, env, stdin, callTimeout(ctx, c.timeout), settings.MaxDistilledBytes)
	if err != nil {
		return "", fmt.Errorf("failed to distill with command %s: %w", c.String(), err)
	}
	return out, nil
}

// --- the text protocol ---

// textModel runs turns of a conversation as plain text: the whole conversation each time (the
// backends keep no state), the tools in the system prompt.
type textModel struct {
	name string
	run  func(ctx context.Context, system, prompt string) (string, error)
}

func (m *textModel) String() string { return m.name }

// TextCallPrefix starts a tool call in the text protocol.
const TextCallPrefix = "CALL "

func (m *textModel) Turn(ctx context.Context, c *conversation, tools []toolSpec) (*modelReply, error) {
	system := c.System
	if len(tools) > 0 {
		system += textToolsHelp(tools)
	}
	out, err := m.run(ctx, system, renderText(c, len(tools) > 0))
	if err != nil {
		return nil, err
	}
	reply := &modelReply{Text: stripThinking(out)}
	if len(tools) > 0 {
		reply.Calls = parseTextCalls(reply.Text)
	}
	return reply, nil
}

// textToolsHelp describes the tools and how to call them.
func textToolsHelp(tools []toolSpec) string {
	var b strings.Builder
	b.WriteString("\n\nTools. To use tools, reply with nothing but one to four lines, each of them\n" +
		TextCallPrefix + `{"tool": "NAME", ARGUMENTS}` + "\n" +
		"with the arguments as JSON members, for example\n" +
		TextCallPrefix + `{"tool": "fetch", "url": "https://example.com/docs/install"}` + "\n" +
		"The results come back in the next message, fenced like the documents. When you can answer, reply with the answer itself and no " +
		strings.TrimSpace(TextCallPrefix) + " line. The tools:\n")
	for _, t := range tools {
		var ps []string
		for _, p := range t.params {
			opt := ""
			if !p.required {
				opt = ", optional"
			}
			ps = append(ps, fmt.Sprintf("%q (%s%s): %s", p.name, p.kind, opt, p.desc))
		}
		fmt.Fprintf(&b, "- %s: %s Arguments: %s.\n", t.name, t.desc, strings.Join(ps, "; "))
	}
	return b.String()
}

// renderText renders a conversation as one prompt.
func renderText(c *conversation, tools bool) string {
	var b strings.Builder
	turn := 0
	for _, m := range c.Msgs {
		switch {
		case m.Role == "assistant":
			turn++
			fmt.Fprintf(&b, "\n=== YOUR TURN %d ===\n", turn)
			if t := strings.TrimSpace(m.Text); t != "" && len(m.Calls) == 0 {
				b.WriteString(t + "\n")
			}
			for _, call := range m.Calls {
				args := map[string]any{"tool": call.Name}
				for k, v := range call.Args {
					if k != "tool" {
						args[k] = v
					}
				}
				j, _ := json.Marshal(args)
				b.WriteString(TextCallPrefix + string(j) + "\n")
			}
		case len(m.Results) > 0:
			fmt.Fprintf(&b, "\n=== RESULTS OF YOUR TURN %d ===\n", turn)
			for i, r := range m.Results {
				fmt.Fprintf(&b, "Call %d (%s):\n%s\n", i+1, r.Name, r.Text)
			}
			if m.Text != "" {
				b.WriteString(m.Text + "\n")
			}
		default:
			b.WriteString(m.Text + "\n")
		}
	}
	fmt.Fprintf(&b, "\n=== YOUR TURN %d ===\n", turn+1)
	if tools {
		b.WriteString("Reply with " + strings.TrimSpace(TextCallPrefix) + " lines, or with the answer.\n")
	} else {
		b.WriteString("Reply with the answer.\n")
	}
	return b.String()
}

// parseTextCalls reads the CALL lines of a reply. A line that does not parse is a call of no
// tool, which is refused and told to the model.
func parseTextCalls(text string) []toolCall {
	var calls []toolCall
	for _, line := range strings.Split(text, "\n") {
		l := strings.Trim(strings.TrimSpace(line), "`")
		l = strings.TrimSpace(strings.TrimLeft(l, "-*> "))
		rest, ok := strings.CutPrefix(l, TextCallPrefix)
		if !ok {
			continue
		}
		args := map[string]any{}
		call := toolCall{ID: fmt.Sprintf("call_%d", len(calls)+1)}
		if json.Unmarshal([]byte(strings.TrimSpace(rest)), &args) == nil {
			call.Name, _ = args["tool"].(string)
			delete(args, "tool")
			call.Args = args
		}
		calls = append(calls, call)
	}
	return calls
}
