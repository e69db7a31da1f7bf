package policy

import (
	"github.com/hookctl/hookctl/config"
	"github.com/hookctl/hookctl/hook"
	"github.com/hookctl/hookctl/internal/shellglob"
	"github.com/hookctl/hookctl/internal/testclient"
	"github.com/hookctl/hookctl/lexer"
)

// judgeText judges cmd with the read-only rules under cfg (judgeReadOnly), its globs
// expanded on this machine as the hook expands them.
func judgeText(cmd string, cfg *config.Config) (string, *Refusal) {
	return judgeReadOnly(lexer.NewCommandLine(cmd), cfg, shellglob.World{})
}

// testClient is a client as an adapter would describe it (testclient.Claude).
var testClient = testclient.Claude

// bash is a shell call of the main thread.
func bash(cmd string) *hook.ToolCall {
	return &hook.ToolCall{Session: "s1", Tool: "Bash", Kind: hook.KindShell, Command: cmd, Description: "review"}
}
