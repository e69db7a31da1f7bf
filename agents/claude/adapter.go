// Package claude is hookctl's adapter for Claude Code: it reads Claude Code's hook payloads into
// client-neutral events and writes decisions back in the exact JSON Claude Code honours.
//
// What the output must look like was verified against the real client (2.1.328,
// ../shared/claude-code-facts.md and the recordings in fixtures/claude): stdout must hold exactly
// one JSON object; a PreToolUse deny needs the hookSpecificOutput wrapper; updatedInput replaces
// the whole tool input; non-JSON output with exit 0 lets the call run, so every failure prints a
// deny and also exits 2, which the client treats as a block whatever stdout holds.
package claude

import (
	"encoding/json"
	"fmt"
	"strings"

	"github.com/hookctl/hookctl/internal/clip"
	"github.com/hookctl/hookctl/internal/hookjson"
	"github.com/hookctl/hookctl/internal/wordlist"

	"github.com/tidwall/gjson"

	"github.com/hookctl/hookctl/hook"
)

// Adapter implements hook.Adapter for Claude Code.
type Adapter struct{}

// Tools maps Claude Code's tool names to what they do. A tool not listed is hook.KindUnknown,
// which read-only mode refuses; every mcp__ tool is KindOther (an external server can do
// anything).
//
// Read-only mode lets through (KindFileRead, KindSession, KindAgent):
//   - Read, Grep, Glob: read local files.
//   - ToolSearch, ListAgents, CronList, TaskGet, TaskList: list the client's own tools, agents,
//     schedules and tasks.
//   - TodoWrite, TaskCreate, TaskUpdate: the session's own task list, kept by the client, not in
//     the project.
//   - AskUserQuestion, EnterPlanMode, ExitPlanMode: talk to the user or change the client's
//     permission mode, which the gate does not depend on.
//   - ReportFindings, SendMessage: a subagent reporting to its parent conversation.
//   - Skill: loads a skill's instructions; whatever the skill asks for is judged as its own call.
//   - Agent (and the older Task): starts a subagent, whose calls are judged in turn.
//
// It refuses Write, Edit, MultiEdit, NotebookEdit (KindFileWrite: they write files), and as
// KindOther: PowerShell and Monitor (run commands; Monitor's command is judged in edit mode, but
// it streams output and cannot take a rewritten command); Workflow, CronCreate, CronDelete, ScheduleWakeup, RemoteTrigger,
// TaskStop (schedule, start or stop work); EnterWorktree, ExitWorktree (create or remove work
// trees); Artifact, Projects, SendFile, SendUserFile, PushNotification, SendFeedback,
// ClaudeDesign (publish or send content out); the MCP resource tools and every mcp__ tool.
//
// WebFetch and WebSearch are KindWeb: the quarantined retriever routes them in every mode.
var Tools = []Tool{
	{"Bash", hook.KindShell},

	{"Read", hook.KindFileRead}, {"Grep", hook.KindFileRead}, {"Glob", hook.KindFileRead},

	{"ToolSearch", hook.KindSession}, {"ListAgents", hook.KindSession},
	{"CronList", hook.KindSession}, {"TaskGet", hook.KindSession}, {"TaskList", hook.KindSession},
	{"TodoWrite", hook.KindSession}, {"TaskCreate", hook.KindSession},
	{"TaskUpdate", hook.KindSession}, {"AskUserQuestion", hook.KindSession},
	{"EnterPlanMode", hook.KindSession}, {"ExitPlanMode", hook.KindSession},
	{"ReportFindings", hook.KindSession}, {"SendMessage", hook.KindSession},
	{"Skill", hook.KindSession},

	{"Agent", hook.KindAgent}, {"Task", hook.KindAgent},

	{"WebFetch", hook.KindWeb}, {"WebSearch", hook.KindWeb},

	{"Write", hook.KindFileWrite}, {"Edit", hook.KindFileWrite}, {"MultiEdit", hook.KindFileWrite},
	{"NotebookEdit", hook.KindFileWrite},

	{"PowerShell", hook.KindOther}, {"Monitor", hook.KindOther}, {"Workflow", hook.KindOther},
	{"CronCreate", hook.KindOther}, {"CronDelete", hook.KindOther},
	{"ScheduleWakeup", hook.KindOther}, {"RemoteTrigger", hook.KindOther},
	{"TaskStop", hook.KindOther}, {"EnterWorktree", hook.KindOther}, {"ExitWorktree", hook.KindOther},
	{"Artifact", hook.KindOther}, {"Projects", hook.KindOther}, {"SendFile", hook.KindOther},
	{"SendUserFile", hook.KindOther}, {"PushNotification", hook.KindOther},
	{"SendFeedback", hook.KindOther}, {"ClaudeDesign", hook.KindOther},
	{"ListMcpResourcesTool", hook.KindOther}, {"ReadMcpResourceTool", hook.KindOther},
	{"ReadMcpResourceDirTool", hook.KindOther}, {"RefreshMcpTools", hook.KindOther},
}

// Tool is one of Claude Code's tools and what it does.
type Tool struct {
	Name string
	Kind hook.Kind
}

// KindOf says what a Claude Code tool does.
func KindOf(tool string) hook.Kind {
	if strings.HasPrefix(tool, "mcp__") {
		return hook.KindOther
	}
	for _, t := range Tools { // a slice, not a map: a map literal is built on every hook start
		if t.Name == tool {
			return t.Kind
		}
	}
	return hook.KindUnknown
}

// knownEvents are Claude Code's hook events, space-separated. Those hookctl does not act on get no opinion;
// an event name not listed here is refused, since hookctl cannot know what it means.
var knownEvents = "PreToolUse PostToolUse PostToolUseFailure UserPromptSubmit UserPromptExpansion SessionStart SessionEnd Stop SubagentStart SubagentStop Notification PreCompact PostCompact PermissionRequest PermissionDenied Setup TeammateIdle TaskCreated TaskCompleted ConfigChange WorktreeCreate WorktreeRemove InstructionsLoaded Elicitation ElicitationResult StopFailure CwdChanged FileChanged"

// Decode reads a payload. Every field the policy relies on must be present with the right
// type, and no key may appear twice anywhere: gjson would decide on the first value while the
// client (and encoding/json) act on the last.
func (Adapter) Decode(payload []byte) (*hook.Event, error) {
	if !gjson.ValidBytes(payload) {
		return nil, fmt.Errorf("the payload is not valid JSON")
	}
	root := gjson.ParseBytes(payload)
	if !root.IsObject() {
		return nil, fmt.Errorf("the payload is not a JSON object")
	}
	if dup := hook.DuplicateKey(root); dup != "" {
		return nil, fmt.Errorf("the key %q appears twice", clip.Short(dup))
	}
	name, err := str(root, "hook_event_name", true)
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
	case "SessionEnd":
		ev.Name = hook.EventSessionEnd
		ev.Session, err = str(root, "session_id", true)
		if err != nil {
			return nil, err
		}
		return ev, nil
	case "UserPromptSubmit", "UserPromptExpansion":
		ev.Name = hook.EventPrompt
	default:
		return ev, nil
	}
	if ev.Session, err = str(root, "session_id", true); err != nil {
		return nil, err
	}
	if ev.Cwd, err = str(root, "cwd", false); err != nil {
		return nil, err
	}
	if ev.PermissionMode, err = str(root, "permission_mode", false); err != nil {
		return nil, err
	}
	if name == "UserPromptExpansion" {
		return decodeExpansion(root, ev)
	}
	if _, err := str(root, "prompt", false); err != nil {
		return nil, err
	}
	return ev, nil
}

// TrustedCommandSource is where the readonly command must come from for a toggle to count: the
// user-level command file install writes, which declares disable-model-invocation, so the
// model can neither run it through the Skill tool nor have a /readonly it scheduled expanded.
//
// The submitted prompt text never counts: a prompt the model scheduled (CronCreate,
// ScheduleWakeup) arrives at UserPromptSubmit exactly as a typed one does. A command or skill
// named readonly from anywhere else (a project's, which could shadow hookctl's) is a toggle
// that is not trusted: blocked, changing nothing.
const TrustedCommandSource = "userSettings"

// decodeExpansion reads a slash command's expansion: hookctl's readonly command is a toggle,
// every other command an ordinary prompt.
func decodeExpansion(root gjson.Result, ev *hook.Event) (*hook.Event, error) {
	var cmd, args, source, promptID string
	var err error
	if cmd, err = str(root, "command_name", false); err != nil {
		return nil, err
	}
	if args, err = str(root, "command_args", false); err != nil {
		return nil, err
	}
	if source, err = str(root, "command_source", false); err != nil {
		return nil, err
	}
	if promptID, err = str(root, "prompt_id", false); err != nil {
		return nil, err
	}
	if _, err := str(root, "prompt", false); err != nil {
		return nil, err
	}
	if cmd == "readonly" {
		ev.Name = hook.EventToggle
		ev.Toggle = &hook.ToggleRequest{Args: args, PromptID: promptID, Source: source, Trusted: source == TrustedCommandSource}
		return ev, nil
	}
	// Another command's expansion: the same prompt also reaches UserPromptSubmit, which carries
	// any notice for the model.
	ev.Name = hook.EventOther
	return ev, nil
}

// writtenPath names the input field holding the file a writing tool writes, or "".
func writtenPath(tool string) string {
	switch tool {
	case "Write", "Edit", "MultiEdit":
		return "file_path"
	case "NotebookEdit":
		return "notebook_path"
	}
	return ""
}

// readPath names the input field holding the file or directory a reading tool reads, or "".
func readPath(tool string) string {
	switch tool {
	case "Read":
		return "file_path"
	case "Grep":
		return "path"
	}
	return ""
}

func decodeCall(root gjson.Result, ev *hook.Event) (*hook.Event, error) {
	var err error
	c := &hook.ToolCall{}
	if c.Session, err = str(root, "session_id", true); err != nil {
		return nil, err
	}
	if c.Tool, err = str(root, "tool_name", true); err != nil {
		return nil, err
	}
	if c.Cwd, err = str(root, "cwd", false); err != nil {
		return nil, err
	}
	if c.AgentID, err = str(root, "agent_id", false); err != nil {
		return nil, err
	}
	if c.AgentType, err = str(root, "agent_type", false); err != nil {
		return nil, err
	}
	if c.PermissionMode, err = str(root, "permission_mode", false); err != nil {
		return nil, err
	}
	if c.UseID, err = str(root, "tool_use_id", false); err != nil {
		return nil, err
	}
	in := root.Get("tool_input")
	if !in.IsObject() {
		return nil, fmt.Errorf("tool_input is missing or not an object")
	}
	c.Input = json.RawMessage(in.Raw)
	c.Kind = KindOf(c.Tool)
	switch {
	case c.Kind == hook.KindShell || c.Tool == "Monitor":
		c.NoRewrite = c.Tool == "Monitor" // it streams the command's output; no updatedInput
		if c.Command, err = str(in, "command", true); err != nil {
			return nil, fmt.Errorf("tool_input: %w", err)
		}
		if c.Description, err = str(in, "description", false); err != nil {
			return nil, fmt.Errorf("tool_input: %w", err)
		}
	case c.Tool == "WebFetch":
		w := &hook.WebRequest{}
		if w.URL, err = str(in, "url", true); err != nil {
			return nil, fmt.Errorf("tool_input: %w", err)
		}
		if w.Need, err = str(in, "prompt", false); err != nil {
			return nil, fmt.Errorf("tool_input: %w", err)
		}
		c.Web = w
	case c.Tool == "WebSearch":
		w := &hook.WebRequest{}
		if w.Query, err = str(in, "query", true); err != nil {
			return nil, fmt.Errorf("tool_input: %w", err)
		}
		w.Need = w.Query
		c.Web = w
	case writtenPath(c.Tool) != "":
		p, err := str(in, writtenPath(c.Tool), true)
		if err != nil {
			return nil, fmt.Errorf("tool_input: %w", err)
		}
		c.Paths = []string{p}
	case readPath(c.Tool) != "":
		// Read's file, and Grep's directory when given (else the working directory), for the
		// sensitive-file rule. Glob lists names only, as ls and find do, which the rule leaves
		// alone.
		p, err := str(in, readPath(c.Tool), c.Tool == "Read")
		if err != nil {
			return nil, fmt.Errorf("tool_input: %w", err)
		}
		if p != "" {
			c.ReadPaths = []string{p}
		}
	case c.Tool == "CronCreate" || c.Tool == "ScheduleWakeup":
		if c.Prompt, err = str(in, "prompt", false); err != nil {
			return nil, fmt.Errorf("tool_input: %w", err)
		}
	case c.Tool == "Skill":
		if c.Skill, err = str(in, "skill", false); err != nil {
			return nil, fmt.Errorf("tool_input: %w", err)
		}
	}
	ev.Session, ev.Cwd, ev.Call, ev.PermissionMode = c.Session, c.Cwd, c, c.PermissionMode
	return ev, nil
}

// str reads a string field; required fields must be present and non-empty.
func str(obj gjson.Result, key string, required bool) (string, error) {
	return hookjson.Str(obj, key, required)
}

// Encode writes a decision. No opinion is {}; allow, ask and deny use the PreToolUse wrapper; an
// allowed or asked shell call carries updatedInput with every input field, the command replaced by the
// canonical form the policy judged. A refused prompt is blocked; session start carries context
// for the model and a message for the user.
//
// The output is written by hand (internal/hookjson), not by encoding/json: it is a handful of fixed
// shapes, and reflection's first use cost more than the rest of a hook call's encoding.
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
		if d.Verdict == hook.Deny && ev.Name == hook.EventToggle {
			// The answer to the user's mode command. continue:false shows it as "Operation
			// stopped by hook: REASON", where a block alone reads "UserPromptExpansion operation
			// blocked by hook: REASON / Original prompt: …" for a toggle that worked (2.1.328,
			// live, TUI). The block stays beside it: either keeps the prompt from the model.
			o.Raw("continue", []byte("false"))
			o.Str("stopReason", d.Reason)
		}
		if d.Verdict == hook.Deny {
			o.Str("decision", "block")
			o.Str("reason", d.Reason)
			return o.Line(), nil
		}
		if d.Context != "" && ev.Name == hook.EventPrompt {
			// Sent to the model with the prompt (2.1.328, live: TestRealTUIModeNotices).
			var h hookjson.Object
			h.Str("hookEventName", "UserPromptSubmit")
			h.Str("additionalContext", d.Context)
			o.Obj("hookSpecificOutput", h)
		}
		return o.Line(), nil
	}
	if ev.Name != hook.EventToolCall || d.Verdict == hook.Pass && d.Command == "" && d.Context == "" {
		return o.Line(), nil
	}
	var h hookjson.Object
	h.Str("hookEventName", "PreToolUse")
	switch d.Verdict {
	case hook.Pass:
		// No opinion, but a rewrite: updatedInput without a permissionDecision runs the new
		// command through the client's own permission flow, which matches the user's rules
		// against the rewrite (2.1.328, live). The gate settles rewritten calls by the user's
		// rules first (hook.ClientRules); only the auto mode, whose classifier hookctl cannot
		// model, is left to the client this way.
	case hook.Deny:
		h.Str("permissionDecision", "deny")
	case hook.Allow:
		h.Str("permissionDecision", "allow")
	case hook.Ask:
		// The client shows the user the call, as rewritten in updatedInput, and the reason, and
		// the user decides. Under -p it cannot ask: 2.1.328 refuses the call, records it in
		// permission_denials and gives the model the reason (TestRealClientReviewPublishAsks).
		h.Str("permissionDecision", "ask")
	default:
		return nil, fmt.Errorf("unknown verdict %d", d.Verdict)
	}
	if d.Reason != "" {
		h.Str("permissionDecisionReason", d.Reason)
	}
	if d.Verdict != hook.Deny && d.Command != "" {
		in, err := replaceCommand(ev.Call.Input, d.Command)
		if err != nil {
			return nil, err
		}
		h.Raw("updatedInput", in)
	}
	if d.Context != "" {
		// Reaches the model with the call's result, allowed or refused (2.1.328, live:
		// TestRealClientModeNoticeAtToolCall).
		h.Str("additionalContext", d.Context)
	}
	o.Obj("hookSpecificOutput", h)
	return o.Line(), nil
}

// replaceCommand returns the tool input with its command replaced: the new command spliced in
// where the old one's value stood, every other byte as the client sent it. The member replaced
// is the one Decode read (gjson's, and Decode refused a duplicate key), so the command judged is
// the command the client runs.
func replaceCommand(in json.RawMessage, command string) (json.RawMessage, error) {
	out, err := hookjson.ReplaceString(in, "command", command)
	if err != nil {
		return nil, fmt.Errorf("failed to find the command in tool_input")
	}
	return out, nil
}

// Refuse writes a refusal for a payload that could not be decided. For a prompt it blocks the
// prompt; for anything else — a tool call, or a payload too broken to tell — it writes both the
// PreToolUse deny and the generic block, each of which Claude Code honours; the runner also exits
// 2.
func (Adapter) Refuse(payload []byte, reason string) []byte {
	var o hookjson.Object
	o.Str("decision", "block")
	o.Str("reason", reason)
	if ev := gjson.GetBytes(payload, "hook_event_name").Str; ev == "UserPromptSubmit" || ev == "UserPromptExpansion" {
		return o.Line()
	}
	var h hookjson.Object
	h.Str("hookEventName", "PreToolUse")
	h.Str("permissionDecision", "deny")
	h.Str("permissionDecisionReason", reason)
	o.Obj("hookSpecificOutput", h)
	return o.Line()
}
