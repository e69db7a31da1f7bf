package securerun

import (
	"encoding/json"
	"path/filepath"
	"regexp"
	"slices"
	"strings"

	"github.com/hookctl/hookctl/internal/fsutil"
)

// AgentConfig is a piece of the repository's own agent configuration: settings, hooks, MCP
// servers, commands, skills, plugins and memory files that an agent started in the repository
// would load. It is repository content: hookctl loads none of it, and an agent that does runs it
// inside the sandbox, where it cannot widen the profile. The preflight lists it so that the user
// sees what the repository would configure.
type AgentConfig struct {
	Path string `json:"path"`
	What string `json:"what"`
	// Detail: the keys of a settings file that change what the agent may do (hooks,
	// permissions, …), or a memory file's imports.
	Detail []string `json:"detail,omitempty"`
}

// agentConfigRule is one kind of agent configuration: a path relative to any directory of the
// repository (anywhere) or to its root, a directory (dir) or a file.
type agentConfigRule struct {
	path     string
	dir      bool
	anywhere bool
	what     string
	kind     string // how to read its detail: "settings", "mcp", "memory" or ""
}

// agentConfigRules: Claude Code's project configuration first (the client this slice is for),
// then the other agents' that hookctl will have adapters for.
var agentConfigRules = []agentConfigRule{
	{".claude/settings.json", false, true, "Claude Code project settings", "settings"},
	{".claude/settings.local.json", false, true, "Claude Code local project settings", "settings"},
	{".claude/commands", true, true, "Claude Code slash commands", ""},
	{".claude/agents", true, true, "Claude Code subagents", ""},
	{".claude/skills", true, true, "Claude Code skills", ""},
	{".claude/hooks", true, true, "Claude Code hook scripts", ""},
	{".claude/plugins", true, true, "Claude Code plugins", ""},
	{".claude-plugin", true, true, "a Claude Code plugin or marketplace", ""},
	{".mcp.json", false, true, "MCP servers (Claude Code)", "mcp"},
	{"CLAUDE.md", false, true, "Claude Code memory", "memory"},
	{"CLAUDE.local.md", false, true, "Claude Code local memory", "memory"},
	{".claude/CLAUDE.md", false, true, "Claude Code memory", "memory"},
	{"AGENTS.md", false, true, "agent instructions (Codex, others)", ""},
	{".codex", true, false, "Codex CLI configuration", ""},
	{".gemini", true, false, "Gemini CLI configuration", ""},
	{"GEMINI.md", false, true, "Gemini CLI memory", ""},
	{".qwen", true, false, "Qwen Code configuration", ""},
	{".cursor", true, false, "Cursor configuration (rules, MCP servers)", ""},
	{".cursorrules", false, false, "Cursor rules", ""},
	{".github/copilot-instructions.md", false, false, "Copilot instructions", ""},
	{".vscode/mcp.json", false, false, "MCP servers (VS Code)", "mcp"},
}

// AgentConfigKind says what kind of agent configuration rel (relative to the repository, with
// slashes) is, or nil.
func AgentConfigKind(rel string, dir bool) *agentConfigRule {
	for i, r := range agentConfigRules {
		if r.dir != dir {
			continue
		}
		if rel == r.path || r.anywhere && strings.HasSuffix(rel, "/"+r.path) {
			return &agentConfigRules[i]
		}
	}
	return nil
}

// settingsKeys are the keys of a Claude Code settings file that change what the agent may do
// or run: shown in the preflight.
var settingsKeys = []string{"hooks", "permissions", "env", "mcpServers", "enableAllProjectMcpServers", "enabledMcpjsonServers",
	"enabledPlugins", "extraKnownMarketplaces", "apiKeyHelper", "awsAuthRefresh", "awsCredentialExport", "statusLine",
	"disableAllHooks", "additionalDirectories", "model", "forceLoginMethod", "otelHeadersHelper", "sandbox"}

// memoryImport is an import in a memory file: `@path` at the start of a line or after a space
// (Claude Code reads it as a file to include).
// Compiled on first use.
var memoryImport = lazy[*regexp.Regexp]{build: func() *regexp.Regexp {
	return regexp.MustCompile(`(?m)(?:^|\s)@((?:~/|/|\./|\.\./|[A-Za-z0-9_.-]+/)[^\s` + "`" + `]*|[A-Za-z0-9_-]+\.[A-Za-z0-9]+)`)
}}

// maxConfigBytes caps what the preflight reads of one configuration file.
const maxConfigBytes = 1 << 20

// describe reads the detail of a configuration file: its keys that matter, or its imports.
func (r *agentConfigRule) describe(root, rel string) []string {
	if r.kind == "" {
		return nil
	}
	data, err := fsutil.ReadFile(filepath.Join(root, filepath.FromSlash(rel)), maxConfigBytes, true)
	if err != nil {
		return []string{"unreadable: " + err.Error()}
	}
	switch r.kind {
	case "settings", "mcp":
		var m map[string]json.RawMessage
		if json.Unmarshal(data, &m) != nil {
			return []string{"not valid JSON"}
		}
		var keys []string
		if r.kind == "mcp" {
			var servers map[string]json.RawMessage
			json.Unmarshal(m["mcpServers"], &servers)
			for k := range servers {
				keys = append(keys, "server "+k)
			}
		} else {
			for _, k := range settingsKeys {
				if _, ok := m[k]; ok {
					keys = append(keys, k)
				}
			}
		}
		slices.Sort(keys)
		return keys
	case "memory":
		var imports []string
		inFence := false
		for _, line := range strings.Split(string(data), "\n") {
			if strings.HasPrefix(strings.TrimSpace(line), "```") {
				inFence = !inFence
				continue
			}
			if inFence {
				continue
			}
			for _, m := range memoryImport.get().FindAllStringSubmatch(line, -1) {
				imports = append(imports, "imports @"+m[1])
			}
		}
		return slices.Compact(imports)
	}
	return nil
}
