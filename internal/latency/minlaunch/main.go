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
// With -layers FILTER HIDE MASKS it also makes the kernel do what it does for hookctl's
// read-only profile, with none of hookctl's own work: it installs the seccomp program in the
// file FILTER (the profile's, as the launch bench writes it, its refusal of new namespaces
// cleared so that this launcher may still make the command's); as root, it also drops the
// capability bounding set and masks as the profile does, in a private mount namespace: a
// read-only tmpfs over the directory HIDE (hookctl's home), holding an empty directory and an
// empty file, bound over each of MASKS (comma-separated, each "d:PATH" or "f:PATH"). It leaves
// out the command's own /proc and the scratch directory's mount, and for a user who is not root
// the masks and the capabilities too, so it is the cheaper of the two: what the guarantees cost
// at least.
//
//	minlaunch [-isolate | -layers FILTER HIDE MASKS] DIR PROGRAM [ARG…]
package main

import (
	"fmt"
	"os"
	"os/exec"
	"runtime"
	"strings"
	"syscall"
	"unsafe"

	"github.com/hookctl/hookctl/internal/landlock"
	"github.com/hookctl/hookctl/internal/seccomp"
)

func main() {
	args := os.Args[1:]
	isolate := len(args) > 0 && args[0] == "-isolate"
	layers := len(args) > 3 && args[0] == "-layers"
	var filter, hide, masks string
	switch {
	case isolate:
		args = args[1:]
	case layers:
		isolate, filter, hide, masks, args = true, args[1], args[2], args[3], args[4:]
	}
	if len(args) < 2 {
		fmt.Fprintln(os.Stderr, "usage: minlaunch [-isolate | -layers FILTER HIDE MASKS] DIR PROGRAM [ARG…]")
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
		// What needs privilege, only as root: a user who is not root has its namespaces made
		// with the command's, after which this thread can do nothing in them.
		if os.Geteuid() == 0 {
			if err := mask(hide, masks); err != nil {
				fail(err, 126)
			}
			for c := uintptr(0); c <= lastCap; c++ {
				if _, _, e := syscall.RawSyscall(syscall.SYS_PRCTL, prCapbsetDrop, c, 0); e != 0 {
					fail(fmt.Errorf("failed to drop capability %d from the bounding set: %v", c, e), 126)
				}
			}
			syscall.RawSyscall6(syscall.SYS_PRCTL, prCapAmbient, prCapAmbientClearAll, 0, 0, 0, 0)
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

// The capabilities' prctl operations, and the last capability of kernel 6.x (CAP_CHECKPOINT_RESTORE).
const (
	prCapbsetDrop        = 24
	prCapAmbient         = 47
	prCapAmbientClearAll = 4
	lastCap              = 40
)

// mask makes this thread's mount namespace private and hides hide and each of masks as the
// read-only profile's masks do.
func mask(hide, masks string) error {
	if err := syscall.Unshare(syscall.CLONE_NEWNS); err != nil {
		return err
	}
	if err := syscall.Mount("", "/", "", syscall.MS_REC|syscall.MS_PRIVATE, ""); err != nil {
		return err
	}
	const flags = syscall.MS_NOSUID | syscall.MS_NODEV | syscall.MS_NOEXEC
	if err := syscall.Mount("tmpfs", hide, "tmpfs", flags, "mode=0711,size=64k"); err != nil {
		return err
	}
	dir, file := hide+"/.masked-dir", hide+"/.masked-file"
	if err := syscall.Mkdir(dir, 0); err != nil {
		return err
	}
	if err := syscall.Mknod(file, syscall.S_IFREG, 0); err != nil {
		return err
	}
	if err := syscall.Chmod(hide, 0o555); err != nil {
		return err
	}
	if err := syscall.Mount("", hide, "", syscall.MS_REMOUNT|syscall.MS_RDONLY|flags, ""); err != nil {
		return err
	}
	for _, m := range strings.Split(masks, ",") {
		src := file
		switch {
		case m == "":
			continue
		case strings.HasPrefix(m, "d:"):
			src = dir
		}
		if err := syscall.Mount(src, m[2:], "", syscall.MS_BIND, ""); err != nil {
			return fmt.Errorf("mask %s: %v", m[2:], err)
		}
	}
	return nil
}

func fail(err error, code int) {
	fmt.Fprintln(os.Stderr, "minlaunch:", err)
	os.Exit(code)
}
