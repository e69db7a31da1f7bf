package hook

import (
	"fmt"

	"github.com/hookctl/hookctl/internal/clip"
)

// Mode is a session's mode.
type Mode uint8

func (m Mode) String() string {
	switch m {
	case ModeReadOnly:
		return "read-only"
	case ModeReview:
		return "review"
	}
	return "edit"
}

// MarshalText writes a mode as "read-only", "edit" or "review".
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

// ParseMode reads "read-only", "edit" or "review".
func ParseMode(s string) (Mode, error) {
	switch s {
	case "read-only":
		return ModeReadOnly, nil
	case "edit":
		return ModeEdit, nil
	case "review":
		return ModeReview, nil
	}
	return ModeReadOnly, fmt.Errorf("unknown mode %q (want read-only, edit or review)", clip.Short(s))
}

const (
	// ModeReadOnly refuses every tool that is not a read, and every shell command that is not
	// on the read-only allowlist. It is the zero value, so that a mode nobody set is read-only.
	ModeReadOnly Mode = iota
	// ModeEdit leaves tool calls to the client's own permission rules, under the edit-mode
	// accident guard and the protection of hookctl's and the client's own files.
	ModeEdit
	// ModeReview is read-only mode plus review mode's publishing verbs (gh pr review, gh pr
	// comment with the text inline), each confirmed by the user and audited (review.go).
	ModeReview
)
