package claude

import (
	"path/filepath"
	"time"

	"github.com/hookctl/hookctl/hook"
)

// Client describes Claude Code to the gate: its name in messages, the /readonly command the
// user switches modes with, and the settings files that would change whether and how the hook
// runs, which no agent may write in any mode.
var Client = hook.Client{
	Name:          "Claude Code",
	ToggleCommand: "/readonly",
	Settings:      SettingsPaths,
}

// SettingsPaths lists Claude Code's files that register or configure hooks, for the user whose
// home is home and a session in directory cwd: the managed settings (an organisation's), the
// user's and every enclosing project's settings.json and settings.local.json (a project file can
// set disableAllHooks), and hookctl's /readonly command, with any skill that could shadow it.
//
// Test: TestSettingsPaths, and the hook's edit-mode tests of writes to each.
func SettingsPaths(home, cwd string) []string {
	out := []string{
		"/etc/claude-code/managed-settings.json",
		"/etc/claude-code/managed-settings.d",
		"/Library/Application Support/ClaudeCode/managed-settings.json",
	}
	claudeDir := func(dir string) {
		out = append(out,
			filepath.Join(dir, ".claude", "settings.json"),
			filepath.Join(dir, ".claude", "settings.local.json"),
			filepath.Join(dir, ".claude", "commands", "readonly.md"),
			filepath.Join(dir, ".claude", "skills", "readonly"))
	}
	if home != "" {
		claudeDir(home)
	}
	if filepath.IsAbs(cwd) {
		for d := filepath.Clean(cwd); ; d = filepath.Dir(d) {
			if d != home {
				claudeDir(d)
			}
			if d == filepath.Dir(d) {
				break
			}
		}
	}
	return out
}

// RetrievalAnswerDelay is the least time the retrieval hook takes to answer a web tool. Claude
// Code runs both of hookctl's PreToolUse hooks for a web tool at once and shows the reason of the
// one that finishes last (seen live, 2.1.328): the main hook refuses web tools within
// milliseconds, so the retrieval hook's answer must come after it.
const RetrievalAnswerDelay = 300 * time.Millisecond
