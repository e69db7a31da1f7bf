package claude

import (
	"os"
	"path/filepath"
	"strconv"
	"time"

	"github.com/hookctl/hookctl/agents/agentkit"
	"github.com/hookctl/hookctl/hook"
)

// Client describes Claude Code to the gate: its name in messages, the /readonly command the
// user switches modes with, and the settings files that would change whether and how the hook
// runs, which no agent may write in any mode.
var Client = hook.Client{
	Name:          "Claude Code",
	ToggleCommand: "/readonly",
	Settings: func(home, cwd string) []string {
		return SettingsPathsFor(home, os.Getenv("CLAUDE_CONFIG_DIR"), cwd)
	},
	SettingsNames: SettingsNames,
	ShellTool:     "the Bash tool",
	RetrievalHook: true,
}

// SettingsNames are the files Claude Code reads from the .claude directory of whatever directory
// a session starts in, protected wherever they are: a session started in a subdirectory reads
// that subdirectory's settings (issue 9: a subdirectory's .claude/settings.json was writable).
var SettingsNames = []string{
	".claude/settings.json",
	".claude/settings.local.json",
	".claude/commands/readonly.md",
	".claude/skills/readonly",
}

// SettingsPaths lists Claude Code's files that register or configure hooks, for the user whose
// home is home and a session in directory cwd: the managed settings directory (an organisation's
// managed-settings.json and managed-settings.d/), the user's ~/.claude.json and installed
// plugins (whose hooks/hooks.json registers hooks), the user's and every enclosing project's
// settings.json and settings.local.json (a project file can set disableAllHooks), and hookctl's
// /readonly command, with any skill that could shadow it.
//
// Test: TestSettingsPaths, and the hook's edit-mode tests of writes to each.
func SettingsPaths(home, cwd string) []string { return SettingsPathsFor(home, "", cwd) }

// SettingsPathsFor is SettingsPaths for a client whose CLAUDE_CONFIG_DIR is configDir (empty:
// unset). Claude Code is reported to read the user's settings, plugins and .claude.json from that
// directory instead of ~/.claude when it is set (not verified live; see
// /work/shared/claude-code-facts.md); both places are protected, since the variable the hook sees
// may not be the one the next session starts with.
func SettingsPathsFor(home, configDir, cwd string) []string {
	out := []string{
		"/etc/claude-code",
		"/Library/Application Support/ClaudeCode",
	}
	if home != "" {
		for _, n := range SettingsNames {
			out = append(out, filepath.Join(home, n))
		}
		out = append(out, filepath.Join(home, ".claude.json"), filepath.Join(home, ".claude", "plugins"))
	}
	if filepath.IsAbs(configDir) {
		d := filepath.Clean(configDir)
		out = append(out,
			filepath.Join(d, "settings.json"),
			filepath.Join(d, "settings.local.json"),
			filepath.Join(d, "commands", "readonly.md"),
			filepath.Join(d, "skills", "readonly"),
			filepath.Join(d, "plugins"),
			filepath.Join(d, ".claude.json"))
	}
	return agentkit.Enclosing(out, home, cwd, SettingsNames)
}

// RetrievalAnswerDelay is the least time the retrieval hook takes to answer a web tool. Claude
// Code runs both of hookctl's PreToolUse hooks for a web tool at once and shows the reason of the
// one that finishes last (seen live, 2.1.328): the main hook refuses web tools within
// milliseconds, so the retrieval hook's answer must come after it.
const RetrievalAnswerDelay = 300 * time.Millisecond

// clientPIDVar is where Claude Code puts its own pid in the environment of the hooks it runs
// (2.1.328, live).
const clientPIDVar = "CLAUDE_PID"

// IsClientProcess reports whether pid, the hook's parent, is the Claude Code process that ran
// the hook, as the client says in CLAUDE_PID. It only narrows which processes the hook notes as
// clients (a shell where someone piped a payload into hookctl hook is not one); the pid itself
// comes from the kernel, not from the variable.
func IsClientProcess(pid int) bool { return os.Getenv(clientPIDVar) == strconv.Itoa(pid) }
