//go:build linux

package seccomp

import (
	"errors"
	"fmt"
	"runtime"
	"syscall"
	"unsafe"
)

// sysSeccomp is seccomp(2)'s number (the syscall package names it on arm64 only).
var sysSeccomp = map[string]uintptr{"amd64": 317, "arm64": 277}[runtime.GOARCH]

const (
	setModeFilter        = 1
	flagNewListener      = 1 << 3
	flagWaitKillableRecv = 1 << 5     // Linux 5.19
	ioctlNotifRecv       = 0xc0502100 // _IOWR('!', 0, struct seccomp_notif)
	ioctlNotifSend       = 0xc0182101 // _IOWR('!', 1, struct seccomp_notif_resp)
	ioctlNotifIDValid    = 0x40082102 // _IOW('!', 2, __u64)
	ioctlNotifAddfd      = 0x40182103 // _IOW('!', 3, struct seccomp_notif_addfd)
	addfdFlagSetfd       = 1 << 0     // Linux 5.9
	addfdFlagSend        = 1 << 1     // Linux 5.14
)

// InstallListener applies prog, as Install does, and returns the descriptor on which its Notify
// rules' calls arrive (SECCOMP_FILTER_FLAG_NEW_LISTENER). While no process holds it open, those
// calls fail with ENOSYS: a supervisor that dies lets nothing through.
func InstallListener(prog []Instruction) (int, error) {
	if len(prog) == 0 {
		return -1, fmt.Errorf("seccomp: an empty program")
	}
	if _, _, e := syscall.RawSyscall(syscall.SYS_PRCTL, prSetNoNewPrivs, 1, 0); e != 0 {
		return -1, fmt.Errorf("failed to set no_new_privs: %v", e)
	}
	fp := sockFprog{len: uint16(len(prog)), filter: &prog[0]}
	// Once the listener has read a call, only a fatal signal interrupts the caller: a call
	// restarted after a signal would be done twice (a mkdir would then fail with EEXIST).
	fd, _, e := syscall.RawSyscall(sysSeccomp, setModeFilter, flagNewListener|flagWaitKillableRecv, uintptr(unsafe.Pointer(&fp)))
	if e == syscall.EINVAL {
		fd, _, e = syscall.RawSyscall(sysSeccomp, setModeFilter, flagNewListener, uintptr(unsafe.Pointer(&fp)))
	}
	if e != 0 {
		return -1, fmt.Errorf("failed to install the seccomp filter with a listener: %v", e)
	}
	return int(fd), nil
}

// ListenerCall is the seccomp(2) call InstallListener makes, for a child that makes its system
// calls from a list made beforehand (the sandbox's launches): its number, its operation and
// the flags this kernel takes; the program is the third argument. The kernel checks the flags
// before it reads the program: for none, EFAULT says it knows them, EINVAL that it lacks
// WAIT_KILLABLE_RECV (before Linux 5.19).
func ListenerCall() (nr, op, flags uintptr) {
	flags = flagNewListener | flagWaitKillableRecv
	if _, _, e := syscall.RawSyscall(sysSeccomp, setModeFilter, flags, 0); e == syscall.EINVAL {
		flags = flagNewListener
	}
	return sysSeccomp, setModeFilter, flags
}

// Data is struct seccomp_data: the call as the filter saw it.
type Data struct {
	Nr   int32
	Arch uint32
	IP   uint64
	Args [6]uint64
}

// Notif is struct seccomp_notif: one call waiting for its answer. Pid is the calling thread's
// id, in the listener's pid namespace.
type Notif struct {
	ID    uint64
	Pid   uint32
	Flags uint32
	Data  Data
}

type notifResp struct {
	id    uint64
	val   int64
	error int32
	flags uint32
}

// Recv waits for the next call on listener.
func Recv(listener int) (Notif, error) {
	var n Notif
	for {
		_, _, e := syscall.Syscall(syscall.SYS_IOCTL, uintptr(listener), ioctlNotifRecv, uintptr(unsafe.Pointer(&n)))
		switch {
		case e == 0:
			return n, nil
		case e == syscall.EINTR:
			continue
		case e == syscall.ENOENT && !hungUp(listener):
			continue // the caller went away before its call was read
		case e == syscall.ENOENT:
			// No process uses the filter any more, and none can again (a filter is only
			// inherited): the kernel answers every read at once with ENOENT, which a reader
			// that went on would spin on until it exits.
			return n, ErrNoCallers
		}
		return n, e
	}
}

// ErrNoCallers is Recv's error once no process uses the filter.
var ErrNoCallers = errors.New("seccomp: no process uses the filter any more")

// hungUp says whether listener polls as hung up: its filter has no users left.
func hungUp(listener int) bool {
	fds := [1]struct {
		fd             int32
		events, revent int16
	}{{fd: int32(listener), events: pollIn}}
	var zero syscall.Timespec // poll, not wait
	n, _, e := syscall.Syscall6(syscall.SYS_PPOLL, uintptr(unsafe.Pointer(&fds[0])), 1, uintptr(unsafe.Pointer(&zero)), 0, 0, 0)
	return e == 0 && n == 1 && fds[0].revent&pollHup != 0
}

const (
	pollIn  = 0x1
	pollHup = 0x10
)

// Respond answers call id: the caller's system call returns val, or fails with errno when it
// is not 0. An error means the caller is gone (or was interrupted): nothing to answer.
func Respond(listener int, id uint64, val int64, errno syscall.Errno) error {
	r := notifResp{id: id, val: val, error: -int32(errno)}
	if errno != 0 {
		r.val = 0
	}
	_, _, e := syscall.Syscall(syscall.SYS_IOCTL, uintptr(listener), ioctlNotifSend, uintptr(unsafe.Pointer(&r)))
	if e != 0 {
		return e
	}
	return nil
}

// Valid says whether call id still waits: checked after reading the caller's memory or
// opening anything by its thread id, which another process could have taken since.
func Valid(listener int, id uint64) bool {
	_, _, e := syscall.Syscall(syscall.SYS_IOCTL, uintptr(listener), ioctlNotifIDValid, uintptr(unsafe.Pointer(&id)))
	return e == 0
}

type notifAddfd struct {
	id         uint64
	flags      uint32
	srcfd      uint32
	newfd      uint32
	newfdFlags uint32
}

// RespondFD answers call id with a copy of this process's descriptor fd, installed in the
// caller (close-on-exec if cloexec) and returned as its system call's result, in one step.
func RespondFD(listener int, id uint64, fd int, cloexec bool) error {
	return addfd(listener, notifAddfd{id: id, flags: addfdFlagSend, srcfd: uint32(fd)}, cloexec)
}

// ReplaceFD puts a copy of this process's descriptor fd in the caller of call id, as its
// descriptor newfd (closing what that was, as dup2 does), close-on-exec if cloexec. The call
// itself is answered separately (Respond).
func ReplaceFD(listener int, id uint64, fd, newfd int, cloexec bool) error {
	return addfd(listener, notifAddfd{id: id, flags: addfdFlagSetfd, srcfd: uint32(fd), newfd: uint32(newfd)}, cloexec)
}

// addfd installs a descriptor in the caller of a notified call (SECCOMP_IOCTL_NOTIF_ADDFD).
func addfd(listener int, a notifAddfd, cloexec bool) error {
	if cloexec {
		a.newfdFlags = syscall.O_CLOEXEC
	}
	_, _, e := syscall.Syscall(syscall.SYS_IOCTL, uintptr(listener), ioctlNotifAddfd, uintptr(unsafe.Pointer(&a)))
	if e != 0 {
		return e
	}
	return nil
}
