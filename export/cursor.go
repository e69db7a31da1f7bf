package export

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"slices"
	"time"

	"github.com/hookctl/hookctl/internal/fsutil"
	"github.com/hookctl/hookctl/internal/jsonl"
)

// cursor is how far each log has been shipped, persisted in $HOOKCTL_HOME/export.cursor after
// every batch the collector acknowledged (and never before): a crash, a kill or a reboot
// resumes after the last acknowledged record, so a record is sent at least once, and more than
// once only when the acknowledgement was lost.
type cursor struct {
	// Logs are by log ("decisions", "audit"), then by lane.
	Logs map[string][]*laneCursor `json:"logs"`
	// Dropped are losses found and not yet shipped as hookctl.export.dropped records.
	Dropped []drop `json:"dropped,omitempty"`
}

// laneCursor is one lane's place. A lane's files are renamed by rotation (decisions.jsonl to
// .1 …), never rewritten, so a file is named by its inode, and a place by an offset in it.
type laneCursor struct {
	Ino     uint64 `json:"ino,omitempty"`   // the file of the last shipped record; 0: none shipped, start at the oldest file
	Start   int64  `json:"start,omitempty"` // that record's offset
	End     int64  `json:"end,omitempty"`   // past its newline: where the next read starts
	ID      string `json:"id,omitempty"`    // its record id: checked on resume, so that a new file on a reused inode is not taken for it
	Shipped int    `json:"shipped,omitempty"`
	// Files are the lane's files as last seen, oldest first, each with its records counted:
	// what a rotation removed before it was shipped is counted from these.
	Files []fileCount `json:"files,omitempty"`
}

type fileCount struct {
	// A file is its inode and its first record's id: a rotated-away file's inode is soon
	// another's.
	Ino     uint64 `json:"ino"`
	First   string `json:"first,omitempty"`
	End     int64  `json:"end"` // counted up to here
	Records int    `json:"records"`
}

// drop is a loss: records rotated out of a log before they were shipped.
type drop struct {
	Log     string    `json:"log"`
	Lane    int       `json:"lane"`
	Records int       `json:"records"`
	AtLeast bool      `json:"at_least,omitempty"` // files may have come and gone unseen: more may be lost
	Time    time.Time `json:"time"`
}

func (d drop) id() string {
	sum := sha256.Sum256(fmt.Appendf(nil, "dropped\n%s\n%d\n%d\n%s", d.Log, d.Lane, d.Records, d.Time.UTC().Format(time.RFC3339Nano)))
	return hex.EncodeToString(sum[:16])
}

// recordID is a record's id for de-duplication: the same line of the same log always has the
// same one, however often it is sent.
func recordID(log string, line []byte) string {
	h := sha256.New()
	h.Write([]byte(log))
	h.Write([]byte{'\n'})
	h.Write(line)
	return hex.EncodeToString(h.Sum(nil)[:16])
}

// maxCursor bounds the cursor file as read.
const maxCursor = 1 << 20

// loadCursor reads the cursor. One that cannot be read or does not parse (this package writes
// it atomically, so another wrote it, or the disk failed) is a fresh cursor, with an error that
// says so: starting over sends every record again, which the record ids de-duplicate, and an
// exporter stuck on its own cursor would send nothing ever again.
func loadCursor(path string) (*cursor, error) {
	fresh := &cursor{Logs: map[string][]*laneCursor{}}
	b, err := fsutil.ReadFile(path, maxCursor, true)
	if errors.Is(err, fs.ErrNotExist) {
		return fresh, nil
	}
	if err != nil {
		return fresh, fmt.Errorf("the cursor %s cannot be read (%w): every record is sent again", path, err)
	}
	c := &cursor{}
	if err := json.Unmarshal(b, c); err != nil {
		return fresh, fmt.Errorf("the cursor %s does not parse (%w): every record is sent again", path, err)
	}
	if c.Logs == nil {
		c.Logs = map[string][]*laneCursor{}
	}
	return c, nil
}

// maxDropped bounds the losses kept unsent (a collector away for months): past it, a loss is
// added to the last one kept.
const maxDropped = 100

func (c *cursor) addDropped(d drop) {
	if n := len(c.Dropped); n >= maxDropped {
		last := &c.Dropped[n-1]
		last.Records += d.Records
		last.AtLeast = last.AtLeast || d.AtLeast || last.Log != d.Log || last.Lane != d.Lane
		return
	}
	c.Dropped = append(c.Dropped, d)
}

func (c *cursor) save(path string) error {
	b, err := json.Marshal(c)
	if err != nil {
		return err
	}
	return fsutil.WriteAtomic(path, b, 0o600)
}

func (c *cursor) lane(log string, k int) *laneCursor {
	for len(c.Logs[log]) <= k {
		c.Logs[log] = append(c.Logs[log], &laneCursor{})
	}
	return c.Logs[log][k]
}

// readStart is where a read of one file of a snapshot begins.
type readStart struct {
	file   int // index in the snapshot's Files
	offset int64
}

// plan counts the records of the lane's files (files: indices in snap.Files, oldest first),
// and says where the unshipped records begin. A cursor whose file is gone (rotated away, or its
// inode reused) is a loss: how many records it had unshipped is returned, and the lane is read
// again from its oldest file.
func (lc *laneCursor) plan(log string, snap *jsonl.Snapshot, files []int) (starts []readStart, lost *drop) {
	var counted []fileCount
	for _, i := range files {
		f := snap.Files[i]
		fc := fileCount{Ino: f.Ino}
		snap.ReadFile(i, 0, func(r jsonl.Record) error {
			fc.First = recordID(log, r.Data)
			return jsonl.ErrStop
		})
		if fc.First == "" {
			// No whole record yet (a writer's file between its open and its first write): not
			// yet part of the lane's history. Kept with no First, its first record would make it
			// a file never seen, and a loss be reported that never was.
			continue
		}
		for _, old := range lc.Files {
			if old.same(fc) && old.End <= f.Size {
				fc = old
			}
		}
		snap.ReadFile(i, fc.End, func(r jsonl.Record) error {
			fc.Records++
			fc.End = r.End
			return nil
		})
		counted = append(counted, fc)
	}
	previous := lc.Files
	lc.Files = counted
	present := func(old fileCount) bool { return slices.ContainsFunc(counted, old.same) }
	at := -1 // where in files the cursor's record is
	if lc.Ino != 0 {
		for p, i := range files {
			if snap.Files[i].Ino == lc.Ino && lc.resumes(log, snap, i) {
				at = p
			}
		}
	}
	// What went unshipped: the files seen before that are gone now, less what was shipped of
	// them (all of those older than the cursor's file, its records up to the cursor).
	var gone int
	shipped := lc.Ino != 0
	for _, old := range previous {
		switch {
		case lc.Ino != 0 && old.Ino == lc.Ino:
			shipped = false
			if at < 0 {
				gone += max(old.Records-lc.Shipped, 0)
			}
		case shipped:
		case !present(old):
			gone += old.Records
		}
	}
	// The lane's oldest file now is one never seen: whole files may have come and gone between.
	// Files with no record yet are not counted; none counted after some were: all are gone.
	unseen := false
	if len(previous) > 0 && len(files) > 0 {
		unseen = len(counted) == 0 || !slices.ContainsFunc(previous, counted[0].same)
	}
	if gone > 0 || unseen {
		lost = &drop{Log: log, Records: gone, AtLeast: unseen, Time: time.Now().UTC()}
	}
	if at >= 0 {
		starts = append(starts, readStart{file: files[at], offset: lc.End})
		for _, j := range files[at+1:] {
			starts = append(starts, readStart{file: j})
		}
		return starts, lost
	}
	// Nothing shipped yet, or the cursor's file is gone: the lane from its oldest file.
	*lc = laneCursor{Files: lc.Files}
	for _, i := range files {
		starts = append(starts, readStart{file: i})
	}
	return starts, lost
}

func (f fileCount) same(g fileCount) bool { return f.Ino == g.Ino && f.First == g.First }

// resumes checks that the record at the cursor is the one it shipped last.
func (lc *laneCursor) resumes(log string, snap *jsonl.Snapshot, i int) bool {
	ok := false
	snap.ReadFile(i, lc.Start, func(r jsonl.Record) error {
		ok = r.Offset == lc.Start && r.End == lc.End && recordID(log, r.Data) == lc.ID
		return jsonl.ErrStop
	})
	return ok
}

// advance moves the cursor past a shipped record.
func (lc *laneCursor) advance(it *item) {
	if it.ino != lc.Ino {
		lc.Shipped = 0
	}
	lc.Ino, lc.Start, lc.End, lc.ID = it.ino, it.start, it.end, it.id
	lc.Shipped++
}
