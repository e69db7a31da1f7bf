package cursor

import (
	"github.com/hookctl/hookctl/agents/agentkit"
	"github.com/hookctl/hookctl/hook"
)

// Client describes Cursor to the gate; the mode is switched with `hookctl readonly`.
var Client = hook.Client{
	Name:          "Cursor",
	Settings:      SettingsPaths,
	SettingsNames: SettingsNames,
}

// SettingsNames are the hook files Cursor reads from a project.
var SettingsNames = []string{".cursor/hooks.json"}

// SettingsPaths lists Cursor's hook files: the system's (/etc/cursor), the user's and every
// enclosing directory's.
func SettingsPaths(home, cwd string) []string {
	return agentkit.SettingsFiles(home, cwd, "/etc/cursor", []string{".cursor/hooks.json"}, SettingsNames)
}
