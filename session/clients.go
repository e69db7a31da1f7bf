package session

import (
	"bytes"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/hookctl/hookctl/internal/fsutil"
)

// Clients: which running client process is in which session.
//
// The hook is started by the client process itself (Claude Code runs a hook's exec form
// directly: 2.1.328, live), and so are the shells of the user's `! cmd` and of the agent's Bash
// tool. So the hook notes, on each call, "the client process P (pid and start time) is in
// session S", and `hookctl readonly` typed in that client's shell finds P among its own
// ancestors and so its session. A process cannot choose its ancestors (short of leaving them,
// which only makes it look like a terminal outside any session), so unlike the client's
// CLAUDE_CODE_SESSION_ID, which the agent can set for a command it runs, the answer cannot be
// pointed at another session. The start time keeps a reused pid from counting.
//
// Where the system gives no process table hookctl can read (not Linux), nothing is noted, and
// `hookctl readonly` falls back to the project's sessions, refusing when there are several.

// clientsSubdir holds one file per client process: "<pid>-<start>", holding a session id.
const clientsSubdir = "clients"

// maxAncestry bounds the walk up the process tree.
const maxAncestry = 32

// Proc is one process as the kernel describes it.
type Proc struct {
	PID, PPID int
	Start     uint64 // clock ticks after boot: with the pid, names the process for its lifetime
}

// ReadProc reads a process's parent and start time; ok is false where it cannot (the process
// is gone, or the system has no /proc).
func ReadProc(pid int) (Proc, bool) {
	b, err := fsutil.ReadFile("/proc/"+strconv.Itoa(pid)+"/stat", 16<<10, true)
	if err != nil {
		return Proc{}, false
	}
	// "pid (comm) state ppid … starttime …": comm may hold spaces and parentheses, so the
	// fields are counted from the last ')'.
	i := bytes.LastIndexByte(b, ')')
	if i < 0 {
		return Proc{}, false
	}
	f := strings.Fields(string(b[i+1:]))
	if len(f) < 20 {
		return Proc{}, false
	}
	ppid, err1 := strconv.Atoi(f[1])
	start, err2 := strconv.ParseUint(f[19], 10, 64)
	if err1 != nil || err2 != nil {
		return Proc{}, false
	}
	return Proc{PID: pid, PPID: ppid, Start: start}, true
}

// Ancestors are the processes above pid, its parent first, up to init.
func Ancestors(pid int) []Proc {
	var out []Proc
	p, ok := ReadProc(pid)
	for i := 0; ok && p.PPID > 1 && i < maxAncestry; i++ {
		p, ok = ReadProc(p.PPID)
		if ok {
			out = append(out, p)
		}
	}
	return out
}

func (s *Store) clientsDir() string { return filepath.Join(s.Dir, clientsSubdir) }

func (s *Store) clientPath(p Proc) string {
	return filepath.Join(s.clientsDir(), strconv.Itoa(p.PID)+"-"+strconv.FormatUint(p.Start, 10))
}

// NoteClient records that the hook's parent, the client process, is in session id; isClient,
// if set, must confirm that the parent is the client (and not a shell where someone piped a
// payload into `hookctl hook` by hand). It is best effort: a failure only means `hookctl
// readonly` cannot tell this client's session from its shell, and then refuses rather than
// guess. It writes only when the client moved to another session (a new one after /clear,
// another after /resume), so a call costs two reads.
func (s *Store) NoteClient(id string, isClient func(pid int) bool) {
	if ValidSessionID(id) != nil {
		return
	}
	ppid := os.Getppid()
	if ppid <= 1 || isClient != nil && !isClient(ppid) {
		return // not under a client: nothing to read of it
	}
	p, ok := ReadProc(ppid)
	if !ok {
		return
	}
	path := s.clientPath(p)
	if b, err := fsutil.ReadFile(path, 256, true); err == nil && string(b) == id+"\n" {
		return
	}
	if os.MkdirAll(s.clientsDir(), 0o700) != nil {
		return
	}
	fsutil.WriteAtomic(path, []byte(id+"\n"), 0o600)
}

// ClientSession is the session of the nearest client process above pid that the hook has
// noted, and that process; ok is false when no ancestor is a noted client.
func (s *Store) ClientSession(pid int) (id string, client Proc, ok bool) {
	for _, a := range Ancestors(pid) {
		if id, ok := s.readClient(a); ok {
			return id, a, true
		}
	}
	return "", Proc{}, false
}

func (s *Store) readClient(p Proc) (string, bool) {
	b, err := fsutil.ReadFile(s.clientPath(p), 256, true)
	if err != nil {
		return "", false
	}
	id := strings.TrimSuffix(string(b), "\n")
	return id, ValidSessionID(id) == nil
}

// LiveClients maps each session to the number of running client processes in it. A record
// whose process is gone is removed when prune is set (a toggle; status only reads).
func (s *Store) LiveClients(prune bool) map[string]int {
	live := map[string]int{}
	entries, err := os.ReadDir(s.clientsDir())
	if err != nil {
		return live
	}
	for _, e := range entries {
		pidStr, startStr, ok := strings.Cut(e.Name(), "-")
		pid, err1 := strconv.Atoi(pidStr)
		start, err2 := strconv.ParseUint(startStr, 10, 64)
		if !ok || err1 != nil || err2 != nil || !e.Type().IsRegular() {
			continue
		}
		want := Proc{PID: pid, Start: start}
		if p, ok := ReadProc(pid); !ok || p.Start != start {
			if prune {
				os.Remove(s.clientPath(want))
			}
			continue
		}
		if id, ok := s.readClient(want); ok {
			live[id]++
		}
	}
	return live
}

// LastUsed is when the hook last saw session id (the state file's time, which Touch moves).
func (s *Store) LastUsed(id string) (time.Time, error) {
	if err := ValidSessionID(id); err != nil {
		return time.Time{}, err
	}
	fi, err := os.Lstat(s.path(id))
	if errors.Is(err, fs.ErrNotExist) {
		return time.Time{}, ErrNoSession
	}
	if err != nil {
		return time.Time{}, err
	}
	return fi.ModTime(), nil
}
