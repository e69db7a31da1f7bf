package claude

import (
	"slices"
	"testing"

	"github.com/hookctl/hookctl/policy"
	"github.com/hookctl/hookctl/programs/editguard"
)

// TestSettingsPaths: the files that register or configure hooks, the issue-9 neighbours among
// them (~/.claude.json, the managed settings directory, plugins' hooks.json, a subdirectory's
// settings, CLAUDE_CONFIG_DIR's copies), are protected; the project's own work is not.
func TestSettingsPaths(t *testing.T) {
	paths := SettingsPathsFor("/home/u", "/opt/cc", "/home/u/proj")
	for _, want := range []string{"/etc/claude-code", "/home/u/.claude.json", "/home/u/.claude/plugins",
		"/home/u/.claude/settings.json", "/home/u/proj/.claude/settings.local.json", "/opt/cc/settings.json",
		"/opt/cc/.claude.json", "/opt/cc/plugins"} {
		if !slices.Contains(paths, want) {
			t.Errorf("SettingsPathsFor lacks %s", want)
		}
	}
	if got := SettingsPaths("/home/u", "/home/u/proj"); slices.Contains(got, "/opt/cc/settings.json") {
		t.Errorf("SettingsPaths without CLAUDE_CONFIG_DIR lists its files")
	}
	ctx := &editguard.Context{Project: "/home/u/proj", Home: "/home/u", Names: SettingsNames,
		Protected: policy.ProtectedPaths(Client, "/home/u/.config/hookctl", "/home/u", "/home/u/.local/bin/hookctl", "/home/u/proj")}
	for _, c := range []struct {
		path string
		want bool
	}{
		{"/home/u/.claude.json", true},
		{"/etc/claude-code/managed-settings.json", true},
		{"/etc/claude-code/managed-settings.d/10-org.json", true},
		{"/etc/claude-code/managed-mcp.json", true},
		{"/home/u/.claude/plugins/cache/x/hooks/hooks.json", true},
		{"/home/u/.claude/plugins/installed_plugins.json", true},
		{"/home/u/proj/sub/.claude/settings.json", true},
		{"/home/u/proj/a/b/c/.claude/settings.local.json", true},
		{"/home/u/proj/a/.claude/skills/readonly/SKILL.md", true},
		{"/home/u/proj/a/.claude/commands/readonly.md", true},
		{"/home/u/proj/.claude/agents/reviewer.md", false},
		{"/home/u/proj/sub/.claude/commands/review.md", false},
		{"/home/u/proj/settings.json", false},
		{"/home/u/proj/x.claude/settings.json", false},
		{"/home/u/.claude.json.bak", false},
		{"/home/u/proj/.claude/settings.json.orig", false},
	} {
		if got := editguard.ProtectedPath(c.path, ctx); got != c.want {
			t.Errorf("ProtectedPath(%s) = %v, want %v", c.path, got, c.want)
		}
	}
}
