package hook

import (
	"fmt"
	"io"
	"os"
	"runtime/debug"
	"sync"
	"time"

	"github.com/tidwall/gjson"

	"github.com/hookctl/hookctl/internal/clip"
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
	// Log records every answer the run gives, once it has given it: the decider's record of its
	// decision (Decision.Record), or the runner's own of a refusal it made (a payload it could
	// not read, a panic, the deadline). Recording after the answer is written is what keeps a
	// record from saying anything but what the client was told. Nil: nothing is recorded (the
	// retriever's distiller).
	Log func(*LogEntry)
	// Agent names the client in the runner's own records ("Claude Code").
	Agent string
}

// RecordWait bounds how long a run waits for its record to be written once it has answered:
// the log's own waits are bounded (internal/jsonl), a disk that hangs is not.
const RecordWait = time.Second

// Exit codes of Run. The decision itself is on stdout; a failure also exits 2, which Claude Code
// (and the other clients, see agents/) treat as a block whatever they make of stdout.
const (
	ExitDecided = 0
	ExitFailed  = 2
)

type outcome struct {
	out    []byte
	failed string    // non-empty: the reason the run failed closed
	record *LogEntry // what to record of the answer
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
	var payload []byte // once read, for the deadline's record
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
		after, seen := current, payload
		mu.Unlock()
		reason := fmt.Sprintf("hookctl did not decide within %s; the call is refused", after)
		o := outcome{out: r.Adapter.Refuse(seen, reason), failed: reason}
		o.record = r.refusal(seen, reason, "the hook's deadline")
		r.write(o)
		r.exit(ExitFailed)
	})
	run := &Run{extend: func(d time.Duration) {
		mu.Lock()
		current = d
		mu.Unlock()
		timer.Reset(d)
	}}
	o := r.decideSafely(d, run, func(b []byte) { mu.Lock(); payload = b; mu.Unlock() })
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

// write gives the answer, then records it.
func (r *Runner) write(o outcome) int {
	code := ExitDecided
	if o.failed != "" {
		code = ExitFailed
	}
	r.Stdout.Write(o.out)
	if o.failed != "" {
		fmt.Fprintln(r.Stderr, o.failed)
	}
	if o.record != nil && r.Log != nil {
		if o.record.Agent == "" {
			o.record.Agent = r.Agent
		}
		// Recorded here, with a watchdog that ends the run if the log hangs: a goroutine of its
		// own started a thread on every call to wait for it.
		watchdog := time.AfterFunc(RecordWait, func() {
			fmt.Fprintln(r.Stderr, "hookctl: the decision log did not take this call's record within", RecordWait)
			r.exit(code)
		})
		r.Log(o.record)
		watchdog.Stop()
	}
	return code
}

// refusal is the runner's record of a refusal it made before any decider decided: what the
// payload says of the call (read leniently, as it may be broken), never its content.
func (r *Runner) refusal(payload []byte, reason, rule string) *LogEntry {
	now := time.Now()
	e := &LogEntry{ID: NewLogID(now), Time: now, Agent: r.Agent, Event: "hook", Verdict: Deny.String(),
		Rule: "hookctl: " + rule, Reason: reason}
	if gjson.ValidBytes(payload) {
		field := func(k string) string {
			if v := gjson.GetBytes(payload, k); v.Type == gjson.String {
				return clip.String(v.Str, 200)
			}
			return ""
		}
		e.Session, e.Tool, e.Cwd, e.AgentType = field("session_id"), field("tool_name"), field("cwd"), field("agent_type")
	}
	if e.Tool != "" {
		e.Event = "tool"
	}
	return e
}

// decideSafely turns a panic anywhere in deciding into a refusal. read receives the payload
// once it is read.
func (r *Runner) decideSafely(d Decider, run *Run, read func([]byte)) (o outcome) {
	var payload []byte
	defer func() {
		if v := recover(); v != nil {
			reason := fmt.Sprintf("hookctl failed (internal error: %v); the call is refused", v)
			o = outcome{out: r.Adapter.Refuse(payload, reason), failed: reason + "\n" + string(debug.Stack()),
				record: r.refusal(payload, reason, "an internal error")}
		}
	}()
	payload, err := io.ReadAll(io.LimitReader(r.Stdin, MaxPayload+1))
	if err != nil {
		return r.fail(nil, fmt.Sprintf("hookctl failed to read the payload: %v; the call is refused", err), "the payload")
	}
	if len(payload) > MaxPayload {
		return r.fail(nil, fmt.Sprintf("hookctl refuses payloads over %d bytes", MaxPayload), "the payload")
	}
	read(payload)
	ev, err := r.Adapter.Decode(payload)
	if err != nil {
		return r.fail(payload, "hookctl could not read the hook payload: "+err.Error()+"; the call is refused", "the payload")
	}
	dec := d.Decide(ev, run)
	out, err := r.Adapter.Encode(ev, dec)
	if err != nil {
		return r.fail(payload, "hookctl failed to write its decision: "+err.Error(), "the answer")
	}
	return outcome{out: out, record: dec.Record}
}

// fail refuses, for a reason found in what (the payload, the answer).
func (r *Runner) fail(payload []byte, reason, what string) outcome {
	return outcome{out: r.Adapter.Refuse(payload, reason), failed: reason, record: r.refusal(payload, reason, what)}
}

// RefuseTools is the decider inside the retriever's own distiller (a claude run with no tools):
// every tool call is refused, every other event passes, and nothing is recorded.
var RefuseTools = DeciderFunc(func(ev *Event, _ *Run) Decision {
	if ev.Name == EventToolCall {
		return Decision{Verdict: Deny, Reason: "hookctl: the retriever's distiller has no tools"}
	}
	return Decision{Verdict: Pass}
})
