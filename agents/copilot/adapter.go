// Package copilot is hookctl's adapter for GitHub Copilot CLI (@github/copilot), in the hooks
// file's camelCase form: preToolUse payloads {sessionId, timestamp, cwd, toolName, toolArgs}
// and the flat decision {permissionDecision, permissionDecisionReason, modifiedArgs}.
//
// What Copilot CLI does with a hook's answer (docs hooks-reference.md, and live for deny and
// modifiedArgs with 1.0.102): deny refuses the call and gives the model "Denied by preToolUse hook: <reason>";
// modifiedArgs replaces the tool's arguments, so admitted shell reads run rewritten, in the
// sandbox; a crash or a non-zero exit denies; a timeout always lets the call run, even for a
// policy hook, which is why the runner's own deadline sits far inside the client's.
//
// toolArgs arrives as an object (live) or, in the documented form, as a JSON string holding
// one; both are read, strictly. The PascalCase form (PreToolUse with a matcher, Claude-shaped
// payloads) is not what install registers, and its payloads are refused.
//
// It runs in the hook process, and links no network code.
package copilot

import (
	"github.com/hookctl/hookctl/agents/agentkit"
	"github.com/hookctl/hookctl/hook"
)

// Adapter implements hook.Adapter for Copilot CLI.
type Adapter struct{}

// Tools maps Copilot CLI's tools (1.0.102: those its requests offered live, and the documented
// ones) to what they do. Read-only mode lets through view, grep and glob (reads), report_intent,
// update_todo, skill and the CLI's own documentation (the session's own state), list_bash,
// read_bash, list_agents and read_agent (which only read a shell's or a background agent's
// output). web_fetch is KindWeb. It refuses create, edit, str_replace_editor and apply_patch
// (writes) and, as KindOther, task (whether a subagent's own tool calls reach preToolUse was not
// verified: until it is, a subagent could act unjudged), write_bash and write_agent (type into a
// running shell or agent, past the judge), stop_bash, and sql and session_store_sql (queries
// that can write the session's database). Any other tool, MCP tools
// among them, is unknown, and refused.
var Tools = agentkit.Tools{
	{Name: "bash", Kind: hook.KindShell, Command: "command", Description: "description"},

	{Name: "view", Kind: hook.KindFileRead, Read: "path", ReadRequired: true},
	{Name: "grep", Kind: hook.KindFileRead, Read: "path"},
	{Name: "glob", Kind: hook.KindFileRead},

	{Name: "report_intent", Kind: hook.KindSession}, {Name: "update_todo", Kind: hook.KindSession},
	{Name: "fetch_copilot_cli_documentation", Kind: hook.KindSession},
	{Name: "list_bash", Kind: hook.KindSession}, {Name: "read_bash", Kind: hook.KindSession},
	{Name: "skill", Kind: hook.KindSession}, {Name: "list_agents", Kind: hook.KindSession},
	{Name: "read_agent", Kind: hook.KindSession},

	{Name: "web_fetch", Kind: hook.KindWeb, URL: "url"},

	{Name: "create", Kind: hook.KindFileWrite, Write: "path"},
	{Name: "edit", Kind: hook.KindFileWrite, Write: "path"},
	{Name: "str_replace_editor", Kind: hook.KindFileWrite, Write: "path"},
	{Name: "apply_patch", Kind: hook.KindFileWrite, Patch: "input"},

	{Name: "write_bash", Kind: hook.KindOther}, {Name: "stop_bash", Kind: hook.KindOther},
	{Name: "write_agent", Kind: hook.KindOther}, {Name: "sql", Kind: hook.KindOther},
	{Name: "session_store_sql", Kind: hook.KindOther}, {Name: "task", Kind: hook.KindOther},
}

// protocol is Copilot CLI's camelCase payloads. They name no event: hookctl registers only
// preToolUse in this form, so every payload is a tool call, and one without toolName is an
// error, refused. toolArgs may be an object or a JSON string holding one.
var protocol = agentkit.Protocol{
	Name: "Copilot CLI", Tools: Tools, InputMayBeString: true,
	Fields: agentkit.Fields{Session: "sessionId", Tool: "toolName", Cwd: "cwd", Input: "toolArgs"},
}

// Decode reads a preToolUse payload (agentkit's prologue).
func (Adapter) Decode(payload []byte) (*hook.Event, error) { return protocol.Decode(payload) }

// askRefusal replaces an ask, which hookctl does not rely on Copilot CLI to honour.
const askRefusal = " hookctl does not ask through Copilot CLI, so it refuses it; if it is wanted, run it yourself."

// answer is Copilot CLI's output: deny with its reason; a rewrite as allow with modifiedArgs
// (every argument as the client sent it, the command replaced); {} for no opinion.
var answer = agentkit.Flat{Decision: "permissionDecision", Reasons: []string{"permissionDecisionReason"}, AllowReason: true,
	Rewrite: "modifiedArgs", AskRefusal: askRefusal}

// Encode writes a decision (answer).
func (Adapter) Encode(ev *hook.Event, d hook.Decision) ([]byte, error) {
	return answer.Encode(&protocol, ev, d)
}

// Refuse writes a deny; the runner also exits 2, which Copilot CLI treats as a deny.
func (Adapter) Refuse(payload []byte, reason string) []byte {
	return answer.Deny(agentkit.Reason(reason))
}
