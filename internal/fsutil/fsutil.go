// Package fsutil holds the two file primitives hookctl's state, audit and install share:
// replacing a file atomically, and an exclusive lock that survives neither a crash nor a close.
package fsutil

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sync"
	"syscall"
	"time"
)

// WriteAtomic replaces path with data: a temporary file in the same directory, written, given
// mode, synced, renamed over path, and the directory synced. Readers see the old file or the
// new one, never a torn one, and a crash leaves at worst a stray temporary file.
func WriteAtomic(path string, data []byte, mode os.FileMode) error {
	dir := filepath.Dir(path)
	tmp, err := os.CreateTemp(dir, "."+filepath.Base(path)+".*.tmp")
	if err != nil {
		return fmt.Errorf("failed to write %s: %w", path, err)
	}
	defer os.Remove(tmp.Name()) // after a successful rename this finds nothing
	fail := func(err error) error {
		tmp.Close()
		return fmt.Errorf("failed to write %s: %w", path, err)
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
		return fmt.Errorf("failed to write %s: %w", path, err)
	}
	if err := os.Rename(tmp.Name(), path); err != nil {
		return fmt.Errorf("failed to write %s: %w", path, err)
	}
	if d, err := os.Open(dir); err == nil {
		d.Sync()
		d.Close()
	}
	return nil
}

// Lock takes an exclusive flock on path (created if missing), waiting at most wait; zero waits
// forever. Waiters block in the kernel, which hands the lock over in turn rather than letting
// pollers starve one another. The lock dies with its process, so a crash never leaves it held.
func Lock(path string, wait time.Duration) (unlock func(), err error) {
	f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE, 0o600)
	if err != nil {
		return nil, fmt.Errorf("failed to open the lock %s: %w", path, err)
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
var ErrLockTimeout = errors.New("another hookctl held it too long")
