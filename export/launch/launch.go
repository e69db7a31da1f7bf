// Package launch starts hookctl-export from the hook process: after the hook has answered and
// written its record, if the user's or the organisation's config names a collector. It links no
// network code (internal/buildcheck): the shipping is the exporter's, in a process of its own.
package launch

import (
	"os"
	"path/filepath"
	"syscall"
)

// The exporter's executable, beside hookctl's, and its files in hookctl's home.
const (
	Executable = "hookctl-export"
	LockFile   = "export.lock"
	CursorFile = "export.cursor"
)

// Path is the exporter beside hookctl's executable binary: the one the hook starts, whatever
// PATH says.
func Path(binary string) string { return filepath.Join(filepath.Dir(binary), Executable) }

// LockedFD is the descriptor on which a started exporter inherits the lock held for it.
const LockedFD = 3

// Start starts the exporter beside binary for hookctl's home, unless one runs: it takes the
// exporter's lock without waiting and, if it is free, hands it to a new exporter on LockedFD,
// in a session of its own with its standard streams on /dev/null, and does not wait for it.
// It reports whether it started one. Nothing here can make the caller wait: a held lock means
// an exporter is running (it looks for new records before it exits), and every failure is
// the next call's to retry.
func Start(home, binary string) bool {
	lock, err := os.OpenFile(filepath.Join(home, LockFile), os.O_RDWR|os.O_CREATE|syscall.O_NOFOLLOW|syscall.O_NONBLOCK|syscall.O_CLOEXEC, 0o600)
	if err != nil {
		return false
	}
	defer lock.Close() // the child keeps its own descriptor of the lock
	if syscall.Flock(int(lock.Fd()), syscall.LOCK_EX|syscall.LOCK_NB) != nil {
		return false
	}
	null, err := os.OpenFile(os.DevNull, os.O_RDWR, 0)
	if err != nil {
		return false
	}
	defer null.Close()
	exe := Path(binary)
	// A small, fixed environment: the client's (and so the agent's) variables must not steer
	// where the records go (the OpenTelemetry SDK reads OTEL_*), nor what runs.
	env := []string{"HOOKCTL_HOME=" + home, "PATH=/usr/bin:/bin"}
	for _, k := range []string{"HOME", "USER", "LOGNAME"} {
		if v, ok := os.LookupEnv(k); ok {
			env = append(env, k+"="+v)
		}
	}
	p, err := os.StartProcess(exe, []string{exe, "--locked"}, &os.ProcAttr{
		Dir:   "/",
		Env:   env,
		Files: []*os.File{null, null, null, lock},
		Sys:   &syscall.SysProcAttr{Setsid: true},
	})
	if err != nil {
		return false
	}
	p.Release()
	return true
}
