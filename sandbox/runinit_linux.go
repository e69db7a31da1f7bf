//go:build linux && (amd64 || arm64)

package sandbox

import (
	"errors"
	"fmt"
	"os"
	"os/signal"
	"strconv"
	"strings"
	"syscall"
)

// ServeRunInit is the init of a hookctl run's launch: pid 1 of the run's pid namespace (its
// supervisor started it with CLONE_NEWPID and CLONE_NEWNS), it mounts the namespace's own
// /proc, starts inner (the launcher that applies the profile and execs the command) with env,
// and waits. Every process the command starts is in the namespace, whatever it does (setsid, a
// double fork, a main thread that exits), and ends with the init. The init passes SIGTERM,
// SIGINT, SIGHUP and SIGQUIT on to every process of the namespace; on SIGUSR2 (the grace after
// an interruption is over) it kills them all and reports how many were still running; when
// the command exits it does the same for what the command left running, and reports the
// command's status. Reports go to statusFD (LaunchReport lines). It returns the init's exit
// status: the command's, or exitSetup when it failed before the command ran.
func ServeRunInit(inner, env []string, statusFD int) int {
	fail := func(err error) int {
		ReportFailure(statusFD, err)
		fmt.Fprintln(os.Stderr, "hookctl sandbox:", errNotApplied(err))
		return exitSetup
	}
	if os.Getpid() != 1 {
		return fail(errors.New("a run's init runs only as pid 1 of the run's pid namespace"))
	}
	if err := syscall.Mount("", "/", "", syscall.MS_REC|syscall.MS_PRIVATE, ""); err != nil {
		return fail(fmt.Errorf("failed to make the mounts private: %v", err))
	}
	if err := syscall.Mount("proc", "/proc", "proc", syscall.MS_NOSUID|syscall.MS_NODEV|syscall.MS_NOEXEC, ""); err != nil {
		return fail(fmt.Errorf("failed to mount the run's own /proc: %v", err))
	}
	self, err := os.Executable()
	if err != nil {
		return fail(err)
	}
	status := os.NewFile(uintptr(statusFD), "status")
	files := []*os.File{os.Stdin, os.Stdout, os.Stderr}
	for fd := 3; fd < statusFD; fd++ {
		files = append(files, nil)
	}
	proc, err := os.StartProcess(self, inner, &os.ProcAttr{Env: env, Files: append(files, status)})
	if err != nil {
		return fail(fmt.Errorf("failed to start the command: %v", err))
	}
	main := proc.Pid
	sigs := make(chan os.Signal, 8)
	signal.Notify(sigs, syscall.SIGINT, syscall.SIGTERM, syscall.SIGHUP, syscall.SIGQUIT, syscall.SIGUSR2)
	go func() {
		for s := range sigs {
			if s == syscall.SIGUSR2 {
				// Reported before the kill: once the command dies the main loop reports its
				// status and this process exits, which would lose a report written after.
				n := runningCount()
				report(statusFD, LaunchReport{Killed: &n})
				syscall.Kill(-1, syscall.SIGKILL) // the main loop reaps them, the command included
				continue
			}
			syscall.Kill(-1, s.(syscall.Signal)) // every process of the namespace but this one
		}
	}()
	ws, ok := reapUntil(main)
	if !ok {
		return exitSetup // the command was never seen to exit
	}
	st := ExitStatus{Code: ws.ExitStatus()}
	if ws.Signaled() {
		st.Code, st.Signal = 128+int(ws.Signal()), int(ws.Signal())
	}
	n := killAll()
	reapUntil(0) // until nothing of the run is left
	report(statusFD, LaunchReport{Status: &st, Leftover: &n})
	return st.Code
}

// killAll counts the processes of this pid namespace still running (its own /proc lists
// them: a process whose main thread has exited counts while any of its threads runs), kills
// them, and returns the count. The caller reaps them.
func killAll() int {
	n := runningCount()
	syscall.Kill(-1, syscall.SIGKILL)
	return n
}

// runningCount counts the processes of this pid namespace still running, this one aside.
func runningCount() int {
	n := 0
	entries, _ := os.ReadDir("/proc")
	for _, e := range entries {
		pid, err := strconv.Atoi(e.Name())
		if err != nil || pid == 1 {
			continue
		}
		if running(pid) {
			n++
		}
	}
	return n
}

// running says whether any thread of pid is neither a zombie nor dead.
func running(pid int) bool {
	tasks, err := os.ReadDir("/proc/" + strconv.Itoa(pid) + "/task")
	if err != nil {
		return false
	}
	for _, t := range tasks {
		b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/task/" + t.Name() + "/stat")
		if err != nil {
			continue
		}
		s := string(b)
		if i := strings.LastIndexByte(s, ')'); i >= 0 && i+2 < len(s) && s[i+2] != 'Z' && s[i+2] != 'X' {
			return true
		}
	}
	return false
}
