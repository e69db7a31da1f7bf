//go:build hookctl_idle

package main

// A build for `make bench` only (-tags hookctl_idle, bin/hookctl-idle): the same binary, every
// package linked and initialised, answering a hook call as the floor program does before doing
// any of its work. Its time is what a call pays before hookctl decides anything; the hook's
// ratio to it is what the work adds (docs/decisions/0004). The shipped build leaves this file
// out (TestIdleBuildIsNotShipped).

import (
	"io"
	"os"
)

// init runs after every imported package's initialiser and before main.
func init() {
	if len(os.Args) > 1 && os.Args[1] == "hook" {
		io.Copy(io.Discard, os.Stdin)
		os.Stdout.WriteString(`{"hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecision":"allow"}}` + "\n")
		os.Exit(0)
	}
}
