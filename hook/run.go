package hook

import (
	"fmt"
	"io"
	"os"
	"runtime/debug"
	"sync"
	"time"
)

// Limits of one hook run. The client's own timeout for the hook is longer (install sets it);
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

// A Decider decides one event. It runs inside Runner.Run, which turns its panics, its errors
// and its slowness into refusals.
type Decider interface {
	Decide(ev *Event, run *Run) Decision
}

// DeciderFunc is a Decider written as a function.
type DeciderFunc func(ev *Event, run *Run) Decision

func (f DeciderFunc) Decide(ev *Event, run *Run) Decision { return f(ev, run) }

// Run is one run in progress, as a decider sees it.
type Run struct {
	extend func(time.Duration)
}

// Extend moves the run's deadline to d from now: a decider that knows the call needs longer
// (a retrieval, inside the longer client timeout of its own hook) says so before it starts.
func (r *Run) Extend(d time.Duration) {
	if r != nil && r.extend != nil {
		r.extend(d)
	}
}

// Runner runs one hook invocation: read the payload (capped), decode it, decide, encode the
// decision, all within a deadline and never panicking. It is the same for every decider and
// every client. Its fields are the process's environment, so tests can run it in memory.
type Runner struct {
	Stdin          io.Reader
	Stdout, Stderr io.Writer
	Adapter        Adapter
	Deadline       time.Duration // zero means Deadline
	// Exit ends the process when the deadline passes; nil means os.Exit.
	Exit func(code int)
}

// Exit codes of Run. The decision itself is on stdout; a failure also exits 2, which Claude Code
// (and the other clients, see agents/) treat as a block whatever they make of stdout.
const (
	ExitDecided = 0
	ExitFailed  = 2
)

type outcome struct {
	out    []byte
	failed string // non-empty: the reason the run failed closed
}

// Run reads one payload and writes exactly one decision. It never panics and never takes longer
// than its deadline: a panic, a read error, an oversized or malformed payload, or the deadline
// all print a refusal.
//
// The work runs on the calling goroutine; the deadline is a timer that, if it fires first,
// writes the refusal itself and calls Exit (os.Exit unless a test replaces it). Whichever
// finishes first claims the one write.
func (r *Runner) Run(d Decider) int {
	deadline := r.Deadline
	if deadline == 0 {
		deadline = Deadline
	}
	var mu sync.Mutex
	claimed := false
	current := deadline
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
		mu.Lock()
		after := current
		mu.Unlock()
		reason := fmt.Sprintf("hookctl did not decide within %s; the call is refused", after)
		r.write(outcome{out: r.Adapter.Refuse(nil, reason), failed: reason})
		r.exit(ExitFailed)
	})
	run := &Run{extend: func(d time.Duration) {
		mu.Lock()
		current = d
		mu.Unlock()
		timer.Reset(d)
	}}
	o := r.decideSafely(d, run)
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
func (r *Runner) decideSafely(d Decider, run *Run) (o outcome) {
	var payload []byte
	defer func() {
		if v := recover(); v != nil {
			reason := fmt.Sprintf("hookctl failed (internal error: %v); the call is refused", v)
			o = outcome{out: r.Adapter.Refuse(payload, reason), failed: reason + "\n" + string(debug.Stack())}
		}
	}()
	payload, err := io.ReadAll(io.LimitReader(r.Stdin, MaxPayload+1))
	if err != nil {
		return r.fail(nil, fmt.Sprintf("hookctl failed to read the payload: %v; the call is refused", err))
	}
	if len(payload) > MaxPayload {
		return r.fail(nil, fmt.Sprintf("hookctl refuses payloads over %d bytes", MaxPayload))
	}
	ev, err := r.Adapter.Decode(payload)
	if err != nil {
		return r.fail(payload, "hookctl could not read the hook payload: "+err.Error()+"; the call is refused")
	}
	dec := d.Decide(ev, run)
	out, err := r.Adapter.Encode(ev, dec)
	if err != nil {
		return r.fail(payload, "hookctl failed to write its decision: "+err.Error())
	}
	return outcome{out: out}
}

func (r *Runner) fail(payload []byte, reason string) outcome {
	return outcome{out: r.Adapter.Refuse(payload, reason), failed: reason}
}

// RefuseTools is the decider inside the retriever's own distiller (a claude run with no tools):
// every tool call is refused, every other event passes, and nothing is recorded.
var RefuseTools = DeciderFunc(func(ev *Event, _ *Run) Decision {
	if ev.Name == EventToolCall {
		return Decision{Verdict: Deny, Reason: "hookctl: the retriever's distiller has no tools"}
	}
	return Decision{Verdict: Pass}
})
