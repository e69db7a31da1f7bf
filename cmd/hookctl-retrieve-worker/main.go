// Command hookctl-retrieve-worker is the isolated process of hookctl's quarantined retrieval
// (package worker): hookctl starts it for each retrieval, with the request on its standard
// input, in an empty directory with a scrubbed environment, and reads the result from its
// standard output. It is installed next to hookctl and not meant to be run by hand.
//
// It is an executable of its own so that hookctl, which runs as the hook on every tool call and
// can read the user's files, links no network code at all.
package main

import (
	"fmt"
	"os"

	"github.com/hookctl/hookctl/internal/buildinfo"
	"github.com/hookctl/hookctl/retriever"
	"github.com/hookctl/hookctl/retriever/worker"
)

func main() {
	switch {
	case len(os.Args) == 2 && os.Args[1] == "version":
		fmt.Print(buildinfo.Describe(retriever.WorkerExecutable))
	case len(os.Args) == 1:
		os.Exit(worker.Main(os.Stdin, os.Stdout))
	default:
		fmt.Fprintf(os.Stderr, "%s: hookctl runs it, with the request on standard input; it takes no arguments but version\n", retriever.WorkerExecutable)
		os.Exit(2)
	}
}
