// Package gemini is hookctl's adapter for Google's Gemini CLI (@google/gemini-cli): BeforeTool
// payloads, and the top-level decision Gemini CLI reads.
//
// What Gemini CLI 0.61.0 does with a hook's answer (packages/core/src/hooks, its bundle): stdout
// is parsed as JSON whatever the exit code; decision deny (or block) refuses the call and gives
// the model "Tool execution blocked: <reason>"; hookSpecificOutput.tool_input is merged into the
// tool's arguments, so admitted shell reads run rewritten, in the sandbox. Its fail-open traps,
// none of which this encoder or the runner produces: non-JSON output with exit 0 allows; exit 1
// allows (a warning); a timeout or empty output lets the tool run. Every answer is a JSON
// object, and every failure is a deny with exit 2.
//
// Google stopped serving Gemini CLI requests on 2026-06-18 in favour of Antigravity CLI (agy),
// whose hooks are reported Claude-shaped; no official reference was found, and this adapter
// does not claim to cover it.
//
// It runs in the hook process, and links no network code.
package gemini

import (
	"github.com/hookctl/hookctl/agents/agentkit"
	"github.com/hookctl/hookctl/hook"
	"github.com/hookctl/hookctl/internal/hookjson"
)

// Adapter implements hook.Adapter for Gemini CLI.
type Adapter struct{}

// Tools maps Gemini CLI's tools (packages/core/src/tools/tool-names.ts, 0.61.0) to what they do.
// Read-only mode lets through read_file, grep_search and list_directory and glob (names only),
// the session's own tools (todos, plan mode, questions, topics, skills, the CLI's own docs,
// reading its task tracker, listing background shells and reading their output).
// google_web_search and web_fetch are KindWeb (web_fetch names its URLs inside a prompt, which
// hookctl's retriever cannot take: it is refused, with the retriever's command as the hint).
// It refuses write_file and replace, and as KindOther read_many_files (it reads every file its
// globs match, so the sensitive-file rule cannot judge it), invoke_agent (whether a subagent's
// own tool calls reach BeforeTool was not verified: until it is, a subagent could act unjudged),
// the tracker's writes and the MCP resource tools. Any other tool is unknown, and refused.
var Tools = agentkit.Tools{
	{Name: "run_shell_command", Kind: hook.KindShell, Command: "command", Description: "description", Dir: "dir_path"},

	{Name: "read_file", Kind: hook.KindFileRead, Read: "file_path", ReadRequired: true},
	{Name: "grep_search", Kind: hook.KindFileRead, Read: "dir_path"},
	{Name: "glob", Kind: hook.KindFileRead},
	{Name: "list_directory", Kind: hook.KindFileRead},

	{Name: "write_todos", Kind: hook.KindSession}, {Name: "ask_user", Kind: hook.KindSession},
	{Name: "enter_plan_mode", Kind: hook.KindSession}, {Name: "exit_plan_mode", Kind: hook.KindSession},
	{Name: "update_topic", Kind: hook.KindSession}, {Name: "complete_task", Kind: hook.KindSession},
	{Name: "activate_skill", Kind: hook.KindSession}, {Name: "get_internal_docs", Kind: hook.KindSession},
	{Name: "tracker_get_task", Kind: hook.KindSession}, {Name: "tracker_list_tasks", Kind: hook.KindSession},
	{Name: "tracker_visualize", Kind: hook.KindSession},
	{Name: "list_background_processes", Kind: hook.KindSession}, {Name: "read_background_output", Kind: hook.KindSession},

	{Name: "google_web_search", Kind: hook.KindWeb, Query: "query"},
	{Name: "web_fetch", Kind: hook.KindWeb},

	{Name: "write_file", Kind: hook.KindFileWrite, Write: "file_path"},
	{Name: "replace", Kind: hook.KindFileWrite, Write: "file_path"},

	{Name: "read_many_files", Kind: hook.KindOther}, {Name: "invoke_agent", Kind: hook.KindOther},
	{Name: "tracker_create_task", Kind: hook.KindOther}, {Name: "tracker_update_task", Kind: hook.KindOther},
	{Name: "tracker_add_dependency", Kind: hook.KindOther},
	{Name: "read_mcp_resource", Kind: hook.KindOther}, {Name: "list_mcp_resources", Kind: hook.KindOther},
}

// knownEvents are Gemini CLI's hook events (docs/hooks, 0.61.0).
var knownEvents = "BeforeTool AfterTool BeforeAgent AfterAgent BeforeModel AfterModel BeforeToolSelection SessionStart SessionEnd PreCompress Notification"

// protocol is Gemini CLI's payloads: Claude-shaped keys without the subagent's, permission
// mode's or call's, BeforeTool the one event hookctl acts on. MCP tools are not in the table:
// unknown, so read-only mode refuses them.
var protocol = agentkit.Protocol{
	Name: "Gemini CLI", Events: knownEvents, Tools: Tools,
	Fields: agentkit.Fields{Event: "hook_event_name", Session: "session_id", Tool: "tool_name", Cwd: "cwd", Input: "tool_input"},
	Acts:   []agentkit.Act{{Name: "BeforeTool", Event: hook.EventToolCall}},
}

// Decode reads a payload (agentkit's prologue: Gemini CLI sends nothing more hookctl reads).
func (Adapter) Decode(payload []byte) (*hook.Event, error) { return protocol.Decode(payload) }

// askRefusal replaces an ask: under -p and yolo, Gemini CLI's handling of one is not verified,
// and a refusal is the answer that cannot run the call.
const askRefusal = " hookctl does not ask through Gemini CLI, so it refuses it; if it is wanted, run it yourself."

// Encode writes a decision: deny with its reason; a rewrite as hookSpecificOutput.tool_input
// holding the new command (allow, or no decision for edit mode's contained command); {} for no
// opinion.
func (Adapter) Encode(ev *hook.Event, d hook.Decision) ([]byte, error) {
	out, done, err := agentkit.Refusal(ev, d, askRefusal, deny.Deny)
	if done {
		return out, err
	}
	var o hookjson.Object
	if d.Verdict == hook.Allow {
		o.Str("decision", "allow")
		if d.Reason != "" {
			o.Str("reason", d.Reason)
		}
	}
	if d.Command != "" {
		var in, h hookjson.Object
		in.Str("command", d.Command)
		h.Str("hookEventName", "BeforeTool")
		h.Obj("tool_input", in)
		o.Obj("hookSpecificOutput", h)
	}
	return o.Line(), nil
}

// deny is Gemini CLI's refusal: {"decision":"deny","reason":…}.
var deny = agentkit.Flat{Decision: "decision", Reasons: []string{"reason"}}

// Refuse writes a deny; the runner also exits 2, which Gemini CLI treats as a deny too.
func (Adapter) Refuse(payload []byte, reason string) []byte {
	return deny.Deny(agentkit.Reason(reason))
}
