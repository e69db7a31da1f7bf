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
	f, err := os.OpenFile(path, os.O_RDWR|syscall.O_NOFOLLOW|syscall.O_NONBLOCK|syscall.O_CLOEXEC, 0)
	if os.IsNotExist(err) {
		f, err = os.OpenFile(path, os.O_RDWR|os.O_CREATE|syscall.O_NOFOLLOW|syscall.O_NONBLOCK|syscall.O_CLOEXEC, 0o600)
	}
	if err != nil {
		return false
	}
	if fi, err := f.Stat(); err != nil || !fi.Mode().IsRegular() {
		f.Close()
		return false
	}
	// Start at a slot of this process's own, so that hooks do not all try slot 0 first.
	n := Slots()
	first := os.Getpid() % n
	for i := range n {
		lk := syscall.Flock_t{Type: syscall.F_WRLCK, Whence: 0, Start: int64((first + i) % n), Len: 1}
		if syscall.FcntlFlock(f.Fd(), syscall.F_SETLK, &lk) == nil {
			held = f // kept open, and so locked, until the process exits
			return false
		}
	}
	f.Close()
	return Yield()
}

// held keeps the slot's file open for the life of the process: only written, never read, but
// without it the file would be unreachable, and its finalizer would close it and drop the lock.
//
//lint:ignore U1000 written to keep the locked file reachable (see above)
var held *os.File

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
