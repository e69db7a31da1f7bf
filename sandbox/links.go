//go:build unix

package sandbox

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"syscall"
)

// ErrHardLinked is the edit profile's refusal while a protected file has another name.
var ErrHardLinked = errors.New("a protected file has more than one hard link")

// linkedSubdirs are the directories, inside a protected directory, whose files are read as
// instructions or hooks (Claude Code's commands, agents and hooks), checked one level deeper.
var linkedSubdirs = []string{"commands", "agents", "hooks"}

// HardLinked returns a regular file among paths, or directly inside one that is a directory (or
// inside its linkedSubdirs), that has more than one hard link, and how many; "" if none. The
// edit profile protects paths with read-only mounts, and a second name of the same inode
// elsewhere — made before the session, outside the sandbox, which nothing inside can make —
// would be writable: the launcher refuses to run rather than leave it. The walk is bounded to
// those levels (a session's transcripts under ~/.claude/projects are not settings).
func HardLinked(paths []string) (string, int) {
	for _, p := range paths {
		fi, err := os.Lstat(p)
		if err != nil {
			continue
		}
		if !fi.IsDir() {
			if n := links(fi); n > 1 {
				return p, n
			}
			continue
		}
		if f, n := linkedIn(p, 1); f != "" {
			return f, n
		}
	}
	return "", 0
}

// linkedIn checks the regular files of dir and, depth levels further, of its linkedSubdirs.
func linkedIn(dir string, depth int) (string, int) {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return "", 0
	}
	for _, e := range entries {
		path := filepath.Join(dir, e.Name())
		switch {
		case e.Type().IsRegular():
			if fi, err := e.Info(); err == nil && links(fi) > 1 {
				return path, links(fi)
			}
		case e.IsDir() && depth > 0:
			for _, s := range linkedSubdirs {
				if e.Name() == s {
					if f, n := linkedIn(path, depth-1); f != "" {
						return f, n
					}
				}
			}
		}
	}
	return "", 0
}

// CheckLinks is HardLinked over p's frozen and hidden paths, as an error (ErrHardLinked) for the
// launcher to refuse with. The probe's own profile skips it: the user's links are not the
// kernel's, and must not turn edit mode into the policy alone.
func CheckLinks(p *Profile) error {
	if f, n := HardLinked(append(append([]string(nil), p.Frozen...), p.Hidden...)); f != "" {
		return fmt.Errorf("%w: %s has %d: a read-only mount protects a name, and another name of the same file "+
			"could be written; the user can find them with `find / -xdev -samefile %s` and remove the extra ones", ErrHardLinked, f, n, f)
	}
	return nil
}

func links(fi os.FileInfo) int {
	if st, ok := fi.Sys().(*syscall.Stat_t); ok && fi.Mode().IsRegular() {
		return int(st.Nlink)
	}
	return 1
}
