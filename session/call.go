package session

import (
	"errors"
	"time"

	"github.com/hookctl/hookctl/hook"
)

// One tool call's use of its session: what the gate needs of the store is read once, before the
// decision (Begin), and what the call leaves behind is written once, after it (Finish). The gate
// once made six operations of the store per call (the mode, the claim, the client, the
// permission mode, what the model was told, twice), each reading the session again.

// Call is what a tool call read of its session.
type Call struct {
	ID string
	// Mode is the session's mode, and Project the directory where it was first seen (the
	// store's sessions only: "" when the mode is not the store's, a hookctl run's). Err says
	// why the state could not be read; Mode is then read-only.
	Mode    hook.Mode
	Project string
	Err     error
	// Told is the mode the model was last told; ToldOK is false when it was never told.
	Told   hook.Mode
	ToldOK bool

	used time.Time // when the session was last used, for Touch ("" when not read)
}

// Begin reads what a tool call of session id needs: its mode from modes (for the store's own
// modes, StoreModes, the session's state, recording a session not seen before in def, from cwd),
// and what its model was last told.
func (s *Store) Begin(modes Modes, id, cwd string, def hook.Mode) *Call {
	c := &Call{ID: id}
	if sm, ok := modes.(StoreModes); ok {
		mode, project, used, err := sm.Store.PeekUsed(id)
		switch {
		case err == nil:
			c.Mode, c.Project, c.used = mode, project, used
		case errors.Is(err, ErrNoSession):
			if sess, rerr := sm.Store.Record(id, cwd, def); rerr != nil {
				c.Err = rerr
			} else {
				c.Mode, c.Project = sess.Mode, sess.Cwd
			}
		default:
			c.Err = err
		}
	} else if modes != nil {
		c.Mode, c.Err = modes.ModeFor(id, cwd, def)
	} else {
		c.Err = errors.New("hookctl has no session state here")
	}
	if c.Err != nil {
		c.Mode, c.Project = hook.ModeReadOnly, ""
	}
	if id != "" {
		c.Told, c.ToldOK = s.Told(id)
	}
	return c
}

// Notes are what a decided tool call leaves in its session's store.
type Notes struct {
	// UseID is the client's id of the call, claimed for the gate (Claim); "" claims nothing.
	UseID string
	// Client notes which session the client process above the hook is in (NoteClient), when
	// set; IsClient tells a client process (nil: the parent is taken for one).
	Client   bool
	IsClient func(pid int) bool
	// PermissionMode is the client's permission mode as the call reported it
	// (NotePermissionMode; "": not reported, nothing noted).
	PermissionMode string
	// Told, when set, is the mode the model has now been told.
	Told *hook.Mode
}

// Finish writes what call c leaves behind: its claim first, and, when no other process claimed
// the call before (which then leaves the rest to that one), the session's use, the notes and
// what the model was told. It reports whether the call was this process's to finish.
func (s *Store) Finish(c *Call, n Notes) bool {
	if n.UseID != "" && !s.Claim(c.ID, "gate", n.UseID) {
		return false
	}
	if !c.used.IsZero() {
		s.TouchStale(c.ID, c.used)
	}
	if n.Client {
		s.NoteClient(c.ID, n.IsClient)
	}
	s.NotePermissionMode(c.ID, n.PermissionMode)
	if n.Told != nil && ValidSessionID(c.ID) == nil && !(c.ToldOK && c.Told == *n.Told) {
		s.writeTold(c.ID, *n.Told)
	}
	return true
}
