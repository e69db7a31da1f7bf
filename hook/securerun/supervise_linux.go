//go:build linux

package securerun

import (
	"bufio"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/hookctl/hookctl/sandbox"
)

const prSetChildSubreaper = 36

// Supervise starts the launch and waits for it, tearing down everything it started: the
// supervisor makes itself the subreaper of its descendants, so that a process the command
// orphans or daemonizes (setsid, a double fork) is re-parented to it instead of to init, and
// can be found and killed. On a signal from Signals it sends SIGTERM to every descendant, and
// SIGKILL to whatever is left after Grace; when the command ends, anything it left running is
// killed (Outcome.Leftover).
func Supervise(l Launch) Outcome {
	var o Outcome
	select {
	case s := <-l.Signals:
		o.Interrupted = &Interruption{Signal: signalName(s), At: time.Now().UTC()}
		o.NotStarted = "interrupted before it started"
		return o
	default:
	}
	if _, _, e := syscall.RawSyscall(syscall.SYS_PRCTL, prSetChildSubreaper, 1, 0); e != 0 {
		o.NotStarted = fmt.Sprintf("failed to become the subreaper of the run's processes: %v", e)
		return o
	}
	r, w, err := os.Pipe()
	if err != nil {
		o.NotStarted = fmt.Sprintf("failed to make the launcher's report pipe: %v", err)
		return o
	}
	cmd := exec.Command(l.Launcher[0], append(l.Launcher[1:], l.Argv...)...)
	cmd.Env, cmd.Dir = l.Env, l.Dir
	cmd.Stdin, cmd.Stdout, cmd.Stderr = l.Stdin, l.Stdout, l.Stderr
	cmd.ExtraFiles = []*os.File{w} // descriptor 3: --status-fd 3
	// The kernel kills the command if the supervisor dies, however it dies.
	cmd.SysProcAttr = &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL}
	if err := cmd.Start(); err != nil {
		r.Close()
		w.Close()
		o.NotStarted = fmt.Sprintf("failed to start hookctl's launcher: %v", err)
		return o
	}
	w.Close()
	reports := make(chan sandbox.LaunchReport, 1)
	go func() { reports <- readReport(r) }()
	waited := make(chan error, 1)
	go func() { waited <- cmd.Wait() }()

	var grace <-chan time.Time
	var waitErr error
wait:
	for {
		select {
		case s := <-l.Signals:
			if o.Interrupted == nil {
				o.Interrupted = &Interruption{Signal: signalName(s), At: time.Now().UTC()}
				signalTree(syscall.SIGTERM)
				grace = time.After(l.Grace)
			}
		case <-grace:
			o.Interrupted.Killed = signalTree(syscall.SIGKILL)
			grace = nil
		case waitErr = <-waited:
			break wait
		}
	}
	rep := <-reports
	r.Close()
	o.Leftover = reapTree()
	switch {
	case rep.Error != "":
		o.NotStarted = rep.Error
		return o
	case rep.Applied == nil:
		o.NotStarted = fmt.Sprintf("hookctl's launcher ended before it applied the sandbox (%v)", orExit(waitErr))
		return o
	}
	o.Started, o.Applied = true, rep.Applied
	o.Exit = &Exit{}
	if ws, ok := cmd.ProcessState.Sys().(syscall.WaitStatus); ok && ws.Signaled() {
		o.Exit.Code, o.Exit.Signal = 128+int(ws.Signal()), signalName(ws.Signal())
	} else {
		o.Exit.Code = cmd.ProcessState.ExitCode()
	}
	return o
}

func orExit(err error) string {
	if err == nil {
		return "exit status 0"
	}
	return err.Error()
}

// readReport reads the launcher's report until the descriptor closes (at the command's exec, or
// when the launcher exits): the last line of each kind wins.
func readReport(r *os.File) sandbox.LaunchReport {
	var rep sandbox.LaunchReport
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 4096), 64<<10)
	for sc.Scan() {
		var line sandbox.LaunchReport
		if json.Unmarshal(sc.Bytes(), &line) != nil {
			continue
		}
		if line.Applied != nil {
			rep.Applied = line.Applied
		}
		if line.Error != "" {
			rep.Error = line.Error
		}
	}
	return rep
}

// signalTree sends sig to every descendant of this process and returns how many it reached.
func signalTree(sig syscall.Signal) int {
	n := 0
	for _, p := range descendants() {
		if !p.zombie && syscall.Kill(p.pid, sig) == nil {
			n++
		}
	}
	return n
}

// reapTree kills every descendant left (the command has ended: these are what it left
// running) and reaps them as they are re-parented here, until none is left or 5 s have passed.
// It returns how many it killed.
func reapTree() int {
	killed := map[int]bool{}
	deadline := time.Now().Add(5 * time.Second)
	for time.Now().Before(deadline) {
		procs := descendants()
		if len(procs) == 0 {
			break
		}
		self := os.Getpid()
		for _, p := range procs {
			if !p.zombie && !killed[p.pid] {
				syscall.Kill(p.pid, syscall.SIGKILL)
				killed[p.pid] = true
			}
			if p.ppid == self {
				var ws syscall.WaitStatus
				syscall.Wait4(p.pid, &ws, syscall.WNOHANG, nil)
			}
		}
		time.Sleep(2 * time.Millisecond)
	}
	return len(killed)
}

type proc struct {
	pid, ppid int
	zombie    bool
}

// descendants lists the processes below this one, from /proc.
func descendants() []proc {
	entries, _ := os.ReadDir("/proc")
	children := map[int][]proc{}
	for _, e := range entries {
		pid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		b, err := os.ReadFile(filepath.Join("/proc", e.Name(), "stat"))
		if err != nil {
			continue
		}
		// pid (comm) state ppid …: comm may hold anything, so read after its last ')'.
		i := strings.LastIndexByte(string(b), ')')
		if i < 0 {
			continue
		}
		f := strings.Fields(string(b[i+1:]))
		if len(f) < 2 {
			continue
		}
		ppid, _ := strconv.Atoi(f[1])
		children[ppid] = append(children[ppid], proc{pid: pid, ppid: ppid, zombie: f[0] == "Z" || f[0] == "X"})
	}
	var out []proc
	queue := []int{os.Getpid()}
	for len(queue) > 0 {
		for _, c := range children[queue[0]] {
			out = append(out, c)
			queue = append(queue, c.pid)
		}
		queue = queue[1:]
	}
	return out
}

// signalName names s as runmeta.json records it (SIGINT).
func signalName(s os.Signal) string {
	if sig, ok := s.(syscall.Signal); ok {
		for _, n := range []struct {
			s    syscall.Signal
			name string
		}{{syscall.SIGINT, "SIGINT"}, {syscall.SIGTERM, "SIGTERM"}, {syscall.SIGHUP, "SIGHUP"}, {syscall.SIGKILL, "SIGKILL"},
			{syscall.SIGQUIT, "SIGQUIT"}, {syscall.SIGSEGV, "SIGSEGV"}, {syscall.SIGABRT, "SIGABRT"}, {syscall.SIGPIPE, "SIGPIPE"},
			{syscall.SIGSYS, "SIGSYS"}, {syscall.SIGBUS, "SIGBUS"}} {
			if n.s == sig {
				return n.name
			}
		}
		return "signal " + strconv.Itoa(int(sig))
	}
	return s.String()
}
