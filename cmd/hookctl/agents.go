package main

import (
	"fmt"
	"sort"
	"strings"

	"github.com/hookctl/hookctl/agents/claude"
	"github.com/hookctl/hookctl/agents/codex"
	"github.com/hookctl/hookctl/agents/copilot"
	"github.com/hookctl/hookctl/agents/cursor"
	"github.com/hookctl/hookctl/agents/gemini"
	"github.com/hookctl/hookctl/agents/qwen"
	"github.com/hookctl/hookctl/hook"
)

// agent is one client hookctl guards: its adapter, and how the gate describes it.
type agent struct {
	Name    string // what --agent takes
	Adapter hook.Adapter
	Client  hook.Client
	// AsWritten: the client takes no rewritten shell command, so none runs in the OS sandbox
	// (Qwen Code: its adapter marks every shell call NoRewrite); doctor says so.
	AsWritten bool
}

// agents are the clients `hookctl hook --agent NAME` answers (a slice, not a map: a map literal
// is built on every hook start).
var agents = []agent{
	{"claude", claude.Adapter{}, claude.Client, false},
	{"codex", codex.Adapter{}, codex.Client, false},
	{"qwen", qwen.Adapter{}, qwen.Client, true},
	{"gemini", gemini.Adapter{}, gemini.Client, false},
	{"copilot", copilot.Adapter{}, copilot.Client, false},
	{"cursor", cursor.Adapter{}, cursor.Client, false},
}

// agentNames lists the names --agent takes, for messages.
func agentNames() string {
	var names []string
	for _, a := range agents {
		names = append(names, a.Name)
	}
	sort.Strings(names)
	return strings.Join(names, ", ")
}

func agentNamed(name string) (agent, error) {
	for _, a := range agents {
		if a.Name == name {
			return a, nil
		}
	}
	return agent{}, fmt.Errorf("unknown agent %q: hookctl knows %s", name, agentNames())
}

// guarding is c with every known client's settings protected, not only its own: an agent in one
// client must not rewrite another's hooks, which the user may run in the same project next.
func guarding(c hook.Client) hook.Client {
	own := c.Settings
	c.Settings = func(home, cwd string) []string {
		var out []string
		if own != nil {
			out = own(home, cwd)
		}
		for _, a := range agents {
			if a.Client.Name != c.Name && a.Client.Settings != nil {
				out = append(out, a.Client.Settings(home, cwd)...)
			}
		}
		return out
	}
	names := append([]string(nil), c.SettingsNames...)
	for _, a := range agents {
		if a.Client.Name != c.Name {
			names = append(names, a.Client.SettingsNames...)
		}
	}
	c.SettingsNames = names
	return c
}

// clientDirs are the other clients' whole configuration directories, which edit mode's sandbox
// freezes as it freezes .claude: under the user's home, in the project and every directory above
// it, and the system's. An edit-mode command could otherwise switch hookctl off for the next
// session of another client (its hooks, Codex's trust, Copilot's disableAllHooks).
var clientDirs = struct{ home, project, system []string }{
	home:    []string{".codex", ".qwen", ".gemini", ".copilot", ".cursor"},
	project: []string{".codex", ".qwen", ".gemini", ".cursor", ".copilot", ".github/hooks", ".github/copilot"},
	system:  []string{"/etc/codex", "/etc/qwen-code", "/etc/gemini-cli", "/etc/github-copilot", "/etc/cursor"},
}
