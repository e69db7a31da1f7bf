package copilot

import (
	"github.com/hookctl/hookctl/agents/agentkit"
	"github.com/hookctl/hookctl/hook"
)

// Client describes Copilot CLI to the gate. Copilot has no command hookctl can trust as the
// user's, so the mode is switched with `hookctl readonly`.
var Client = hook.Client{
	Name:          "Copilot CLI",
	Settings:      SettingsPaths,
	SettingsNames: SettingsNames,
}

// SettingsNames are the files Copilot CLI reads from a repository: its hooks, and the settings
// that can set disableAllHooks.
var SettingsNames = []string{".github/hooks", ".github/copilot", ".copilot"}

// SettingsPaths lists Copilot CLI's files that register or switch off hooks: the policy hooks
// (/etc/github-copilot), the user's ~/.copilot (hooks, settings, plugins), and every enclosing
// directory's .github/hooks and settings.
func SettingsPaths(home, cwd string) []string {
	return agentkit.SettingsFiles(home, cwd, "/etc/github-copilot", []string{".copilot"}, SettingsNames)
}
