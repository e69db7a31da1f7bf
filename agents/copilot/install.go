package copilot

import (
	"path/filepath"

	"github.com/hookctl/hookctl/agents/agentkit"
)

// Install is where `hookctl install --agent copilot` registers hookctl: a file of its own in
// the user's hooks directory (Copilot CLI reads every file there), or in the machine's policy
// directory.
var Install = agentkit.Install{
	ManagedFile:     managedFile,
	Register:        register,
	RepoSwitchesOff: "disableAllHooks",
}

const managedFile = "/etc/github-copilot/policy.d/hookctl.json"

// register: the timeout leaves hookctl's own deadline far inside Copilot CLI's, which runs a
// call whose hook timed out.
func register(scope, userHome, command string) agentkit.Registration {
	r := agentkit.Registration{Command: command, Keys: []string{"hooks", "PreToolUse"}}
	r.File, r.Own = filepath.Join(userHome, ".copilot", "hooks", "hookctl.json"), true
	if scope == "managed" {
		r.File = managedFile
	}
	r.Group = `{"version":1,"hooks":{"preToolUse":[{"type":"command","bash":` + string(agentkit.JSON(command)) + `,"timeoutSec":30}]}}`
	return r
}
