package qwen

import (
	"github.com/hookctl/hookctl/agents/agentkit"
	"github.com/hookctl/hookctl/hook"
)

// Client describes Qwen Code to the gate. Its custom commands expand into prompt text the hook
// cannot tell from a typed one, so the mode is switched with `hookctl readonly` (Qwen Code's `!`
// shell mode runs it too).
var Client = hook.Client{
	Name:          "Qwen Code",
	Settings:      SettingsPaths,
	SettingsNames: SettingsNames,
}

// SettingsNames are the files Qwen Code reads from a project's .qwen directory.
var SettingsNames = []string{".qwen/settings.json"}

// SettingsPaths lists Qwen Code's files that register or configure hooks: the system settings
// (/etc/qwen-code), the user's ~/.qwen/settings.json and extensions, and every enclosing
// directory's .qwen/settings.json.
func SettingsPaths(home, cwd string) []string {
	return agentkit.SettingsFiles(home, cwd, "/etc/qwen-code", []string{".qwen/settings.json", ".qwen/extensions"}, SettingsNames)
}
