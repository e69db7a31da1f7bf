package hook

import (
	"errors"
	"fmt"
	"io"
	"os"
	"runtime/debug"
	"sync"
	"time"
)

// Limits of one hook run. The client's own timeout for the hook is longer (the install sets it);
// Deadline keeps the decision well inside it, so the client never sees a hang.
const (
	MaxPayload = 1 << 20
	Deadline   = 2 * time.Second
)

// Adapter translates one client's hook protocol.
type Adapter interface {
	// Decode turns a payload into an event, or says what is wrong with it.
	Decode(payload []byte) (*Event, error)
	// Encode renders a decision as the client's output.
	Encode(ev *Event, d Decision) ([]byte, error)
	// Refuse renders a refusal for a payload that could not be decided. payload may be
	// partial, malformed or nil; the output must still be a refusal the client honours.
	Refuse(payload []byte, reason string) []byte
}

// Modes tells the policy a session's mode.
type Modes interface {
	Mode(session string) (Mode, error)
}

// FixedMode is a Modes that gives every session the same mode.
type FixedMode Mode

func (m FixedMode) Mode(string) (Mode, error) { return Mode(m), nil }

// Runner runs one hook invocation. Its fields are the process's environment, so tests can run
// it in memory.
type Runner struct {
	Stdin          io.Reader
	Stdout, Stderr io.Writer
	Adapter        Adapter
	// LoadConfig reads the configuration; an error refuses every call.
	LoadConfig func() (*Config, error)
	Modes      Modes
	Deadline   time.Duration // zero means Deadline
	// Exit ends the process when the deadline passes; nil means os.Exit.
	Exit func(code int)
}

// Exit codes of Run. The decision itself is on stdout; a failure also exits 2, which Claude Code
// treats as a block whatever it makes of stdout.
const (
	ExitDecided = 0
	ExitFailed  = 2
)

type outcome struct {
	out    []byte
	failed string // non-empty: the reason the run failed closed
}

// Run reads one payload and writes exactly one decision. It never panics and never takes longer
// than its deadline: a panic, a read error, an oversized or malformed payload, a config error
// or the deadline all print a refusal.
//
// The work runs on the calling goroutine; the deadline is a timer that, if it fires first,
// writes the refusal itself and calls Exit (os.Exit unless a test replaces it). Whichever
// finishes first claims the one write.
func (r *Runner) Run() int {
	deadline := r.Deadline
	if deadline == 0 {
		deadline = Deadline
	}
	var mu sync.Mutex
	claimed := false
	claim := func() bool {
		mu.Lock()
		defer mu.Unlock()
		if claimed {
			return false
		}
		claimed = true
		return true
	}
	timer := time.AfterFunc(deadline, func() {
		if !claim() {
			return
		}
		reason := fmt.Sprintf("hookctl did not decide within %s; the call is refused", deadline)
		r.write(outcome{out: r.Adapter.Refuse(nil, reason), failed: reason})
		r.exit(ExitFailed)
	})
	o := r.decideSafely()
	timer.Stop()
	if !claim() {
		select {} // the deadline fired and is exiting the process
	}
	return r.write(o)
}

func (r *Runner) exit(code int) {
	if r.Exit != nil {
		r.Exit(code)
		return
	}
	os.Exit(code)
}

func (r *Runner) write(o outcome) int {
	r.Stdout.Write(o.out)
	if o.failed != "" {
		fmt.Fprintln(r.Stderr, o.failed)
		return ExitFailed
	}
	return ExitDecided
}

// decideSafely turns a panic anywhere in deciding into a refusal.
func (r *Runner) decideSafely() (o outcome) {
	var payload []byte
	defer func() {
		if v := recover(); v != nil {
			reason := fmt.Sprintf("hookctl failed (internal error: %v); the call is refused", v)
			o = outcome{out: r.Adapter.Refuse(payload, reason), failed: reason + "\n" + string(debug.Stack())}
		}
	}()
	return r.decide(&payload)
}

func (r *Runner) decide(payloadOut *[]byte) outcome {
	payload, err := io.ReadAll(io.LimitReader(r.Stdin, MaxPayload+1))
	if err != nil {
		return r.fail(nil, fmt.Sprintf("hookctl failed to read the payload: %v; the call is refused", err))
	}
	*payloadOut = payload
	if len(payload) > MaxPayload {
		return r.fail(nil, fmt.Sprintf("hookctl refuses payloads over %d bytes", MaxPayload))
	}
	ev, err := r.Adapter.Decode(payload)
	if err != nil {
		return r.fail(payload, "hookctl could not read the hook payload: "+err.Error()+"; the call is refused")
	}
	d := Decision{Verdict: Pass}
	if ev.Name == EventPreToolUse {
		d, err = r.decideCall(ev.Call)
		if err != nil {
			// A config or state error is a decision, not a crash: refuse with the reason.
			d = Decision{Verdict: Deny, Reason: "hookctl refuses every call until this is fixed: " + err.Error()}
		}
	}
	out, err := r.Adapter.Encode(ev, d)
	if err != nil {
		return r.fail(payload, "hookctl failed to write its decision: "+err.Error())
	}
	return outcome{out: out}
}

func (r *Runner) decideCall(c *Call) (Decision, error) {
	cfg, err := r.LoadConfig()
	if err != nil {
		return Decision{}, err
	}
	if cfg == nil {
		return Decision{}, errors.New("no configuration loaded")
	}
	mode, err := r.Modes.Mode(c.Session)
	if err != nil {
		return Decision{}, err
	}
	p := &Policy{Config: cfg}
	return p.Decide(c, mode), nil
}

func (r *Runner) fail(payload []byte, reason string) outcome {
	return outcome{out: r.Adapter.Refuse(payload, reason), failed: reason}
}
