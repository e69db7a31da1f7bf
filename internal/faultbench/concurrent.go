//go:build linux

package faultbench

import (
	"fmt"
	"math/rand/v2"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"time"
)

// ConcurrentFigures counts what parallel hook calls left in the decision log.
type ConcurrentFigures struct {
	Calls, Answered int
	// Unrecorded is calls answered minus tool records in the log (each call is one record).
	Unrecorded int
	Log        LogFigures
}

func (f ConcurrentFigures) String() string {
	return fmt.Sprintf("%d concurrent calls, %d answered, %d without a record; decision log: %s", f.Calls, f.Answered, f.Unrecorded, f.Log)
}

// command is a read command of about n bytes.
func command(tag string, n int) string {
	if n < len(tag)+6 {
		n = len(tag) + 6
	}
	return "echo " + tag + " " + strings.Repeat("x", n-len(tag)-6)
}

// Concurrent makes calls hook calls, inflight at a time, on a few sessions, with commands of
// lengths from 20 bytes to 6 KiB, so that log lines cross page boundaries, and reads the log.
func Concurrent(w *World, calls, inflight int) (ConcurrentFigures, error) {
	fig := ConcurrentFigures{Calls: calls}
	before, err := ScanLog(DecisionLog(w.Home))
	if err != nil {
		return fig, err
	}
	var mu sync.Mutex
	inflightRuns(calls, inflight, func(i int) {
		session := fmt.Sprintf("c0ffee%02d-concurrent", i%4)
		r := w.Hook(Bash(session, "/", command(fmt.Sprintf("call-%d", i), 20+rand.IntN(6000))))
		if r.Code == 0 && Verdict(r.Out) != "unreadable" {
			mu.Lock()
			fig.Answered++
			mu.Unlock()
		}
	})
	after, err := ScanLog(DecisionLog(w.Home))
	if err != nil {
		return fig, err
	}
	fig.Log = after
	fig.Unrecorded = fig.Answered - (after.Records - before.Records)
	return fig, nil
}

// KillFigures counts what SIGKILLs at random points left behind.
type KillFigures struct {
	Runs, Killed int
	Log          LogFigures
	// Strays are temporary files under the home: right after the kills, after the next
	// toggle, and (if waited for) after another toggle a minute later.
	StraysAfterKills, StraysAfterToggle, StraysAfterMinute int
	Waited                                                 bool
	// Damaged sessions: state files no reader can read after the kills (each read as
	// read-only, never wider: Wider counts any that read as a mode no toggle set).
	Damaged, Wider int
}

func (f KillFigures) String() string {
	s := fmt.Sprintf("%d runs, %d SIGKILLed: stray temporary files %d after the kills, %d after the next toggle",
		f.Runs, f.Killed, f.StraysAfterKills, f.StraysAfterToggle)
	if f.Waited {
		s += fmt.Sprintf(", %d a minute later after another toggle", f.StraysAfterMinute)
	}
	return s + fmt.Sprintf("; sessions damaged %d, wider than set %d; decision log: %s", f.Damaged, f.Wider, f.Log)
}

// Kills runs hook calls (new sessions' starts, tool calls) and toggles, inflight at a time,
// each SIGKILLed after a random delay up to maxDelay, then counts torn log lines and stray
// temporary files, makes one toggle, and counts them again. With waitMinute it waits 61 s and
// toggles once more. Sessions that every toggle left read-only must never read wider.
func Kills(w *World, runs, inflight int, maxDelay time.Duration, waitMinute bool) (KillFigures, error) {
	fig := KillFigures{Runs: runs}
	const sessions = 6
	id := func(k int) string { return fmt.Sprintf("d1ed%04d-kill", k) }
	for k := range sessions {
		if err := w.Record(id(k), "/", "read-only"); err != nil {
			return fig, err
		}
	}
	var mu sync.Mutex
	inflightRuns(runs, inflight, func(i int) {
		var cmd = w.Command("hook")
		stdin := ""
		// Toggles only ever set read-only or review here, so no session may read as edit.
		switch i % 5 {
		case 0:
			cmd = w.Command("readonly", []string{"on", "review"}[rand.IntN(2)], "--session", id(rand.IntN(sessions)))
		case 1:
			stdin = SessionStart(fmt.Sprintf("f7e5%06d-kill-new", i), "/")
		case 2:
			stdin = Write(id(rand.IntN(sessions)), "/", "/tmp/f")
		default:
			stdin = Bash(id(rand.IntN(sessions)), "/", command(fmt.Sprintf("kill-%d", i), 20+rand.IntN(6000)))
		}
		cmd.Stdin = strings.NewReader(stdin)
		if err := cmd.Start(); err != nil {
			return
		}
		time.Sleep(time.Duration(rand.Int64N(int64(maxDelay))))
		if cmd.Process.Signal(syscall.SIGKILL) == nil {
			mu.Lock()
			fig.Killed++
			mu.Unlock()
		}
		cmd.Wait()
	})
	fig.StraysAfterKills = Strays(w.Home)
	w.Readonly("on", id(0))
	fig.StraysAfterToggle = Strays(w.Home)
	if waitMinute {
		fig.Waited = true
		time.Sleep(61 * time.Second)
		w.Readonly("on", id(1))
		fig.StraysAfterMinute = Strays(w.Home)
	}
	for k := range sessions {
		switch m := w.Mode(id(k)); {
		case strings.HasPrefix(m, "damaged"):
			fig.Damaged++
		case m == "edit":
			fig.Wider++
		}
	}
	var err error
	fig.Log, err = ScanLog(DecisionLog(w.Home))
	return fig, err
}

// inflightRuns calls run(i) for each i below n in goroutines, at most inflight at a time, and
// returns when every call has.
func inflightRuns(n, inflight int, run func(i int)) {
	var wg sync.WaitGroup
	sem := make(chan struct{}, inflight)
	for i := range n {
		wg.Add(1)
		sem <- struct{}{}
		go func() {
			defer wg.Done()
			defer func() { <-sem }()
			run(i)
		}()
	}
	wg.Wait()
}

// sessionsDir is the session store's directory in home.
func sessionsDir(home string) string { return filepath.Join(home, "sessions") }

// stateFile is session's state file in home.
func stateFile(home, session string) string { return filepath.Join(sessionsDir(home), session+".json") }
