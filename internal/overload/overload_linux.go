package overload

import (
	"os"
	"strconv"
	"syscall"
)

// Enter takes a slot in the slot file at path for this process, until it exits, and if every
// slot is taken lowers the process's priority to Nice (Yield). It reports whether it did. It
// never raises a priority, and a slot file it cannot open changes nothing. Work that must not
// be slowed (it cannot be sped up again) is done before it.
func Enter(path string) bool {
	// The system calls themselves, not an os.File: its registration with the runtime's poller
	// is most of what this costs the hook.
	const flags = syscall.O_RDWR | syscall.O_NOFOLLOW | syscall.O_NONBLOCK | syscall.O_CLOEXEC
	fd, err := open(path, flags, 0)
	if err == syscall.ENOENT {
		fd, err = open(path, flags|syscall.O_CREAT, 0o600)
	}
	if err != nil {
		return false
	}
	var st syscall.Stat_t
	if err := syscall.Fstat(fd, &st); err != nil || st.Mode&syscall.S_IFMT != syscall.S_IFREG {
		syscall.Close(fd)
		return false
	}
	// Start at a slot of this process's own, so that hooks do not all try slot 0 first.
	n := Slots()
	first := os.Getpid() % n
	for i := range n {
		lk := syscall.Flock_t{Type: syscall.F_WRLCK, Whence: 0, Start: int64((first + i) % n), Len: 1}
		if syscall.FcntlFlock(uintptr(fd), syscall.F_SETLK, &lk) == nil {
			return false // the descriptor stays open, and so locked, until the process exits
		}
	}
	syscall.Close(fd)
	return Yield()
}

// open is open(2), again while a signal interrupts it.
func open(path string, flags int, mode uint32) (int, error) {
	for {
		fd, err := syscall.Open(path, flags, mode)
		if err != syscall.EINTR {
			return fd, err
		}
	}
}

// Yield lowers every thread of this process to Nice, unless it is lower already: for a hook
// that Enter found in a burst, or one about to wait for another.
func Yield() bool {
	// getpriority(2) returns 20 minus the nice value.
	if prio, err := syscall.Getpriority(syscall.PRIO_PROCESS, 0); err == nil && 20-prio >= Nice {
		return false
	}
	// On Linux a nice value is a thread's: set it on every thread the runtime has started;
	// threads it starts later inherit it from the thread that starts them.
	tasks, err := os.ReadDir("/proc/self/task")
	if err != nil {
		return false
	}
	for _, t := range tasks {
		if tid, err := strconv.Atoi(t.Name()); err == nil {
			syscall.Setpriority(syscall.PRIO_PROCESS, tid, Nice)
		}
	}
	return true
}
