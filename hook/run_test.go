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
// not hold the run past RecordWait from its answer, whoever gave it: the decider (the answer's
// code, and why on stderr), a decider that answers near the deadline (still RecordWait for the
// record, not what was left of the deadline), or the deadline itself (refused).
func TestStuckLogEndsTheRun(t *testing.T) {
	never := make(chan struct{})
	defer close(never)
	for _, c := range []struct {
		name       string
		deadline   time.Duration
		decider    Decider
		answeredBy time.Duration // when the answer is given, at the latest
		code       int
		answer     string
	}{
		{"decided", 0, allow, 0, ExitDecided, "allow"},
		{"decided near the deadline", 600 * time.Millisecond,
			DeciderFunc(func(e *Event, run *Run) Decision { time.Sleep(300 * time.Millisecond); return allow(e, run) }), 300 * time.Millisecond, ExitDecided, "allow"},
		{"the deadline", 100 * time.Millisecond, DeciderFunc(func(*Event, *Run) Decision { <-never; return Decision{} }), 100 * time.Millisecond, ExitFailed, "refused"},
	} {
		out, errs, exited := make(lines, 8), make(lines, 8), make(chan int, 1)
		r := &Runner{Stdin: strings.NewReader("{}"), Stdout: out, Stderr: errs, Adapter: fixedAdapter{}, Deadline: c.deadline,
			Log:  func(*LogEntry) { <-never },
			Exit: func(code int) { exited <- code }}
		start := time.Now()
		go r.Run(c.decider)
		select {
		case code := <-exited:
			if answer := <-out; code != c.code || answer != c.answer {
				t.Errorf("%s: exit %d, answer %q", c.name, code, answer)
			}
			if why := strings.Join(drain(errs), ""); !strings.Contains(why, "did not take this call's record") {
				t.Errorf("%s: stderr %q", c.name, why)
			}
			if d := time.Since(start); d < c.answeredBy+RecordWait {
				t.Errorf("%s: ended after %v, before RecordWait had passed since the answer", c.name, d)
			}
		case <-time.After(c.answeredBy + RecordWait + 5*time.Second):
			t.Fatalf("%s: a stuck decision log held the run", c.name)
		}
	}
}

// drain is what the lines hold now.
func drain(l lines) []string {
	var out []string
	for {
		select {
		case s := <-l:
			out = append(out, s)
		default:
			return out
		}
	}
}
