package agentkit

import (
	"encoding/json"
	"fmt"
	"strings"

	"github.com/hookctl/hookctl/hook"
	"github.com/hookctl/hookctl/internal/hookjson"
)

// The pieces the adapters render their answers from. Each client's answer keeps its own shape
// (its adapter's Encode); what is the same rule everywhere is written here once.

// Reason is a deny's reason, never blank: Codex runs the tool on a deny without one, and the
// others would show the model nothing.
func Reason(reason string) string {
	if strings.TrimSpace(reason) == "" {
		return "hookctl refused this call"
	}
	return reason
}

// DenyReason is the reason of the deny that answers d, a Deny or an Ask: an ask is refused
// (no adapter relies on its client to put one to the user), with askRefusal, the client's
// words for why, after d's reason.
func DenyReason(d hook.Decision, askRefusal string) string {
	reason := Reason(d.Reason)
	if d.Verdict == hook.Ask {
		reason += askRefusal
	}
	return reason
}

// Denial says whether d refuses the call, for a client hookctl does not ask through: a Deny, or
// an Ask (refused, DenyReason), with the reason to give. A verdict that is none of those, Allow
// or Pass is an error, which the runner turns into a refusal.
func Denial(d hook.Decision, askRefusal string) (reason string, deny bool, err error) {
	switch d.Verdict {
	case hook.Deny, hook.Ask:
		return DenyReason(d, askRefusal), true, nil
	case hook.Allow, hook.Pass:
		return "", false, nil
	}
	return "", false, fmt.Errorf("unknown verdict %d", d.Verdict)
}

// Refusal is the first step of Encode for a client whose hook answers tool calls only and that
// hookctl does not ask through: done says out is the whole answer, {} for any other event and
// deny's rendering of the reason for a Deny or an Ask (Denial).
func Refusal(ev *hook.Event, d hook.Decision, askRefusal string, deny func(reason string) []byte) (out []byte, done bool, err error) {
	if ev.Name != hook.EventToolCall {
		var none hookjson.Object
		return none.Line(), true, nil
	}
	reason, refused, err := Denial(d, askRefusal)
	switch {
	case err != nil:
		return nil, true, err
	case refused:
		return deny(reason), true, nil
	}
	return nil, false, nil
}

// Rewrite is the call's input with its command replaced by command: the new command spliced in
// where the old one's value stood, every other byte as the client sent it. The member replaced
// is the one the tool's entry names and Read read (gjson's, and Parse refused a duplicate key),
// so the command judged is the command the client runs.
func (p *Protocol) Rewrite(c *hook.ToolCall, command string) (json.RawMessage, error) {
	key := p.Lookup(c.Tool).Command
	if key == "" {
		return nil, fmt.Errorf("%s takes no command to rewrite", c.Tool)
	}
	out, err := hookjson.ReplaceString(c.Input, key, command)
	if err != nil {
		return nil, fmt.Errorf("failed to find the command in %s", p.Input)
	}
	return out, nil
}

// Flat is the answer of a client whose hook writes one flat object (Copilot CLI, Cursor, and
// Gemini CLI's deny), as data: the key of its decision, the keys a deny's reason goes to, and the
// key of the tool input it takes back rewritten. Such a client answers tool calls only, and
// hookctl never asks through it (AskRefusal: the client's words for why an ask is refused).
type Flat struct {
	Decision string
	Reasons  []string
	// AllowReason: an allow carries its reason too, in the first of Reasons.
	AllowReason bool
	Rewrite     string
	AskRefusal  string
}

// Encode renders d: a deny with its reason, a rewrite as allow with the whole input, the command
// replaced (Protocol.Rewrite); {} for anything else.
func (f *Flat) Encode(p *Protocol, ev *hook.Event, d hook.Decision) ([]byte, error) {
	out, done, err := Refusal(ev, d, f.AskRefusal, f.Deny)
	if done {
		return out, err
	}
	var o hookjson.Object
	if d.Command == "" {
		return o.Line(), nil // no opinion
	}
	in, err := p.Rewrite(ev.Call, d.Command)
	if err != nil {
		return nil, err
	}
	o.Str(f.Decision, "allow")
	if f.AllowReason && d.Reason != "" {
		o.Str(f.Reasons[0], d.Reason)
	}
	o.Raw(f.Rewrite, in)
	return o.Line(), nil
}

// Deny renders a refusal with reason.
func (f *Flat) Deny(reason string) []byte {
	var o hookjson.Object
	o.Str(f.Decision, "deny")
	for _, k := range f.Reasons {
		o.Str(k, reason)
	}
	return o.Line()
}

// The answers below are Claude-shaped: Claude Code's, which Codex and Qwen Code copy.

// PreToolUse is the hookSpecificOutput of an answer to a tool call, with decision and reason
// where they are not "".
func PreToolUse(decision, reason string) hookjson.Object {
	var h hookjson.Object
	h.Str("hookEventName", "PreToolUse")
	if decision != "" {
		h.Str("permissionDecision", decision)
	}
	if reason != "" {
		h.Str("permissionDecisionReason", reason)
	}
	return h
}

// CallAnswer renders the answer to a tool call whose hookSpecificOutput is h, with context for
// the model where there is one: it reaches the model with the call's result, allowed or refused
// (Claude Code 2.1.328, live: TestRealClientModeNoticeAtToolCall; Codex and Qwen Code read it
// from the same place).
func CallAnswer(h hookjson.Object, context string) []byte {
	if context != "" {
		h.Str("additionalContext", context)
	}
	var o hookjson.Object
	o.Obj("hookSpecificOutput", h)
	return o.Line()
}

// DenyCall adds to o the refusal of a tool call with reason (never blank: Reason), and renders o.
func DenyCall(o hookjson.Object, reason string) []byte {
	o.Obj("hookSpecificOutput", PreToolUse("deny", Reason(reason)))
	return o.Line()
}

// SessionStartAnswer is the answer to a session's start: d's context for the model, its message
// for the user.
func SessionStartAnswer(d hook.Decision) []byte {
	var o hookjson.Object
	if d.Context != "" {
		var h hookjson.Object
		h.Str("hookEventName", "SessionStart")
		h.Str("additionalContext", d.Context)
		o.Obj("hookSpecificOutput", h)
	}
	if d.Message != "" {
		o.Str("systemMessage", d.Message)
	}
	return o.Line()
}

// PromptAnswer adds to o the answer to a prompt or a mode toggle, and renders o: a refusal
// blocks it, with reason; a prompt's context reaches the model with the prompt.
func PromptAnswer(o hookjson.Object, ev *hook.Event, d hook.Decision, reason string) []byte {
	if d.Verdict == hook.Deny {
		o.Str("decision", "block")
		o.Str("reason", reason)
		return o.Line()
	}
	if d.Context != "" && ev.Name == hook.EventPrompt {
		var h hookjson.Object
		h.Str("hookEventName", "UserPromptSubmit")
		h.Str("additionalContext", d.Context)
		o.Obj("hookSpecificOutput", h)
	}
	return o.Line()
}
