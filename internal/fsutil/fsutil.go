// Package fsutil holds the file primitives hookctl's state, audit and install share: reading a
// file that may be hostile, replacing or creating a file atomically, and a bounded exclusive lock.
//
// The files they touch live where an agent in edit mode may also write (hookctl's home, until
// the edit-mode sandbox keeps it out): a state file may have been swapped for a FIFO, a symbolic
// link, a huge file or a damaged one. Every read here is bounded in size and never blocks on a
// file that is not a regular file; every write leaves the old content or the new, never a torn
// mix.
package fsutil

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"time"
)

// ErrNotRegular is wrapped when a file that should hold data is a FIFO, a device, a socket or a
// directory: reading one could block for ever or read without end.
var ErrNotRegular = errors.New("not a regular file")

// ErrTooLarge is wrapped when a file is larger than the reader's cap.
var ErrTooLarge = errors.New("larger than the limit")

// ReadFile reads at most max bytes of the regular file at path. It never blocks on a FIFO or a
// device (the open is non-blocking and the file must be regular), and a file over max is an
// error, never a truncated read. With nofollow, a symbolic link at path is refused rather than
// followed: state files are hookctl's own and are never links.
func ReadFile(path string, max int64, nofollow bool) ([]byte, error) {
	flags := os.O_RDONLY | syscall.O_NONBLOCK | syscall.O_CLOEXEC
	if nofollow {
		flags |= syscall.O_NOFOLLOW
	}
	f, err := os.OpenFile(path, flags, 0)
	if err != nil {
		if nofollow && errors.Is(err, syscall.ELOOP) {
			return nil, fmt.Errorf("%s is a symbolic link, which hookctl does not follow here: %w", path, ErrNotRegular)
		}
		return nil, err
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return nil, err
	}
	if !fi.Mode().IsRegular() {
		return nil, fmt.Errorf("%s is %s: %w", path, fileKind(fi.Mode()), ErrNotRegular)
	}
	if fi.Size() > max {
		return nil, fmt.Errorf("%s is %d bytes, %w of %d", path, fi.Size(), ErrTooLarge, max)
	}
	b, err := io.ReadAll(io.LimitReader(f, max+1))
	if err != nil {
		return nil, err
	}
	if int64(len(b)) > max {
		return nil, fmt.Errorf("%s is %w of %d bytes", path, ErrTooLarge, max)
	}
	return b, nil
}

func fileKind(m os.FileMode) string {
	switch {
	case m.IsDir():
		return "a directory"
	case m&os.ModeNamedPipe != 0:
		return "a FIFO"
	case m&os.ModeSocket != 0:
		return "a socket"
	case m&os.ModeDevice != 0:
		return "a device"
	case m&os.ModeSymlink != 0:
		return "a symbolic link"
	}
	return "not a regular file"
}

// staleTemp is how old a temporary file must be before a later write removes it: older than any
// write in progress, which takes milliseconds.
const staleTemp = time.Minute

// WriteAtomic replaces path with data: a temporary file in the same directory, written, given
// mode, synced, renamed over path, and the directory synced. Readers see the old file or the
// new one, never a torn one. A crash leaves at worst a stray temporary file, which the next write
// of the same file removes once it is a minute old.
func WriteAtomic(path string, data []byte, mode os.FileMode) error {
	tmp, err := writeTemp(path, data, mode)
	if err != nil {
		return fmt.Errorf("failed to write %s: %w", path, err)
	}
	defer os.Remove(tmp) // after a successful rename this finds nothing
	if err := os.Rename(tmp, path); err != nil {
		return fmt.Errorf("failed to write %s: %w", path, err)
	}
	syncDir(filepath.Dir(path))
	removeStaleTemps(path)
	return nil
}

// CreateExclusive creates path holding data, atomically, unless it exists: the content is
// written to a temporary file and linked into place, which fails if path exists, so a file
// another process wrote meanwhile is never overwritten. An existing path is fs.ErrExist.
func CreateExclusive(path string, data []byte, mode os.FileMode) error {
	tmp, err := writeTemp(path, data, mode)
	if err != nil {
		return fmt.Errorf("failed to create %s: %w", path, err)
	}
	defer os.Remove(tmp)
	if err := os.Link(tmp, path); err != nil {
		var le *os.LinkError
		if errors.As(err, &le) && errors.Is(le.Err, syscall.EEXIST) {
			return os.ErrExist
		}
		return fmt.Errorf("failed to create %s: %w", path, err)
	}
	syncDir(filepath.Dir(path))
	return nil
}

// writeTemp writes data to a new temporary file beside path and returns its name.
func writeTemp(path string, data []byte, mode os.FileMode) (string, error) {
	tmp, err := os.CreateTemp(filepath.Dir(path), tempPrefix(path)+"*.tmp")
	if err != nil {
		return "", err
	}
	fail := func(err error) (string, error) {
		tmp.Close()
		os.Remove(tmp.Name())
		return "", err
	}
	if _, err := tmp.Write(data); err != nil {
		return fail(err)
	}
	if err := tmp.Chmod(mode); err != nil {
		return fail(err)
	}
	if err := tmp.Sync(); err != nil {
		return fail(err)
	}
	if err := tmp.Close(); err != nil {
		os.Remove(tmp.Name())
		return "", err
	}
	return tmp.Name(), nil
}

func tempPrefix(path string) string { return "." + filepath.Base(path) + "." }

func syncDir(dir string) {
	if d, err := os.Open(dir); err == nil {
		d.Sync()
		d.Close()
	}
}

// removeStaleTemps removes the temporary files of path that writes killed midway left behind.
func removeStaleTemps(path string) {
	dir, prefix := filepath.Dir(path), tempPrefix(path)
	entries, err := os.ReadDir(dir)
	if err != nil {
		return
	}
	for _, e := range entries {
		name := e.Name()
		if !strings.HasPrefix(name, prefix) || !strings.HasSuffix(name, ".tmp") || !e.Type().IsRegular() {
			continue
		}
		if info, err := e.Info(); err == nil && time.Since(info.ModTime()) > staleTemp {
			os.Remove(filepath.Join(dir, name))
		}
	}
}

// Lock takes an exclusive flock on path (created if missing), waiting at most wait; zero waits
// forever. Waiters block in the kernel, which hands the lock over in turn rather than letting
// pollers starve one another. The lock dies with its process, so a crash never leaves it held;
// a symbolic link or a FIFO at path is refused rather than opened.
func Lock(path string, wait time.Duration) (unlock func(), err error) {
	f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE|syscall.O_NOFOLLOW|syscall.O_NONBLOCK|syscall.O_CLOEXEC, 0o600)
	if err != nil {
		return nil, fmt.Errorf("failed to open the lock %s: %w", path, err)
	}
	if fi, err := f.Stat(); err != nil || !fi.Mode().IsRegular() {
		f.Close()
		return nil, fmt.Errorf("failed to open the lock %s: %w", path, ErrNotRegular)
	}
	release := func() { f.Close() } // closing the file releases the lock
	if syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB) == nil {
		return release, nil
	}
	if wait == 0 {
		if err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX); err != nil {
			f.Close()
			return nil, fmt.Errorf("failed to lock %s: %w", path, err)
		}
		return release, nil
	}
	got := make(chan error, 1)
	var mu sync.Mutex
	abandoned := false
	go func() {
		err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX)
		mu.Lock()
		defer mu.Unlock()
		if abandoned {
			f.Close() // the caller gave up: release at once
			return
		}
		got <- err
	}()
	timer := time.NewTimer(wait)
	defer timer.Stop()
	select {
	case err := <-got:
		if err != nil {
			f.Close()
			return nil, fmt.Errorf("failed to lock %s: %w", path, err)
		}
		return release, nil
	case <-timer.C:
		mu.Lock()
		defer mu.Unlock()
		select {
		case err := <-got: // acquired just now
			if err == nil {
				return release, nil
			}
		default:
		}
		abandoned = true
		return nil, fmt.Errorf("failed to lock %s: %w", path, ErrLockTimeout)
	}
}

// ErrLockTimeout is wrapped when another process held a lock for longer than the wait.
var ErrLockTimeout = errors.New("another process held it too long")

// Rotate shifts a size-rotated log: path.(keep-1) to path.keep (the oldest dropped), …, path
// to path.1. The caller holds the log's lock. A missing file at any step is nothing to move.
func Rotate(path string, keep int) error {
	os.Remove(fmt.Sprintf("%s.%d", path, keep))
	for i := keep - 1; i >= 1; i-- {
		os.Rename(fmt.Sprintf("%s.%d", path, i), fmt.Sprintf("%s.%d", path, i+1))
	}
	if err := os.Rename(path, path+".1"); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return err
	}
	return nil
}
