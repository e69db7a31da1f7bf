package hook

import (
	"encoding/json"

	"errors"
	"fmt"

	"github.com/tidwall/gjson"

	"io"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"time"

	"github.com/hookctl/hookctl/internal/clip"
	"github.com/hookctl/hookctl/internal/fsutil"
)

// Session is one Claude Code session's state: its mode and how it got there. Subagents share
// their session's id, and so its mode.
type Session struct {
	ID      string    `json:"id"`
	Mode    Mode      `json:"mode"`
	Cwd     string    `json:"cwd"`
	Started time.Time `json:"started"`
	History []Change  `json:"history"`
	// LastPrompt is the id of the last prompt that changed the mode, so that a prompt seen by
	// two hook events (expansion, then submission) toggles once.
	LastPrompt string `json:"last_prompt,omitempty"`
}

// Change is one mode change, kept in the session's history.
type Change struct {
	Time time.Time `json:"time"`
	From Mode      `json:"from"`
	To   Mode      `json:"to"`
	How  string    `json:"how"` // "new" (first seen), "prompt", "cli", "dashboard"
}

// MarshalText writes a mode as "read-only" or "edit".
func (m Mode) MarshalText() ([]byte, error) { return []byte(m.String()), nil }

// UnmarshalText reads a mode; anything else is an error, so a damaged file cannot decode to edit.
func (m *Mode) UnmarshalText(b []byte) error {
	mode, err := ParseMode(string(b))
	if err != nil {
		return err
	}
	*m = mode
	return nil
}

// ParseMode reads "read-only" or "edit".
func ParseMode(s string) (Mode, error) {
	switch s {
	case "read-only":
		return ModeReadOnly, nil
	case "edit":
		return ModeEdit, nil
	}
	return ModeReadOnly, fmt.Errorf("unknown mode %q (want read-only or edit)", clip.Short(s))
}

// Limits of the state store.
const (
	maxStateFile   = 1 << 20
	maxHistory     = 10000
	lockWait       = 1500 * time.Millisecond
	maxSessionID   = 128
	sessionsSubdir = "sessions"
)

// Store keeps sessions under a directory, one JSON file per session. Writers take an exclusive
// lock on the session's lock file and replace the state file atomically (write a temporary file,
// sync it, rename it over the old one, sync the directory); readers never lock and never see a
// half-written file. A crash leaves either the old state or the new, and at worst a stray
// temporary file.
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

// ErrNoSession is returned by Load for a session the store has not seen.
var ErrNoSession = errors.New("no such session")

// Load reads a session without locking. A missing session is ErrNoSession; an unreadable or
// damaged one is another error, which callers must treat as read-only.
func (s *Store) Load(id string) (*Session, error) {
	if err := ValidSessionID(id); err != nil {
		return nil, err
	}
	b, err := readCapped(s.path(id), maxStateFile)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, ErrNoSession
	}
	if err != nil {
		return nil, fmt.Errorf("failed to read the state of session %s: %w", id, err)
	}
	var sess Session
	if err := json.Unmarshal(b, &sess); err != nil {
		return nil, fmt.Errorf("the state file %s is damaged: %v", s.path(id), err)
	}
	if sess.ID != id {
		return nil, fmt.Errorf("the state file %s names session %q", s.path(id), clip.Short(sess.ID))
	}
	return &sess, nil
}

// Peek reads a session's mode and directory, as Load does but without decoding the history:
// it is the hook's lookup on every call, and encoding/json's first use costs more than the
// rest of the lookup together. The same damage is refused.
func (s *Store) Peek(id string) (Mode, string, error) {
	if err := ValidSessionID(id); err != nil {
		return ModeReadOnly, "", err
	}
	b, err := readCapped(s.path(id), maxStateFile)
	if errors.Is(err, fs.ErrNotExist) {
		return ModeReadOnly, "", ErrNoSession
	}
	if err != nil {
		return ModeReadOnly, "", fmt.Errorf("failed to read the state of session %s: %w", id, err)
	}
	if !gjson.ValidBytes(b) {
		return ModeReadOnly, "", fmt.Errorf("the state file %s is damaged: not valid JSON", s.path(id))
	}
	root := gjson.ParseBytes(b)
	if !root.IsObject() {
		return ModeReadOnly, "", fmt.Errorf("the state file %s is damaged: not an object", s.path(id))
	}
	if got := root.Get("id"); got.Type != gjson.String || got.Str != id {
		return ModeReadOnly, "", fmt.Errorf("the state file %s names session %q", s.path(id), clip.Short(got.String()))
	}
	m := root.Get("mode")
	if m.Type != gjson.String {
		return ModeReadOnly, "", fmt.Errorf("the state file %s is damaged: no mode", s.path(id))
	}
	mode, err := ParseMode(m.Str)
	if err != nil {
		return ModeReadOnly, "", fmt.Errorf("the state file %s is damaged: %v", s.path(id), err)
	}
	return mode, root.Get("cwd").Str, nil
}

func readCapped(path string, max int64) ([]byte, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	b, err := io.ReadAll(io.LimitReader(f, max+1))
	if err != nil {
		return nil, err
	}
	if int64(len(b)) > max {
		return nil, fmt.Errorf("%s is larger than %d bytes", path, max)
	}
	return b, nil
}

// Update runs fn on the session under its lock and writes what fn returns atomically (nil:
// write nothing). fn receives the stored session, or nil and the reason there is none:
// ErrNoSession for a session not seen before, another error for a damaged or unreadable file —
// so that the human can always repair a session by setting its mode, while the hook leaves a
// damaged file alone.
func (s *Store) Update(id string, fn func(old *Session, loadErr error) (*Session, error)) (*Session, error) {
	if err := ValidSessionID(id); err != nil {
		return nil, err
	}
	if err := os.MkdirAll(s.Dir, 0o700); err != nil {
		return nil, fmt.Errorf("failed to create %s: %w", s.Dir, err)
	}
	unlock, err := fsutil.Lock(s.lockPath(id), lockWait)
	if err != nil {
		return nil, err
	}
	defer unlock()
	old, loadErr := s.Load(id)
	next, err := fn(old, loadErr)
	if err != nil || next == nil {
		return old, err
	}
	if len(next.History) > maxHistory {
		next.History = next.History[len(next.History)-maxHistory:]
	}
	if err := writeAtomic(s.path(id), next); err != nil {
		return nil, err
	}
	return next, nil
}

// Touch marks a session as used now, for "most recent session in this directory". It changes
// the file's times only, never its content, so it needs no lock.
func (s *Store) Touch(id string) {
	if ValidSessionID(id) == nil {
		now := time.Now()
		os.Chtimes(s.path(id), now, now)
	}
}

// MostRecentIn returns the most recently used session whose working directory is dir.
func (s *Store) MostRecentIn(dir string) (*Session, error) {
	entries, err := os.ReadDir(s.Dir)
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return nil, err
	}
	type cand struct {
		id   string
		used time.Time
	}
	var cands []cand
	for _, e := range entries {
		id, ok := strings.CutSuffix(e.Name(), ".json")
		if !ok || ValidSessionID(id) != nil {
			continue
		}
		info, err := e.Info()
		if err != nil {
			continue
		}
		cands = append(cands, cand{id, info.ModTime()})
	}
	sort.Slice(cands, func(i, j int) bool { return cands[i].used.After(cands[j].used) })
	for _, c := range cands {
		sess, err := s.Load(c.id)
		if err != nil {
			continue
		}
		if filepath.Clean(sess.Cwd) == filepath.Clean(dir) {
			return sess, nil
		}
	}
	return nil, fmt.Errorf("no session hookctl has seen was started in %s; pass --session ID (hookctl readonly status --all lists them)", dir)
}

// List returns every session, most recently used first.
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
		if !ok || ValidSessionID(id) != nil {
			continue
		}
		sess, err := s.Load(id)
		info, ierr := e.Info()
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

// writeAtomic replaces path with v's JSON (see fsutil.WriteAtomic).
func writeAtomic(path string, v any) error {
	b, err := json.MarshalIndent(v, "", "  ")
	if err != nil {
		return err
	}
	return fsutil.WriteAtomic(path, append(b, '\n'), 0o600)
}
