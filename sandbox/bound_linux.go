//go:build linux && (amd64 || arm64)

package sandbox

import (
	"fmt"
	"os"
	"syscall"
)

// boundAttr starts RunBounded's child in namespaces of its own (a process namespace, and a mount
// namespace unless pidOnly), or in a process group of its own; it dies with the launcher either
// way.
func boundAttr(isolate, pidOnly bool) *syscall.SysProcAttr {
	attr := &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL}
	if !isolate {
		attr.Setpgid = true
		return attr
	}
	attr.Cloneflags = syscall.CLONE_NEWPID
	if !pidOnly {
		attr.Cloneflags |= syscall.CLONE_NEWNS
	}
	if uid, gid := os.Getuid(), os.Getgid(); uid != 0 {
		attr.Cloneflags |= syscall.CLONE_NEWUSER
		attr.UidMappings = []syscall.SysProcIDMap{{ContainerID: uid, HostID: uid, Size: 1}}
		attr.GidMappings = []syscall.SysProcIDMap{{ContainerID: gid, HostID: gid, Size: 1}}
		if !pidOnly {
			// The user is not root in the new namespace: ambient capabilities survive the exec
			// of the launcher's child, which mounts its /proc and then drops them all (Apply).
			attr.AmbientCaps = []uintptr{capSysAdmin, capSetpcap}
		}
	}
	return attr
}

// MountProc gives the calling process, the first of a process namespace of its own
// (RunBounded's isolated child), a private mount namespace in which /proc shows that
// namespace's processes only: the command, and what it starts.
func MountProc() error {
	if os.Getpid() != 1 {
		return fmt.Errorf("not the first process of a process namespace of its own")
	}
	if err := syscall.Mount("", "/", "", syscall.MS_REC|syscall.MS_PRIVATE, ""); err != nil {
		return fmt.Errorf("failed to make the mounts private: %v", err)
	}
	if err := syscall.Mount("proc", "/proc", "proc", syscall.MS_NOSUID|syscall.MS_NODEV|syscall.MS_NOEXEC, ""); err != nil {
		return fmt.Errorf("failed to mount a /proc of its own: %v", err)
	}
	return nil
}
