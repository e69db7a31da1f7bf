// Command hookctl-network is hookctl's network executable: every process of hookctl's that
// touches the network runs it, each isolated for its one role, so that hookctl, which runs as
// the hook on every tool call and can read the user's files, links no network code at all.
//
// With no argument it is the quarantined retrieval's worker (package worker): hookctl starts it for each retrieval, with the request on its standard
// input, in an empty directory with a scrubbed environment, and reads the result from its
// standard output. It is installed next to hookctl and not meant to be run by hand.
//
// With the argument broker it is hookctl run's credential broker (the same package): the
// listener in the run's network namespace as descriptor 3, its config and the model's
// credential on its standard input.
//
// With the argument egress it is edit mode's egress proxy instead (package sandbox/egress/proxy):
// hookctl's sandbox launcher starts it when a sandboxed command first connects, with the
// listener in the command's network namespace as descriptor 3 and the policy on its standard
// input.
package main

import (
	"fmt"
	"os"
	"strings"

	"github.com/hookctl/hookctl/internal/buildinfo"
	"github.com/hookctl/hookctl/retriever"
	"github.com/hookctl/hookctl/retriever/worker"
	"github.com/hookctl/hookctl/sandbox/egress/proxy"
)

// isolateEgress restricts the proxy to reading what name resolution needs: it writes no file,
// and it may not listen (it accepts on the launcher's listener).
func isolateEgress() error {
	paths := worker.DefaultIsolationPaths("")
	paths.Write = nil
	iso, err := worker.Isolate(paths)
	if err == nil && strings.HasPrefix(iso, "none") {
		fmt.Fprintln(os.Stderr, "hookctl egress: running without file isolation:", iso)
	}
	return err
}

func main() {
	switch {
	case len(os.Args) == 2 && os.Args[1] == "version":
		fmt.Print(buildinfo.Describe(retriever.NetworkExecutable))
	case len(os.Args) == 2 && os.Args[1] == "egress":
		os.Exit(proxy.Main(os.Stdin, os.Stdout, os.NewFile(3, "egress listener"), isolateEgress))
	case len(os.Args) == 2 && os.Args[1] == "broker":
		os.Exit(proxy.BrokerMain(os.Stdin, os.Stdout, os.NewFile(3, "broker listener"), isolateEgress))
	case len(os.Args) == 1:
		os.Exit(worker.Main(os.Stdin, os.Stdout))
	default:
		fmt.Fprintf(os.Stderr, "%s: hookctl runs it, with the request on standard input; it takes no arguments but version (or egress, broker)\n", retriever.NetworkExecutable)
		os.Exit(2)
	}
}
