package jsonl

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"os"
	"strconv"
	"strings"
	"syscall"
)

// The hash chain (Log.Chain; docs/decisions/0015-hash-chained-logs.md). Each lane of a chained
// log is one chain: every record ends in
//
//	,"seq":N,"prev_hash":"<hex SHA-256 of the exact bytes of the lane's line before it>"}
//
// written under the lane's lock from the line the writer finds last in the lane, so that two
// parallel appends cannot both name the same predecessor. The first record of a lane's new
// file, after a rotation, names the last line of the file rotated away (.1): the chain runs on
// across files. seq counts the lane's records from 1, so that a verifier can tell a record
// removed from one changed. A lane's very first record names GenesisHash.
//
// The fields are at the end, in this exact form, and the writer and the verifier both read them
// from there: a record's own fields cannot shadow them.

// GenesisHash is the prev_hash of a lane's first record: there was no line before it.
const GenesisHash = "0000000000000000000000000000000000000000000000000000000000000000"

// Chain fields, as the records carry them.
const (
	SeqField  = "seq"
	HashField = "prev_hash"
)

const (
	seqTag  = `,"` + SeqField + `":`
	hashTag = `,"` + HashField + `":"`
	// chainTail is the length of `,"prev_hash":"<64 hex>"}`.
	chainTail = len(hashTag) + 64 + 2
	// chainMax is the most the chain adds to a record: the seq field with 20 digits and the tail.
	chainMax = len(seqTag) + 20 + chainTail
)

// LineHash is the SHA-256, in hex, of a line's exact bytes without its newline: what the next
// record of its lane names as prev_hash, and what the exporter sends as hookctl.record.hash.
func LineHash(line []byte) string {
	sum := sha256.Sum256(line)
	return hex.EncodeToString(sum[:])
}

// ChainFields reads the chain fields at the end of a line; ok is false for a line without them
// (written before the log was chained, or not by this package).
func ChainFields(line []byte) (seq uint64, prev string, ok bool) {
	n := len(line)
	if n < chainTail+len(seqTag)+1 || line[n-1] != '}' || line[n-2] != '"' {
		return 0, "", false
	}
	tail := line[n-chainTail:]
	if !bytes.HasPrefix(tail, []byte(hashTag)) {
		return 0, "", false
	}
	prev = string(tail[len(hashTag) : len(hashTag)+64])
	if _, err := hex.DecodeString(prev); err != nil {
		return 0, "", false
	}
	head := line[:n-chainTail]
	i := bytes.LastIndex(head, []byte(seqTag[1:]))
	if i < 1 || head[i-1] != ',' && head[i-1] != '{' {
		return 0, "", false
	}
	seq, err := strconv.ParseUint(string(head[i+len(seqTag)-1:]), 10, 64)
	if err != nil || seq == 0 {
		return 0, "", false
	}
	return seq, prev, true
}

// chained is rec, a JSON object, with the chain fields that follow last (the lane's last line,
// nil for none) appended.
func chained(rec, last []byte) ([]byte, error) {
	rec = bytes.TrimSpace(rec)
	if len(rec) < 2 || rec[0] != '{' || rec[len(rec)-1] != '}' {
		return nil, fmt.Errorf("a chained record must be a JSON object: %w", ErrRecord)
	}
	seq, prev := uint64(1), GenesisHash
	if last != nil {
		prev = LineHash(last)
		if s, _, ok := ChainFields(last); ok {
			seq = s + 1
		}
	}
	out := make([]byte, 0, len(rec)+chainMax)
	out = append(out, rec[:len(rec)-1]...)
	if len(bytes.TrimSpace(rec[1:len(rec)-1])) > 0 {
		out = append(out, seqTag...)
	} else {
		out = append(out, seqTag[1:]...)
	}
	out = strconv.AppendUint(out, seq, 10)
	out = append(out, hashTag...)
	out = append(out, prev...)
	return append(out, '"', '}'), nil
}

// moved reports whether path no longer names f: a rotation renamed f away after it was opened.
// A chained record must go to the lane's current file, or the chain would fork.
func moved(f *os.File, path string) bool {
	var a, b syscall.Stat_t
	if syscall.Fstat(int(f.Fd()), &a) != nil || syscall.Lstat(path, &b) != nil {
		return true
	}
	return a.Dev != b.Dev || a.Ino != b.Ino
}

// rotatedLast is the last line of the file rotated away from path (path.1), read under that
// file's lock: a writer that opened it before the rotation may still be appending its record,
// which the new file's first record must name; one killed there left a tail, which is cut off
// as the next writer of a current file would. nil if there is none.
func (l *Log) rotatedLast(path string) []byte {
	f, err := os.OpenFile(path+".1", os.O_RDWR|syscall.O_NOFOLLOW|syscall.O_NONBLOCK|syscall.O_NOCTTY|syscall.O_CLOEXEC, 0)
	if err != nil {
		return nil
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil || !fi.Mode().IsRegular() {
		return nil
	}
	// A holder past the bound is stuck: read what is there; a verifier reports the link if a
	// record came after.
	if !l.lock(f, true) {
		fi, err = f.Stat()
		if err != nil {
			return nil
		}
		return lastLine(f, fi.Size(), l.MaxLine())
	}
	size, _, err := repairTail(f, l.MaxLine())
	if err != nil {
		return nil
	}
	return lastLine(f, size, l.MaxLine())
}

// ChainBreak is a place where a chained lane is not what its writers wrote.
type ChainBreak struct {
	File string // the file's name in the log's directory
	Line int    // from 1; 0: the whole file
	ID   string // the record's "id", if it has one
	Why  string
}

func (b ChainBreak) String() string {
	where := b.File
	if b.Line > 0 {
		where += ":" + strconv.Itoa(b.Line)
	}
	if b.ID != "" {
		where += " (record " + b.ID + ")"
	}
	return where + ": " + b.Why
}

// LaneReport is what Verify found in one lane.
type LaneReport struct {
	Lane      int
	Files     int
	Records   int // lines read as records
	Chained   int // of them, records with chain fields
	Unchained int // records before the chain began: written by a hookctl older than the chain
	// Notes are findings that are not tampering: where the chain begins after records rotated
	// away, a last line a killed writer left.
	Notes  []string
	Breaks []ChainBreak
}

// VerifyReport is Verify's finding, lane by lane.
type VerifyReport struct {
	Lanes []LaneReport
	// Unread are files that were not read (not a regular file), or a rotation that moved a
	// file while the log was read: breaks too, as what they held was not checked.
	Unread []ChainBreak
}

// OK reports whether no lane has a break.
func (r *VerifyReport) OK() bool {
	if len(r.Unread) > 0 {
		return false
	}
	for _, l := range r.Lanes {
		if len(l.Breaks) > 0 {
			return false
		}
	}
	return true
}

// Totals sums the lanes: the records read, those with chain fields, those before the chain
// began, and the breaks (Unread included).
func (r *VerifyReport) Totals() (records, chained, older, breaks int) {
	breaks = len(r.Unread)
	for _, l := range r.Lanes {
		records += l.Records
		chained += l.Chained
		older += l.Unchained
		breaks += len(l.Breaks)
	}
	return records, chained, older, breaks
}

// vline is one line of a lane, as the verifier keeps it.
type vline struct {
	file    string
	line    int
	id      string
	hash    string
	seq     uint64
	prev    string
	chained bool
}

func (v *vline) brk(why string, args ...any) ChainBreak {
	return ChainBreak{File: v.file, Line: v.line, ID: v.id, Why: fmt.Sprintf(why, args...)}
}

func (v *vline) where() string {
	s := v.file + ":" + strconv.Itoa(v.line)
	if v.id != "" {
		s += " (" + v.id + ")"
	}
	return s
}

// Verify checks every lane's chain, file by file, oldest first: that each record names the
// exact line before it and counts on from it. It reports a changed record (the next one names
// other bytes), removed ones (seq skips), records out of order (a record names a line that is
// elsewhere) and lines that are not records, each by file, line and record id. Records before
// the chain began (an older hookctl's) are counted, not reported as breaks. err is for a log
// that cannot be read.
//
// What a chain on the same disk cannot show: records cut off the end of a lane, or whole
// oldest files removed, as rotation removes them too; the collector's copy, which carries each
// record's hash, is the witness for those.
func (l *Log) Verify() (*VerifyReport, error) {
	files, damage, err := l.snapshot()
	if err != nil {
		return nil, err
	}
	defer closeAll(files)
	rep := &VerifyReport{}
	for _, d := range damage {
		rep.Unread = append(rep.Unread, ChainBreak{File: d.File, Line: d.Line, Why: d.Why})
	}
	for k := range l.lanes() {
		lr := LaneReport{Lane: k}
		var lines []*vline
		for _, f := range files {
			if f.lane != k {
				continue
			}
			lr.Files++
			var prevEnd int64
			for _, d := range l.readFile(f, 0, func(r Record) error {
				v := &vline{file: r.File, line: r.Line, hash: LineHash(r.Raw)}
				v.id = recordID(r.Raw)
				// The fields are read past white space an edit may have added (the hash is of
				// the exact bytes, so the edit is still found).
				v.seq, v.prev, v.chained = ChainFields(bytes.TrimRight(r.Raw, " \t\r"))
				if r.Offset != prevEnd {
					lr.Breaks = append(lr.Breaks, v.brk("bytes %d to %d before it are not records (blank or over-long lines): inserted or edited", prevEnd, r.Offset))
				}
				prevEnd = r.End
				lines = append(lines, v)
				return nil
			}) {
				switch {
				case d.Line > 0 && f.current && strings.Contains(d.Why, "no newline"):
					lr.Notes = append(lr.Notes, d.String()+" (not a record; not part of the chain)")
				default:
					lr.Breaks = append(lr.Breaks, ChainBreak{File: d.File, Line: d.Line, Why: d.Why})
				}
			}
		}
		lr.Records = len(lines)
		verifyLane(&lr, lines)
		if lr.Files > 0 {
			rep.Lanes = append(rep.Lanes, lr)
		}
	}
	return rep, nil
}

// recordID is a record's "id", which both logs write first; "" for a line that does not begin
// with one. (Decoding every line would cost more than hashing it.)
func recordID(line []byte) string {
	rest, ok := bytes.CutPrefix(line, []byte(`{"id":"`))
	if !ok {
		return ""
	}
	id, _, ok := bytes.Cut(rest, []byte(`"`))
	if !ok || len(id) > 64 {
		return ""
	}
	return string(id)
}

// verifyLane checks the links of one lane's lines, in order.
func verifyLane(lr *LaneReport, lines []*vline) {
	where := map[string]int{} // a line's hash → its index
	for i, v := range lines {
		if _, dup := where[v.hash]; !dup {
			where[v.hash] = i
		}
	}
	started := false
	for i, v := range lines {
		var before *vline
		if i > 0 {
			before = lines[i-1]
		}
		if !v.chained {
			if started {
				lr.Breaks = append(lr.Breaks, v.brk("no chain fields after the chain began: inserted, or written by a hookctl older than the chain"))
			} else {
				lr.Unchained++
			}
			continue
		}
		lr.Chained++
		if !started {
			started = true
			switch {
			case before == nil && v.prev == GenesisHash && v.seq == 1:
			case before == nil:
				lr.Notes = append(lr.Notes, fmt.Sprintf("the chain begins at %s, record %d of the lane: the %d before it are not here (rotated away, or removed)", v.where(), v.seq, v.seq-1))
			case v.prev != before.hash:
				lr.Breaks = append(lr.Breaks, v.brk("does not name the line before it (%s), the last written before the chain began: that line was changed, or records removed", before.where()))
			}
			continue
		}
		if v.prev == before.hash && v.seq == before.seq+1 {
			continue
		}
		j, elsewhere := where[v.prev]
		switch {
		case v.prev == GenesisHash:
			lr.Breaks = append(lr.Breaks, v.brk("starts a new chain after %s: the records before it were replaced, or it was inserted", before.where()))
		case elsewhere && j != i-1:
			lr.Breaks = append(lr.Breaks, v.brk("out of order: it follows %s in the chain, but comes after %s", lines[j].where(), before.where()))
		case v.prev == before.hash:
			lr.Breaks = append(lr.Breaks, v.brk("is record %d of the lane after record %d: its count was changed", v.seq, before.seq))
		case v.seq == before.seq+1:
			lr.Breaks = append(lr.Breaks, before.brk("changed: %s, the record after it, names other bytes", v.where()))
		case v.seq > before.seq+1:
			lr.Breaks = append(lr.Breaks, v.brk("%d record(s) removed between %s and it (it is record %d of the lane, after record %d)", v.seq-before.seq-1, before.where(), v.seq, before.seq))
		default:
			lr.Breaks = append(lr.Breaks, v.brk("out of order: it is record %d of the lane, after record %d (%s)", v.seq, before.seq, before.where()))
		}
	}
}
