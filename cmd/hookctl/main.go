// Command hookctl is a policy gate for coding agents: registered as a Claude Code hook, it keeps
// read-only sessions and agents read-only. See README.md.
package main

import (
	"os"
)

func main() {
	args := os.Args[1:]
	// The hook runs on every tool call: skip building the command tree for it.
	if len(args) == 1 && args[0] == "hook" {
		os.Exit(runHook(&streams{in: os.Stdin, out: os.Stdout, err: os.Stderr}))
	}
	os.Exit(run(args))
}
