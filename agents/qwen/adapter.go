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
	"github.com/hookctl/hookctl/internal/hookjson"
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
	{Name: "run_shell_command", Kind: hook.KindShell, Command: "command", Description: "description", Dir: "directory", NoRewrite: true},

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
	{Name: "skill", Kind: hook.KindSession, Skill: "skill"}, {Name: "get_goal", Kind: hook.KindSession},
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

// knownEvents are Qwen Code's hook events (docs/users/features/hooks.md, 0.24.4).
var knownEvents = "PreToolUse PostToolUse PostToolUseFailure PostToolBatch UserPromptSubmit UserPromptExpansion SessionStart SessionEnd Stop SubagentStart SubagentStop Notification PreCompact PostCompact PermissionRequest"

// protocol is Qwen Code's payloads: Claude-shaped, PreToolUse the one event hookctl acts on,
// and every mcp__ tool an external server's.
var protocol = agentkit.Protocol{
	Name: "Qwen Code", Fields: agentkit.ClaudeFields, Events: knownEvents,
	Acts:  []agentkit.Act{{Name: "PreToolUse", Event: hook.EventToolCall}},
	Tools: Tools, External: "mcp__",
}

// Decode reads a payload (agentkit's prologue: Qwen Code sends nothing more hookctl reads). Its
// shell calls are NoRewrite (the table says so): Qwen Code takes no rewritten input at PreToolUse.
func (Adapter) Decode(payload []byte) (*hook.Event, error) { return protocol.Decode(payload) }

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
	var reason string // with a decision, which Qwen Code requires it beside
	if decision != "" {
		if reason = d.Reason; strings.TrimSpace(reason) == "" {
			reason = "hookctl: " + decision
		}
	}
	h := agentkit.PreToolUse(decision, reason)
	return agentkit.CallAnswer(h, d.Context), nil
}

// Refuse writes the PreToolUse deny; the runner also exits 2 with the reason on stderr, which
// Qwen Code treats as a block whatever stdout holds.
func (Adapter) Refuse(payload []byte, reason string) []byte {
	return agentkit.DenyCall(hookjson.Object{}, reason)
}
