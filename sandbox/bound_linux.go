//go:build linux && (amd64 || arm64)

package sandbox

import (
	"os"
	"syscall"
)

// boundAttr starts RunBounded's child in a process namespace of its own (and a user namespace
// where the launcher is not root), or in a process group of its own; it dies with the launcher
// either way.
func boundAttr(isolate bool) *syscall.SysProcAttr {
	attr := &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL}
	if !isolate {
		attr.Setpgid = true
		return attr
	}
	attr.Cloneflags = syscall.CLONE_NEWPID
	if uid, gid := os.Getuid(), os.Getgid(); uid != 0 {
		attr.Cloneflags |= syscall.CLONE_NEWUSER
		attr.UidMappings = []syscall.SysProcIDMap{{ContainerID: uid, HostID: uid, Size: 1}}
		attr.GidMappings = []syscall.SysProcIDMap{{ContainerID: gid, HostID: gid, Size: 1}}
	}
	return attr
}
