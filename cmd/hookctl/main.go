// Command hookctl is a policy gate for coding agents: registered as the pre-tool hook of Claude
// Code (and of Codex, Gemini CLI, Copilot CLI, Qwen Code or Cursor), it judges every tool call by
// its session's mode (read-only, edit, review) and runs what it admits under its sandbox launcher.
// Its other verbs are the human's: the mode toggle, install and uninstall, check, log, audit,
// doctor, the dashboard, retrieve and run. See README.md.
//
// It runs in the hook process and links no network code (internal/buildcheck): the retriever's
// worker, the dashboard and the exporter are executables of their own.
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
