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
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"syscall"
	"time"
)

// Identity names the file at path as it is now (its device, inode, size, and modification and
// change times: a write to it, a file renamed over it, even one copied in with its old times,
// changes it), following links; "" where it cannot be stat'ed.
func Identity(path string) string {
	var st syscall.Stat_t
	if err := syscall.Stat(path, &st); err != nil {
		return ""
	}
	return fmt.Sprintf("%d:%d:%d:%d:%d", uint64(st.Dev), uint64(st.Ino), st.Size, modTime(&st).UnixNano(), changeTime(&st).UnixNano())
}

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
	b, _, err := ReadFileModTime(path, max, nofollow)
	return b, err
}

// ReadFileModTime is ReadFile, also returning the file's modification time, as the open file's
// fstat said.
//
// Every hook reads a few small files this way, so it goes straight to the system calls: an
// os.File registers each file with the runtime's poller (and the first one creates it), and a
// read into a growing buffer takes eight reads for a 4 KiB file; here it is open, fstat, a read
// of the size fstat said and one more to see the end, close.
func ReadFileModTime(path string, max int64, nofollow bool) ([]byte, time.Time, error) {
	flags := os.O_RDONLY | syscall.O_NONBLOCK | syscall.O_NOCTTY | syscall.O_CLOEXEC
	if nofollow {
		flags |= syscall.O_NOFOLLOW
	}
	var fd int
	err := retryEINTR(func() (err error) { fd, err = syscall.Open(path, flags, 0); return err })
	if err != nil {
		if nofollow && errors.Is(err, syscall.ELOOP) {
			return nil, time.Time{}, fmt.Errorf("%s is a symbolic link, which hookctl does not follow here: %w", path, ErrNotRegular)
		}
		return nil, time.Time{}, &fs.PathError{Op: "open", Path: path, Err: err}
	}
	defer syscall.Close(fd)
	var st syscall.Stat_t
	if err := retryEINTR(func() error { return syscall.Fstat(fd, &st) }); err != nil {
		return nil, time.Time{}, &fs.PathError{Op: "stat", Path: path, Err: err}
	}
	if st.Mode&syscall.S_IFMT != syscall.S_IFREG {
		return nil, time.Time{}, fmt.Errorf("%s is %s: %w", path, statKind(uint32(st.Mode)), ErrNotRegular)
	}
	if st.Size > max {
		return nil, time.Time{}, fmt.Errorf("%s is %d bytes, %w of %d", path, st.Size, ErrTooLarge, max)
	}
	// One byte more than fstat said, to see the end in the second read, or a file that grew.
	size := min(st.Size, max) + 1
	if size < 512 {
		size = 512
	}
	b := make([]byte, 0, size)
	for {
		if len(b) == cap(b) {
			if int64(len(b)) > max {
				return nil, time.Time{}, fmt.Errorf("%s is %w of %d bytes", path, ErrTooLarge, max)
			}
			b = append(b, 0)[:len(b)]
		}
		var n int
		err := retryEINTR(func() (err error) { n, err = syscall.Read(fd, b[len(b):min(int64(cap(b)), max+1)]); return err })
		if err != nil {
			return nil, time.Time{}, &fs.PathError{Op: "read", Path: path, Err: err}
		}
		if n <= 0 {
			break
		}
		b = b[:len(b)+n]
	}
	if int64(len(b)) > max {
		return nil, time.Time{}, fmt.Errorf("%s is %w of %d bytes", path, ErrTooLarge, max)
	}
	return b, modTime(&st), nil
}

// retryEINTR runs f again while a signal interrupts it.
func retryEINTR(f func() error) error {
	for {
		if err := f(); err != syscall.EINTR {
			return err
		}
	}
}

// kinds name the files that are not regular, by their mode bits and their stat type.
var kinds = [...]struct {
	mode os.FileMode
	ifmt []uint32
	name string
}{
	{os.ModeDir, []uint32{syscall.S_IFDIR}, "a directory"},
	{os.ModeNamedPipe, []uint32{syscall.S_IFIFO}, "a FIFO"},
	{os.ModeSocket, []uint32{syscall.S_IFSOCK}, "a socket"},
	{os.ModeDevice, []uint32{syscall.S_IFCHR, syscall.S_IFBLK}, "a device"},
	{os.ModeSymlink, []uint32{syscall.S_IFLNK}, "a symbolic link"},
}

// FileKind names what a file that is not regular is, for a message: "a FIFO", "a directory", ….
func FileKind(m os.FileMode) string {
	for _, k := range kinds {
		if m&k.mode != 0 {
			return k.name
		}
	}
	return "not a regular file"
}

// statKind is FileKind for a stat mode.
func statKind(mode uint32) string {
	for _, k := range kinds {
		if slices.Contains(k.ifmt, mode&syscall.S_IFMT) {
			return k.name
		}
	}
	return "not a regular file"
}

// A temporary file is locked (flock) by its writer from its creation until it is renamed or
// removed, so that a cleaner can tell one a killed writer left from one being written: the lock
// dies with its process. A cleaner can still take one in the instant between its creation and
// its writer's lock; the writer then finds it gone when it renames it, and writes again.
const tempTries = 3

// WriteAtomic replaces path with data: a temporary file in the same directory, written, given
// mode, synced, renamed over path, and the directory synced. Readers see the old file or the
// new one, never a torn one. A crash leaves at worst a stray temporary file, which the next
// write of the same file removes.
func WriteAtomic(path string, data []byte, mode os.FileMode) error {
	err := withTemp(path, data, mode, os.Rename)
	if err != nil {
		return fmt.Errorf("failed to write %s: %w", path, err)
	}
	syncDir(filepath.Dir(path))
	RemoveStrays(filepath.Dir(path), tempPrefix(path), maxStrays)
	return nil
}

// CreateExclusive creates path holding data, atomically, unless it exists: the content is
// written to a temporary file and linked into place, which fails if path exists, so a file
// another process wrote meanwhile is never overwritten. An existing path is fs.ErrExist.
func CreateExclusive(path string, data []byte, mode os.FileMode) error {
	err := withTemp(path, data, mode, os.Link)
	var le *os.LinkError
	if errors.As(err, &le) && errors.Is(le.Err, syscall.EEXIST) {
		return os.ErrExist
	}
	if err != nil {
		return fmt.Errorf("failed to create %s: %w", path, err)
	}
	syncDir(filepath.Dir(path))
	return nil
}

// withTemp writes data to a temporary file beside path and puts it in place with place
// (rename, link), writing again if a cleaner took the file first.
func withTemp(path string, data []byte, mode os.FileMode, place func(tmp, path string) error) error {
	for try := 1; ; try++ {
		tmp, err := writeTemp(path, data, mode)
		if err != nil {
			return err
		}
		err = place(tmp.Name(), path)
		os.Remove(tmp.Name()) // after a rename this finds nothing; after a link, the temporary name
		tmp.Close()
		var le *os.LinkError
		if errors.As(err, &le) && le.Old == tmp.Name() && errors.Is(le.Err, fs.ErrNotExist) && try < tempTries {
			if _, statErr := os.Lstat(filepath.Dir(path)); statErr == nil {
				continue // a cleaner removed it before this writer locked it
			}
		}
		return err
	}
}

// writeTemp writes data to a new temporary file beside path, synced, and returns it open and
// locked: the caller renames it and then closes it.
func writeTemp(path string, data []byte, mode os.FileMode) (*os.File, error) {
	tmp, err := os.CreateTemp(filepath.Dir(path), tempPrefix(path)+"*"+tempSuffix)
	if err != nil {
		return nil, err
	}
	fail := func(err error) (*os.File, error) {
		os.Remove(tmp.Name())
		tmp.Close()
		return nil, err
	}
	if err := syscall.Flock(int(tmp.Fd()), syscall.LOCK_EX|syscall.LOCK_NB); err != nil {
		return fail(err)
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
	return tmp, nil
}

const tempSuffix = ".tmp"

func tempPrefix(path string) string { return "." + filepath.Base(path) + "." }

func syncDir(dir string) {
	if d, err := os.Open(dir); err == nil {
		d.Sync()
		d.Close()
	}
}

// maxStrays bounds how many stray files one write removes, so that a directory someone filled
// with them cannot stall it.
const maxStrays = 256

// RemoveStrays removes, in dir, the temporary files whose names start with prefix ("" for
// every one: ".…tmp") and whose writers are gone (no lock on them), and what MoveAside put
// aside; at most max of them. It returns how many it removed.
func RemoveStrays(dir, prefix string, max int) int {
	d, err := os.Open(dir)
	if err != nil {
		return 0
	}
	defer d.Close()
	removed := 0
	for removed < max {
		entries, err := d.ReadDir(512)
		for _, e := range entries {
			name := e.Name()
			if removed >= max || !strings.HasPrefix(name, ".") || !strings.HasPrefix(name, prefix) {
				continue
			}
			switch {
			case strings.HasSuffix(name, tempSuffix) && e.Type().IsRegular():
				if removeUnlocked(filepath.Join(dir, name)) {
					removed++
				}
			case strings.HasSuffix(name, asideSuffix):
				if removeShallow(filepath.Join(dir, name), max-removed) {
					removed++
				}
			}
		}
		if err != nil {
			break
		}
	}
	return removed
}

// removeUnlocked removes the temporary file at path if no process holds its lock.
func removeUnlocked(path string) bool {
	f, err := os.OpenFile(path, os.O_RDONLY|syscall.O_NOFOLLOW|syscall.O_NONBLOCK|syscall.O_CLOEXEC, 0)
	if err != nil {
		return false
	}
	defer f.Close()
	if fi, err := f.Stat(); err != nil || !fi.Mode().IsRegular() {
		return false
	}
	if syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB) != nil {
		return false // its writer is alive
	}
	return os.Remove(path) == nil
}

// removeShallow removes path, and if it is a directory, at most max entries in it first
// (without descending further, so that a deep tree cannot stall a write; what remains is tried
// again by the next write).
func removeShallow(path string, max int) bool {
	if os.Remove(path) == nil {
		return true
	}
	fi, err := os.Lstat(path)
	if err != nil || !fi.IsDir() {
		return false
	}
	if d, err := os.Open(path); err == nil {
		names, _ := d.Readdirnames(max)
		d.Close()
		for _, n := range names {
			os.Remove(filepath.Join(path, n))
		}
	}
	return os.Remove(path) == nil
}

// asideSuffix names what MoveAside put aside.
const asideSuffix = ".aside"

// MoveAside renames whatever is at path (a directory, a FIFO, a link: something that should
// have been a regular file) out of the way, beside it, for RemoveStrays to remove: a rename
// works on any kind of file and needs no room on the disk.
func MoveAside(path string) error {
	for range 8 {
		var b [4]byte
		if f, err := os.Open("/dev/urandom"); err == nil {
			f.Read(b[:])
			f.Close()
		}
		aside := filepath.Join(filepath.Dir(path), fmt.Sprintf("%s%x-%d%s", tempPrefix(path), b, time.Now().UnixNano(), asideSuffix))
		err := os.Rename(path, aside)
		if err == nil || !errors.Is(err, fs.ErrExist) {
			return err
		}
	}
	return fmt.Errorf("failed to move %s aside", path)
}

// Lock takes an exclusive flock on path (created if missing), waiting at most wait; zero waits
// forever. Waiters block in the kernel, which hands the lock over in turn rather than letting
// pollers starve one another. The lock dies with its process, so a crash never leaves it held;
// a symbolic link or a FIFO at path is refused rather than opened.
func Lock(path string, wait time.Duration) (unlock func(), err error) {
	return lock(path, syscall.LOCK_EX, wait)
}

// LockShared takes a shared flock on path, as Lock takes an exclusive one: it is had while no
// one holds the exclusive lock, by any number of processes at once.
func LockShared(path string, wait time.Duration) (unlock func(), err error) {
	return lock(path, syscall.LOCK_SH, wait)
}

// TryLock takes the exclusive flock on path if no one holds it, without waiting; it fails with
// ErrLockTimeout if someone does.
func TryLock(path string) (unlock func(), err error) {
	return lock(path, syscall.LOCK_EX, -1)
}

func lock(path string, how int, wait time.Duration) (unlock func(), err error) {
	f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE|syscall.O_NOFOLLOW|syscall.O_NONBLOCK|syscall.O_CLOEXEC, 0o600)
	if err != nil {
		return nil, fmt.Errorf("failed to open the lock %s: %w", path, err)
	}
	if fi, err := f.Stat(); err != nil || !fi.Mode().IsRegular() {
		f.Close()
		return nil, fmt.Errorf("failed to open the lock %s: %w", path, ErrNotRegular)
	}
	release := func() { f.Close() } // closing the file releases the lock
	if syscall.Flock(int(f.Fd()), how|syscall.LOCK_NB) == nil {
		return release, nil
	}
	if wait < 0 {
		f.Close()
		return nil, fmt.Errorf("failed to lock %s: %w", path, ErrLockTimeout)
	}
	if wait == 0 {
		if err := syscall.Flock(int(f.Fd()), how); err != nil {
			f.Close()
			return nil, fmt.Errorf("failed to lock %s: %w", path, err)
		}
		return release, nil
	}
	got := make(chan error, 1)
	var mu sync.Mutex
	abandoned := false
	go func() {
		err := syscall.Flock(int(f.Fd()), how)
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

// Within reports whether dir is root or below it (both clean paths).
func Within(dir, root string) bool {
	if dir == root {
		return true
	}
	rel, err := filepath.Rel(root, dir)
	return err == nil && rel != ".." && !strings.HasPrefix(rel, ".."+string(filepath.Separator)) && !filepath.IsAbs(rel)
}

// MkdirAllMode is os.MkdirAll whose new directories get perm whatever the umask: a directory
// every user of the machine must read (the managed settings') is not left to root's umask.
// Directories that existed keep their mode.
func MkdirAllMode(dir string, perm os.FileMode) error {
	var made []string
	for d := dir; ; d = filepath.Dir(d) {
		if _, err := os.Lstat(d); err == nil || d == filepath.Dir(d) {
			break
		}
		made = append(made, d)
	}
	if err := os.MkdirAll(dir, perm); err != nil {
		return err
	}
	for _, d := range made {
		if err := os.Chmod(d, perm); err != nil {
			return err
		}
	}
	return nil
}
