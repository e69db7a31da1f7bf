package session

import (
	"errors"
	"hash/fnv"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"time"
)

// Calls registered twice. A user's own install and a project's committed registration name
// hookctl differently (the user's binary directly; the project's through Wrapper), so Claude
// Code runs both for every tool call: two hookctl processes, one payload. Both decide, and
// decide alike, for they read the same state and config; the client takes the stricter answer.
// What must happen once is what a decision does besides answering: the decision-log line, the
// notice of a mode change spent, the publish audited, the retrieval made. The first process to
// claim the call does those; the other answers without them (docs/decisions/0009).

// callsSuffix names a session's directory of claimed calls, "<session>.calls".
const callsSuffix = ".calls"

// claimShards is how many directories a session's claims are spread over.
const claimShards = 32

// staleCalls is the age past which a session's claims are garbage: a session that ended
// without SessionEnd (a crash) leaves them.
const staleCalls = 24 * time.Hour

func (s *Store) callsDir(session string) string { return filepath.Join(s.Dir, session+callsSuffix) }

// Claim records that this process handles call id of session, for what (a hook instance:
// "gate", "retrieve"). It is false only when another process claimed it first. An id that
// cannot name a file, or a claim that cannot be written, claims: doing the side effects twice
// is the safe side, and the decision does not depend on it.
//
// A claim is a hard link to the session's anchor file, made where the claim's name must not
// exist yet: it fails if another process made it first, as creating the file exclusively
// would, but needs no new inode. Allocating one was a quarter of a millisecond of every call on
// ext4 without a journal, which scans for an inode not recently freed. Where a link cannot be
// made (the anchor has the most links the filesystem allows, a filesystem without hard links)
// the claim is a file of its own, created exclusively.
func (s *Store) Claim(session, what, id string) bool {
	if ValidSessionID(session) != nil || ValidSessionID(id) != nil || ValidSessionID(what) != nil {
		return true
	}
	// In one of claimShards directories by the id's hash: every call of a session creates a
	// claim, and creating a name takes its directory's lock, which a burst of calls would
	// queue for.
	h := fnv.New32a()
	h.Write([]byte(id))
	dir := filepath.Join(s.callsDir(session), shardName(int(h.Sum32()%claimShards)))
	path := filepath.Join(dir, what+"-"+id)
	anchor := s.claimAnchor(session)
	err := os.Link(anchor, path)
	if errors.Is(err, fs.ErrNotExist) {
		s.makeClaimShards(session)
		if err = os.Link(anchor, path); errors.Is(err, fs.ErrNotExist) && os.MkdirAll(dir, 0o700) == nil {
			makeAnchor(anchor) // its maker has not made this shard, or the anchor, yet
			err = os.Link(anchor, path)
		}
	}
	if err != nil && !errors.Is(err, fs.ErrExist) {
		var f *os.File
		if f, err = os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_EXCL|syscall.O_NOFOLLOW|syscall.O_CLOEXEC, 0o600); err == nil {
			f.Close()
		}
	}
	return !errors.Is(err, fs.ErrExist)
}

// claimAnchor is the file every claim of session is a link to.
func (s *Store) claimAnchor(session string) string {
	return filepath.Join(s.callsDir(session), "anchor")
}

// makeAnchor creates a session's anchor, unless it exists.
func makeAnchor(path string) {
	if f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_EXCL|syscall.O_NOFOLLOW|syscall.O_CLOEXEC, 0o600); err == nil {
		f.Close()
	}
}

// makeClaimShards creates the directories of a session's claims, and the anchor they link to:
// all of them, by whoever creates the session's directory (Record does, as it records the
// session), so that the calls of a burst do not each create the one they need and queue on the
// directory's lock for it.
func (s *Store) makeClaimShards(session string) {
	calls := s.callsDir(session)
	err := os.Mkdir(calls, 0o700)
	if errors.Is(err, fs.ErrNotExist) && os.MkdirAll(s.Dir, 0o700) == nil {
		err = os.Mkdir(calls, 0o700)
	}
	if err != nil {
		return // made by another, which makes the shards
	}
	makeAnchor(s.claimAnchor(session))
	for i := range claimShards {
		os.Mkdir(filepath.Join(calls, shardName(i)), 0o700)
	}
}

// shardName is shard i's directory: two hex digits.
func shardName(i int) string {
	const digits = "0123456789abcdef"
	return string([]byte{digits[i>>4&15], digits[i&15]})
}

// ForgetCalls removes session's claims, when it ends.
func (s *Store) ForgetCalls(session string) {
	if ValidSessionID(session) == nil {
		os.RemoveAll(s.callsDir(session))
	}
}

// PruneCalls removes the claims of sessions idle for staleCalls.
func (s *Store) PruneCalls() {
	entries, err := os.ReadDir(s.Dir)
	if err != nil {
		return
	}
	for _, e := range entries {
		id, ok := strings.CutSuffix(e.Name(), callsSuffix)
		if !ok || !e.IsDir() || ValidSessionID(id) != nil {
			continue
		}
		if fi, err := e.Info(); err == nil && time.Since(fi.ModTime()) > staleCalls {
			os.RemoveAll(filepath.Join(s.Dir, e.Name()))
		}
	}
}
