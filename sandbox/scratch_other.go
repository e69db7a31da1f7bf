//go:build !linux

package sandbox

import (
	"fmt"
	"os"
	"path/filepath"
	"syscall"
	"time"
)

// openScratch makes and checks the directories by path (Seatbelt's policy names paths anyway).
func openScratch(home, name string) (*os.File, bool, error) {
	made := false
	for _, d := range []string{ScratchRoot(home), filepath.Join(ScratchRoot(home), name)} {
		err := os.Mkdir(d, 0o700)
		if err != nil && !os.IsExist(err) {
			return nil, false, fmt.Errorf("failed to create the sandbox's scratch directory %s: %v", d, err)
		}
		made = err == nil
		fi, err := os.Lstat(d)
		if err != nil {
			return nil, false, err
		}
		st, ok := fi.Sys().(*syscall.Stat_t)
		if !ok {
			return nil, false, fmt.Errorf("%s: no owner", d)
		}
		if err := ownedPrivate(d, st); err != nil {
			return nil, false, err
		}
	}
	f, err := os.Open(filepath.Join(ScratchRoot(home), name))
	return f, made, err
}

// touch marks the directory dir has open as used at now.
func touch(dir *os.File, now time.Time) {
	tv := []syscall.Timeval{syscall.NsecToTimeval(now.UnixNano()), syscall.NsecToTimeval(now.UnixNano())}
	syscall.Futimes(int(dir.Fd()), tv)
}
