// Command hookctl is a policy gate for coding agents: registered as a Claude Code hook, it keeps
// read-only sessions and agents read-only. See README.md.
package main

import (
	"os"
)

func main() {
	os.Exit(run(os.Args[1:]))
}
