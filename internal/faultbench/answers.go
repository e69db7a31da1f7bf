//go:build linux

package faultbench

import (
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"time"
)

// AnswerFigures counts answers the decision log does not hold.
type AnswerFigures struct {
	// Refused payloads (not JSON, cut short, empty, over the size cap) and whether each left a
	// record: every refusal must.
	Payloads, PayloadsUnrecorded int
	// Calls stopped (SIGSTOP) past the deadline and resumed; those answered by the deadline's
	// refusal; those of them with no record; records that say anything but deny for a call
	// the deadline refused.
	Stopped, Deadline, DeadlineUnrecorded, DeadlineMislogged int
	Failures                                                 []string
}

func (f AnswerFigures) String() string {
	return fmt.Sprintf("refused payloads %d, unrecorded %d; calls stopped past the deadline %d, refused at it %d, unrecorded %d, recorded as other than deny %d",
		f.Payloads, f.PayloadsUnrecorded, f.Stopped, f.Deadline, f.DeadlineUnrecorded, f.DeadlineMislogged)
}

// Answers feeds the hook payloads it must refuse before deciding, then stops calls (SIGSTOP)
// at random points for longer than the deadline and resumes them, and checks that every
// refusal is in the decision log with its reason, and none as anything but deny. The stopped
// calls are commands in an edit-mode session, which the hook would pass had it decided in time.
func Answers(w *World, stopped int) (AnswerFigures, error) {
	var fig AnswerFigures
	fail := func(format string, args ...any) { fig.Failures = append(fig.Failures, fmt.Sprintf(format, args...)) }
	count := func() (int, error) {
		f, err := ScanLog(DecisionLog(w.Home))
		return f.Records, err
	}
	payloads := map[string]string{
		"cut short": `{"x":`, "not JSON": "hello", "empty": "", "an array": `[1,2]`,
		"over the cap": `{"session_id":"s","tool_input":{"command":"` + strings.Repeat("a", 1<<20+10) + `"}}`,
		"no event":     `{"session_id":"a1b2c3d4-answers","cwd":"/"}`,
	}
	for name, p := range payloads {
		n0, err := count()
		if err != nil {
			return fig, err
		}
		r := w.Hook(p)
		fig.Payloads++
		n1, _ := count()
		if n1 == n0 {
			fig.PayloadsUnrecorded++
			fail("payload %s: answered %s (exit %d), no record", name, Verdict(r.Out), r.Code)
		}
	}

	const session = "a1b2c3d4-deadline"
	if err := w.Record(session, "/", "edit"); err != nil {
		return fig, err
	}
	before, err := ScanLog(DecisionLog(w.Home))
	if err != nil {
		return fig, err
	}
	type stop struct {
		id  string
		res Result
	}
	var stops []stop
	var mu sync.Mutex
	// Batches until enough calls were caught past their deadline: a stop that comes before the
	// hook started its clock, or after it answered, catches nothing.
	for batch := 0; batch < 8 && fig.Deadline < 3; batch++ {
		var wg sync.WaitGroup
		for i := range stopped {
			wg.Add(1)
			go func() {
				defer wg.Done()
				// A marker in the command names the call in a record the decision makes.
				mark := fmt.Sprintf("deadline-%d-%d-%d.", os.Getpid(), batch, i)
				cmd := w.Command("hook")
				cmd.Stdin = strings.NewReader(Bash(session, "/", "echo "+mark))
				var out, errb strings.Builder
				cmd.Stdout, cmd.Stderr = &out, &errb
				if err := cmd.Start(); err != nil {
					return
				}
				time.Sleep(time.Duration(rand.Int64N(int64(12 * time.Millisecond))))
				cmd.Process.Signal(syscall.SIGSTOP)
				time.Sleep(2300 * time.Millisecond)
				cmd.Process.Signal(syscall.SIGCONT)
				cmd.Wait()
				r := Result{Out: out.String(), Err: errb.String(), Code: cmd.ProcessState.ExitCode()}
				mu.Lock()
				stops = append(stops, stop{mark, r})
				if DeadlineRefusal(r) {
					fig.Deadline++
				}
				mu.Unlock()
			}()
		}
		wg.Wait()
		fig.Stopped += stopped
	}
	after, err := ScanLog(DecisionLog(w.Home))
	if err != nil {
		return fig, err
	}
	newRecs := after.Recs[before.Records:]
	for _, s := range stops {
		if !DeadlineRefusal(s.res) {
			continue
		}
		// The client was told the deadline's refusal: a record of the call's decision (which
		// names its command) says something it was not told.
		for _, rec := range newRecs {
			if c, _ := rec["command"].(string); rec != nil && strings.Contains(c, s.id) {
				fig.DeadlineMislogged++
				fail("call %s refused at the deadline, recorded as %v", s.id, rec["verdict"])
			}
		}
		// The deadline's record withholds the payload's content: one such record stands for
		// each refusal.
		found := false
		for i, rec := range newRecs {
			if rec != nil && strings.Contains(fmt.Sprint(rec["reason"]), "did not decide within") && rec["verdict"] == "deny" {
				newRecs[i] = nil
				found = true
				break
			}
		}
		if !found {
			fig.DeadlineUnrecorded++
			fail("call %s refused at the deadline: no record", s.id)
		}
	}
	return fig, nil
}

// ReaderFigures counts readers that hung, stalled or spun on a file that is not a regular
// file.
type ReaderFigures struct {
	// Hung: killed after 5 s; Stalled: over 2 s (a command's own 3 s deadline ended it); Spun:
	// over 1 s of CPU.
	Cases, Hung, Stalled, Spun int
	Failures                   []string
}

func (f ReaderFigures) String() string {
	return fmt.Sprintf("%d reader cases: %d hung (killed after 5 s), %d stalled (over 2 s), %d spun (over 1 s of CPU)", f.Cases, f.Hung, f.Stalled, f.Spun)
}

// Readers puts a FIFO, a link to /dev/full and a directory where the decision log, its first
// rotation, its first lane, the audit log, its first rotation and a transcript are, and runs
// the commands that read them.
func Readers(w *World) (ReaderFigures, error) {
	var fig ReaderFigures
	// An audit entry whose transcript `hookctl audit show` reads.
	const auditID = "20261201T000000.000Z-0badf00d"
	if err := os.MkdirAll(filepath.Join(w.Home, "audit", "transcripts"), 0o700); err != nil {
		return fig, err
	}
	entry := `{"id":"` + auditID + `","time":"2026-12-01T00:00:00Z","kind":"fetch","url":"https://example.com/","duration_ms":1,"scrub":"clean","outcome":"answered"}` + "\n"
	if err := os.WriteFile(filepath.Join(w.Home, "audit", "audit.jsonl"), []byte(entry), 0o600); err != nil {
		return fig, err
	}
	if w.Cred != nil {
		exec.Command("chown", "-R", fmt.Sprintf("%d:%d", w.Cred.Uid, w.Cred.Gid), w.Home).Run()
	}
	logs := []struct {
		file string
		cmds [][]string
	}{
		{filepath.Join(w.Home, "audit", "transcripts", auditID+".json"), [][]string{{"audit", "show", auditID}}},
		{filepath.Join(w.Home, "log", "decisions.jsonl"), [][]string{{"log"}, {"log", "--json"}}},
		{filepath.Join(w.Home, "log", "decisions.jsonl.1"), [][]string{{"log"}}},
		{filepath.Join(w.Home, "log", "decisions.lane1.jsonl"), [][]string{{"log"}}},
		{filepath.Join(w.Home, "audit", "audit.jsonl"), [][]string{{"audit"}}},
		{filepath.Join(w.Home, "audit", "audit.jsonl.1"), [][]string{{"audit"}}},
	}
	kinds := map[string]func(path string) error{
		"a FIFO":              func(p string) error { return syscall.Mkfifo(p, 0o600) },
		"a link to /dev/full": func(p string) error { return os.Symlink("/dev/full", p) },
		"a directory":         func(p string) error { return os.Mkdir(p, 0o700) },
	}
	for _, l := range logs {
		for kind, mk := range kinds {
			if err := os.MkdirAll(filepath.Dir(l.file), 0o700); err != nil {
				return fig, err
			}
			os.RemoveAll(l.file)
			if err := mk(l.file); err != nil {
				return fig, err
			}
			if w.Cred != nil {
				os.Lchown(l.file, int(w.Cred.Uid), int(w.Cred.Gid))
				os.Chown(filepath.Dir(l.file), int(w.Cred.Uid), int(w.Cred.Gid))
			}
			for _, args := range l.cmds {
				fig.Cases++
				cmd := w.Command(args...)
				start := time.Now()
				if err := cmd.Start(); err != nil {
					return fig, err
				}
				done := make(chan struct{})
				go func() { cmd.Wait(); close(done) }()
				select {
				case <-done:
				case <-time.After(5 * time.Second):
					cmd.Process.Kill()
					<-done
					fig.Hung++
					fig.Failures = append(fig.Failures, fmt.Sprintf("hookctl %s with %s at %s: hung", strings.Join(args, " "), kind, filepath.Base(l.file)))
					continue
				}
				if took := time.Since(start); took > 2*time.Second {
					fig.Stalled++
					fig.Failures = append(fig.Failures, fmt.Sprintf("hookctl %s with %s at %s: %s", strings.Join(args, " "), kind,
						filepath.Base(l.file), took.Round(time.Millisecond)))
				}
				if cpu := cmd.ProcessState.UserTime() + cmd.ProcessState.SystemTime(); cpu > time.Second {
					fig.Spun++
					fig.Failures = append(fig.Failures, fmt.Sprintf("hookctl %s with %s at %s: %s of CPU in %s", strings.Join(args, " "), kind,
						filepath.Base(l.file), cpu.Round(time.Millisecond), time.Since(start).Round(time.Millisecond)))
				}
			}
			os.RemoveAll(l.file)
		}
	}
	return fig, nil
}

// StateFigures counts state files a toggle could not repair.
type StateFigures struct {
	Cases, ToggleFailed, NotReadOnly, WritePassed int
	// Collateral: the session a link pointed at changed.
	Collateral int
	Failures   []string
}

func (f StateFigures) String() string {
	return fmt.Sprintf("%d kinds of file in place of a state file: toggle failed %d, not read-only after it %d, Write not refused after it %d, other session changed %d",
		f.Cases, f.ToggleFailed, f.NotReadOnly, f.WritePassed, f.Collateral)
}

// StateInPlace records a session in edit mode, puts something else where its state file is (a
// directory, one with a file in it, a FIFO, a link to another session's state, a socket), and
// checks that `readonly on` repairs it: the session reads read-only and a Write is refused.
func StateInPlace(w *World) (StateFigures, error) {
	var fig StateFigures
	const other = "0the0r00-state"
	if err := w.Record(other, "/", "edit"); err != nil {
		return fig, err
	}
	kinds := []struct {
		name string
		make func(path string) error
	}{
		{"an empty directory", func(p string) error { return os.Mkdir(p, 0o700) }},
		{"a directory with a file in it", func(p string) error {
			if err := os.Mkdir(p, 0o700); err != nil {
				return err
			}
			return os.WriteFile(filepath.Join(p, "x"), []byte("x"), 0o600)
		}},
		{"a FIFO", func(p string) error { return syscall.Mkfifo(p, 0o600) }},
		{"a link to another session's state", func(p string) error { return os.Symlink(stateFile(w.Home, other), p) }},
		{"a socket", func(p string) error {
			fd, err := syscall.Socket(syscall.AF_UNIX, syscall.SOCK_STREAM, 0)
			if err != nil {
				return err
			}
			defer syscall.Close(fd)
			return syscall.Bind(fd, &syscall.SockaddrUnix{Name: p})
		}},
	}
	for i, k := range kinds {
		session := fmt.Sprintf("5ta7e%03d-in-place", i)
		if err := w.Record(session, "/", "edit"); err != nil {
			return fig, err
		}
		path := stateFile(w.Home, session)
		if err := os.Remove(path); err != nil {
			return fig, err
		}
		if err := k.make(path); err != nil {
			return fig, err
		}
		if w.Cred != nil {
			exec.Command("chown", "-hR", fmt.Sprintf("%d:%d", w.Cred.Uid, w.Cred.Gid), path).Run()
		}
		fig.Cases++
		if r := w.Readonly("on", session); r.Code != 0 {
			fig.ToggleFailed++
			fig.Failures = append(fig.Failures, fmt.Sprintf("%s: readonly on exited %d: %s", k.name, r.Code, strings.TrimSpace(r.Err)))
		}
		if m := w.Mode(session); m != "read-only" {
			fig.NotReadOnly++
			fig.Failures = append(fig.Failures, fmt.Sprintf("%s: after readonly on the session is %s", k.name, m))
		}
		if v := Verdict(w.Hook(Write(session, "/", "/tmp/f")).Out); v != "deny" {
			fig.WritePassed++
		}
	}
	if m := w.Mode(other); m != "edit" {
		fig.Failures = append(fig.Failures, "the other session, which a link pointed at, is now "+m)
		fig.Collateral++
	}
	return fig, nil
}
