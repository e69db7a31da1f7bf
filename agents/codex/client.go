package codex

import (
	"os"
	"path/filepath"

	"github.com/hookctl/hookctl/agents/agentkit"
	"github.com/hookctl/hookctl/hook"
)

// Client describes Codex to the gate. Codex has no command hookctl can trust as the user's own
// (its custom prompts expand into ordinary prompt text), so the mode is switched with
// `hookctl readonly` in a shell, Codex's own `!` shell included.
var Client = hook.Client{
	Name: "Codex",
	Settings: func(home, cwd string) []string {
		return SettingsPaths(home, os.Getenv("CODEX_HOME"), cwd)
	},
	SettingsNames: SettingsNames,
}

// SettingsNames are the files Codex reads from the .codex directory of a project (and of each
// directory above the session's), protected wherever they are.
var SettingsNames = []string{".codex/config.toml", ".codex/hooks.json"}

// SettingsPaths lists Codex's files that register, trust or configure hooks: the managed
// configuration in /etc/codex (requirements.toml, managed_config.toml), the user's config.toml
// (which holds the hooks' trust), hooks.json and plugins, in ~/.codex and in $CODEX_HOME when it
// is set, and every enclosing directory's .codex files.
func SettingsPaths(home, codexHome, cwd string) []string {
	out := []string{"/etc/codex"}
	dir := func(d string) {
		out = append(out, filepath.Join(d, "config.toml"), filepath.Join(d, "hooks.json"),
			filepath.Join(d, "plugins"), filepath.Join(d, "requirements.toml"))
	}
	if home != "" {
		dir(filepath.Join(home, ".codex"))
	}
	if filepath.IsAbs(codexHome) {
		dir(filepath.Clean(codexHome))
	}
	return agentkit.Enclosing(out, home, cwd, SettingsNames)
}
