package hook

import (
	"bytes"
	"strings"
	"testing"
	"time"
)

// fixedAdapter decodes every payload as one tool call and renders a verdict as its name.
type fixedAdapter struct{}

func (fixedAdapter) Decode([]byte) (*Event, error) {
	return &Event{Name: EventToolCall, Call: &ToolCall{Tool: "Read"}}, nil
}
func (fixedAdapter) Encode(_ *Event, d Decision) ([]byte, error) {
	return []byte(d.Verdict.String()), nil
}
func (fixedAdapter) Refuse([]byte, string) []byte { return []byte("refused") }

// lines is a writer whose writes the test receives, from whichever goroutine made them.
type lines chan string

func (l lines) Write(p []byte) (int, error) { l <- string(p); return len(p), nil }

var allow = DeciderFunc(func(*Event, *Run) Decision {
	return Decision{Verdict: Allow, Record: &LogEntry{Event: "tool"}}
})

// TestRecordIsWrittenBeforeTheRunEnds: the answer first, then its record, both before Run
// returns (and the process exits).
func TestRecordIsWrittenBeforeTheRunEnds(t *testing.T) {
	var out bytes.Buffer
	var logged []string
	r := &Runner{Stdin: strings.NewReader("{}"), Stdout: &out, Stderr: &out, Adapter: fixedAdapter{}, Agent: "A",
		Log: func(e *LogEntry) { logged = append(logged, out.String()+" "+e.Agent) }}
	if code := r.Run(allow); code != ExitDecided {
		t.Fatalf("exit %d", code)
	}
	if len(logged) != 1 || logged[0] != "allow A" {
		t.Fatalf("records %q: want one, made after the answer", logged)
	}
}

// TestStuckLogEndsTheRun: a decision log that never takes the record (a disk that hangs) does
// not hold the run past RecordWait: the answer is given, the run ends with the answer's code,
// and says why on stderr.
func TestStuckLogEndsTheRun(t *testing.T) {
	out, errs := make(lines, 8), make(lines, 8)
	release := make(chan struct{})
	defer close(release)
	exited := make(chan int, 1)
	r := &Runner{Stdin: strings.NewReader("{}"), Stdout: out, Stderr: errs, Adapter: fixedAdapter{},
		Log:  func(*LogEntry) { <-release },
		Exit: func(code int) { exited <- code }}
	start := time.Now()
	go r.Run(allow)
	select {
	case code := <-exited:
		if answer, why := <-out, <-errs; code != ExitDecided || answer != "allow" || !strings.Contains(why, "did not take this call's record") {
			t.Errorf("exit %d, answer %q, stderr %q", code, answer, why)
		}
		if d := time.Since(start); d < RecordWait {
			t.Errorf("ended after %v, before RecordWait", d)
		}
	case <-time.After(RecordWait + 5*time.Second):
		t.Fatal("a stuck decision log held the run")
	}
}

// TestStuckLogAfterTheDeadline: the deadline's own refusal is recorded under the same bound: a
// decider that never answers and a log that never takes the record still end the run, refused,
// RecordWait after the deadline.
func TestStuckLogAfterTheDeadline(t *testing.T) {
	out, errs := make(lines, 8), make(lines, 8)
	release := make(chan struct{})
	defer close(release)
	exited := make(chan int, 1)
	const deadline = 100 * time.Millisecond
	r := &Runner{Stdin: strings.NewReader("{}"), Stdout: out, Stderr: errs, Adapter: fixedAdapter{}, Deadline: deadline,
		Log:  func(*LogEntry) { <-release },
		Exit: func(code int) { exited <- code }}
	start := time.Now()
	go r.Run(DeciderFunc(func(*Event, *Run) Decision { <-release; return Decision{} }))
	select {
	case code := <-exited:
		if answer := <-out; code != ExitFailed || answer != "refused" {
			t.Errorf("exit %d, answer %q", code, answer)
		}
		if d := time.Since(start); d < deadline+RecordWait {
			t.Errorf("ended after %v, before the deadline and RecordWait", d)
		}
	case <-time.After(deadline + RecordWait + 5*time.Second):
		t.Fatal("a stuck decision log held the run past its deadline")
	}
}

// TestRecordWaitNearTheDeadline: an answer given close to the deadline still leaves its record
// RecordWait to be written, not what was left of the deadline.
func TestRecordWaitNearTheDeadline(t *testing.T) {
	out, errs := make(lines, 8), make(lines, 8)
	release := make(chan struct{})
	defer close(release)
	exited := make(chan int, 1)
	const deadline, decide = 600 * time.Millisecond, 300 * time.Millisecond
	r := &Runner{Stdin: strings.NewReader("{}"), Stdout: out, Stderr: errs, Adapter: fixedAdapter{}, Deadline: deadline,
		Log:  func(*LogEntry) { <-release },
		Exit: func(code int) { exited <- code }}
	start := time.Now()
	go r.Run(DeciderFunc(func(e *Event, run *Run) Decision { time.Sleep(decide); return allow(e, run) }))
	select {
	case code := <-exited:
		if answer := <-out; code != ExitDecided || answer != "allow" {
			t.Errorf("exit %d, answer %q", code, answer)
		}
		if d := time.Since(start); d < decide+RecordWait {
			t.Errorf("ended after %v: the record had less than RecordWait", d)
		}
	case <-time.After(deadline + RecordWait + 5*time.Second):
		t.Fatal("a stuck decision log held the run")
	}
}
