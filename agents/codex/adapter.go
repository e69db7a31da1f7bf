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
	"github.com/tidwall/gjson"

	"github.com/hookctl/hookctl/agents/agentkit"
	"github.com/hookctl/hookctl/hook"
	"github.com/hookctl/hookctl/internal/hookjson"
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

// knownEvents are Codex's hook events (codex-rs/hooks/src/events). Those hookctl does not act on
// get no opinion; any other name is refused.
var knownEvents = "PreToolUse PermissionRequest PostToolUse SessionStart UserPromptSubmit Stop StopFailure PreCompact PostCompact SubagentStart SubagentStop"

// protocol is Codex's payloads: Claude-shaped, and every mcp__ tool an external server's.
var protocol = agentkit.Protocol{
	Name: "Codex", Fields: agentkit.ClaudeFields, Events: knownEvents,
	Acts: []agentkit.Act{{Name: "PreToolUse", Event: hook.EventToolCall}, {Name: "SessionStart", Event: hook.EventSessionStart},
		{Name: "UserPromptSubmit", Event: hook.EventPrompt}},
	Tools: Tools, External: "mcp__",
}

// Decode reads a payload (agentkit's prologue: Codex sends nothing more hookctl reads).
func (Adapter) Decode(payload []byte) (*hook.Event, error) { return protocol.Decode(payload) }

// askRefusal is what replaces an ask, which Codex does not support (it would run the tool).
const askRefusal = " Codex's hooks cannot ask you to confirm, so hookctl refuses it; if it is wanted, run it yourself."

// Encode writes a decision in one of the shapes Codex's parser accepts.
func (Adapter) Encode(ev *hook.Event, d hook.Decision) ([]byte, error) {
	var o hookjson.Object
	switch ev.Name {
	case hook.EventSessionStart:
		return agentkit.SessionStartAnswer(d), nil
	case hook.EventPrompt, hook.EventToggle:
		return agentkit.PromptAnswer(o, ev, d, agentkit.Reason(d.Reason)), nil
	}
	if ev.Name != hook.EventToolCall {
		return o.Line(), nil
	}
	reason, deny, err := agentkit.Denial(d, askRefusal)
	if err != nil {
		return nil, err
	}
	var h hookjson.Object
	switch {
	case deny:
		h = agentkit.PreToolUse("deny", reason)
	case d.Command != "":
		// A rewrite, allowed or (edit mode) contained: Codex takes updatedInput only with allow.
		in, err := protocol.Rewrite(ev.Call, d.Command)
		if err != nil {
			return nil, err
		}
		h = agentkit.PreToolUse("allow", d.Reason)
		h.Raw("updatedInput", in)
	case d.Context == "":
		return o.Line(), nil // no opinion: {}
	default:
		h = agentkit.PreToolUse("", "")
	}
	return agentkit.CallAnswer(h, d.Context), nil
}

// Refuse writes a refusal for a payload that could not be decided: the prompt form for a prompt,
// the PreToolUse deny for anything else. The runner also exits 2 with the reason on stderr,
// which Codex treats as a block whatever stdout holds.
func (Adapter) Refuse(payload []byte, reason string) []byte {
	var o hookjson.Object
	if gjson.GetBytes(payload, "hook_event_name").Str == "UserPromptSubmit" {
		return agentkit.PromptAnswer(o, &hook.Event{Name: hook.EventPrompt}, hook.Decision{Verdict: hook.Deny}, agentkit.Reason(reason))
	}
	return agentkit.DenyCall(o, reason)
}
