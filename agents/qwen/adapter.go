// Package qwen is hookctl's adapter for Qwen Code (@qwen-code/qwen-code): Claude-shaped
// PreToolUse payloads with Qwen's own tool names, and the hookSpecificOutput decision.
//
// What Qwen Code 0.24.4 does with a hook's answer (its bundle, firePreToolUseHook, and live):
// permissionDecision deny or ask blocks the call and gives the model the reason; allow and no
// opinion run it; exit 2 blocks with stderr as the reason; any other failure of the hook (another
// exit code, a crash, a timeout, unparseable output) lets the call run. It takes no rewritten
// input at PreToolUse, so shell calls are NoRewrite: an admitted read runs as the model wrote
// it, on the policy alone (no OS sandbox), and a command that is a read only as hookctl rewrites
// it (globs, ~, brace groups; a read_only_runner; a web read) is refused with a hint.
//
// It runs in the hook process, and links no network code.
package qwen

import (
	"fmt"
	"strings"

	"github.com/hookctl/hookctl/agents/agentkit"
	"github.com/hookctl/hookctl/hook"
	"github.com/hookctl/hookctl/internal/clip"
	"github.com/hookctl/hookctl/internal/hookjson"
	"github.com/hookctl/hookctl/internal/wordlist"
)

// Adapter implements hook.Adapter for Qwen Code.
type Adapter struct{}

// Tools maps Qwen Code's tools (packages/core/src/tools/tool-names.ts, 0.24.4) to what they do.
// Read-only mode lets through the reads (read_file, grep_search, glob, list_directory, lsp), the
// session's own state (todo lists, plan mode, questions to the user, listing agents, tasks,
// schedules and tools, skills), and agent, whose calls are judged in turn. web_fetch and
// web_search are KindWeb. It refuses the writes (write_file, edit, notebook_edit) and, as
// KindOther, every tool that runs, schedules, stops, sends or records anything: exec, monitor,
// save_memory (writes the user's QWEN.md), cron_create/delete, loop_wakeup, sub-sessions, teams,
// worktrees, workflows, artifacts, goals, image generation, the MCP tools and every mcp__ tool.
// Any tool not listed is unknown, and refused.
var Tools = agentkit.Tools{
	{Name: "run_shell_command", Kind: hook.KindShell, Command: "command", Description: "description", Dir: "directory"},

	{Name: "read_file", Kind: hook.KindFileRead, Read: "file_path", ReadRequired: true},
	{Name: "grep_search", Kind: hook.KindFileRead, Read: "path"},
	{Name: "glob", Kind: hook.KindFileRead},
	{Name: "list_directory", Kind: hook.KindFileRead},
	{Name: "lsp", Kind: hook.KindFileRead},

	{Name: "todo_write", Kind: hook.KindSession}, {Name: "ask_user_question", Kind: hook.KindSession},
	{Name: "exit_plan_mode", Kind: hook.KindSession}, {Name: "enter_plan_mode", Kind: hook.KindSession},
	{Name: "list_agents", Kind: hook.KindSession}, {Name: "task_list", Kind: hook.KindSession},
	{Name: "task_create", Kind: hook.KindSession}, {Name: "task_update", Kind: hook.KindSession},
	{Name: "cron_list", Kind: hook.KindSession}, {Name: "tool_search", Kind: hook.KindSession},
	{Name: "skill", Kind: hook.KindSession}, {Name: "get_goal", Kind: hook.KindSession},
	{Name: "send_message", Kind: hook.KindSession}, {Name: "report_findings", Kind: hook.KindSession},

	{Name: "agent", Kind: hook.KindAgent},

	{Name: "web_fetch", Kind: hook.KindWeb, URL: "url", Need: "prompt"},
	{Name: "web_search", Kind: hook.KindWeb, Query: "query"},

	{Name: "write_file", Kind: hook.KindFileWrite, Write: "file_path"},
	{Name: "edit", Kind: hook.KindFileWrite, Write: "file_path"},
	{Name: "notebook_edit", Kind: hook.KindFileWrite, Write: "notebook_path"},

	{Name: "exec", Kind: hook.KindOther}, {Name: "monitor", Kind: hook.KindOther},
	{Name: "save_memory", Kind: hook.KindOther}, {Name: "cron_create", Kind: hook.KindOther},
	{Name: "cron_delete", Kind: hook.KindOther}, {Name: "loop_wakeup", Kind: hook.KindOther},
	{Name: "create_sub_session", Kind: hook.KindOther}, {Name: "task_stop", Kind: hook.KindOther},
	{Name: "team_create", Kind: hook.KindOther}, {Name: "team_delete", Kind: hook.KindOther},
	{Name: "team_plan_approval", Kind: hook.KindOther}, {Name: "request_shutdown", Kind: hook.KindOther},
	{Name: "enter_worktree", Kind: hook.KindOther}, {Name: "exit_worktree", Kind: hook.KindOther},
	{Name: "workflow", Kind: hook.KindOther}, {Name: "artifact", Kind: hook.KindOther},
	{Name: "record_artifact", Kind: hook.KindOther}, {Name: "record_source", Kind: hook.KindOther},
	{Name: "update_goal", Kind: hook.KindOther}, {Name: "propose_goal", Kind: hook.KindOther},
	{Name: "image_gen", Kind: hook.KindOther}, {Name: "tool_call", Kind: hook.KindOther},
	{Name: "read_mcp_resource", Kind: hook.KindOther},
}

func kindOf(tool string) agentkit.Tool {
	if t, ok := Tools.Find(tool); ok {
		return t
	}
	if strings.HasPrefix(tool, "mcp__") {
		return agentkit.Tool{Name: tool, Kind: hook.KindOther}
	}
	return agentkit.Tool{Name: tool, Kind: hook.KindUnknown}
}

// knownEvents are Qwen Code's hook events (docs/users/features/hooks.md, 0.24.4).
var knownEvents = "PreToolUse PostToolUse PostToolUseFailure PostToolBatch UserPromptSubmit UserPromptExpansion SessionStart SessionEnd Stop SubagentStart SubagentStop Notification PreCompact PostCompact PermissionRequest"

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
	if name != "PreToolUse" {
		return &hook.Event{Name: hook.EventOther}, nil
	}
	c := &hook.ToolCall{}
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
	t := kindOf(c.Tool)
	if err := agentkit.FillCall(c, t, root.Get("tool_input")); err != nil {
		return nil, err
	}
	c.NoRewrite = c.Kind == hook.KindShell // Qwen Code takes no rewritten input at PreToolUse
	if c.Tool == "skill" {
		c.Skill, _ = agentkit.Str(root.Get("tool_input"), "skill", false)
	}
	return &hook.Event{Name: hook.EventToolCall, Session: c.Session, Cwd: c.Cwd, Call: c, PermissionMode: c.PermissionMode}, nil
}

// Encode writes a decision: the PreToolUse wrapper with a decision and its reason, both of
// which Qwen Code requires, or {} for no opinion. A decision's Command is not sent (Qwen Code
// would ignore it): for a NoRewrite call the policy only sets one that names hookctl's own
// binary by its path where the model wrote `hookctl`.
func (Adapter) Encode(ev *hook.Event, d hook.Decision) ([]byte, error) {
	var o hookjson.Object
	if ev.Name != hook.EventToolCall {
		return o.Line(), nil
	}
	var decision string
	switch d.Verdict {
	case hook.Pass:
		if d.Context == "" {
			return o.Line(), nil
		}
	case hook.Allow:
		decision = "allow"
	case hook.Deny:
		decision = "deny"
	case hook.Ask:
		decision = "ask" // asked where Qwen Code can ask; refused where it cannot (-p)
	default:
		return nil, fmt.Errorf("unknown verdict %d", d.Verdict)
	}
	var h hookjson.Object
	h.Str("hookEventName", "PreToolUse")
	if decision != "" {
		reason := d.Reason
		if strings.TrimSpace(reason) == "" {
			reason = "hookctl: " + decision
		}
		h.Str("permissionDecision", decision)
		h.Str("permissionDecisionReason", reason)
	}
	if d.Context != "" {
		h.Str("additionalContext", d.Context)
	}
	o.Obj("hookSpecificOutput", h)
	return o.Line(), nil
}

// Refuse writes the PreToolUse deny; the runner also exits 2 with the reason on stderr, which
// Qwen Code treats as a block whatever stdout holds.
func (Adapter) Refuse(payload []byte, reason string) []byte {
	var o, h hookjson.Object
	h.Str("hookEventName", "PreToolUse")
	h.Str("permissionDecision", "deny")
	h.Str("permissionDecisionReason", agentkit.Reason(reason))
	o.Obj("hookSpecificOutput", h)
	return o.Line()
}
