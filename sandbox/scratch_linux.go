//go:build linux

package sandbox

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"syscall"
	"time"
)

// openScratch opens home, then makes and opens ScratchRoot and name beneath it relative to it,
// without following a link at either step; made says whether it made name.
func openScratch(home, name string) (*os.File, bool, error) {
	hfd, err := syscall.Open(home, syscall.O_RDONLY|syscall.O_DIRECTORY|syscall.O_CLOEXEC, 0)
	if err != nil {
		return nil, false, fmt.Errorf("failed to open hookctl's directory %s: %v", home, err)
	}
	defer syscall.Close(hfd)
	root := ScratchRoot(home)
	rfd, _, err := openPrivateAt(hfd, scratchRootName, root)
	if err != nil {
		return nil, false, err
	}
	defer syscall.Close(rfd)
	fd, made, err := openPrivateAt(rfd, name, filepath.Join(root, name))
	if err != nil {
		return nil, false, err
	}
	return os.NewFile(uintptr(fd), filepath.Join(root, name)), made, nil
}

// openPrivateAt makes (if missing) and opens the directory name beneath dirfd, never through a
// link, and checks it is this user's and private; what names it in errors, made says whether
// it made it.
func openPrivateAt(dirfd int, name, what string) (int, bool, error) {
	err := syscall.Mkdirat(dirfd, name, 0o700)
	if err != nil && !errors.Is(err, syscall.EEXIST) {
		return -1, false, fmt.Errorf("failed to create the sandbox's scratch directory %s: %v", what, err)
	}
	made := err == nil
	fd, err := syscall.Openat(dirfd, name, syscall.O_RDONLY|syscall.O_DIRECTORY|syscall.O_NOFOLLOW|syscall.O_CLOEXEC, 0)
	if err != nil {
		if errors.Is(err, syscall.ELOOP) || errors.Is(err, syscall.ENOTDIR) {
			return -1, false, fmt.Errorf("%s is not a directory (it must be hookctl's own); remove it", what)
		}
		return -1, false, fmt.Errorf("failed to open the sandbox's scratch directory %s: %v", what, err)
	}
	var st syscall.Stat_t
	if err := syscall.Fstat(fd, &st); err != nil {
		syscall.Close(fd)
		return -1, false, err
	}
	if err := ownedPrivate(what, &st); err != nil {
		syscall.Close(fd)
		return -1, false, err
	}
	return fd, made, nil
}

// touch marks the directory dir has open as used now, through the descriptor itself: Futimes
// goes through /proc/self/fd, a path walk of procfs on every launch (and nothing where /proc is
// not mounted).
func touch(dir *os.File, _ time.Time) {
	syscall.Syscall6(syscall.SYS_UTIMENSAT, dir.Fd(), 0, 0, 0, 0, 0) // a NULL path and times: the descriptor's file, now
}
