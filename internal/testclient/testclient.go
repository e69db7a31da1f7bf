// Package testclient is the client the gate's and the policy's tests judge calls for: Claude
// Code's words and settings files, as its adapter describes them. It is imported by tests only.
package testclient

import (
	"path/filepath"

	"github.com/hookctl/hookctl/hook"
)

// Claude is a client as an adapter would describe it, with settings where Claude Code keeps
// them (agents/claude.SettingsPaths, which the gate and the policy cannot import): the user's and
// every enclosing directory's .claude files.
var Claude = hook.Client{Name: "Claude Code", ToggleCommand: "/readonly", ShellTool: "the Bash tool", RetrievalHook: true,
	Settings: func(home, cwd string) []string {
		out := []string{"/etc/claude-code"}
		for d := cwd; ; d = filepath.Dir(d) {
			out = append(out, filepath.Join(d, ".claude", "settings.json"), filepath.Join(d, ".claude", "settings.local.json"),
				filepath.Join(d, ".claude", "commands", "readonly.md"))
			if d == filepath.Dir(d) {
				break
			}
		}
		return append(out, filepath.Join(home, ".claude", "settings.json"), filepath.Join(home, ".claude", "commands", "readonly.md"),
			filepath.Join(home, ".claude.json"), filepath.Join(home, ".claude", "plugins"))
	},
	SettingsNames: []string{".claude/settings.json", ".claude/settings.local.json", ".claude/commands/readonly.md", ".claude/skills/readonly"}}
