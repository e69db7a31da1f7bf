package cursor

import (
	"path/filepath"

	"github.com/hookctl/hookctl/agents/agentkit"
)

// Install is where `hookctl install --agent cursor` registers hookctl: the user's hooks file,
// or the enterprise hooks, first in Cursor's documented priority order.
var Install = agentkit.Install{
	ManagedFile: managedFile,
	Register:    register,
}

const managedFile = "/etc/cursor/hooks.json"

// register: failClosed, without which Cursor runs the call when the hook fails; the timeout
// leaves hookctl's own deadline far inside Cursor's.
func register(scope, userHome, command string) agentkit.Registration {
	r := agentkit.Registration{Command: command, Keys: []string{"hooks", "PreToolUse"}}
	r.File, r.Keys, r.Init = filepath.Join(userHome, ".cursor", "hooks.json"), []string{"hooks", "preToolUse"}, `{"version":1}`
	r.Group = `{"command":` + string(agentkit.JSON(command)) + `,"timeout":30,"failClosed":true}`
	if scope == "managed" {
		r.File = managedFile
	}
	return r
}
