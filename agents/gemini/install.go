package gemini

import (
	"crypto/rand"
	"encoding/hex"
	"path/filepath"
	"strings"

	"github.com/tidwall/gjson"

	"github.com/hookctl/hookctl/agents/agentkit"
	"github.com/hookctl/hookctl/agents/hookfile"
	"github.com/hookctl/hookctl/internal/hookjson"
)

// Install is where `hookctl install --agent gemini` registers hookctl: the user's settings, or
// the system settings, which Gemini CLI reads last.
var Install = agentkit.Install{
	ManagedFile:     managedFile,
	Register:        register,
	RepoSwitchesOff: ".gemini/settings.json (hooksConfig.enabled = false, or hookctl in hooksConfig.disabled)",
	RepoHooksOff:    repoHooksOff,
	Settle:          settle,
}

const managedFile = "/etc/gemini-cli/settings.json"

// repoHooksOff says whether the project at dir switches hooks off in its own settings.
func repoHooksOff(dir string) string {
	return agentkit.SettingsSwitchOff(dir, ".gemini/settings.json", func(s gjson.Result) bool {
		named := false
		s.Get("hooksConfig.disabled").ForEach(func(_, v gjson.Result) bool { named = named || v.Str == "hookctl"; return !named })
		return s.Get("hooksConfig.enabled").Type == gjson.False || named
	})
}

// register: the timeout (ms) leaves hookctl's own deadline far inside Gemini CLI's, which runs
// a call whose hook timed out.
func register(scope, userHome, command string) agentkit.Registration {
	r := agentkit.Registration{Command: command}
	r.File, r.Keys = filepath.Join(userHome, ".gemini", "settings.json"), []string{"hooks", "BeforeTool"}
	r.Group = `{"matcher":".*","hooks":[{"type":"command","name":"hookctl","command":` + string(agentkit.JSON(command)) + `,"timeout":30000}]}`
	if scope == "managed" {
		// A repository's .gemini/settings.json could turn hooks off (hooksConfig.enabled,
		// which the system file, read last, sets back) or name hookctl's in
		// hooksConfig.disabled, which every file adds to: the managed hook's name is one no
		// repository can know in advance (HookName).
		r.File, r.Pins = managedFile, []agentkit.HookEntry{{Keys: []string{"hooksConfig", "enabled"}, Group: "true"}}
	}
	return r
}

// settle makes r what install writes into text: the managed hook keeps the name already there
// (HookName).
func settle(r *agentkit.Registration, scope string, text []byte) {
	if scope == "managed" {
		r.Group = strings.Replace(r.Group, `"name":"hookctl"`, `"name":`+string(agentkit.JSON(HookName(text, r.Keys, agentkit.Ours("gemini")))), 1)
	}
}

// HookName is the name of the managed Gemini CLI hook already in text, or a new random one:
// Gemini CLI skips a hook whose name any settings file lists in hooksConfig.disabled, a
// repository's included, so the name must be one a repository's author cannot write down in
// advance; it is kept across installs so that install stays idempotent.
func HookName(text []byte, keys []string, ours hookfile.Ours) string {
	root := gjson.ParseBytes(text)
	for _, k := range keys {
		root = root.Get(hookjson.Key(k))
	}
	name := ""
	root.ForEach(func(_, g gjson.Result) bool {
		if ours(g) {
			if n := g.Get("hooks.0.name").Str; strings.HasPrefix(n, "hookctl-") {
				name = n
			}
		}
		return name == ""
	})
	if name != "" {
		return name
	}
	b := make([]byte, 8)
	rand.Read(b)
	return "hookctl-" + hex.EncodeToString(b)
}
