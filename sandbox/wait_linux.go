//go:build linux && (amd64 || arm64)

package sandbox

import (
	"fmt"
	"syscall"
	"time"
	"unsafe"
)

// waitLaunched waits for pid, a child forkChild started, under b, and returns its exit status.
// In namespaces of its own (isolated) the child is its process namespace's init, with a
// parent-death signal (SIGKILL, its first op): the launcher then takes no signal and starts no
// goroutine — the one bounded needs costs the launch a thread's start, and the thread's end at
// exit, about a tenth of the launch. SIGINT, SIGTERM, SIGHUP, SIGQUIT and SIGKILL end the
// launcher as they end any program, and the kernel then kills the init, and with it every
// process of the namespace: the same end bounded's kill gives them. The bound is a ppoll on the
// child's pidfd, in this goroutine.
// In a process group, or where the kernel has no pidfd (before Linux 5.3), bounded.
func waitLaunched(pid int, isolated bool, b Bound) (int, error) {
	viaBounded := func() (int, error) {
		return bounded(pid, isolated, b, func() (syscall.WaitStatus, error) { return wait4(pid) })
	}
	if !isolated {
		return viaBounded()
	}
	if b.Timeout <= 0 {
		return exitStatus(wait4(pid))
	}
	fd, _, e := syscall.RawSyscall(sysPidfdOpen, uintptr(pid), 0, 0)
	if e != 0 {
		return viaBounded()
	}
	defer syscall.Close(int(fd))
	deadline := time.Now().Add(b.Timeout)
	for {
		left := time.Until(deadline)
		if left <= 0 {
			syscall.Kill(pid, syscall.SIGKILL)
			wait4(pid)
			return timedOut(b), nil
		}
		ts := syscall.NsecToTimespec(left.Nanoseconds())
		pfd := pollFd{fd: int32(fd), events: pollIn}
		n, _, e := syscall.Syscall6(syscall.SYS_PPOLL, uintptr(unsafe.Pointer(&pfd)), 1, uintptr(unsafe.Pointer(&ts)), 0, 0, 0)
		switch {
		case e == syscall.EINTR || e == 0 && n == 0:
			continue // a signal the runtime handled (SIGCHLD, SIGURG), or the bound: look again
		case e != 0:
			// Never expected; the child must not outlive a launcher that cannot bound it.
			syscall.Kill(pid, syscall.SIGKILL)
			wait4(pid)
			return 0, fmt.Errorf("failed to wait for the command: %v", e)
		}
		return exitStatus(wait4(pid))
	}
}
