package codex

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/hookctl/hookctl/agents/agentkit"
)

// Install is where `hookctl install --agent codex` registers hookctl. The managed file is
// Codex's system config folder: its hooks are "managed", run without the user's trust and
// cannot be disabled by any config file (codex-rs/hooks/src/engine/discovery.rs); the machine's
// requirements keep hooks on (Requirements).
var Install = agentkit.Install{
	ManagedFile:     managedFile,
	Register:        register,
	RepoSwitchesOff: ".codex/config.toml ([features] hooks = false)",
	RepoHooksOff:    repoHooksOff,
}

const managedFile = "/etc/codex/hooks.json"

// repoHooksOff says whether the project at dir switches hooks off in its own settings.
func repoHooksOff(dir string) string {
	if file := filepath.Join(dir, ".codex", "config.toml"); HooksOffIn(file) {
		return file + " switches hooks off"
	}
	return ""
}

// register: no matcher, every tool, apply_patch and MCP tools too. SessionStart tells the model
// its mode and the user what holds it, and notes the session for the mode-change notices. The
// timeout leaves hookctl's own deadline (hook.Deadline) far inside Codex's, which runs a call
// whose hook timed out.
func register(scope, userHome, command string) agentkit.Registration {
	r := agentkit.Registration{Command: command, Keys: []string{"hooks", "PreToolUse"}}
	r.File = filepath.Join(Home(userHome), "hooks.json")
	r.Group = `{"hooks":[{"type":"command","command":` + string(agentkit.JSON(command)) + `,"timeout":30}]}`
	r.Also = []agentkit.HookEntry{{Keys: []string{"hooks", "SessionStart"}, Group: r.Group}}
	if scope == "managed" {
		r.File = managedFile
	}
	return r
}

// Home is where Codex keeps its configuration: $CODEX_HOME, else ~/.codex.
func Home(userHome string) string {
	if d := os.Getenv("CODEX_HOME"); filepath.IsAbs(d) {
		return d
	}
	return filepath.Join(userHome, ".codex")
}

// Trust is config, config.toml's text, with the trust of hookctl's hooks (ours, as Codex lists
// them now) as install writes it: old, an earlier install's block, goes, and every hook it
// trusted is trusted again as it is now, with every hook not yet trusted. A hook trusted some
// other way (the user's /hooks) keeps that trust; a table for it that hookctl did not write is
// left alone, and Trust fails rather than write a second one, which Codex would not parse. rest
// is config without old; block is what install appends to it (old itself when nothing changes).
func Trust(configPath, config, old string, ours []Hook) (rest, block string, err error) {
	rest = strings.Replace(config, old, "", 1)
	for _, h := range ours {
		table := "[hooks.state." + string(agentkit.JSON(h.Key)) + "]"
		if h.TrustStatus == "trusted" && (old == "" || !strings.Contains(old, table)) {
			continue
		}
		if strings.Contains(rest, table) {
			return "", "", fmt.Errorf("%s already holds %s, which hookctl did not write, and Codex reports the hook %s: trust it in Codex with /hooks, or remove that table and run hookctl install --agent codex again", configPath, table, h.TrustStatus)
		}
		block += TrustBlock(h)
	}
	return rest, block, nil
}
