package session

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"time"

	"github.com/tidwall/gjson"

	"github.com/hookctl/hookctl/hook"
	"github.com/hookctl/hookctl/internal/clip"
	"github.com/hookctl/hookctl/internal/fsutil"
	"github.com/hookctl/hookctl/internal/wordlist"
)

// Session is one agent session's state: its mode and how it got there. Subagents share their
// session's id, and so its mode.
type Session struct {
	ID      string    `json:"id"`
	Mode    hook.Mode `json:"mode"`
	Cwd     string    `json:"cwd"` // where the session was first seen
	Started time.Time `json:"started"`
	History []Change  `json:"history"`
	// LastPrompt is the id of the last prompt that changed the mode, so that a prompt seen by
	// two hook events toggles once.
	LastPrompt string `json:"last_prompt,omitempty"`
	// Remotes are the hosts of the project's remotes when the session was first seen, as its
	// project's record had them (projects.go); edit mode's egress proxy reads the record.
	Remotes []string `json:"remotes,omitempty"`
}

// Change is one mode change, kept in the session's history.
type Change struct {
	Time time.Time `json:"time"`
	From hook.Mode `json:"from"`
	To   hook.Mode `json:"to"`
	How  string    `json:"how"` // "new" (first seen), "prompt", "cli", "dashboard"
}

// Limits of the state store.
const (
	maxStateFile = 256 << 10
	// maxHistory keeps a state file small: the hook reads and checks the whole file on every call.
	maxHistory = 200
	// ToggleLockWait is the longest a toggle waits for another writer of the same session. Only
	// toggles hold the lock, each for the few milliseconds of one write; a holder past this is
	// not hookctl (an agent can hold any file it can open), and the toggle goes ahead without
	// it: the human's toggle must land within a second whatever else is running. The cost is
	// that toggles queued behind a writer stalled this long may lose each other's history entry;
	// the mode set last still lands.
	ToggleLockWait = 600 * time.Millisecond
	maxSessionID   = 128
	sessionsSubdir = "sessions"
)

// Store keeps sessions under a directory, one JSON file per session.
//
// Who writes a session file: the hook creates it, once, for a session it has not seen (by
// linking a complete file into place, which fails rather than overwrite one that exists), and
// only the human's toggles ever rewrite it (replacing it atomically: temporary file, sync,
// rename). Toggles take the session's lock to keep each other's history, but never wait on it
// longer than ToggleLockWait. Readers never lock and never see a half-written file; every reader
// — the hook, the status line, the toggles, `readonly status` — goes through the one strict
// reader (readState), so none can see a mode another does not.
type Store struct {
	Dir string
}

// NewStore returns the store under hookctl's home directory.
func NewStore(home string) *Store { return &Store{Dir: filepath.Join(home, sessionsSubdir)} }

// ValidSessionID reports whether id can name a state file: letters, digits, '-', '_' and '.',
// not starting with '.', at most 128 bytes. Claude Code's ids are UUIDs.
func ValidSessionID(id string) error {
	if id == "" || len(id) > maxSessionID || id[0] == '.' {
		return fmt.Errorf("invalid session id %q", clip.Short(id))
	}
	for i := 0; i < len(id); i++ {
		c := id[i]
		if !('a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9' || c == '-' || c == '_' || c == '.') {
			return fmt.Errorf("invalid session id %q", clip.Short(id))
		}
	}
	return nil
}

func (s *Store) path(id string) string     { return filepath.Join(s.Dir, id+".json") }
func (s *Store) lockPath(id string) string { return filepath.Join(s.Dir, id+".lock") }

// ErrNoSession is returned for a session the store has not seen.
var ErrNoSession = errors.New("no such session")

// stateKey returns the JSON type of a key a state file may hold.
func stateKey(k string) (gjson.Type, bool) {
	switch k {
	case "id", "mode", "cwd", "started", "last_prompt", checkKey:
		return gjson.String, true
	case "history", "remotes":
		return gjson.JSON, true
	}
	return 0, false
}

// readState reads and checks a session's state file: the one reader of state. A missing file
// is ErrNoSession. Anything else that is not exactly a state file hookctl wrote — not a regular
// file, a symbolic link, too large, not valid JSON, a duplicate key at any depth (two readers
// would take different ones), an unknown key, a key of the wrong type, no mode, a mode that is
// not read-only, edit or review, another session's id — is an error, and every caller treats the
// session as read-only and says why.
func (s *Store) readState(id string) (gjson.Result, []byte, error) {
	root, b, _, err := s.readStateAt(id)
	return root, b, err
}

// readStateAt is readState, also returning when the file was last changed or touched.
func (s *Store) readStateAt(id string) (root gjson.Result, b []byte, used time.Time, err error) {
	// A toggle that found the disk full rewrites the file in place, and a read at that moment
	// can see part of each: it fails the check. A second read, a moment later, tells a torn
	// read from a torn file.
	for try := 0; ; try++ {
		root, b, used, err = s.readStateOnce(id)
		if !errors.Is(err, errTorn) || try == 2 {
			return root, b, used, err
		}
		time.Sleep(2 * time.Millisecond)
	}
}

// errTorn is a state file that fails its check (tornError).
var errTorn = errors.New("torn")

type tornError struct{ error }

func (tornError) Is(target error) bool { return target == errTorn }

func (s *Store) readStateOnce(id string) (gjson.Result, []byte, time.Time, error) {
	if err := ValidSessionID(id); err != nil {
		return gjson.Result{}, nil, time.Time{}, err
	}
	path := s.path(id)
	b, mod, err := fsutil.ReadFileModTime(path, maxStateFile, true)
	if errors.Is(err, fs.ErrNotExist) {
		return gjson.Result{}, nil, time.Time{}, ErrNoSession
	}
	if err != nil {
		return gjson.Result{}, nil, time.Time{}, fmt.Errorf("failed to read the state of session %s: %w", id, err)
	}
	root, err := parseState(id, path, b)
	if err != nil {
		return gjson.Result{}, nil, time.Time{}, err
	}
	return root, b, mod, nil
}

// parseState checks b, the state file of session id at path, as readState says.
func parseState(id, path string, b []byte) (gjson.Result, error) {
	damaged := func(format string, args ...any) (gjson.Result, error) {
		return gjson.Result{}, fmt.Errorf("the state file %s is damaged: %s", path, fmt.Sprintf(format, args...))
	}
	if !gjson.ValidBytes(b) {
		return damaged("not valid JSON")
	}
	root := gjson.ParseBytes(b)
	if !root.IsObject() {
		return damaged("not an object")
	}
	if why := checkSeal(b, root); why != "" {
		_, err := damaged("%s", why)
		return gjson.Result{}, tornError{err}
	}
	if dup := DuplicateKey(root); dup != "" {
		return damaged("the key %q appears twice", clip.Short(dup))
	}
	var bad string
	root.ForEach(func(k, v gjson.Result) bool {
		want, ok := stateKey(k.Str)
		switch {
		case !ok:
			bad = fmt.Sprintf("unknown key %q", clip.Short(k.Str))
		case want == gjson.JSON && !v.IsArray():
			bad = fmt.Sprintf("%s is not a list", k.Str)
		case want != gjson.JSON && v.Type != want:
			bad = fmt.Sprintf("%s is not a string", k.Str)
		}
		return bad == ""
	})
	if bad != "" {
		return damaged("%s", bad)
	}
	if got := root.Get("id"); got.Str != id {
		return damaged("it names session %q", clip.Short(got.Str))
	}
	m := root.Get("mode")
	if !m.Exists() {
		return damaged("no mode")
	}
	if _, err := hook.ParseMode(m.Str); err != nil {
		return damaged("%v", err)
	}
	if st := root.Get("started"); st.Exists() && !validTime(st.Str) {
		return damaged("started is not a time")
	}
	if bad := checkHistory(root.Get("history")); bad != "" {
		return damaged("history: %s", bad)
	}
	var badRemote bool
	root.Get("remotes").ForEach(func(_, v gjson.Result) bool {
		badRemote = v.Type != gjson.String
		return !badRemote
	})
	if badRemote {
		return damaged("remotes: an entry is not a string")
	}
	return root, nil
}

// changeKeys are the keys of one history entry.
const changeKeys = "time from to how"

// checkHistory checks what Load would decode of the history, so that Load and Peek can never
// disagree about a file.
func checkHistory(h gjson.Result) string {
	var bad string
	h.ForEach(func(_, c gjson.Result) bool {
		if !c.IsObject() {
			bad = "an entry is not an object"
			return false
		}
		c.ForEach(func(k, v gjson.Result) bool {
			switch {
			case !wordlist.Has(changeKeys, k.Str):
				bad = fmt.Sprintf("unknown key %q", clip.Short(k.Str))
			case v.Type != gjson.String:
				bad = k.Str + " is not a string"
			case k.Str == "time" && !validTime(v.Str):
				bad = "a time is not a time"
			case k.Str == "from" || k.Str == "to":
				if _, err := hook.ParseMode(v.Str); err != nil {
					bad = err.Error()
				}
			}
			return bad == ""
		})
		return bad == ""
	})
	return bad
}

func validTime(s string) bool {
	_, err := time.Parse(time.RFC3339Nano, s)
	return err == nil
}

// DuplicateKey returns a key that appears twice in one object anywhere in v, or "". Readers of
// JSON disagree on which of two values counts (gjson takes the first, encoding/json the last),
// so hookctl refuses such input rather than read it.
func DuplicateKey(v gjson.Result) string {
	return duplicateKey(v, 0)
}

func duplicateKey(v gjson.Result, depth int) string {
	if depth > 64 {
		return "(nested too deeply)"
	}
	var dup string
	switch {
	case v.IsObject():
		var seen map[string]bool
		v.ForEach(func(k, x gjson.Result) bool {
			if seen == nil {
				seen = make(map[string]bool, 8)
			}
			if seen[k.Str] {
				dup = k.Str
				return false
			}
			seen[k.Str] = true
			if x.IsObject() || x.IsArray() {
				dup = duplicateKey(x, depth+1)
			}
			return dup == ""
		})
	case v.IsArray():
		v.ForEach(func(_, x gjson.Result) bool {
			if x.IsObject() || x.IsArray() {
				dup = duplicateKey(x, depth+1)
			}
			return dup == ""
		})
	}
	return dup
}

// Load reads a session. A missing session is ErrNoSession; a damaged one is another error,
// which callers must treat as read-only.
func (s *Store) Load(id string) (*Session, error) {
	_, b, err := s.readState(id)
	if err != nil {
		return nil, err
	}
	var sess Session
	if err := json.Unmarshal(b, &sess); err != nil {
		return nil, fmt.Errorf("the state file %s is damaged: %v", s.path(id), err)
	}
	return &sess, nil
}

// Peek reads a session's mode and directory, as Load does but without decoding the history: it
// is the hook's lookup on every call, and encoding/json's first use costs more than the rest of
// the lookup together. It checks exactly what Load checks (readState).
func (s *Store) Peek(id string) (hook.Mode, string, error) {
	mode, cwd, _, err := s.PeekUsed(id)
	return mode, cwd, err
}

// PeekUsed is Peek, also returning when the session was last used (LastUsed).
func (s *Store) PeekUsed(id string) (hook.Mode, string, time.Time, error) {
	root, _, used, err := s.readStateAt(id)
	if err != nil {
		return hook.ModeReadOnly, "", time.Time{}, err
	}
	mode, _ := hook.ParseMode(root.Get("mode").Str) // checked by readState
	return mode, root.Get("cwd").Str, used, nil
}

// Record notes a session the hook has not seen, in mode def. It never changes an existing
// session, damaged or not: the mode is the human's, and a damaged file stays for the human to
// see and repair with a toggle.
func (s *Store) Record(id, cwd string, def hook.Mode) (*Session, error) {
	if err := ValidSessionID(id); err != nil {
		return nil, err
	}
	if err := os.MkdirAll(s.Dir, 0o700); err != nil {
		return nil, fmt.Errorf("failed to create %s: %w", s.Dir, err)
	}
	now := time.Now().UTC()
	sess := &Session{ID: id, Mode: def, Cwd: cwd, Started: now, History: []Change{{Time: now, From: def, To: def, How: "new"}},
		Remotes: s.noteProject(cwd)}
	j, err := encodeState(sess)
	if err != nil {
		return nil, err
	}
	switch err := fsutil.CreateExclusive(s.path(id), sealState(j, 0), 0o600); {
	case err == nil:
		s.makeClaimShards(id)
		return sess, nil
	case errors.Is(err, fs.ErrExist):
		return s.Load(id) // another hook created it first
	default:
		return nil, err
	}
}

// update rewrites a session: fn receives the stored session, or nil and the reason there is none
// (ErrNoSession, or why the file is damaged), and returns what to write (nil: nothing). Only the
// human's toggles call it. It takes the session's lock for at most ToggleLockWait and then goes
// ahead without it; it never leaves the lock to decide whether the human's change lands.
func (s *Store) update(id string, fn func(old *Session, loadErr error) (*Session, error)) (*Session, error) {
	if err := ValidSessionID(id); err != nil {
		return nil, err
	}
	if err := os.MkdirAll(s.Dir, 0o700); err != nil {
		return nil, fmt.Errorf("failed to create %s: %w", s.Dir, err)
	}
	// Once the change has landed and the lock is released, whether it wrote or not: what killed
	// writers left here (temporary files, and what a repair moved aside).
	defer func() {
		fsutil.RemoveStrays(s.Dir, "", maxStrays)
		fsutil.RemoveStrays(s.clientsDir(), "", maxStrays)
	}()
	if unlock, err := fsutil.Lock(s.lockPath(id), ToggleLockWait); err == nil {
		defer unlock()
	}
	old, loadErr := s.Load(id)
	next, err := fn(old, loadErr)
	if err != nil || next == nil {
		return old, err
	}
	if len(next.History) > maxHistory {
		next.History = next.History[len(next.History)-maxHistory:]
	}
	if err := s.writeState(id, next); err != nil {
		return nil, err
	}
	return next, nil
}

// maxStrays bounds how many stray files a toggle removes, so that a directory someone filled
// with them cannot delay the toggle; the next toggle removes more.
const maxStrays = 1000

// encodeState is the session as JSON, before sealState (a file from before the check).
func encodeState(sess *Session) ([]byte, error) {
	if sess.History == nil {
		sess.History = []Change{} // a list, as readState requires, never null
	}
	b, err := json.MarshalIndent(sess, "", "  ")
	if err != nil {
		return nil, err
	}
	return append(b, '\n'), nil
}

// Touch marks a session as used now: its last activity, which `readonly status` shows and List
// sorts by. It changes the file's times only, never its content, so it needs no lock.
func (s *Store) Touch(id string) {
	if ValidSessionID(id) == nil {
		now := time.Now()
		os.Chtimes(s.path(id), now, now)
	}
}

// touchEvery is how stale a session's last use may be before the hook moves it: the hook
// reads the time with the state on every call, and changing it takes the file's lock in the
// kernel, which hundreds of hooks of one session would queue for. Minutes are what `readonly
// status` shows.
const touchEvery = 30 * time.Second

// touchStale is Touch, unless the session was marked used within touchEvery of now.
func (s *Store) TouchStale(id string, used time.Time) {
	if time.Since(used) > touchEvery {
		s.Touch(id)
	}
}

// List returns every readable session, most recently used first. A damaged one is left out
// here; `readonly status --session` names it and why.
func (s *Store) List() ([]*Session, error) {
	entries, err := os.ReadDir(s.Dir)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	type item struct {
		s    *Session
		used time.Time
	}
	var items []item
	for _, e := range entries {
		id, ok := strings.CutSuffix(e.Name(), ".json")
		if !ok || ValidSessionID(id) != nil || !e.Type().IsRegular() {
			continue
		}
		info, ierr := e.Info()
		sess, err := s.Load(id)
		if err != nil || ierr != nil {
			continue
		}
		items = append(items, item{sess, info.ModTime()})
	}
	sort.Slice(items, func(i, j int) bool { return items[i].used.After(items[j].used) })
	out := make([]*Session, len(items))
	for i, it := range items {
		out[i] = it.s
	}
	return out, nil
}
