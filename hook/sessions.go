package hook

import (
	"errors"
	"fmt"
	"strings"
	"time"
)

// Modes tells the runner a session's mode.
type Modes interface {
	// ModeFor returns the mode of session id, whose calls come from directory cwd. A session
	// not seen before starts in def. An error means the mode cannot be known: the caller
	// treats the session as read-only and says why.
	ModeFor(id, cwd string, def Mode) (Mode, error)
}

// FixedMode is a Modes that gives every session the same mode.
type FixedMode Mode

func (m FixedMode) ModeFor(string, string, Mode) (Mode, error) { return Mode(m), nil }

// StoreModes is the Modes of the session store: it records new sessions and working
// directories as the hook sees them.
type StoreModes struct{ Store *Store }

func (s StoreModes) ModeFor(id, cwd string, def Mode) (Mode, error) {
	sess, err := s.Store.Load(id)
	switch {
	case err == nil:
		if cwd != "" && sess.Cwd != cwd {
			s.Store.Record(id, cwd, def) // best effort: only "most recent session" relies on it
		}
		s.Store.Touch(id)
		return sess.Mode, nil
	case errors.Is(err, ErrNoSession):
		sess, err := s.Store.Record(id, cwd, def)
		if err != nil {
			return ModeReadOnly, err
		}
		return sess.Mode, nil
	}
	return ModeReadOnly, err
}

// Record notes a session and its working directory, creating it in mode def if new. It never
// changes a mode, and it leaves a damaged state file for the human to see and repair.
func (s *Store) Record(id, cwd string, def Mode) (*Session, error) {
	return s.Update(id, func(old *Session, loadErr error) (*Session, error) {
		switch {
		case old != nil:
			if cwd == "" || old.Cwd == cwd {
				return nil, nil
			}
			old.Cwd = cwd
			return old, nil
		case errors.Is(loadErr, ErrNoSession):
			now := time.Now().UTC()
			return &Session{ID: id, Mode: def, Cwd: cwd, Started: now,
				History: []Change{{Time: now, From: def, To: def, How: "new"}}}, nil
		}
		return nil, loadErr
	})
}

// change sets a session's mode to next(current) and records the change in its history; how
// says who did it ("prompt", "cli", "dashboard"). Setting a damaged session repairs it. def is
// the mode of a session not seen before.
func (s *Store) change(id string, next func(Mode) Mode, how, cwd string, def Mode) (Mode, *Session, error) {
	var from Mode
	sess, err := s.Update(id, func(old *Session, loadErr error) (*Session, error) {
		now := time.Now().UTC()
		if old == nil {
			// New, or damaged: the human's choice rebuilds it. A damaged session was being
			// treated as read-only, so that is where the change starts from.
			start := def
			if !errors.Is(loadErr, ErrNoSession) {
				start = ModeReadOnly
			}
			old = &Session{ID: id, Mode: start, Cwd: cwd, Started: now}
		}
		from = old.Mode
		to := next(from)
		old.Mode = to
		if cwd != "" && old.Cwd == "" {
			old.Cwd = cwd
		}
		old.History = append(old.History, Change{Time: now, From: from, To: to, How: how})
		return old, nil
	})
	if err != nil {
		return ModeReadOnly, nil, err
	}
	return from, sess, nil
}

// Toggle is what a prompt asks of the session's mode.
type Toggle uint8

const (
	NoToggle Toggle = iota
	ToggleFlip
	ToggleOn  // read-only on
	ToggleOff // read-only off: edit mode
)

// ParseToggle recognises the human's /readonly commands. It matches only when the whole prompt
// is exactly the command (surrounding blanks aside): a client-made prompt that mentions it —
// a task notification quoting "/readonly off" — toggles nothing.
func ParseToggle(prompt string) Toggle {
	switch strings.Trim(prompt, " \t\r\n") {
	case "/readonly":
		return ToggleFlip
	case "/readonly on":
		return ToggleOn
	case "/readonly off":
		return ToggleOff
	}
	return NoToggle
}

// ParseToggleArgs recognises the arguments of the expanded readonly command.
func ParseToggleArgs(args string) Toggle {
	return ParseToggle(strings.TrimSpace("/readonly " + strings.TrimSpace(args)))
}

// next returns the mode a toggle leads to from m.
func (t Toggle) next(m Mode) Mode {
	switch t {
	case ToggleOn:
		return ModeReadOnly
	case ToggleOff:
		return ModeEdit
	case ToggleFlip:
		if m == ModeReadOnly {
			return ModeEdit
		}
	}
	return ModeReadOnly
}

// Apply performs a toggle the human asked for on the command line.
func (t Toggle) Apply(s *Store, id, how, cwd string, def Mode) (from, to Mode, err error) {
	if t == NoToggle {
		return 0, 0, fmt.Errorf("not a toggle")
	}
	from, sess, err := s.change(id, t.next, how, cwd, def)
	if err != nil {
		return from, ModeReadOnly, err
	}
	return from, sess.Mode, nil
}

// ApplyPrompt performs a toggle typed as a prompt. A prompt id already applied changes nothing,
// so that one /readonly seen by two hook events flips the mode once.
func (s *Store) ApplyPrompt(t Toggle, id, promptID, cwd string, def Mode) (from, to Mode, err error) {
	if t == NoToggle {
		return 0, 0, fmt.Errorf("not a toggle")
	}
	sess, err := s.Update(id, func(old *Session, loadErr error) (*Session, error) {
		now := time.Now().UTC()
		if old == nil {
			start := def
			if !errors.Is(loadErr, ErrNoSession) {
				start = ModeReadOnly
			}
			old = &Session{ID: id, Mode: start, Cwd: cwd, Started: now}
		}
		from = old.Mode
		if promptID != "" && old.LastPrompt == promptID {
			return nil, nil // already applied
		}
		old.Mode = t.next(from)
		old.LastPrompt = promptID
		if cwd != "" && old.Cwd == "" {
			old.Cwd = cwd
		}
		old.History = append(old.History, Change{Time: now, From: from, To: old.Mode, How: "prompt"})
		return old, nil
	})
	if err != nil {
		return from, ModeReadOnly, err
	}
	if sess == nil {
		return from, from, nil
	}
	return from, sess.Mode, nil
}

// Badge is how the status line and messages show a mode.
func Badge(m Mode) string {
	if m == ModeReadOnly {
		return "🔒 READ-ONLY"
	}
	return "✏ EDIT"
}
