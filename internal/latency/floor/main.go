// Command floor is the baseline for hookctl's whole-process latency: the least a hook can do.
// It reads standard input and prints a fixed decision.
package main

import (
	"io"
	"os"
)

func main() {
	io.Copy(io.Discard, os.Stdin)
	os.Stdout.WriteString(`{"hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecision":"allow"}}` + "\n")
}
