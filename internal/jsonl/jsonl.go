// Package jsonl is hookctl's append-only log of JSON records, one record a line: the decision
// log and the audit. It runs in whichever process records something (the hook, on every tool
// call; the retriever; the egress proxy) and in those that read (hookctl log, hookctl audit, the
// dashboard).
//
// What it must survive: hundreds of hook processes appending at once on two busy cores,
// processes killed at any instruction, a full disk, readers running while the log rotates, and
// a FIFO, a link to a device or a directory where a log file should be (hookctl's home is the
// user's; an agent must not reach it, but a reader must not hang if something did).
//
// What it guarantees:
//   - A record is one whole line or nothing. Each append is one write(2) of the whole line, made
//     by the only writer of its file at that moment (an exclusive flock on the file), to a file
//     opened O_APPEND. A write the disk cut short is truncated back off; the tail a killed writer
//     left is truncated off by the next writer of that file, and readers never take an
//     unterminated last line for a record.
//   - The common path never queues. Under contention a writer does not wait for a file another
//     writer holds (whose holder the scheduler may not run again for a long time: with hundreds
//     of runnable processes every hand-over of a lock costs a scheduling delay, and a queue of
//     them turns a burst into a convoy); it appends to another lane, a file beside the first.
//     Only when every lane is held for LaneWait does it wait, and only for a bounded time,
//     after which the append fails: a lock held that long is stuck or hostile.
//   - Rotation (by size, per lane) happens under a lock and only renames, so every record is in
//     exactly one file at every instant; a reader opens every file, then checks that no
//     rotation moved one meanwhile, and opens again if one did: it sees each record once.
//   - Every open is non-blocking, never follows a link and checks the file is regular; reads are
//     bounded per line and per file.
//   - A chained log (Log.Chain; chain.go) makes each lane a hash chain across its rotations,
//     which Verify checks: each record names the exact line before it, under the same lock.
//
// Out of scope: power loss (records are fsync'd only with Sync) and filesystems without
// atomic O_APPEND writes (NFS).
package jsonl

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/hookctl/hookctl/internal/fsutil"
)

// Log is an append-only JSONL log in Dir: lane 0 is Name ("decisions.jsonl"), lane k > 0 is
// "decisions.lane<k>.jsonl", and each is rotated by size to .1 … .Keep.
type Log struct {
	Dir  string
	Name string
	// MaxBytes: a lane is rotated before a record would take it past this; 0 means 10 MiB.
	MaxBytes int64
	// Keep is how many rotated files each lane keeps; 0 means 5.
	Keep int
	// MaxRecord is the longest record, without its newline; 0 means 32 KiB.
	MaxRecord int
	// Lanes is how many files are written side by side under contention; 0 means 1.
	Lanes int
	// Sync makes each append fsync the file: for records worth keeping across a crash of the
	// machine, and rare enough to pay for it.
	Sync bool
	// Wait bounds how long an append waits for a lane when every lane is held; 0 means
	// LockWait. Past it the append fails.
	Wait time.Duration
	// Chain makes each lane a hash chain (chain.go): every record, which must be a JSON object,
	// is written with its lane's count and the SHA-256 of the line before it; Verify checks it.
	Chain bool
}

// LaneWait is how long a writer tries the lanes without waiting on any, before it waits for
// lane 0. LockWait bounds that wait (unless Log.Wait says otherwise); past it the append fails:
// a holder that long is stuck or hostile.
const (
	LaneWait   = 500 * time.Millisecond
	LockWait   = 500 * time.Millisecond
	rotateWait = 200 * time.Millisecond
)

// ErrRecord is wrapped for a record that cannot be one line: too long, or holding a newline.
var ErrRecord = errors.New("not a record")

func (l *Log) maxBytes() int64 {
	if l.MaxBytes > 0 {
		return l.MaxBytes
	}
	return 10 << 20
}

func (l *Log) keep() int {
	if l.Keep > 0 {
		return l.Keep
	}
	return 5
}

// maxRecord is the longest record a producer may hand to Append.
func (l *Log) maxRecord() int {
	if l.MaxRecord > 0 {
		return l.MaxRecord
	}
	return 32 << 10
}

// MaxLine is the longest line a reader accepts, newline included: a chained log's fields come on
// top of the record's cap, so that a record its producer clipped to the cap is never refused.
func (l *Log) MaxLine() int {
	if l.Chain {
		return l.maxRecord() + chainMax + 1
	}
	return l.maxRecord() + 1
}

func (l *Log) lanes() int {
	if l.Lanes > 1 {
		return l.Lanes
	}
	return 1
}

// LanePath is the file of lane k.
func (l *Log) LanePath(k int) string {
	if k == 0 {
		return filepath.Join(l.Dir, l.Name)
	}
	ext := filepath.Ext(l.Name)
	return filepath.Join(l.Dir, strings.TrimSuffix(l.Name, ext)+".lane"+strconv.Itoa(k)+ext)
}

// lockPath is the rotation lock: "decisions.lock" for "decisions.jsonl".
func (l *Log) lockPath() string {
	return filepath.Join(l.Dir, strings.TrimSuffix(l.Name, filepath.Ext(l.Name))+".lock")
}

// Append writes rec (one JSON value, without its newline) as one line. An error means the
// record is not in the log; no part of it is.
func (l *Log) Append(rec []byte) error {
	line, err := l.line(rec, l.maxRecord())
	if err != nil {
		return err
	}
	return l.append(line, nil)
}

// AppendWith appends the record build makes from the last record of the lane it is written to
// (nil for the first), under that lane's lock, so that no other record comes between the two:
// for a record that must carry something of the one before it, as a hash chain's does. Each
// lane is a sequence of its own.
func (l *Log) AppendWith(build func(last []byte) ([]byte, error)) error {
	return l.append(nil, build)
}

// line checks a record of at most max bytes and returns it as a line.
func (l *Log) line(rec []byte, max int) ([]byte, error) {
	if len(rec) > max {
		return nil, fmt.Errorf("failed to append to %s: a record of %d bytes is over the %d-byte cap: %w", l.Name, len(rec), max, ErrRecord)
	}
	if bytes.IndexByte(rec, '\n') >= 0 {
		return nil, fmt.Errorf("failed to append to %s: the record holds a newline: %w", l.Name, ErrRecord)
	}
	line := make([]byte, 0, len(rec)+1)
	return append(append(line, rec...), '\n'), nil
}

// append writes line, or what build makes, to a lane.
func (l *Log) append(line []byte, build func(last []byte) ([]byte, error)) error {
	lanes := l.lanes()
	// Lane 0 first, then the others from a point of this process's own, so that writers
	// turned away from lane 0 spread out instead of all trying lane 1.
	first := 1 + os.Getpid()%max(lanes-1, 1)
	start := time.Now()
	// With one lane there is nowhere else to go: wait in the kernel's queue for it at once, as
	// a writer that polled would lose it to those waiting there.
	for backoff := 100 * time.Microsecond; lanes > 1 && time.Since(start) < LaneWait; backoff = min(2*backoff, 5*time.Millisecond) {
		for i := range lanes {
			k := 0
			if i > 0 {
				k = 1 + (first-1+i-1)%(lanes-1)
			}
			switch err := l.tryLane(k, line, build, false); {
			case err == nil:
				return nil
			case !errors.Is(err, errBusy):
				return err
			}
		}
		time.Sleep(backoff)
	}
	// Every lane held for LaneWait: wait for lane 0, a bounded time. A holder past that is
	// stuck or hostile; the record is not written rather than written without the lock, which
	// every writer holds, so that a writer can cut off a tail only a killed writer leaves.
	err := l.tryLane(0, line, build, true)
	if errors.Is(err, errBusy) {
		return fmt.Errorf("failed to append to %s: its lock was held for %s", l.Name, time.Since(start).Round(time.Millisecond))
	}
	return err
}

// errBusy: another writer holds the lane.
var errBusy = errors.New("the lane is busy")

// tryLane appends line to lane k if no other writer holds it (with wait, after waiting up to
// LockWait for it). It rotates the lane first if line would take it past MaxBytes, and moves
// aside anything at the lane's path that is not a regular file.
func (l *Log) tryLane(k int, line []byte, build func(last []byte) ([]byte, error), wait bool) error {
	path := l.LanePath(k)
	for attempt := 0; ; attempt++ {
		f, err := openAppend(path)
		if errors.Is(err, fs.ErrNotExist) && attempt == 0 {
			if err := os.MkdirAll(l.Dir, 0o700); err != nil {
				return fmt.Errorf("failed to create the directory of %s: %w", l.Name, err)
			}
			continue
		}
		if errors.Is(err, fsutil.ErrNotRegular) && attempt < 2 {
			// Not a file this package wrote: out of the way, kept as a rotated file (which
			// readers refuse to open) for the user to look at.
			l.rotate(path, 0, true)
			continue
		}
		if err != nil {
			return fmt.Errorf("failed to open %s: %w", path, err)
		}
		if !l.lock(f, wait) {
			f.Close()
			return errBusy
		}
		if l.Chain && moved(f, path) {
			// Rotated away between the open and the lock: the record goes to the new file.
			f.Close()
			if attempt < 50 {
				continue
			}
			return fmt.Errorf("failed to append to %s: it kept rotating away", path)
		}
		size, newline, err := repairTail(f, l.MaxLine())
		if err != nil {
			f.Close()
			return fmt.Errorf("failed to append to %s: %w", path, err)
		}
		if build != nil || l.Chain {
			if line, err = l.build(f, path, size, line, build); err != nil {
				f.Close()
				return err
			}
		}
		if size > 0 && size+int64(len(line)) > l.maxBytes() && attempt < 3 {
			f.Close()
			l.rotate(path, size, false)
			continue
		}
		err = l.write(f, line, size, newline)
		f.Close() // releases the lock
		if err != nil {
			return fmt.Errorf("failed to append to %s: %w", path, err)
		}
		return nil
	}
}

// build is the line to append to the lane at path, which ends at size: what build makes of the
// lane's last line (else rec, a line), with the chain's fields if the log is chained.
func (l *Log) build(f *os.File, path string, size int64, rec []byte, build func(last []byte) ([]byte, error)) ([]byte, error) {
	last := lastLine(f, size, l.MaxLine())
	if l.Chain && size == 0 {
		last = l.rotatedLast(path)
	}
	var err error
	if build != nil {
		if rec, err = build(last); err != nil {
			return nil, err
		}
		if len(rec) > l.maxRecord() {
			return l.line(rec, l.maxRecord())
		}
	} else {
		rec = rec[:len(rec)-1]
	}
	if l.Chain {
		if rec, err = chained(rec, last); err != nil {
			return nil, err
		}
	}
	return l.line(rec, l.MaxLine()-1)
}

// openAppend opens a lane for appending: created if missing, never through a link, never
// blocking on a FIFO, and only if it is a regular file. It opens without O_CREAT first:
// creating takes the directory's lock, which opening a file that exists need not, and every
// hook appends.
func openAppend(path string) (*os.File, error) {
	const flags = os.O_RDWR | os.O_APPEND | syscall.O_NOFOLLOW | syscall.O_NONBLOCK | syscall.O_NOCTTY | syscall.O_CLOEXEC
	f, err := os.OpenFile(path, flags, 0)
	if errors.Is(err, fs.ErrNotExist) {
		f, err = os.OpenFile(path, flags|os.O_CREATE, 0o600)
	}
	if err != nil {
		if notRegularErr(err) {
			return nil, fmt.Errorf("%s: %w", path, fsutil.ErrNotRegular)
		}
		return nil, err
	}
	if fi, err := f.Stat(); err != nil || !fi.Mode().IsRegular() {
		f.Close()
		return nil, fmt.Errorf("%s: %w", path, fsutil.ErrNotRegular)
	}
	return f, nil
}

// notRegularErr reports whether an open failed because the path is not a regular file: a
// link (O_NOFOLLOW), a directory, a FIFO or socket with no peer.
func notRegularErr(err error) bool {
	return errors.Is(err, syscall.ELOOP) || errors.Is(err, syscall.EISDIR) || errors.Is(err, syscall.ENXIO) ||
		errors.Is(err, syscall.ENODEV) || errors.Is(err, syscall.EOPNOTSUPP)
}

// lock takes the exclusive flock on f: at once or not at all, or with wait, waiting at most
// Wait (LockWait). The waiting is the kernel's, on a duplicate of f, which a wait given up on
// closes once it returns.
func (l *Log) lock(f *os.File, wait bool) bool {
	if syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB) == nil {
		return true
	}
	if !wait {
		return false
	}
	fd, err := syscall.Dup(int(f.Fd()))
	if err != nil {
		return false
	}
	got := make(chan bool, 1)
	go func() {
		got <- syscall.Flock(fd, syscall.LOCK_EX) == nil
		syscall.Close(fd) // the lock stays with f's open file, until the caller closes f
	}()
	d := l.Wait
	if d <= 0 {
		d = LockWait
	}
	select {
	case ok := <-got:
		return ok
	case <-time.After(d):
		return false
	}
}

// repairTail cuts off a last line without its newline (a writer killed in its write: no
// writer leaves one otherwise) and returns the file's size after, and whether a line written
// there must start with a newline. The caller holds the lock. A tail longer than maxLine is
// not one of this package's lines: it is left, and the next line starts after a newline.
func repairTail(f *os.File, maxLine int) (size int64, newline bool, err error) {
	fi, err := f.Stat()
	if err != nil {
		return 0, false, err
	}
	size = fi.Size()
	if size == 0 {
		return 0, false, nil
	}
	last := make([]byte, 1)
	if _, err := f.ReadAt(last, size-1); err != nil {
		return 0, false, err
	}
	if last[0] == '\n' {
		return size, false, nil
	}
	window := min(size, int64(maxLine))
	buf := make([]byte, window)
	if _, err := f.ReadAt(buf, size-window); err != nil && !errors.Is(err, io.EOF) {
		return 0, false, err
	}
	cut := bytes.LastIndexByte(buf, '\n')
	if cut < 0 && window < size {
		return size, true, nil
	}
	keep := size - window + int64(cut) + 1
	if err := f.Truncate(keep); err != nil {
		return 0, false, err
	}
	return keep, false, nil
}

// lastLine is the last whole line of f, which ends at size, its exact bytes without its
// newline; nil if there is none within maxLine of the end.
func lastLine(f *os.File, size int64, maxLine int) []byte {
	// Most lines are short: a small read first, the whole bound only for a long line.
	if size > 4<<10 && maxLine > 4<<10 {
		if line := lastLine(f, size, 4<<10-1); line != nil {
			return line
		}
	}
	window := min(size, int64(maxLine)+1)
	if window <= 1 {
		return nil
	}
	buf := make([]byte, window)
	if _, err := f.ReadAt(buf, size-window); err != nil && !errors.Is(err, io.EOF) {
		return nil
	}
	if buf[len(buf)-1] != '\n' {
		return nil
	}
	buf = buf[:len(buf)-1]
	start := bytes.LastIndexByte(buf, '\n') + 1
	if start == 0 && window < size {
		return nil // longer than a line can be
	}
	return buf[start:]
}

// write appends line to f, which ends at size (held under the lock), in one write(2) when the
// disk takes it. A write cut short (a full disk, a file size limit) is carried on, to learn why
// it stopped, and then cut back off.
func (l *Log) write(f *os.File, line []byte, size int64, newline bool) error {
	if newline {
		line = append([]byte{'\n'}, line...)
	}
	for done := 0; done < len(line); {
		n, err := syscall.Write(int(f.Fd()), line[done:])
		if n > 0 {
			done += n
		}
		if err == nil && n <= 0 {
			err = io.ErrShortWrite
		}
		if err != nil {
			if done > 0 {
				f.Truncate(size)
			}
			return err
		}
	}
	if l.Sync {
		return f.Sync()
	}
	return nil
}

// rotate shifts the lane at path to .1, .1 to .2, …, dropping the oldest, under the rotation
// lock. Another writer may have rotated it first: unless force, a lane no longer past size
// bytes is left as it is. A rotation lock held past rotateWait is another writer rotating: the
// caller then goes on and appends to the file it has.
func (l *Log) rotate(path string, size int64, force bool) {
	unlock, err := fsutil.Lock(l.lockPath(), rotateWait)
	if err != nil {
		return
	}
	defer unlock()
	if !force {
		fi, err := os.Lstat(path)
		if err != nil || fi.Mode().IsRegular() && fi.Size() < size {
			return
		}
	}
	fsutil.Rotate(path, l.keep())
}
