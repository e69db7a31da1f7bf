package gemini

import (
	"github.com/hookctl/hookctl/agents/agentkit"
	"github.com/hookctl/hookctl/hook"
)

// Client describes Gemini CLI to the gate. Its custom commands (.toml files) expand into prompt
// text the hook cannot tell from a typed one, so the mode is switched with `hookctl readonly`
// (Gemini CLI's `!` shell mode runs it too).
var Client = hook.Client{
	Name:          "Gemini CLI",
	Settings:      SettingsPaths,
	SettingsNames: SettingsNames,
}

// SettingsNames are the files Gemini CLI reads from a project's .gemini directory.
var SettingsNames = []string{".gemini/settings.json"}

// SettingsPaths lists Gemini CLI's files that register or configure hooks: the system settings
// (/etc/gemini-cli), the user's ~/.gemini/settings.json and extensions, Antigravity's reported
// hook file (~/.gemini/config/hooks.json), and every enclosing directory's .gemini/settings.json.
func SettingsPaths(home, cwd string) []string {
	return agentkit.SettingsFiles(home, cwd, "/etc/gemini-cli", []string{".gemini/settings.json", ".gemini/extensions", ".gemini/config/hooks.json"}, SettingsNames)
}
