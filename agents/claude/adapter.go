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
	"fmt"

	"github.com/tidwall/gjson"

	"github.com/hookctl/hookctl/agents/agentkit"
	"github.com/hookctl/hookctl/hook"
	"github.com/hookctl/hookctl/internal/hookjson"
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
var Tools = agentkit.Tools{
	{Name: "Bash", Kind: hook.KindShell, Command: "command", Description: "description"},

	// Read's file, and Grep's directory when given (else the working directory), for the
	// sensitive-file rule. Glob lists names only, as ls and find do, which the rule leaves alone.
	{Name: "Read", Kind: hook.KindFileRead, Read: "file_path", ReadRequired: true},
	{Name: "Grep", Kind: hook.KindFileRead, Read: "path"},
	{Name: "Glob", Kind: hook.KindFileRead},

	{Name: "ToolSearch", Kind: hook.KindSession}, {Name: "ListAgents", Kind: hook.KindSession},
	{Name: "CronList", Kind: hook.KindSession}, {Name: "TaskGet", Kind: hook.KindSession}, {Name: "TaskList", Kind: hook.KindSession},
	{Name: "TodoWrite", Kind: hook.KindSession}, {Name: "TaskCreate", Kind: hook.KindSession},
	{Name: "TaskUpdate", Kind: hook.KindSession}, {Name: "AskUserQuestion", Kind: hook.KindSession},
	{Name: "EnterPlanMode", Kind: hook.KindSession}, {Name: "ExitPlanMode", Kind: hook.KindSession},
	{Name: "ReportFindings", Kind: hook.KindSession}, {Name: "SendMessage", Kind: hook.KindSession},
	{Name: "Skill", Kind: hook.KindSession, Skill: "skill"},

	{Name: "Agent", Kind: hook.KindAgent}, {Name: "Task", Kind: hook.KindAgent},

	{Name: "WebFetch", Kind: hook.KindWeb, URL: "url", Need: "prompt"}, {Name: "WebSearch", Kind: hook.KindWeb, Query: "query"},

	{Name: "Write", Kind: hook.KindFileWrite, Write: "file_path"}, {Name: "Edit", Kind: hook.KindFileWrite, Write: "file_path"},
	{Name: "MultiEdit", Kind: hook.KindFileWrite, Write: "file_path"}, {Name: "NotebookEdit", Kind: hook.KindFileWrite, Write: "notebook_path"},

	{Name: "PowerShell", Kind: hook.KindOther},
	// Monitor streams its command's output, so it cannot take updatedInput: edit mode judges the
	// command as written.
	{Name: "Monitor", Kind: hook.KindOther, Command: "command", Description: "description", NoRewrite: true},
	{Name: "Workflow", Kind: hook.KindOther},
	{Name: "CronCreate", Kind: hook.KindOther, Prompt: "prompt"}, {Name: "CronDelete", Kind: hook.KindOther},
	{Name: "ScheduleWakeup", Kind: hook.KindOther, Prompt: "prompt"}, {Name: "RemoteTrigger", Kind: hook.KindOther},
	{Name: "TaskStop", Kind: hook.KindOther}, {Name: "EnterWorktree", Kind: hook.KindOther}, {Name: "ExitWorktree", Kind: hook.KindOther},
	{Name: "Artifact", Kind: hook.KindOther}, {Name: "Projects", Kind: hook.KindOther}, {Name: "SendFile", Kind: hook.KindOther},
	{Name: "SendUserFile", Kind: hook.KindOther}, {Name: "PushNotification", Kind: hook.KindOther},
	{Name: "SendFeedback", Kind: hook.KindOther}, {Name: "ClaudeDesign", Kind: hook.KindOther},
	{Name: "ListMcpResourcesTool", Kind: hook.KindOther}, {Name: "ReadMcpResourceTool", Kind: hook.KindOther},
	{Name: "ReadMcpResourceDirTool", Kind: hook.KindOther}, {Name: "RefreshMcpTools", Kind: hook.KindOther},
}

// knownEvents are Claude Code's hook events, space-separated. Those hookctl does not act on get no opinion;
// an event name not listed here is refused, since hookctl cannot know what it means.
var knownEvents = "PreToolUse PostToolUse PostToolUseFailure UserPromptSubmit UserPromptExpansion SessionStart SessionEnd Stop SubagentStart SubagentStop Notification PreCompact PostCompact PermissionRequest PermissionDenied Setup TeammateIdle TaskCreated TaskCompleted ConfigChange WorktreeCreate WorktreeRemove InstructionsLoaded Elicitation ElicitationResult StopFailure CwdChanged FileChanged"

// protocol is Claude Code's payloads: the events hookctl acts on (the rest get no opinion), its
// tools, and every mcp__ tool an external server's.
var protocol = agentkit.Protocol{
	Name: "Claude Code", Fields: agentkit.ClaudeFields, Events: knownEvents,
	Acts: []agentkit.Act{{Name: "PreToolUse", Event: hook.EventToolCall}, {Name: "SessionStart", Event: hook.EventSessionStart},
		{Name: "SessionEnd", Event: hook.EventSessionEnd}, {Name: "UserPromptSubmit", Event: hook.EventPrompt},
		{Name: "UserPromptExpansion", Event: hook.EventPrompt}},
	Tools: Tools, External: "mcp__",
}

// Decode reads a payload (agentkit's prologue), then what only Claude Code sends: a prompt's
// text, which must be a string, and a slash command's expansion.
func (Adapter) Decode(payload []byte) (*hook.Event, error) {
	p, err := protocol.Read(payload)
	if err != nil {
		return nil, err
	}
	if p.Name == "UserPromptExpansion" {
		return decodeExpansion(p.Root, p.Event)
	}
	if p.Event.Name == hook.EventPrompt {
		if _, err := agentkit.Str(p.Root, "prompt", false); err != nil {
			return nil, err
		}
	}
	return p.Event, nil
}

// decodeExpansion reads a slash command's expansion: hookctl's readonly command is a toggle,
// every other command an ordinary prompt.
//
// The toggle is trusted only from where TrustedCommandSource says: the user's command and the
// organisation's managed one. The submitted prompt text never counts: a prompt the model
// scheduled (CronCreate, ScheduleWakeup) arrives at UserPromptSubmit exactly as a typed one
// does. A command or skill named readonly from anywhere else (a project's, which could shadow
// hookctl's) is a toggle that is not trusted: blocked, changing nothing.
func decodeExpansion(root gjson.Result, ev *hook.Event) (*hook.Event, error) {
	var cmd, args, source, promptID string
	for _, f := range []struct {
		key string
		to  *string
	}{{"command_name", &cmd}, {"command_args", &args}, {"command_source", &source}, {"prompt_id", &promptID}, {"prompt", new(string)}} {
		var err error
		if *f.to, err = agentkit.Str(root, f.key, false); err != nil {
			return nil, err
		}
	}
	if cmd == "readonly" {
		ev.Name = hook.EventToggle
		ev.Toggle = &hook.ToggleRequest{Args: args, PromptID: promptID, Source: source, Trusted: TrustedCommandSource(source)}
		return ev, nil
	}
	// Another command's expansion: the same prompt also reaches UserPromptSubmit, which carries
	// any notice for the model.
	ev.Name = hook.EventOther
	return ev, nil
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
		return agentkit.SessionStartAnswer(d), nil
	case hook.EventPrompt, hook.EventToggle:
		if d.Verdict == hook.Deny && ev.Name == hook.EventToggle {
			// The answer to the user's mode command. continue:false shows it as "Operation
			// stopped by hook: REASON", where a block alone reads "UserPromptExpansion operation
			// blocked by hook: REASON / Original prompt: …" for a toggle that worked (2.1.328,
			// live, TUI). The block stays beside it: either keeps the prompt from the model.
			o.Raw("continue", []byte("false"))
			o.Str("stopReason", d.Reason)
		}
		// A prompt's context is sent to the model with the prompt (2.1.328, live:
		// TestRealTUIModeNotices).
		return agentkit.PromptAnswer(o, ev, d, d.Reason), nil
	}
	if ev.Name != hook.EventToolCall || d.Verdict == hook.Pass && d.Command == "" && d.Context == "" {
		return o.Line(), nil
	}
	var decision string
	switch d.Verdict {
	case hook.Pass:
		// No opinion, but a rewrite: updatedInput without a permissionDecision runs the new
		// command through the client's own permission flow, which matches the user's rules
		// against the rewrite (2.1.328, live). The gate settles rewritten calls by the user's
		// rules first (hook.ClientRules); only the auto mode, whose classifier hookctl cannot
		// model, is left to the client this way.
	case hook.Deny:
		decision = "deny"
	case hook.Allow:
		decision = "allow"
	case hook.Ask:
		// The client shows the user the call, as rewritten in updatedInput, and the reason, and
		// the user decides. Under -p it cannot ask: 2.1.328 refuses the call, records it in
		// permission_denials and gives the model the reason (TestRealClientReviewPublishAsks).
		decision = "ask"
	default:
		return nil, fmt.Errorf("unknown verdict %d", d.Verdict)
	}
	h := agentkit.PreToolUse(decision, d.Reason)
	if d.Verdict != hook.Deny && d.Command != "" {
		in, err := protocol.Rewrite(ev.Call, d.Command)
		if err != nil {
			return nil, err
		}
		h.Raw("updatedInput", in)
	}
	return agentkit.CallAnswer(h, d.Context), nil
}

// Refuse writes a refusal for a payload that could not be decided. For a prompt it blocks the
// prompt; for anything else — a tool call, or a payload too broken to tell — it writes both the
// PreToolUse deny and the generic block, each of which Claude Code honours; the runner also exits
// 2.
func (Adapter) Refuse(payload []byte, reason string) []byte {
	var o hookjson.Object
	o.Str("decision", "block")
	o.Str("reason", agentkit.Reason(reason))
	if ev := gjson.GetBytes(payload, "hook_event_name").Str; ev == "UserPromptSubmit" || ev == "UserPromptExpansion" {
		return o.Line()
	}
	return agentkit.DenyCall(o, reason)
}
