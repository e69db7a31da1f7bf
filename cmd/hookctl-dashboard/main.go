// Command hookctl-dashboard is hookctl's local web page (package dashboard), which `hookctl
// dashboard` runs: every session's mode and its toggle, the decision log, the retrieval audit and
// the secure runs, on 127.0.0.1 behind a token printed once.
//
// It is an executable of its own so that hookctl, which runs as the hook on every tool call and
// can read the user's files, links no network code at all (internal/buildcheck).
package main

import (
	"os"

	"github.com/hookctl/hookctl/dashboard"
)

func main() { os.Exit(dashboard.Main(os.Args[1:], os.Stdout, os.Stderr)) }
