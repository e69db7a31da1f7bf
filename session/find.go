package session

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/hookctl/hookctl/hook"
	"github.com/hookctl/hookctl/internal/clip"
	"github.com/hookctl/hookctl/internal/fsutil"
)

// How the user names sessions: hookctl shows a short id, and every command that takes an id
// takes it, or any unique prefix of the id.

// ShortLen is the length of the short id hookctl shows.
const ShortLen = 8

// shortAbove is the length above which an id is shown short (Claude Code's are UUIDs, 36).
const shortAbove = 12

// minPrefix is the shortest prefix Resolve accepts: a letter or two would match by accident.
const minPrefix = 4

// Short is the short form of id that Resolve takes back to it: ShortLen characters, or as many
// more as it takes to be unique among the sessions.
func (s *Store) Short(id string) string {
	ids, _ := s.ids()
	return UniqueShort(id, ids)
}

// UniqueShort is the shortest prefix of id, at least ShortLen long, that no other of ids has.
func UniqueShort(id string, ids []string) string {
	if len(id) <= shortAbove {
		return id
	}
	n := ShortLen
	for ; n < len(id); n++ {
		clash := false
		for _, o := range ids {
			if o != id && strings.HasPrefix(o, id[:n]) {
				clash = true
				break
			}
		}
		if !clash {
			break
		}
	}
	return id[:n]
}

// ids lists the session ids that have a state file, damaged or not (a damaged session must be
// nameable, so that a toggle can rewrite it).
func (s *Store) ids() ([]string, error) {
	entries, err := os.ReadDir(s.Dir)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	var out []string
	for _, e := range entries {
		if id, ok := strings.CutSuffix(e.Name(), ".json"); ok && ValidSessionID(id) == nil {
			out = append(out, id)
		}
	}
	return out, nil
}

// ErrAmbiguous is returned for a prefix that names more than one session.
var ErrAmbiguous = errors.New("names more than one session")

// Resolve finds the session the user named: a whole id, or a unique prefix of one of at least
// four characters (the short form hookctl shows, with or without its "…"). A name that matches
// no session hookctl has seen is ErrNoSession: a command never creates a session by naming it.
func (s *Store) Resolve(name string) (string, error) {
	ids, err := s.ids()
	if err != nil {
		return "", fmt.Errorf("failed to list the sessions: %w", err)
	}
	return MatchID(name, ids)
}

// MatchID finds name among ids as Resolve does: the id itself, or its unique prefix.
func MatchID(name string, ids []string) (string, error) {
	name = strings.TrimSuffix(name, "…")
	if err := ValidSessionID(name); err != nil {
		return "", err
	}
	var matches []string
	for _, id := range ids {
		if id == name {
			return id, nil
		}
		if strings.HasPrefix(id, name) && !slices.Contains(matches, id) {
			matches = append(matches, id)
		}
	}
	switch {
	case len(matches) == 0:
		return "", fmt.Errorf("session %q: %w (hookctl readonly status --all lists them)", clip.Short(name), ErrNoSession)
	case len(name) < minPrefix:
		return "", fmt.Errorf("session %q: give at least %d characters of the id", clip.Short(name), minPrefix)
	case len(matches) > 1:
		sort.Strings(matches)
		return "", fmt.Errorf("session %q %w: %s", clip.Short(name), ErrAmbiguous, strings.Join(matches, ", "))
	}
	return matches[0], nil
}

// InProject returns the sessions whose project (the directory where the session was first
// seen) is dir or contains it, the innermost project's only, most recently used first. A
// shell's directory is anywhere in the project: `cd sub && hookctl readonly on` means the
// session of the project sub is in.
func (s *Store) InProject(dir string) ([]*Session, error) {
	list, err := s.List()
	if err != nil {
		return nil, err
	}
	dir = filepath.Clean(dir)
	best := -1
	var out []*Session
	for _, sess := range list {
		if sess.Cwd == "" || !fsutil.Within(dir, filepath.Clean(sess.Cwd)) {
			continue
		}
		switch n := len(filepath.Clean(sess.Cwd)); {
		case n > best:
			best, out = n, []*Session{sess}
		case n == best:
			out = append(out, sess)
		}
	}
	return out, nil
}

// What the model was last told of its session's mode, kept beside the state file as "<id>.told"
// so that the hook can tell it of a change once, on its next request. The hook writes it; it is
// only ever a reason to repeat the mode to the model, never a reason to allow anything.

func (s *Store) toldPath(id string) string { return filepath.Join(s.Dir, id+".told") }

// Told is the mode the model of session id was last told; ok is false if it was never told
// (or the note cannot be read, which only makes the hook tell it again).
func (s *Store) Told(id string) (hook.Mode, bool) {
	if ValidSessionID(id) != nil {
		return hook.ModeReadOnly, false
	}
	b, err := fsutil.ReadFile(s.toldPath(id), 64, true)
	if err != nil {
		return hook.ModeReadOnly, false
	}
	m, err := hook.ParseMode(strings.TrimRight(string(b), " \n"))
	return m, err == nil
}

// SetTold notes that the model of session id has been told mode m. Best effort: a note that
// cannot be written means the model is told again. The note is rewritten in place, a fixed
// ten bytes, not replaced: after a toggle every hook call of the session writes it at once, and
// replacing a file queues each of them on the directory's lock and the disk.
func (s *Store) SetTold(id string, m hook.Mode) {
	if ValidSessionID(id) != nil {
		return
	}
	if old, ok := s.Told(id); ok && old == m {
		return
	}
	s.writeTold(id, m)
}

// writeTold writes the note of SetTold, whatever it held.
func (s *Store) writeTold(id string, m hook.Mode) {
	path := s.toldPath(id)
	// Without O_CREAT first: creating takes the directory's lock, which an open of a file that
	// exists need not.
	flags := os.O_WRONLY | syscall.O_NOFOLLOW | syscall.O_NONBLOCK | syscall.O_CLOEXEC
	f, err := os.OpenFile(path, flags, 0)
	if errors.Is(err, fs.ErrNotExist) {
		if f, err = os.OpenFile(path, flags|os.O_CREATE, 0o600); errors.Is(err, fs.ErrNotExist) && os.MkdirAll(s.Dir, 0o700) == nil {
			f, err = os.OpenFile(path, flags|os.O_CREATE, 0o600)
		}
	}
	if err != nil {
		return
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil || !fi.Mode().IsRegular() {
		return
	}
	// "%-9s\n": as long as the longest mode, so that one write replaces any note.
	if n, err := f.WriteAt([]byte(fmt.Sprintf("%-9s\n", m.String())), 0); err == nil && n == toldLen && fi.Size() > toldLen {
		f.Truncate(toldLen) // a longer note, not one of ours
	}
}

// toldLen is the length of a told note.
const toldLen = 10

// Whether the client was last seen in its plan mode, kept as "<id>.plan" for the status line,
// whose input does not say (2.1.328, live). The hook sees the client's permission mode with each
// prompt and tool call; what it notes here only decides what the status line shows.

func (s *Store) planPath(id string) string { return filepath.Join(s.Dir, id+".plan") }

// NotePermissionMode notes the client's permission mode as a call reported it ("" says
// nothing).
func (s *Store) NotePermissionMode(id, mode string) {
	if mode == "" || ValidSessionID(id) != nil {
		return
	}
	_, err := os.Lstat(s.planPath(id))
	switch on := mode == hook.PermissionPlan; {
	case on && errors.Is(err, fs.ErrNotExist):
		if os.MkdirAll(s.Dir, 0o700) == nil {
			fsutil.WriteAtomic(s.planPath(id), nil, 0o600)
		}
	case !on && err == nil:
		os.Remove(s.planPath(id))
	}
}

// InPlanMode reports whether the hook last saw session id's client in plan mode.
func (s *Store) InPlanMode(id string) bool {
	if ValidSessionID(id) != nil {
		return false
	}
	_, err := os.Lstat(s.planPath(id))
	return err == nil
}

// statusPath keeps the fingerprint of the status line's last input and when it was drawn.
func (s *Store) statusPath(id string) string { return filepath.Join(s.Dir, id+".statusline") }

// StatusLineDrawn notes that the client drew session id's status line from input fingerprint
// fp, and drops the plan-mode note when the drawing can only have been caused by a change of
// the client's permission mode. The client redraws its status line when the permission mode
// changes, but the input does not carry the mode (2.1.328, live): a redraw whose input is the
// same as the last one's, with no plan-mode note made since, is taken for one, and the badge
// stops claiming plan mode's read-only rules until a prompt or call reports plan mode again
// (leaving plan mode with Shift+Tab left it claimed until the next prompt). A redraw for another
// reason the input does not show (the terminal resized) drops the note too: that only hides the
// badge, where keeping it wrongly shows a protection that no longer holds. Best effort.
func (s *Store) StatusLineDrawn(id, fp string) {
	if ValidSessionID(id) != nil || fp == "" {
		return
	}
	now := time.Now()
	if b, err := fsutil.ReadFile(s.statusPath(id), 256, false); err == nil {
		prevFP, prevNS, _ := strings.Cut(strings.TrimSpace(string(b)), " ")
		prev, perr := strconv.ParseInt(prevNS, 10, 64)
		if fi, err := os.Lstat(s.planPath(id)); err == nil && perr == nil && prevFP == fp && fi.ModTime().UnixNano() < prev {
			os.Remove(s.planPath(id))
		}
	}
	if os.MkdirAll(s.Dir, 0o700) == nil {
		fsutil.WriteAtomic(s.statusPath(id), []byte(fp+" "+strconv.FormatInt(now.UnixNano(), 10)+"\n"), 0o600)
	}
}
