package gate

import (
	"strings"
	"testing"

	"github.com/hookctl/hookctl/hook"
	"github.com/hookctl/hookctl/policy"
)

// TestFileToolProtectedPaths (issue 9): the file tools' targets among Claude Code's neighbours,
// as written: ~/.claude.json, the managed settings directory, plugins, every directory's
// .claude settings, case variants where the file system folds.
func TestFileToolProtectedPaths(t *testing.T) {
	p := selfProtectPolicy()
	p.Resolve = ResolveTargets // /home/u does not exist here: every path resolves to itself
	denied := []string{
		"/home/u/.claude.json",
		"/home/u/.claude/settings.json",
		"/home/u/.claude/plugins/cache/p/hooks/hooks.json",
		"/home/u/.claude/plugins/marketplaces/m/plugins/p/hooks/hooks.json",
		"/home/u/.claude/plugins/installed_plugins.json",
		"/etc/claude-code/managed-settings.json",
		"/etc/claude-code/managed-settings.d/10-org.json",
		"/etc/claude-code/managed-mcp.json",
		"/home/u/proj/.claude/settings.json",
		"/home/u/proj/sub/.claude/settings.json",
		"/home/u/proj/a/b/c/.claude/settings.local.json",
		"/home/u/proj/sub/.claude/commands/readonly.md",
		"/home/u/proj/sub/.claude/skills/readonly/SKILL.md",
		"/home/u/other/.claude/settings.json",
		"/home/u/proj/sub/../.claude/settings.json",
		"/home/u/proj/./.claude//settings.json",
		"/home/u/.config/hookctl/config.toml",
		"/home/u/.local/bin/hookctl",
		"/home/u/.bashrc",
	}
	allowed := []string{
		"/home/u/proj/main.go",
		"/home/u/proj/.claude/agents/reviewer.md",
		"/home/u/proj/sub/.claude/commands/review.md",
		"/home/u/proj/settings.json",
		"/home/u/proj/docs/.claude.json.md",
		"/home/u/.claude.json.backup",
		"/home/u/proj/.Claude/Settings.json", // case-sensitive here: another file
	}
	for _, tool := range []string{"Write", "Edit", "NotebookEdit"} {
		for _, path := range denied {
			d := p.Decide(&hook.ToolCall{Tool: tool, Kind: hook.KindFileWrite, Cwd: "/home/u/proj", Session: "s1", Paths: []string{path}},
				policy.SessionState{Mode: hook.ModeEdit})
			if d.Verdict != hook.Deny || !strings.Contains(d.Reason, "only the user may change") {
				t.Errorf("%s %s: %s %q, want deny", tool, path, d.Verdict, d.Reason)
			}
		}
		for _, path := range allowed {
			d := p.Decide(&hook.ToolCall{Tool: tool, Kind: hook.KindFileWrite, Cwd: "/home/u/proj", Session: "s1", Paths: []string{path}},
				policy.SessionState{Mode: hook.ModeEdit})
			if d.Verdict == hook.Deny {
				t.Errorf("%s %s: refused (%s)", tool, path, d.Reason)
			}
		}
	}
	// Where the home or project file system folds case, case variants are the files.
	folded := selfProtectPolicy()
	folded.Protection.FoldCase = true
	for _, path := range []string{"/home/u/proj/.Claude/Settings.json", "/home/u/.BASHRC", "/HOME/U/.claude.json",
		"/home/u/.config/HOOKCTL/config.toml", "/Etc/Claude-Code/managed-settings.json"} {
		d := folded.Decide(&hook.ToolCall{Tool: "Write", Kind: hook.KindFileWrite, Cwd: "/home/u/proj", Session: "s1", Paths: []string{path}},
			policy.SessionState{Mode: hook.ModeEdit})
		if d.Verdict != hook.Deny {
			t.Errorf("folding: Write %s: %s, want deny", path, d.Verdict)
		}
	}
}

// TestEditModeLinksAndPathspecs (issue 9): the shell's half, judged as the hook judges it: links
// to protected files, git pathspec writes, archives unpacked over them.
func TestEditModeLinksAndPathspecs(t *testing.T) {
	p := selfProtectPolicy()
	for _, cmd := range []string{
		"ln -s ~/.claude/settings.json s.json",
		"ln ~/.claude/settings.json h.json",
		"ln -s /home/u/.bashrc rc",
		"ln -s ~/.claude.json cj",
		"ln -sf /tmp/x .claude/settings.json",
		"cp -l ~/.bashrc rc",
		"link ~/.zshrc z",
		"git checkout -- .claude/settings.json",
		"git restore .claude/settings.local.json",
		"git mv x.json .claude/settings.json",
		"git rm .claude/settings.json",
		"git checkout -- '*.json'",
		"git apply --unsafe-paths p.diff",
		"tar -xf d.tar -C ~",
		"unzip c.zip -d ~/.claude",
		"echo '{}' > sub/.claude/settings.json",
		"echo '{}' > ~/.claude.json",
		"echo x > /etc/claude-code/managed-settings.d/1.json",
		"echo '{}' > ~/.claude/plugins/p/hooks/hooks.json",
	} {
		if d := decideBash(p, cmd, hook.ModeEdit); d.Verdict != hook.Deny {
			t.Errorf("edit mode %q: %s, want deny", cmd, d.Verdict)
		}
	}
	// git checkout -- FILE is refused since issue 15 for discarding the file's changes, not as a
	// protected write: git checkout BRANCH stands for the pathspec forms here.
	for _, cmd := range []string{"ln -s ../lib lib", "git checkout main", "git switch -c topic", "git rm old.go",
		"git mv a.go b.go", "tar -xzf deps.tgz", "git restore --staged .claude/settings.json"} {
		if d := decideBash(p, cmd, hook.ModeEdit); d.Verdict == hook.Deny {
			t.Errorf("edit mode %q: refused (%s)", cmd, d.Reason)
		}
	}
}
