// Package cursor is hookctl's adapter for Cursor's hooks (hooks.json, version 1), registered on
// preToolUse only: it carries every tool, and registering beforeShellExecution as well would
// judge each shell call twice.
//
// Built from Cursor's documented schema alone: no Cursor client runs here, so nothing in this
// package has been seen working against the real client (fixtures/cursor says the same). What
// the documentation says it does: the answer is flat, permission allow or deny (ask on shell and
// MCP calls), user_message and agent_message, updated_input replacing the tool's input; a hook
// that fails is ignored unless it is registered with failClosed, which install sets, and then a
// hook that prints nothing blocks.
//
// The input fields of each tool are not all documented: a tool whose input lacks the field this
// adapter looks for is refused, never guessed at.
//
// It runs in the hook process, and links no network code.
package cursor

import (
	"fmt"

	"github.com/tidwall/gjson"

	"github.com/hookctl/hookctl/agents/agentkit"
	"github.com/hookctl/hookctl/hook"
)

// Adapter implements hook.Adapter for Cursor.
type Adapter struct{}

// Tools maps the tool_name values Cursor's preToolUse documents to what they do. Read-only mode
// lets through Read and Grep (reads); it refuses Write and Delete (writes), Task (whether a
// subagent's own tool calls reach the hook is not documented) and every MCP:<name> tool
// (KindOther). Any other name is unknown, and refused.
// Shell takes updated_input, so admitted reads run rewritten, in the sandbox.
var Tools = agentkit.Tools{
	{Name: "Shell", Kind: hook.KindShell, Command: "command", Dir: "cwd"},
	{Name: "Read", Kind: hook.KindFileRead},
	{Name: "Grep", Kind: hook.KindFileRead},
	{Name: "Task", Kind: hook.KindOther},
	{Name: "Write", Kind: hook.KindFileWrite},
	{Name: "Delete", Kind: hook.KindFileWrite},
}

// pathKeys are the input fields a file tool's path may be in: the documentation names both.
var pathKeys = []string{"file_path", "path"}

// knownEvents are Cursor's documented hook events.
var knownEvents = "preToolUse postToolUse beforeShellExecution afterShellExecution beforeReadFile afterFileEdit beforeMCPExecution afterMCPExecution beforeSubmitPrompt afterAgentResponse afterAgentThought sessionStart sessionEnd stop subagentStart subagentStop preCompact"

// protocol is Cursor's payloads: the conversation is the session, preToolUse the one event
// registered (another reaching the hook is refused), and every MCP:<name> tool an external
// server's.
var protocol = agentkit.Protocol{
	Name: "Cursor", Events: knownEvents, Tools: Tools, External: "MCP:", Prepare: prepare,
	Fields:   agentkit.Fields{Event: "hook_event_name", Session: "conversation_id", Tool: "tool_name", Input: "tool_input"},
	Acts:     []agentkit.Act{{Name: "preToolUse", Event: hook.EventToolCall}},
	OnlyActs: true,
}

// prepare reads what only Cursor sends: the session's directory is the first workspace root,
// and a file tool's path is in whichever of pathKeys its input holds (Grep's is optional and
// not documented, so it is left to the session's directory).
func prepare(c *hook.ToolCall, t *agentkit.Tool, root, in gjson.Result) error {
	if roots := root.Get("workspace_roots"); roots.IsArray() && roots.Get("0").Type == gjson.String {
		c.Cwd = roots.Get("0").Str
	}
	if t.Kind != hook.KindFileWrite && t.Kind != hook.KindFileRead || t.Name == "Grep" {
		return nil
	}
	for _, k := range pathKeys {
		if in.Get(k).Exists() {
			if t.Kind == hook.KindFileWrite {
				t.Write = k
			} else {
				t.Read, t.ReadRequired = k, true
			}
			return nil
		}
	}
	return fmt.Errorf("tool_input of %s names no file (file_path or path)", c.Tool)
}

// Decode reads a preToolUse payload (agentkit's prologue, and prepare).
func (Adapter) Decode(payload []byte) (*hook.Event, error) { return protocol.Decode(payload) }

const askRefusal = " hookctl does not ask through Cursor, so it refuses it; if it is wanted, run it yourself."

// answer is Cursor's output: deny with the reason for both the user and the agent; a rewrite as
// allow with updated_input; {} for no opinion.
var answer = agentkit.Flat{Decision: "permission", Reasons: []string{"user_message", "agent_message"}, Rewrite: "updated_input",
	AskRefusal: askRefusal}

// Encode writes a decision (answer).
func (Adapter) Encode(ev *hook.Event, d hook.Decision) ([]byte, error) {
	return answer.Encode(&protocol, ev, d)
}

// Refuse writes a deny; the runner also exits 2.
func (Adapter) Refuse(payload []byte, reason string) []byte {
	return answer.Deny(agentkit.Reason(reason))
}
