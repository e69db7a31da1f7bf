//go:build !linux

package sandbox

import (
	"fmt"
	"os"
	"path/filepath"
	"syscall"
)

// openScratch makes and checks the directories by path (Seatbelt's policy names paths anyway).
func openScratch(home, name string) (*os.File, error) {
	for _, d := range []string{ScratchRoot(home), filepath.Join(ScratchRoot(home), name)} {
		if err := os.Mkdir(d, 0o700); err != nil && !os.IsExist(err) {
			return nil, fmt.Errorf("failed to create the sandbox's scratch directory %s: %v", d, err)
		}
		fi, err := os.Lstat(d)
		if err != nil {
			return nil, err
		}
		st, ok := fi.Sys().(*syscall.Stat_t)
		if !ok {
			return nil, fmt.Errorf("%s: no owner", d)
		}
		if err := ownedPrivate(d, st); err != nil {
			return nil, err
		}
	}
	return os.Open(filepath.Join(ScratchRoot(home), name))
}
