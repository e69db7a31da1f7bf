package main

import (
	"fmt"
	"time"
)

// cliDeadline bounds the commands that read hookctl's state and config (readonly, statusline,
// check, audit), as the hook is bounded: a state file swapped for a FIFO is refused without
// blocking, but a file on a hung network mount can still stall a read, and neither the user's
// shell nor the client's status line may hang on it.
const cliDeadline = 3 * time.Second

// errDeadline is returned when a command did not finish within its deadline.
type errDeadline time.Duration

func (e errDeadline) Error() string {
	return fmt.Sprintf("hookctl did not finish within %s: a file it reads (config, session state, audit) may be on a hung mount; nothing was changed", time.Duration(e))
}

// withDeadline runs fn, and returns errDeadline if it has not returned within d. fn is left
// running; the caller exits the process.
func withDeadline(d time.Duration, fn func() error) error {
	done := make(chan error, 1)
	go func() { done <- fn() }()
	timer := time.NewTimer(d)
	defer timer.Stop()
	select {
	case err := <-done:
		return err
	case <-timer.C:
		return errDeadline(d)
	}
}
