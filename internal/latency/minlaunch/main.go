// Command minlaunch is the yardstick for hookctl's sandbox launcher (issue 28): the least a Go
// launcher that sandboxes a command can do. It sets no_new_privs, applies a Landlock ruleset
// that reads and executes everywhere and writes one directory, and execs the command.
//
//	minlaunch DIR PROGRAM [ARG…]
package main

import (
	"fmt"
	"os"
	"os/exec"
	"runtime"
	"syscall"

	"github.com/hookctl/hookctl/internal/landlock"
)

func main() {
	if len(os.Args) < 3 {
		fmt.Fprintln(os.Stderr, "usage: minlaunch DIR PROGRAM [ARG…]")
		os.Exit(2)
	}
	path, err := exec.LookPath(os.Args[2])
	if err != nil {
		fmt.Fprintln(os.Stderr, "minlaunch:", err)
		os.Exit(127)
	}
	runtime.LockOSThread()
	read := uint64(landlock.Read | landlock.Execute)
	if _, err := landlock.Restrict(landlock.Ruleset{Rules: []landlock.Rule{
		{Path: "/", Access: read},
		{Path: os.Args[1], Access: read | landlock.Write},
	}}); err != nil {
		fmt.Fprintln(os.Stderr, "minlaunch:", err)
		os.Exit(126)
	}
	err = syscall.Exec(path, os.Args[2:], os.Environ())
	fmt.Fprintln(os.Stderr, "minlaunch:", err)
	os.Exit(126)
}
