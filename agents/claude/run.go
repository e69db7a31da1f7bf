package claude

import (
	"encoding/json"
	"path/filepath"
	"strings"

	"github.com/hookctl/hookctl/securerun"
)

// RunSettingsName is the settings file hookctl run gives Claude Code, beneath the run's config/
// (readable in the run, not writable).
const RunSettingsName = "claude-settings.json"

// RunAgent is Claude Code as the agent of `hookctl run --profile secure-read-only`: hookctl's
// hooks, pinned read-only (hook --pinned-read-only), in a settings file the run cannot change,
// passed with --settings; and every settings source the repository could fill turned off:
// --setting-sources user loads no project or local settings (the run's user settings are its
// fresh home's), and --strict-mcp-config loads no MCP server. hookctl and binary's worker are
// readable in the run, so that the hooks can run.
//
// Not turned off, because Claude Code reads them as content, not configuration: CLAUDE.md and
// its imports (an import outside the repository is unreadable in the run).
func RunAgent(binary, worker string) securerun.AgentFor {
	return func(program string, l securerun.Layout) *securerun.AgentRun {
		if !isClaudeProgram(program) {
			return nil
		}
		settings := filepath.Join(l.Config(), RunSettingsName)
		return &securerun.AgentRun{
			Client: "Claude Code",
			Args:   []string{"--settings", settings, "--setting-sources", "user", "--strict-mcp-config"},
			// Nothing but the model is reachable anyway; these keep Claude Code from trying
			// (and from waiting on) its update checks, telemetry and error reports.
			Env: []string{"CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC=1", "DISABLE_AUTOUPDATER=1", "DISABLE_TELEMETRY=1",
				"DISABLE_ERROR_REPORTING=1"},
			Build: func(roots []string) map[string][]byte {
				return map[string][]byte{RunSettingsName: runSettings(binary, roots)}
			},
			FileNames: []string{RunSettingsName},
			Ignored: []string{"the repository's .claude/settings.json and settings.local.json (--setting-sources user)",
				"MCP servers from .mcp.json or any settings (--strict-mcp-config)",
				"your own ~/.claude (the run's home is fresh)"},
			Backend: "anthropic",
			Read:    []string{binary, worker},
			// hookctl's home in the run: XDG_CONFIG_HOME/hookctl, the profile's XDG_CONFIG_HOME
			// being beneath the run's home.
			HookctlHome: filepath.Join(l.Home(), ".config", "hookctl"),
		}
	}
}

// isClaudeProgram says whether program is Claude Code: the npm package's native executable or
// its JavaScript entry point, or an executable named claude (the native installer's link).
func isClaudeProgram(program string) bool {
	real, err := filepath.EvalSymlinks(program)
	if err != nil {
		real = program
	}
	for _, p := range []string{program, real} {
		switch {
		case filepath.Base(p) == "claude",
			strings.HasSuffix(p, "/@anthropic-ai/claude-code/bin/claude.exe"),
			strings.HasSuffix(p, "/@anthropic-ai/claude-code/cli.js"):
			return true
		}
	}
	return false
}

// runSettings are the hooks of a run: every tool call and prompt through hookctl, pinned
// read-only, failing closed (onFailure block), running the commands it admits in the run's
// profile again with the run's roots. No retrieval hook: the run reaches only its model, so the
// gate refuses web tools, with the reason.
func runSettings(binary string, roots []string) []byte {
	args := []string{"hook", "--pinned-read-only"}
	for _, r := range roots {
		args = append(args, "--run-read", r)
	}
	hookCmd := func(block bool) map[string]any {
		h := map[string]any{"type": "command", "command": binary, "args": args, "timeout": 10}
		if block {
			h["onFailure"] = "block"
		}
		return h
	}
	group := func(matcher string, block bool) []any {
		g := map[string]any{"hooks": []any{hookCmd(block)}}
		if matcher != "" {
			g["matcher"] = matcher
		}
		return []any{g}
	}
	s := map[string]any{"hooks": map[string]any{
		"PreToolUse":          group("*", true),
		"UserPromptSubmit":    group("", true),
		"UserPromptExpansion": group("", true),
		"SessionStart":        group("", false),
	}}
	b, _ := json.MarshalIndent(s, "", "  ")
	return append(b, '\n')
}
