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
// With -layers FILTER HIDE it also applies what the kernel does for hookctl's read-only
// profile, with none of hookctl's own work: the seccomp program in the file FILTER (the
// profile's, as the launch bench writes it, its refusal of new namespaces cleared so that this
// launcher may still make the command's), and, as root, a private mount namespace with a tmpfs
// over the directory HIDE, where hookctl's masks hide its home. It leaves out the rest of the
// masks and the command's own /proc, so it is the cheaper of the two: what the guarantees cost
// at least.
//
//	minlaunch [-isolate | -layers FILTER HIDE] DIR PROGRAM [ARG…]
package main

import (
	"fmt"
	"os"
	"os/exec"
	"runtime"
	"syscall"
	"unsafe"

	"github.com/hookctl/hookctl/internal/landlock"
	"github.com/hookctl/hookctl/internal/seccomp"
)

func main() {
	args := os.Args[1:]
	isolate := len(args) > 0 && args[0] == "-isolate"
	layers := len(args) > 2 && args[0] == "-layers"
	var filter, hide string
	switch {
	case isolate:
		args = args[1:]
	case layers:
		isolate, filter, hide, args = true, args[1], args[2], args[3:]
	}
	if len(args) < 2 {
		fmt.Fprintln(os.Stderr, "usage: minlaunch [-isolate | -layers FILTER HIDE] DIR PROGRAM [ARG…]")
		os.Exit(2)
	}
	path, err := exec.LookPath(args[1])
	if err != nil {
		fail(err, 127)
	}
	// Landlock, seccomp and the mount namespace are the calling thread's, and what it starts.
	runtime.LockOSThread()
	var prog []seccomp.Instruction
	if layers {
		b, err := os.ReadFile(filter)
		if err != nil || len(b) == 0 || len(b)%int(unsafe.Sizeof(seccomp.Instruction{})) != 0 {
			fail(fmt.Errorf("no seccomp program in %s: %v", filter, err), 126)
		}
		prog = unsafe.Slice((*seccomp.Instruction)(unsafe.Pointer(&b[0])), len(b)/int(unsafe.Sizeof(seccomp.Instruction{})))
		if os.Geteuid() == 0 {
			if err := syscall.Unshare(syscall.CLONE_NEWNS); err != nil {
				fail(err, 126)
			}
			if err := syscall.Mount("", "/", "", syscall.MS_REC|syscall.MS_PRIVATE, ""); err != nil {
				fail(err, 126)
			}
			if err := syscall.Mount("tmpfs", hide, "tmpfs", syscall.MS_NOSUID|syscall.MS_NODEV|syscall.MS_NOEXEC, "size=4k,mode=0555"); err != nil {
				fail(err, 126)
			}
		}
	}
	read := uint64(landlock.Read | landlock.Execute)
	rules := []landlock.Rule{{Path: "/", Access: read}, {Path: args[0], Access: read | landlock.Write}}
	if isolate && os.Geteuid() != 0 {
		// The child's uid_map and gid_map, which this thread writes after the fork.
		rules = append(rules, landlock.Rule{Path: "/proc", Access: read | landlock.Write})
	}
	if _, err := landlock.Restrict(landlock.Ruleset{Rules: rules}); err != nil {
		fail(err, 126)
	}
	if prog != nil {
		if err := seccomp.Install(prog); err != nil {
			fail(err, 126)
		}
	}
	if !isolate {
		err = syscall.Exec(path, args[1:], os.Environ())
		fail(err, 126)
	}
	sys := &syscall.SysProcAttr{Cloneflags: syscall.CLONE_NEWPID, Pdeathsig: syscall.SIGKILL}
	if !layers || os.Geteuid() != 0 {
		sys.Cloneflags |= syscall.CLONE_NEWNS // -layers made this thread's already, as root
	}
	if os.Geteuid() != 0 {
		sys.Cloneflags |= syscall.CLONE_NEWUSER
		sys.UidMappings = []syscall.SysProcIDMap{{ContainerID: os.Geteuid(), HostID: os.Geteuid(), Size: 1}}
		sys.GidMappings = []syscall.SysProcIDMap{{ContainerID: os.Getegid(), HostID: os.Getegid(), Size: 1}}
	}
	pid, err := syscall.ForkExec(path, args[1:], &syscall.ProcAttr{Env: os.Environ(), Files: []uintptr{0, 1, 2}, Sys: sys})
	if err != nil {
		fail(err, 126)
	}
	var ws syscall.WaitStatus
	if _, err := syscall.Wait4(pid, &ws, 0, nil); err != nil {
		fail(err, 126)
	}
	os.Exit(ws.ExitStatus())
}

func fail(err error, code int) {
	fmt.Fprintln(os.Stderr, "minlaunch:", err)
	os.Exit(code)
}
