package qwen

import (
	"path/filepath"

	"github.com/tidwall/gjson"

	"github.com/hookctl/hookctl/agents/agentkit"
)

// Install is where `hookctl install --agent qwen` registers hookctl: the user's settings, or
// the system settings, which Qwen Code reads last.
var Install = agentkit.Install{
	ManagedFile:     managedFile,
	Register:        register,
	RepoSwitchesOff: ".qwen/settings.json (disableAllHooks)",
	RepoHooksOff:    repoHooksOff,
}

const managedFile = "/etc/qwen-code/settings.json"

// repoHooksOff says whether the project at dir switches hooks off in its own settings.
func repoHooksOff(dir string) string {
	return agentkit.SettingsSwitchOff(dir, ".qwen/settings.json", func(s gjson.Result) bool { return s.Get("disableAllHooks").Bool() })
}

// register: the timeout (ms) leaves hookctl's own deadline far inside Qwen Code's, which runs a
// call whose hook timed out.
func register(scope, userHome, command string) agentkit.Registration {
	r := agentkit.Registration{Command: command, Keys: []string{"hooks", "PreToolUse"}}
	r.File = filepath.Join(userHome, ".qwen", "settings.json")
	r.Group = `{"matcher":"*","hooks":[{"type":"command","command":` + string(agentkit.JSON(command)) + `,"timeout":30000}]}`
	if scope == "managed" {
		// A repository's .qwen/settings.json could say disableAllHooks; the system file,
		// read last, says otherwise.
		r.File, r.Pins = managedFile, []agentkit.HookEntry{{Keys: []string{"disableAllHooks"}, Group: "false"}}
	}
	return r
}
