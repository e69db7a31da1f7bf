// Command hookctl is a policy gate for coding agents: registered as a Claude Code hook, it keeps
// read-only sessions and agents read-only. See README.md.
package main

import (
	"os"
)

func main() {
	args := os.Args[1:]
	// The hook runs on every tool call and the status line on every message: skip building
	// the command tree for them.
	if len(args) == 1 && args[0] == "hook" {
		os.Exit(runHook(&streams{in: os.Stdin, out: os.Stdout, err: os.Stderr}, false, agents[0], false))
	}
	if len(args) == 2 && args[0] == "hook" && args[1] == "--pinned-read-only" {
		os.Exit(runHook(&streams{in: os.Stdin, out: os.Stdout, err: os.Stderr}, false, agents[0], true))
	}
	if len(args) == 3 && args[0] == "hook" && args[1] == "--agent" {
		if a, err := agentNamed(args[2]); err == nil {
			os.Exit(runHook(&streams{in: os.Stdin, out: os.Stdout, err: os.Stderr}, false, a, false))
		}
	}
	if len(args) == 1 && args[0] == "statusline" {
		runStatusline(&streams{in: os.Stdin, out: os.Stdout, err: os.Stderr})
		return
	}
	os.Exit(run(args))
}
