package jsonl

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"syscall"
	"time"

	"github.com/hookctl/hookctl/internal/fsutil"
)

// Record is one line of the log as a reader sees it.
type Record struct {
	File   string // the file's name in the log's directory when the read began
	Lane   int
	Line   int    // from 1
	Offset int64  // of the line in its file
	End    int64  // of the next line: past this one's newline
	Data   []byte // the line without white space around it
	Raw    []byte // the line's exact bytes, without its newline
}

// Damage is something a reader skipped: a line that is not a record, or a file it would not or
// could not read.
type Damage struct {
	File string
	Line int // 0: the whole file
	Why  string
}

func (d Damage) String() string {
	if d.Line == 0 {
		return d.File + ": " + d.Why
	}
	return fmt.Sprintf("%s:%d: %s", d.File, d.Line, d.Why)
}

// snapshotTries bounds how often a reader opens the files again because a rotation moved one
// while it opened them; past it, it waits for the rotation lock.
const snapshotTries = 20

// maxFileRead caps what a reader reads of one file, a multiple of the size at which the log
// rotates: a larger file was not written by this package (a sparse file of zeros, say), and
// reading it all would take as long as it is large.
const maxFileRead = 8

// Read calls each with every record in the log, lane by lane, each lane oldest file first;
// each returning an error marks the line damaged and goes on. A line over the cap, a whole
// file that is not a regular file, an error from each, and a last line without its newline (cut
// short by a crash, which the next append to that file cuts off; or, for a moment, one being
// written) are returned as damage, never as a reason to stop: one bad line must not hide the
// rest. err is for a log that cannot be read at all.
//
// Every record present when Read begins is seen exactly once, whatever rotations happen while
// it runs; records appended meanwhile may or may not be.
func (l *Log) Read(each func(Record) error) ([]Damage, error) {
	files, damage, err := l.snapshot()
	if err != nil {
		return damage, err
	}
	defer closeAll(files)
	for _, f := range files {
		damage = append(damage, l.readFile(f, 0, each)...)
	}
	return damage, nil
}

// ErrStop, returned by a Snapshot reader's each, stops reading that file there.
var ErrStop = errors.New("stop reading")

// File is one file of a Snapshot.
type File struct {
	Name    string // in the log's directory
	Lane    int
	Current bool   // the lane's current file, not a rotated one
	Ino     uint64 // the file's inode, which names it across rotations (they only rename)
	Size    int64  // when the snapshot was taken
}

// Snapshot is the log's files as they were at one instant, open, for a reader that resumes
// where it stopped (the exporter): Files are each lane's, oldest first, as Read reads them.
type Snapshot struct {
	Files  []File
	Damage []Damage // what was not opened
	log    *Log
	open   []openFile
}

// Open takes a snapshot of the log's files; Close releases it.
func (l *Log) Open() (*Snapshot, error) {
	files, damage, err := l.snapshot()
	if err != nil {
		return nil, err
	}
	s := &Snapshot{Damage: damage, log: l, open: files}
	for _, f := range files {
		s.Files = append(s.Files, File{Name: f.name, Lane: f.lane, Current: f.current, Ino: f.ino, Size: f.size})
	}
	return s, nil
}

// ReadFile reads Files[i] as Read does, from offset: the start of a line (a Record's Offset, or
// the end of the one before). Line numbers count from there. An each that returns ErrStop stops
// the read.
func (s *Snapshot) ReadFile(i int, offset int64, each func(Record) error) []Damage {
	return s.log.readFile(s.open[i], offset, each)
}

// Close closes the snapshot's files.
func (s *Snapshot) Close() {
	for _, f := range s.open {
		f.f.Close()
	}
}

// openFile is one file of a snapshot, open.
type openFile struct {
	f       *os.File
	name    string
	lane    int
	current bool // the lane's current file, not a rotated one
	ino     uint64
	size    int64
}

func closeAll(files []openFile) {
	for _, f := range files {
		f.f.Close()
	}
}

// lanePath is one file of the log: a lane's current file or one of its rotations.
type lanePath struct {
	path    string
	lane    int
	current bool
}

// paths lists the files of every lane, each lane oldest first.
func (l *Log) paths() []lanePath {
	var out []lanePath
	for k := range l.lanes() {
		base := l.LanePath(k)
		for i := l.keep(); i >= 1; i-- {
			out = append(out, lanePath{base + "." + strconv.Itoa(i), k, false})
		}
		out = append(out, lanePath{base, k, true})
	}
	return out
}

// snapshot opens every file of the log such that the set is the log at one instant: it opens
// them all, then checks that each path still names what it opened (a rotation renames every
// file of its lane), and opens them again if not.
func (l *Log) snapshot() ([]openFile, []Damage, error) {
	for try := 0; ; try++ {
		if try == snapshotTries {
			// Rotating faster than this reader can open: hold the rotation lock while opening.
			unlock, err := fsutil.Lock(l.lockPath(), time.Second)
			if err == nil {
				files, damage, _, err := l.open()
				unlock()
				return files, damage, err
			}
		}
		files, damage, stable, err := l.open()
		if err != nil || stable || try > snapshotTries {
			if !stable && err == nil {
				damage = append(damage, Damage{File: l.Name, Why: "the log rotated while it was read; a record may be missing or repeated"})
			}
			return files, damage, err
		}
		for _, f := range files {
			f.f.Close()
		}
		time.Sleep(time.Millisecond)
	}
}

// open opens every file and reports whether none moved meanwhile. What is not a regular file
// is not opened (it could block, or read without end) and not checked again: a rotation that
// renames a file over it changes the name the file came from.
func (l *Log) open() (files []openFile, damage []Damage, stable bool, err error) {
	type seen struct {
		path     string
		dev, ino uint64
		exists   bool
	}
	var check []seen
	inodes := map[[2]uint64]bool{}
	stable = true
	for _, p := range l.paths() {
		name := filepath.Base(p.path)
		f, err := os.OpenFile(p.path, os.O_RDONLY|syscall.O_NOFOLLOW|syscall.O_NONBLOCK|syscall.O_NOCTTY|syscall.O_CLOEXEC, 0)
		var st syscall.Stat_t
		switch {
		case errors.Is(err, fs.ErrNotExist):
			check = append(check, seen{path: p.path})
			continue
		case err != nil && notRegularErr(err):
		case err != nil:
			for _, f := range files {
				f.f.Close()
			}
			return nil, damage, false, fmt.Errorf("failed to read %s: %w", p.path, err)
		case syscall.Fstat(int(f.Fd()), &st) != nil || st.Mode&syscall.S_IFMT != syscall.S_IFREG:
			f.Close()
		default:
			key := [2]uint64{uint64(st.Dev), st.Ino}
			if inodes[key] {
				stable = false // one file under two names: it moved between the opens
			}
			inodes[key] = true
			check = append(check, seen{p.path, uint64(st.Dev), st.Ino, true})
			files = append(files, openFile{f: f, name: name, lane: p.lane, current: p.current, ino: st.Ino, size: st.Size})
			continue
		}
		damage = append(damage, Damage{File: name, Why: "not a regular file (" + fileKind(p.path) + "): not read"})
	}
	for _, s := range check {
		var st syscall.Stat_t
		err := syscall.Lstat(s.path, &st)
		if (err == nil) != s.exists || s.exists && (uint64(st.Dev) != s.dev || st.Ino != s.ino) {
			stable = false
		}
	}
	return files, damage, stable, nil
}

// fileKind names what is at path, for a damage note.
func fileKind(path string) string {
	fi, err := os.Lstat(path)
	if err != nil {
		return "gone"
	}
	return fsutil.FileKind(fi.Mode())
}

// readFile reads one file of a snapshot from offset, line by line, bounded per line and in all.
func (l *Log) readFile(of openFile, offset int64, each func(Record) error) []Damage {
	var damage []Damage
	maxLine := l.MaxLine()
	limit := maxFileRead * max(l.maxBytes(), 10<<20)
	off := max(offset, 0)
	r := bufio.NewReaderSize(io.LimitReader(io.NewSectionReader(of.f, off, limit+1-off), limit+1-off), 64<<10)
	var buf []byte
	for n := 1; ; n++ {
		line, length, long, err := readLine(r, maxLine, &buf)
		if err != nil && !errors.Is(err, io.EOF) {
			return append(damage, Damage{File: of.name, Line: n, Why: "cannot be read: " + err.Error()})
		}
		start := off
		off += length
		if errors.Is(err, io.EOF) && !long && (len(line) == 0 || line[len(line)-1] != '\n') {
			// The last line, without its newline: never a record.
			switch {
			case off > limit:
				damage = append(damage, Damage{File: of.name, Why: fmt.Sprintf("larger than %d bytes, which the log never grows to: the rest is not read", limit)})
			case len(bytes.TrimSpace(line)) > 0 && of.current:
				damage = append(damage, Damage{File: of.name, Line: n, Why: "the last line has no newline: cut short (the next record cuts it off), or being written"})
			case len(bytes.TrimSpace(line)) > 0:
				damage = append(damage, Damage{File: of.name, Line: n, Why: "cut short (the last line has no newline)"})
			}
			return damage
		}
		switch data := bytes.TrimSpace(line); {
		case long:
			damage = append(damage, Damage{File: of.name, Line: n, Why: fmt.Sprintf("longer than the %d-byte cap", maxLine-1)})
		case len(data) == 0:
			// A blank line: nothing (an append that followed a tail it could not cut off).
		default:
			if err := each(Record{File: of.name, Lane: of.lane, Line: n, Offset: start, End: off, Data: data, Raw: line[:len(line)-1]}); errors.Is(err, ErrStop) {
				return damage
			} else if err != nil {
				damage = append(damage, Damage{File: of.name, Line: n, Why: err.Error()})
			}
		}
		if errors.Is(err, io.EOF) {
			return damage
		}
	}
}

// readLine reads one line, newline included, keeping at most max bytes of it; n is its whole
// length, and long reports that it was longer than max (the rest is read and dropped). err is io.EOF at the end of the input.
func readLine(r *bufio.Reader, max int, buf *[]byte) (line []byte, n int64, long bool, err error) {
	*buf = (*buf)[:0]
	for {
		chunk, err := r.ReadSlice('\n')
		n += int64(len(chunk))
		if !long && len(*buf)+len(chunk) <= max {
			*buf = append(*buf, chunk...)
		} else {
			long = true
		}
		if errors.Is(err, bufio.ErrBufferFull) {
			continue
		}
		return *buf, n, long, err
	}
}

// Files names the log's files that exist, each lane oldest first, for a reader that tells the
// user where the log is.
func (l *Log) Files() []string {
	var out []string
	for _, p := range l.paths() {
		if _, err := os.Lstat(p.path); err == nil {
			out = append(out, p.path)
		}
	}
	return out
}
