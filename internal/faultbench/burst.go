//go:build linux

package faultbench

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"
	"unsafe"
)

// BurstFigures is what a burst of hook processes released at once did.
type BurstFigures struct {
	Procs, Rounds, Calls int
	// Deadline: calls refused at the hook's deadline; Failed: calls with no readable answer.
	Deadline, Failed int
	// Latency of the calls, from the process's start to its answer.
	P50, P99, Max time.Duration
	// Toggles made during the bursts and how long each took; and, as the floor no command can
	// beat, how long `hookctl version` took, started with each (a process of the same binary in
	// the same storm, doing nothing).
	Toggles                          int
	ToggleP50, ToggleMax             time.Duration
	TogglesOverSecond, TogglesFailed int
	// Unlanded: toggles whose change of the state file was not seen.
	Unlanded           int
	FloorP50, FloorMax time.Duration
	// LandP50, LandMax: from a toggle's start to its change of the state file (what the next
	// hook reads), before the toggle has synced it and exited. OverFloor is the most a toggle
	// landed after the hookctl version started with it exited: the toggle's own delay, beyond
	// what any process started in the same storm waited for a CPU.
	LandP50, LandMax, OverFloor time.Duration
	// Waits: where the burst's hook processes were found, sampled from /proc: running or
	// waiting for a CPU, or asleep in the kernel function named (flock, fsync, …).
	Waits   map[string]int
	Samples int
}

func (f BurstFigures) String() string {
	s := fmt.Sprintf("%d rounds of %d processes (%d calls): %d refused at the deadline, %d unanswered; latency p50 %s p99 %s max %s; %d toggles: p50 %s max %s, %d over 1 s, %d failed, landed p50 %s max %s (hookctl version beside them: p50 %s max %s)",
		f.Rounds, f.Procs, f.Calls, f.Deadline, f.Failed, f.P50.Round(time.Millisecond), f.P99.Round(time.Millisecond), f.Max.Round(time.Millisecond),
		f.Toggles, f.ToggleP50.Round(time.Millisecond), f.ToggleMax.Round(time.Millisecond), f.TogglesOverSecond, f.TogglesFailed,
		f.LandP50.Round(time.Millisecond), f.LandMax.Round(time.Millisecond), f.FloorP50.Round(time.Millisecond), f.FloorMax.Round(time.Millisecond))
	if f.Samples > 0 {
		type kv struct {
			k string
			v int
		}
		var all []kv
		total := 0
		for k, v := range f.Waits {
			all = append(all, kv{k, v})
			total += v
		}
		sort.Slice(all, func(i, j int) bool { return all[i].v > all[j].v })
		var parts []string
		for i, x := range all {
			if i == 8 {
				break
			}
			parts = append(parts, fmt.Sprintf("%s %.0f%%", x.k, 100*float64(x.v)/float64(total)))
		}
		s += fmt.Sprintf("; process states over %d samples: %s", f.Samples, strings.Join(parts, ", "))
	}
	return s
}

// Burst starts procs hook processes at the same instant, rounds times, on a few sessions (read
// commands, Writes, reads of files, in read-only and edit sessions), while the human toggles one
// of the sessions; it counts calls refused at the deadline and times the toggles. With sample,
// it samples where the processes wait. With cold, the first round finds no cached answer of
// the sandbox probe, as the first burst after an upgrade does.
func Burst(w *World, procs, rounds int, sample, cold bool) (BurstFigures, error) {
	fig := BurstFigures{Procs: procs, Rounds: rounds, Waits: map[string]int{}}
	sessions := []string{"b0257000-burst-ro", "b0257001-burst-edit", "b0257002-burst-ro", "b0257003-toggled"}
	for i, s := range sessions {
		if err := w.Record(s, "/", []string{"read-only", "edit", "read-only", "edit"}[i]); err != nil {
			return fig, err
		}
	}
	// Claude Code sends each call's tool_use_id, which the hook claims (a second registration
	// of hookctl answers without side effects).
	payload := func(i int) string {
		s := sessions[i%len(sessions)]
		id := fmt.Sprintf("toolu_burst_%06d", i)
		switch i % 5 {
		case 0:
			return ToolCall(s, "/", "Write", map[string]any{"file_path": "/tmp/burst", "content": "x"}, id)
		case 1:
			return ToolCall(s, "/", "Read", map[string]any{"file_path": "/etc/hostname"}, id)
		case 2:
			return ToolCall(s, "/", "Bash", map[string]any{"command": "git status", "description": "d"}, id)
		case 3:
			return ToolCall(s, "/", "Bash", map[string]any{"command": "ls -la /tmp", "description": "d"}, id)
		}
		return ToolCall(s, "/", "Bash", map[string]any{"command": fmt.Sprintf("cat /etc/hostname # %d", i), "description": "d"}, id)
	}
	var lat []time.Duration
	var toggles, floors, lands []time.Duration
	for round := range rounds {
		if cold && round == 0 {
			// The first burst after an upgrade: the sandbox probe's answer is not cached yet.
			os.Remove(filepath.Join(w.Home, "sandbox.json"))
		}
		var wg sync.WaitGroup
		var mu sync.Mutex
		// Each process waits in a shell on one shared pipe, its payload on stdin and its answer
		// going to a file; closing the pipe's write end lets all of them exec hookctl at the
		// same instant (a process that forks them one by one cannot).
		gateR, gateW, err := os.Pipe()
		if err != nil {
			return fig, err
		}
		ps := make([]*burstProc, procs)
		for i := range ps {
			p := &burstProc{}
			if p.in, err = payloadFile(payload(round*procs + i)); err == nil {
				p.out, err = payloadFile("")
			}
			if err != nil {
				return fig, err
			}
			p.cmd = w.Command()
			p.cmd.Path, p.cmd.Args = "/bin/sh", []string{"sh", "-c", `read _ <&3; exec "$0" hook`, w.Bin}
			p.cmd.Stdin, p.cmd.Stdout, p.cmd.Stderr = p.in, p.out, &p.stderr
			p.cmd.ExtraFiles = []*os.File{gateR}
			if err := p.cmd.Start(); err != nil {
				return fig, err
			}
			ps[i] = p
		}
		gateR.Close()
		release := make(chan struct{})
		var released time.Time
		for _, p := range ps {
			wg.Add(1)
			go func() {
				defer wg.Done()
				defer p.in.Close()
				defer p.out.Close()
				p.cmd.Wait()
				<-release
				answer, _ := os.ReadFile("/proc/self/fd/" + strconv.Itoa(int(p.out.Fd())))
				took := time.Duration(-1)
				if fi, err := p.out.Stat(); err == nil && fi.Size() > 0 {
					took = fi.ModTime().Sub(released)
				}
				mu.Lock()
				defer mu.Unlock()
				fig.Calls++
				if took >= 0 {
					lat = append(lat, took)
				}
				r := Result{Out: string(answer), Err: p.stderr.String()}
				switch {
				case DeadlineRefusal(r):
					fig.Deadline++
				case Verdict(r.Out) == "unreadable" || len(answer) == 0:
					fig.Failed++
				}
			}()
		}
		stopSampling := make(chan struct{})
		sampled := make(chan struct{})
		if sample {
			go func() {
				defer close(sampled)
				for {
					select {
					case <-stopSampling:
						return
					case <-time.After(50 * time.Millisecond):
					}
					states := sampleProcs(filepath.Base(w.Bin))
					mu.Lock()
					for _, s := range states {
						fig.Waits[s]++
					}
					fig.Samples++
					mu.Unlock()
				}
			}()
		} else {
			close(sampled)
		}
		// The human's toggles, while the burst runs: on, off, on, …
		togglesDone := make(chan struct{})
		go func() {
			defer close(togglesDone)
			<-release
			for k := range 4 {
				time.Sleep([]time.Duration{20, 150, 150, 150}[k] * time.Millisecond)
				floorDone := make(chan Result)
				go func() { floorDone <- w.Run("", 0, "version") }()
				watch := watchState(w.Home, sessions[3])
				start := time.Now()
				r := w.Readonly([]string{"on", "off"}[k%2], sessions[3])
				floor := <-floorDone
				landed := watch(start)
				mu.Lock()
				toggles = append(toggles, r.Took)
				if landed > 0 {
					lands = append(lands, landed)
					fig.OverFloor = max(fig.OverFloor, landed-floor.Took)
				} else {
					fig.Unlanded++
				}
				floors = append(floors, floor.Took)
				if r.Code != 0 {
					fig.TogglesFailed++
				}
				mu.Unlock()
			}
		}()
		// Wait until every shell sits in its read of the pipe, then release them.
		for deadline := time.Now().Add(time.Minute); time.Now().Before(deadline); time.Sleep(20 * time.Millisecond) {
			if waitingShells(ps) == len(ps) {
				break
			}
		}
		released = time.Now()
		gateW.Close()
		close(release)
		wg.Wait()
		<-togglesDone
		close(stopSampling)
		<-sampled
	}
	fig.Rounds = rounds
	sort.Slice(lat, func(i, j int) bool { return lat[i] < lat[j] })
	if n := len(lat); n > 0 {
		fig.P50, fig.P99, fig.Max = lat[n/2], lat[n*99/100], lat[n-1]
	}
	sort.Slice(lands, func(i, j int) bool { return lands[i] < lands[j] })
	if n := len(lands); n > 0 {
		fig.LandP50, fig.LandMax = lands[n/2], lands[n-1]
	}
	sort.Slice(floors, func(i, j int) bool { return floors[i] < floors[j] })
	if n := len(floors); n > 0 {
		fig.FloorP50, fig.FloorMax = floors[n/2], floors[n-1]
	}
	sort.Slice(toggles, func(i, j int) bool { return toggles[i] < toggles[j] })
	fig.Toggles = len(toggles)
	if n := len(toggles); n > 0 {
		fig.ToggleP50, fig.ToggleMax = toggles[n/2], toggles[n-1]
		for _, t := range toggles {
			if t > time.Second {
				fig.TogglesOverSecond++
			}
		}
	}
	return fig, nil
}

// burstProc is one process of a burst: a shell waiting to exec hookctl.
type burstProc struct {
	cmd     *exec.Cmd
	in, out *os.File
	stderr  bytes.Buffer
}

// waitingShells counts the processes asleep reading the gate (a pipe).
func waitingShells(ps []*burstProc) int {
	n := 0
	for _, p := range ps {
		wchan, _ := os.ReadFile(fmt.Sprintf("/proc/%d/wchan", p.cmd.Process.Pid))
		if strings.Contains(string(wchan), "pipe_read") {
			n++
		}
	}
	return n
}

// watchState watches session's state file for its next change (a file renamed into place, or a
// write in place) and returns a function that, given when the toggle started, waits briefly
// for the change and says how long after start it came (0: none seen).
func watchState(home, session string) func(start time.Time) time.Duration {
	fd, err := syscall.InotifyInit1(syscall.IN_CLOEXEC)
	if err != nil {
		return func(time.Time) time.Duration { return 0 }
	}
	if _, err := syscall.InotifyAddWatch(fd, sessionsDir(home), syscall.IN_MOVED_TO|syscall.IN_MODIFY|syscall.IN_CLOSE_WRITE); err != nil {
		syscall.Close(fd)
		return func(time.Time) time.Duration { return 0 }
	}
	seen := make(chan time.Time, 1)
	go func() {
		defer syscall.Close(fd)
		buf := make([]byte, 64<<10)
		for {
			n, err := syscall.Read(fd, buf)
			if err != nil || n <= 0 {
				return
			}
			at := time.Now()
			for off := 0; off+syscall.SizeofInotifyEvent <= n; {
				ev := (*syscall.InotifyEvent)(unsafe.Pointer(&buf[off]))
				name := strings.TrimRight(string(buf[off+syscall.SizeofInotifyEvent:off+syscall.SizeofInotifyEvent+int(ev.Len)]), "\x00")
				off += syscall.SizeofInotifyEvent + int(ev.Len)
				if name == session+".json" && ev.Mask&(syscall.IN_MOVED_TO|syscall.IN_MODIFY) != 0 {
					seen <- at
					return
				}
			}
		}
	}()
	return func(start time.Time) time.Duration {
		select {
		case at := <-seen:
			return at.Sub(start)
		case <-time.After(100 * time.Millisecond):
			syscall.Close(fd) // ends the reader
			return 0
		}
	}
}

// parentOf is pid's parent.
func parentOf(pid int) (int, bool) {
	stat, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return 0, false
	}
	i := bytes.LastIndexByte(stat, ')')
	if i < 0 {
		return 0, false
	}
	f := strings.Fields(string(stat[i+1:]))
	if len(f) < 2 {
		return 0, false
	}
	ppid, err := strconv.Atoi(f[1])
	return ppid, err == nil
}

// payloadFile is an unlinked file holding payload, at its start.
func payloadFile(payload string) (*os.File, error) {
	f, err := os.CreateTemp("", "faultbench-payload-")
	if err != nil {
		return nil, err
	}
	os.Remove(f.Name())
	if _, err := f.WriteString(payload); err != nil {
		f.Close()
		return nil, err
	}
	_, err = f.Seek(0, 0)
	return f, err
}

// sampleProcs classifies each process named comm that this process started: "running" if a thread is running or waiting
// for a CPU, else the kernel function a non-idle thread sleeps in (wchan), else "go-idle" (every
// thread parked in a futex: the Go runtime waiting, a timer, a channel).
func sampleProcs(comm string) []string {
	if len(comm) > 15 {
		comm = comm[:15]
	}
	entries, _ := os.ReadDir("/proc")
	var out []string
	for _, e := range entries {
		pid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		c, err := os.ReadFile(fmt.Sprintf("/proc/%d/comm", pid))
		if err != nil || strings.TrimSpace(string(c)) != comm {
			continue
		}
		// Only this burst's: the hooks (and toggles) are this process's children; other
		// hookctl processes on the machine are not.
		if p, ok := parentOf(pid); !ok || p != os.Getpid() {
			continue
		}
		tasks, _ := os.ReadDir(fmt.Sprintf("/proc/%d/task", pid))
		state := ""
		for _, t := range tasks {
			stat, err := os.ReadFile(fmt.Sprintf("/proc/%d/task/%s/stat", pid, t.Name()))
			if err != nil {
				continue
			}
			i := bytes.LastIndexByte(stat, ')')
			if i < 0 || i+2 >= len(stat) {
				continue
			}
			if st := stat[i+2]; st == 'R' {
				state = "running"
				break
			} else if st == 'Z' {
				state = "exited"
				break
			}
			wchan, _ := os.ReadFile(fmt.Sprintf("/proc/%d/task/%s/wchan", pid, t.Name()))
			ws := strings.TrimSpace(string(wchan))
			switch {
			case ws == "" || ws == "0" || strings.HasPrefix(ws, "futex") || ws == "do_epoll_wait" || ws == "ep_poll":
			case state == "":
				state = ws
			}
		}
		if state == "" {
			state = "go-idle"
		}
		out = append(out, state)
	}
	return out
}
