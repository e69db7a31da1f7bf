//go:build linux

// Command minlaunch is the yardstick for hookctl's sandbox launcher (issue 28): the least a Go
// launcher that sandboxes a command can do. It sets no_new_privs, applies a Landlock ruleset
// that reads and executes everywhere and writes one directory, and execs the command.
//
// With -isolate it runs the command instead as the first process of a process namespace and a
// mount namespace of its own (and a user namespace, for a user who is not root) and waits for
// it: the least a launcher can do that also ends every process the command started when it
// ends, as hookctl's does. Its ratio to the plain yardstick is what that guarantee costs.
//
//	minlaunch [-isolate] DIR PROGRAM [ARG…]
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
	args := os.Args[1:]
	isolate := len(args) > 0 && args[0] == "-isolate"
	if isolate {
		args = args[1:]
	}
	if len(args) < 2 {
		fmt.Fprintln(os.Stderr, "usage: minlaunch [-isolate] DIR PROGRAM [ARG…]")
		os.Exit(2)
	}
	path, err := exec.LookPath(args[1])
	if err != nil {
		fmt.Fprintln(os.Stderr, "minlaunch:", err)
		os.Exit(127)
	}
	// Landlock restricts the calling thread, and what it starts or becomes.
	runtime.LockOSThread()
	read := uint64(landlock.Read | landlock.Execute)
	rules := []landlock.Rule{{Path: "/", Access: read}, {Path: args[0], Access: read | landlock.Write}}
	if isolate && os.Geteuid() != 0 {
		// The child's uid_map and gid_map, which this thread writes after the fork.
		rules = append(rules, landlock.Rule{Path: "/proc", Access: read | landlock.Write})
	}
	if _, err := landlock.Restrict(landlock.Ruleset{Rules: rules}); err != nil {
		fmt.Fprintln(os.Stderr, "minlaunch:", err)
		os.Exit(126)
	}
	if !isolate {
		err = syscall.Exec(path, args[1:], os.Environ())
		fmt.Fprintln(os.Stderr, "minlaunch:", err)
		os.Exit(126)
	}
	sys := &syscall.SysProcAttr{Cloneflags: syscall.CLONE_NEWPID | syscall.CLONE_NEWNS, Pdeathsig: syscall.SIGKILL}
	if os.Geteuid() != 0 {
		sys.Cloneflags |= syscall.CLONE_NEWUSER
		sys.UidMappings = []syscall.SysProcIDMap{{ContainerID: os.Geteuid(), HostID: os.Geteuid(), Size: 1}}
		sys.GidMappings = []syscall.SysProcIDMap{{ContainerID: os.Getegid(), HostID: os.Getegid(), Size: 1}}
	}
	pid, err := syscall.ForkExec(path, args[1:], &syscall.ProcAttr{Env: os.Environ(), Files: []uintptr{0, 1, 2}, Sys: sys})
	if err != nil {
		fmt.Fprintln(os.Stderr, "minlaunch:", err)
		os.Exit(126)
	}
	var ws syscall.WaitStatus
	if _, err := syscall.Wait4(pid, &ws, 0, nil); err != nil {
		fmt.Fprintln(os.Stderr, "minlaunch:", err)
		os.Exit(126)
	}
	os.Exit(ws.ExitStatus())
}
