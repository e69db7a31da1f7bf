//go:build linux && (amd64 || arm64)

package sandbox

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"time"
)

// The inits of a session's edit-mode commands (RunInit) are recorded beneath hookctl's home,
// which no sandboxed command can reach, as ScratchRoot/SESSION.edit/inits/PID.START: the pid,
// and the process's start time, which tells it from a later process given the same pid.

// EditDir makes (if needed) and returns the directory hookctl keeps a session's edit mode in,
// beside its scratch directory.
func EditDir(home, session string) (string, error) {
	if err := os.MkdirAll(home, 0o700); err != nil {
		return "", fmt.Errorf("failed to create hookctl's directory: %v", err)
	}
	f, _, err := openScratch(home, scratchName(session)+layersSuffix)
	if err != nil {
		return "", err
	}
	defer f.Close()
	now := time.Now()
	tv := []syscall.Timeval{syscall.NsecToTimeval(now.UnixNano()), syscall.NsecToTimeval(now.UnixNano())}
	syscall.Futimes(int(f.Fd()), tv)
	return f.Name(), nil
}

// LayersDir is the directory beneath which edit mode keeps the session's layers of the tools'
// caches (Profile.Layered): a path only, made by the sandbox's init.
func LayersDir(home, session string) string {
	return filepath.Join(ScratchRoot(home), scratchName(session)+layersSuffix, "layers")
}

// RegisterInit records pid, the init of one of session's edit-mode commands.
func RegisterInit(home, session string, pid int) error {
	dir, err := EditDir(home, session)
	if err != nil {
		return err
	}
	start, err := startTime(pid)
	if err != nil {
		return fmt.Errorf("failed to read the sandbox's init: %v", err)
	}
	inits := filepath.Join(dir, "inits")
	if err := os.Mkdir(inits, 0o700); err != nil && !errors.Is(err, os.ErrExist) {
		return fmt.Errorf("failed to record the sandbox's init: %v", err)
	}
	f, err := os.OpenFile(filepath.Join(inits, strconv.Itoa(pid)+"."+start), os.O_WRONLY|os.O_CREATE|syscall.O_NOFOLLOW, 0o600)
	if err != nil {
		return fmt.Errorf("failed to record the sandbox's init: %v", err)
	}
	return f.Close()
}

// ForgetInit removes pid's record once it has exited by itself.
func ForgetInit(home, session string, pid int) {
	matches, _ := filepath.Glob(filepath.Join(ScratchRoot(home), scratchName(session)+layersSuffix, "inits", strconv.Itoa(pid)+".*"))
	for _, m := range matches {
		os.Remove(m)
	}
}

// EndEdit ends everything session's edit-mode commands started that still runs, and returns
// how many processes that was: for each recorded init still alive (the same process: its start
// time matches), it counts the processes of its pid namespace (its own /proc lists them, the
// init aside), kills the init, which makes the kernel kill every process of the namespace, and
// waits for them to be gone. Called when the session leaves edit mode, and when it ends.
func EndEdit(home, session string) int {
	inits := filepath.Join(ScratchRoot(home), scratchName(session)+layersSuffix, "inits")
	entries, err := os.ReadDir(inits)
	if err != nil {
		return 0
	}
	ended := 0
	for _, e := range entries {
		pidText, start, _ := strings.Cut(e.Name(), ".")
		pid, err := strconv.Atoi(pidText)
		if err == nil && pid > 0 {
			ended += endInit(pid, start)
		}
		os.Remove(filepath.Join(inits, e.Name()))
	}
	return ended
}

// endInit kills the init pid if it is the process that started at start, and returns how many
// processes besides it its namespace held.
func endInit(pid int, start string) int {
	fd, _, e := syscall.Syscall(sysPidfdOpen, uintptr(pid), 0, 0)
	if e != 0 {
		return 0 // gone
	}
	pidfd := int(fd)
	defer syscall.Close(pidfd)
	if s, err := startTime(pid); err != nil || s != start {
		return 0 // another process has the pid now: the pidfd holds it, not ours
	}
	n := 0
	if entries, err := os.ReadDir("/proc/" + strconv.Itoa(pid) + "/root/proc"); err == nil {
		for _, e := range entries {
			if _, err := strconv.Atoi(e.Name()); err == nil && e.Name() != "1" {
				n++
			}
		}
	}
	const sysPidfdSendSignal = 424
	syscall.Syscall6(sysPidfdSendSignal, uintptr(pidfd), uintptr(syscall.SIGKILL), 0, 0, 0, 0)
	waitGone(pidfd, 5*time.Second)
	return n
}

// startTime is field 22 of /proc/PID/stat: when the process started, in clock ticks since boot.
func startTime(pid int) (string, error) {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return "", err
	}
	i := bytes.LastIndexByte(b, ')')
	if i < 0 {
		return "", errors.New("unreadable stat")
	}
	f := strings.Fields(string(b[i+1:]))
	if len(f) < 20 {
		return "", errors.New("unreadable stat")
	}
	return f[19], nil
}
