package session

import (
	"bytes"
	"encoding/binary"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"sync"
	"syscall"

	"github.com/tidwall/gjson"

	"github.com/hookctl/hookctl/internal/fsutil"
)

// The state file on disk. The human's toggle must land when the disk is full: a toggle to
// read-only is the one write that must never fail, and a replacement file needs room. So a
// state file keeps room: it is the session's JSON, then spaces up to a whole number of
// stateBlock bytes with at least stateSlack to spare, and a toggle that finds no room for a new
// file rewrites this one in place, within the room it has (dropping the oldest history entries
// if it must), and syncs it.
//
// A write in place can be torn: a crash part way, two writers at once. So the file carries a
// check, its first key, a CRC-32C of the JSON (with the check's digits as zeros): a torn file
// fails the check and reads as damaged, which every reader treats as read-only, never as the
// wider of the two modes it was torn between. A file without a check (written before
// hookctl kept one) is read only if it is not padded: a padded file has been written in place.
//
// A write in place needs no room on filesystems that overwrite blocks where they are (ext4,
// xfs, tmpfs); one that copies on write (btrfs, zfs) may still want room, and there the toggle
// can fail on a full disk as before, saying why.

const (
	stateBlock = 4096
	stateSlack = 2048
	checkKey   = "check"
	checkAlgo  = "crc32c:"
)

// crc32c is the CRC-32C of b, a byte at a time from a 256-entry table made on first use. Not
// hash/crc32: its Castagnoli table builds the SSE 4.2 tables on first use, hashing 1.5 MB, which
// was 0.2 ms of every hook call (a third of its own work) for a check over 1 KiB; this costs a
// few microseconds. The table is an array, so nothing is allocated at start-up
// (internal/buildcheck).
func crc32c(b []byte) uint32 {
	castagnoliOnce.Do(func() {
		const poly = 0x82f63b78 // Castagnoli's, reversed
		for i := range castagnoliTable {
			c := uint32(i)
			for range 8 {
				c = c>>1 ^ poly&-(c&1)
			}
			castagnoliTable[i] = c
		}
	})
	crc := ^uint32(0)
	for _, x := range b {
		crc = castagnoliTable[byte(crc)^x] ^ crc>>8
	}
	return ^crc
}

var (
	castagnoliOnce  sync.Once
	castagnoliTable [256]uint32
)

// checkDigits is the check of b as the file spells it: eight lower-case hex digits.
func checkDigits(b []byte) string {
	return hex.EncodeToString(binary.BigEndian.AppendUint32(nil, crc32c(b)))
}

// sealState turns j (a JSON object as encodeState writes it: "{\n  \"id\": …}\n") into the
// file: the check as the first key, then j, then spaces to size bytes (0: the reserve for j).
// A result longer than size means j does not fit.
func sealState(j []byte, size int) []byte {
	const placeholder = "00000000"
	out := make([]byte, 0, max(size, len(j)+64+stateSlack))
	out = append(out, "{\n  \""+checkKey+"\": \""+checkAlgo+placeholder+"\","...)
	out = append(out, bytes.TrimPrefix(j, []byte("{"))...)
	at := bytes.Index(out, []byte(placeholder))
	end := bytes.LastIndexByte(out, '}') + 1
	copy(out[at:], checkDigits(out[:end]))
	if size == 0 {
		size = (len(out) + stateSlack + stateBlock - 1) / stateBlock * stateBlock
	}
	for len(out) < size-1 {
		out = append(out, ' ')
	}
	if len(out) < size {
		out = append(out, '\n')
	}
	return out
}

// checkSeal says why b, a state file whose JSON root is root, was not written whole, or "".
func checkSeal(b []byte, root gjson.Result) string {
	end := bytes.LastIndexByte(b, '}') + 1 // the padding holds no brace
	c := root.Get(checkKey)
	if !c.Exists() {
		if len(bytes.TrimRight(b[end:], "\n")) > 0 {
			return "padded, but without a check"
		}
		return ""
	}
	hex, ok := bytes.CutPrefix([]byte(c.Str), []byte(checkAlgo))
	if c.Type != gjson.String || !ok || len(hex) != 8 || c.Index <= 0 || c.Index+len(c.Raw) > end {
		return "its check is not one hookctl writes"
	}
	zeroed := bytes.Clone(b[:end])
	digits := c.Index + 1 + len(checkAlgo)
	copy(zeroed[digits:digits+8], "00000000")
	if checkDigits(zeroed) != string(hex) {
		return "it fails its check (a write was cut short, or two met)"
	}
	return ""
}

// writeStateInPlace rewrites the state file at path, within the room it has, and syncs it: for
// a toggle that found no room for a new file. Oldest history entries are dropped if the
// session no longer fits. The file must be a regular file.
func writeStateInPlace(path string, sess *Session) error {
	f, err := os.OpenFile(path, os.O_WRONLY|syscall.O_NOFOLLOW|syscall.O_NONBLOCK|syscall.O_CLOEXEC, 0)
	if err != nil {
		return err
	}
	defer f.Close()
	var st syscall.Stat_t
	if err := syscall.Fstat(int(f.Fd()), &st); err != nil {
		return err
	}
	if st.Mode&syscall.S_IFMT != syscall.S_IFREG {
		return fsutil.ErrNotRegular
	}
	room := roomOf(st)
	trimmed := *sess
	for {
		j, err := encodeState(&trimmed)
		if err != nil {
			return err
		}
		b := sealState(j, int(room))
		if int64(len(b)) <= room {
			if _, err := f.WriteAt(b, 0); err != nil {
				return err
			}
			return f.Sync()
		}
		if len(trimmed.History) == 0 {
			return fmt.Errorf("the session does not fit in the %d bytes its file has", room)
		}
		trimmed.History = trimmed.History[1:]
	}
}

// roomOf is how many bytes a file can hold without the disk giving it more: its size, or up
// to the end of its last block when that block is allocated.
func roomOf(st syscall.Stat_t) int64 {
	room := st.Size
	if blk := int64(st.Blksize); blk > 0 && st.Blocks*512 > room {
		room = min(st.Blocks*512, (st.Size+blk-1)/blk*blk)
	}
	return room
}

// writeState writes a session's state file: a new file in its place when the disk has room,
// else the old one rewritten in place. Anything at path that is not a regular file (a
// directory, a FIFO, a link) is moved aside first: the toggle is how the human repairs it.
func (s *Store) writeState(id string, sess *Session) error {
	path := s.path(id)
	if fi, err := os.Lstat(path); err == nil && !fi.Mode().IsRegular() {
		if err := fsutil.MoveAside(path); err != nil {
			return fmt.Errorf("failed to move aside %s, which is not a regular file: %w", path, err)
		}
	}
	j, err := encodeState(sess)
	if err != nil {
		return err
	}
	err = fsutil.WriteAtomic(path, sealState(j, 0), 0o600)
	if err == nil {
		return nil
	}
	// No room for a new file (or no new file for another reason): the old one has room.
	if errIn := writeStateInPlace(path, sess); errIn != nil {
		if errors.Is(errIn, fs.ErrNotExist) {
			return err
		}
		return fmt.Errorf("%w; and in place: %v", err, errIn)
	}
	return nil
}
