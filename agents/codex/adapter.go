// Package codex is hookctl's adapter for OpenAI's Codex CLI (@openai/codex): it reads Codex's
// hook payloads into client-neutral events and writes decisions in the JSON Codex honours.
//
// Codex's hooks are Claude-shaped (codex-rs/hooks; payloads recorded live from 0.169.0 in
// fixtures/codex), but its output parser fails open in ways Claude Code's does not, and this
// encoder never writes any of them (engine/output_parser.rs):
//   - a deny without a non-empty permissionDecisionReason is invalid, and the tool runs;
//   - permissionDecision "ask" is unsupported, and the tool runs: an ask is written as a deny
//     saying the user must run the command;
//   - "allow" without updatedInput, and updatedInput without "allow", are invalid: a rewrite is
//     always allow with updatedInput, and an allow without one is written as no opinion;
//   - permissionDecisionReason without a decision is invalid;
//   - an unknown key anywhere makes the output unparseable, and the tool runs;
//   - exit 2 blocks only with a non-empty stderr (the runner writes its reason there); any
//     other exit, a crash or a timeout lets the tool run. Codex has no fail-closed setting,
//     which is why the runner's own deadline sits far inside the client's timeout.
//
// And hooks it has not been told to trust are skipped without a word: install persists the
// trust, and doctor checks it (trust.go, which runs codex app-server; only install and doctor
// use it). The adapter runs in the hook process.
package codex

import (
	"fmt"

	"github.com/tidwall/gjson"

	"github.com/hookctl/hookctl/agents/agentkit"
	"github.com/hookctl/hookctl/hook"
	"github.com/hookctl/hookctl/internal/clip"
	"github.com/hookctl/hookctl/internal/hookjson"
	"github.com/hookctl/hookctl/internal/wordlist"
)

// Adapter implements hook.Adapter for Codex.
type Adapter struct{}

// Tools are the tool names Codex's PreToolUse payload carries (0.169.0, live and
// codex-rs/hooks): the model's exec_command arrives as Bash, its edits as apply_patch, both with
// the text in tool_input.command. Every mcp__ tool is KindOther; anything else is unknown, and
// read-only mode refuses it.
//
// Bash takes the rewritten command back (updatedInput), so admitted reads run in the sandbox.
// The payload does not carry exec_command's workdir: a command is judged from the session's cwd.
var Tools = agentkit.Tools{
	{Name: "Bash", Kind: hook.KindShell, Command: "command", Description: "description"},
	{Name: "apply_patch", Kind: hook.KindFileWrite, Patch: "command"},
}

// KindOf says what a Codex tool does.
func KindOf(tool string) (agentkit.Tool, bool) {
	if t, ok := Tools.Find(tool); ok {
		return t, true
	}
	if len(tool) > 5 && tool[:5] == "mcp__" {
		return agentkit.Tool{Name: tool, Kind: hook.KindOther}, true
	}
	return agentkit.Tool{Name: tool, Kind: hook.KindUnknown}, false
}

// knownEvents are Codex's hook events (codex-rs/hooks/src/events). Those hookctl does not act on
// get no opinion; any other name is refused.
var knownEvents = "PreToolUse PermissionRequest PostToolUse SessionStart UserPromptSubmit Stop StopFailure PreCompact PostCompact SubagentStart SubagentStop"

// Decode reads a payload.
func (Adapter) Decode(payload []byte) (*hook.Event, error) {
	root, err := agentkit.Parse(payload)
	if err != nil {
		return nil, err
	}
	name, err := agentkit.Str(root, "hook_event_name", true)
	if err != nil {
		return nil, err
	}
	if !wordlist.Has(knownEvents, name) {
		return nil, fmt.Errorf("unknown hook event %q", clip.Short(name))
	}
	ev := &hook.Event{Name: hook.EventOther}
	switch name {
	case "PreToolUse":
		ev.Name = hook.EventToolCall
		return decodeCall(root, ev)
	case "SessionStart":
		ev.Name = hook.EventSessionStart
	case "UserPromptSubmit":
		ev.Name = hook.EventPrompt
	default:
		return ev, nil
	}
	if ev.Session, err = agentkit.Str(root, "session_id", true); err != nil {
		return nil, err
	}
	if ev.Cwd, err = agentkit.Str(root, "cwd", false); err != nil {
		return nil, err
	}
	if ev.PermissionMode, err = agentkit.Str(root, "permission_mode", false); err != nil {
		return nil, err
	}
	return ev, nil
}

func decodeCall(root gjson.Result, ev *hook.Event) (*hook.Event, error) {
	c := &hook.ToolCall{}
	var err error
	for _, f := range []struct {
		key      string
		to       *string
		required bool
	}{
		{"session_id", &c.Session, true}, {"tool_name", &c.Tool, true}, {"cwd", &c.Cwd, false},
		{"agent_id", &c.AgentID, false}, {"agent_type", &c.AgentType, false},
		{"permission_mode", &c.PermissionMode, false}, {"tool_use_id", &c.UseID, false},
	} {
		if *f.to, err = agentkit.Str(root, f.key, f.required); err != nil {
			return nil, err
		}
	}
	t, _ := KindOf(c.Tool)
	if err := agentkit.FillCall(c, t, root.Get("tool_input")); err != nil {
		return nil, err
	}
	ev.Session, ev.Cwd, ev.Call, ev.PermissionMode = c.Session, c.Cwd, c, c.PermissionMode
	return ev, nil
}

// askRefusal is what replaces an ask, which Codex does not support (it would run the tool).
const askRefusal = " Codex's hooks cannot ask you to confirm, so hookctl refuses it; if it is wanted, run it yourself."

// Encode writes a decision in one of the shapes Codex's parser accepts.
func (Adapter) Encode(ev *hook.Event, d hook.Decision) ([]byte, error) {
	var o hookjson.Object
	switch ev.Name {
	case hook.EventSessionStart:
		if d.Context != "" {
			var h hookjson.Object
			h.Str("hookEventName", "SessionStart")
			h.Str("additionalContext", d.Context)
			o.Obj("hookSpecificOutput", h)
		}
		if d.Message != "" {
			o.Str("systemMessage", d.Message)
		}
		return o.Line(), nil
	case hook.EventPrompt, hook.EventToggle:
		if d.Verdict == hook.Deny {
			o.Str("decision", "block")
			o.Str("reason", agentkit.Reason(d.Reason))
			return o.Line(), nil
		}
		if d.Context != "" && ev.Name == hook.EventPrompt {
			var h hookjson.Object
			h.Str("hookEventName", "UserPromptSubmit")
			h.Str("additionalContext", d.Context)
			o.Obj("hookSpecificOutput", h)
		}
		return o.Line(), nil
	}
	if ev.Name != hook.EventToolCall {
		return o.Line(), nil
	}
	var h hookjson.Object
	h.Str("hookEventName", "PreToolUse")
	switch {
	case d.Verdict == hook.Deny || d.Verdict == hook.Ask:
		reason := agentkit.DenyReason(d, askRefusal)
		h.Str("permissionDecision", "deny")
		h.Str("permissionDecisionReason", reason)
	case d.Verdict != hook.Pass && d.Verdict != hook.Allow:
		return nil, fmt.Errorf("unknown verdict %d", d.Verdict)
	case d.Command != "":
		// A rewrite, allowed or (edit mode) contained: Codex takes updatedInput only with allow.
		in, err := hookjson.ReplaceString(ev.Call.Input, "command", d.Command)
		if err != nil {
			return nil, err
		}
		h.Str("permissionDecision", "allow")
		if d.Reason != "" {
			h.Str("permissionDecisionReason", d.Reason)
		}
		h.Raw("updatedInput", in)
	case d.Context == "":
		return o.Line(), nil // no opinion: {}
	}
	if d.Context != "" {
		h.Str("additionalContext", d.Context)
	}
	o.Obj("hookSpecificOutput", h)
	return o.Line(), nil
}

// Refuse writes a refusal for a payload that could not be decided: the prompt form for a prompt,
// the PreToolUse deny for anything else. The runner also exits 2 with the reason on stderr,
// which Codex treats as a block whatever stdout holds.
func (Adapter) Refuse(payload []byte, reason string) []byte {
	var o hookjson.Object
	if gjson.GetBytes(payload, "hook_event_name").Str == "UserPromptSubmit" {
		o.Str("decision", "block")
		o.Str("reason", agentkit.Reason(reason))
		return o.Line()
	}
	var h hookjson.Object
	h.Str("hookEventName", "PreToolUse")
	h.Str("permissionDecision", "deny")
	h.Str("permissionDecisionReason", agentkit.Reason(reason))
	o.Obj("hookSpecificOutput", h)
	return o.Line()
}
