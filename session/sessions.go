package session

import (
	"errors"
	"fmt"
	"path/filepath"
	"strings"
	"time"

	"github.com/hookctl/hookctl/audit"
	"github.com/hookctl/hookctl/hook"
)

// Modes tells the runner a session's mode.
type Modes interface {
	// ModeFor returns the mode of session id, whose calls come from directory cwd. A session
	// not seen before starts in def. An error means the mode cannot be known: the caller
	// treats the session as read-only and says why.
	ModeFor(id, cwd string, def hook.Mode) (hook.Mode, error)
}

// FixedMode is a Modes that gives every session the same mode.
type FixedMode hook.Mode

func (m FixedMode) ModeFor(string, string, hook.Mode) (hook.Mode, error) { return hook.Mode(m), nil }

// StoreModes is the Modes of the session store: it records a session the first time the hook
// sees it, and otherwise only reads.
type StoreModes struct{ Store *Store }

func (s StoreModes) ModeFor(id, cwd string, def hook.Mode) (hook.Mode, error) {
	mode, _, err := s.ModeAndProject(id, cwd, def)
	return mode, err
}

// ModeAndProject is ModeFor that also returns the session's project: the directory where it
// was first seen, which edit mode's sandbox lets it write (not the directory of this call,
// which the agent moves with cd).
func (s StoreModes) ModeAndProject(id, cwd string, def hook.Mode) (hook.Mode, string, error) {
	mode, project, used, err := s.Store.PeekUsed(id)
	switch {
	case err == nil:
		s.Store.TouchStale(id, used)
		return mode, project, nil
	case errors.Is(err, ErrNoSession):
		sess, err := s.Store.Record(id, cwd, def)
		if err != nil {
			return hook.ModeReadOnly, "", err
		}
		return sess.Mode, sess.Cwd, nil
	}
	return hook.ModeReadOnly, "", err
}

// apply sets a session's mode to next(current) under the session's lock and records the change
// in its history; how says who did it ("prompt", "cli", "dashboard"). Setting the mode it
// already has writes nothing. A session not seen before starts in def; a damaged one is
// rebuilt, starting from read-only (which is how it was being treated). promptID, if set, is
// remembered, and a prompt already applied changes nothing.
func (s *Store) apply(id string, next func(hook.Mode) hook.Mode, how, cwd, promptID string, def hook.Mode) (from, to hook.Mode, err error) {
	return s.applyChecked(id, next, how, cwd, promptID, def, nil)
}

// applyChecked is apply with a check of the change, made under the session's lock against the
// mode as it is then: a refusal from check changes nothing and is returned.
func (s *Store) applyChecked(id string, next func(hook.Mode) hook.Mode, how, cwd, promptID string, def hook.Mode, check func(from, to hook.Mode) error) (from, to hook.Mode, err error) {
	_, err = s.update(id, func(old *Session, loadErr error) (*Session, error) {
		now := time.Now().UTC()
		fresh := old == nil
		if fresh {
			start := def
			if !errors.Is(loadErr, ErrNoSession) {
				start = hook.ModeReadOnly
			}
			old = &Session{ID: id, Mode: start, Cwd: cwd, Started: now,
				History: []Change{{Time: now, From: start, To: start, How: "new"}}, Remotes: s.noteProject(cwd)}
		}
		from, to = old.Mode, old.Mode
		if promptID != "" && old.LastPrompt == promptID {
			return nil, nil // this prompt was applied already
		}
		to = next(from)
		if check != nil {
			if err := check(from, to); err != nil {
				return nil, err
			}
		}
		if to == from && !fresh {
			return nil, nil
		}
		old.Mode = to
		if promptID != "" {
			old.LastPrompt = promptID
		}
		if cwd != "" && old.Cwd == "" {
			old.Cwd = cwd
		}
		if to != from {
			old.History = append(old.History, Change{Time: now, From: from, To: to, How: how})
		}
		return old, nil
	})
	if err != nil {
		return from, hook.ModeReadOnly, err
	}
	return from, to, nil
}

// Toggle is what a prompt asks of the session's mode.
type Toggle uint8

const (
	NoToggle Toggle = iota
	ToggleFlip
	ToggleOn     // read-only on
	ToggleOff    // read-only off: edit mode
	ToggleReview // review mode: read-only plus publishing, each publish confirmed
	// ToggleStatus shows the mode and changes nothing: the bare command, which autocompletion
	// submits on its own (typing /read and Enter), must never unlock.
	ToggleStatus
)

// ParseToggleArgs recognises the arguments of the user's mode command: none or "status" (show
// the mode), "on", "off" or "review" (blanks around them aside). Anything else toggles
// nothing: the command was mistyped, or is a client-made prompt that only quotes it.
func ParseToggleArgs(args string) Toggle {
	switch strings.Trim(args, " \t\r\n") {
	case "", "status":
		return ToggleStatus
	case "on":
		return ToggleOn
	case "off":
		return ToggleOff
	case "review":
		return ToggleReview
	}
	return NoToggle
}

// next returns the mode a toggle leads to from m. A flip leads from read-only to edit and from
// any other mode to read-only: from review mode, the nearer mode, not the wider one.
func (t Toggle) next(m hook.Mode) hook.Mode {
	switch t {
	case ToggleOn:
		return hook.ModeReadOnly
	case ToggleOff:
		return hook.ModeEdit
	case ToggleReview:
		return hook.ModeReview
	case ToggleFlip:
		if m == hook.ModeReadOnly {
			return hook.ModeEdit
		}
	}
	return hook.ModeReadOnly
}

// Apply performs a toggle the human asked for on the command line. check, if set, may refuse
// the change, seeing the mode under the session's lock.
func (t Toggle) Apply(s *Store, id, how, cwd string, def hook.Mode, check func(from, to hook.Mode) error) (from, to hook.Mode, err error) {
	if t == NoToggle || t == ToggleStatus {
		return 0, 0, fmt.Errorf("not a toggle")
	}
	return s.applyChecked(id, t.next, how, cwd, "", def, check)
}

// Verb is the toggle as the human's mode command names it: on, off, review or toggle.
func (t Toggle) Verb() string {
	switch t {
	case ToggleOn:
		return "on"
	case ToggleOff:
		return "off"
	case ToggleReview:
		return "review"
	case ToggleFlip:
		return "toggle"
	}
	return "status"
}

// HumanToggle is the human's change of a session's mode from outside the session's prompt: the
// command line (how "cli") and the dashboard (how "dashboard") both come here, so both are
// checked and recorded alike, in the session's history. inside is the session the asking
// process runs inside (ClientSession), or "": from inside one session no other session leaves
// read-only mode, since the agent's commands run inside its session too, so this is never a way
// for it to unlock another. The model is told of the change on its next request (the hook's
// change notice), and the status line reads the state file this writes.
func (s *Store) HumanToggle(t Toggle, id, how, inside string, def hook.Mode) (from, to hook.Mode, err error) {
	check := func(from, to hook.Mode) error {
		if inside != "" && inside != id && Widens(from, to) {
			return fmt.Errorf("this shell runs inside session %s; from there hookctl does not take another session (%s) from %s to %s. "+
				"Type /readonly %s in that session, or run this in a terminal outside Claude Code",
				s.Short(inside), s.Short(id), Badge(from), Badge(to), t.Verb())
		}
		return nil
	}
	from, to, err = t.Apply(s, id, how, "", def, check)
	s.recordToggle(id, how, from, to, err)
	return from, to, err
}

// recordToggle puts a toggle made outside the session's prompt in the decision log, beside the
// prompt's own (Gate.Decide), so that the log holds every mode change. A record that cannot be
// written does not undo the change, which the session's state holds.
func (s *Store) recordToggle(id, how string, from, to hook.Mode, err error) {
	e := &hook.LogEntry{Time: time.Now(), Session: id, Event: "toggle", How: how, Rule: "the user's hookctl readonly", Verdict: hook.Allow.String()}
	if how == "dashboard" {
		e.Rule = "the user, on the dashboard"
	}
	e.ID = hook.NewLogID(e.Time)
	if err != nil {
		e.Verdict, e.Reason = hook.Deny.String(), "the mode did not change: "+err.Error()
	} else {
		e.From, e.To, e.Reason = from.String(), to.String(), "this session is now "+Badge(to)
	}
	audit.DecisionLogAt(filepath.Dir(s.Dir)).Append(e)
}

// Widens reports whether a change from one mode to another gives the agent more: read-only,
// then review (read-only plus publishing), then edit.
func Widens(from, to hook.Mode) bool { return rank(to) > rank(from) }

func rank(m hook.Mode) int {
	switch m {
	case hook.ModeReadOnly:
		return 0
	case hook.ModeReview:
		return 1
	}
	return 2
}

// ApplyPrompt performs a toggle typed as a prompt. A prompt id already applied changes nothing,
// so that one mode command seen by two hook events flips the mode once.
func (s *Store) ApplyPrompt(t Toggle, id, promptID, cwd string, def hook.Mode) (from, to hook.Mode, err error) {
	if t == NoToggle || t == ToggleStatus {
		return 0, 0, fmt.Errorf("not a toggle")
	}
	return s.apply(id, t.next, "prompt", cwd, promptID, def)
}

// Badge is how the status line and messages show a mode: its icon and its name in capitals.
func Badge(m hook.Mode) string {
	icon := "✏"
	switch m {
	case hook.ModeReadOnly:
		icon = "🔒"
	case hook.ModeReview:
		icon = "👁"
	}
	return icon + " " + strings.ToUpper(m.String())
}
