//go:build unix

package sandbox

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"os/signal"
	"syscall"
	"time"
)

// Bound is how RunBounded bounds a launched command.
type Bound struct {
	// Timeout is how long it may run; at the end it and everything it started are killed, and
	// the launcher says so on standard error (issue 23, item 9: 23 admitted commands never
	// ended).
	Timeout time.Duration
	// Isolate runs it in process and mount namespaces of its own (and a user namespace where
	// the launcher is not root), with a /proc that shows its processes only: no other process's
	// command line, environment or memory is there to read, and every process it starts ends
	// with it (RunReadOnly). Where the kernel refuses the namespaces, it runs in a process group
	// of its own instead.
	Isolate bool
	// PidOnly runs it in a process namespace of its own only (the policy-only launch, whose child
	// is the command itself: nothing mounts a /proc for it), so that every process it starts
	// still ends with it.
	PidOnly bool
}

// ExitTimedOut is the launcher's status for a command it stopped at its bound, as timeout(1)'s.
const ExitTimedOut = 124

// RunBounded runs path with argv and env as a child, passes it this process's standard streams,
// and returns its exit status (128+N for a signal), with whether it got its namespaces. When the
// bound passes, or this process is told to stop (the client interrupts the call), it kills the
// child and everything in its namespace or process group.
func RunBounded(path string, argv, env []string, b Bound) (code int, isolated bool, err error) {
	start := func(isolate bool) (*exec.Cmd, error) {
		cmd := exec.Command(path)
		cmd.Args, cmd.Env = argv, env
		cmd.Stdin, cmd.Stdout, cmd.Stderr = os.Stdin, os.Stdout, os.Stderr
		cmd.SysProcAttr = boundAttr(isolate)
		return cmd, cmd.Start()
	}
	want := b.PidOnly
	cmd, err := start(want)
	isolated = want && err == nil
	if err != nil && want {
		cmd, err = start(false)
	}
	if err != nil {
		return 0, false, fmt.Errorf("failed to start %s: %v", argv[0], err)
	}
	code, err = bounded(cmd.Process.Pid, isolated, b, func() (syscall.WaitStatus, error) {
		err := cmd.Wait()
		var ee *exec.ExitError
		if errors.As(err, &ee) {
			err = nil
		}
		if err != nil {
			return 0, err
		}
		return cmd.ProcessState.Sys().(syscall.WaitStatus), nil
	})
	return code, isolated, err
}

// bounded waits for pid (wait reaps it) under b, passing on the signals that tell the launcher
// to stop, and returns its exit status (128+N for a signal, ExitTimedOut at the bound).
func bounded(pid int, isolated bool, b Bound, wait func() (syscall.WaitStatus, error)) (int, error) {
	kill := func(sig syscall.Signal) {
		if isolated {
			// Its first process is the namespace's init, which ignores what it does not
			// handle; killing it ends every process there.
			syscall.Kill(pid, syscall.SIGKILL)
			return
		}
		syscall.Kill(-pid, sig)
	}
	sigs := make(chan os.Signal, 4)
	signal.Notify(sigs, syscall.SIGINT, syscall.SIGTERM, syscall.SIGHUP, syscall.SIGQUIT)
	defer signal.Stop(sigs)
	done := make(chan struct{})
	stopped := make(chan struct{}, 1)
	go func() {
		var timer <-chan time.Time
		if b.Timeout > 0 {
			t := time.NewTimer(b.Timeout)
			defer t.Stop()
			timer = t.C
		}
		for {
			select {
			case <-done:
				return
			case s := <-sigs:
				kill(s.(syscall.Signal))
			case <-timer:
				stopped <- struct{}{}
				kill(syscall.SIGKILL)
				return
			}
		}
	}()
	ws, err := wait()
	close(done)
	if !isolated {
		syscall.Kill(-pid, syscall.SIGKILL) // what it left running in its group
	}
	select {
	case <-stopped:
		return timedOut(b), nil
	default:
	}
	return exitStatus(ws, err)
}

// timedOut says that the command was stopped at b's bound, and is the launcher's status then.
func timedOut(b Bound) int {
	fmt.Fprintf(os.Stderr, "hookctl: the command was stopped after %v: read-only commands run for at most that long (command_timeout in your hookctl config, or the call's own timeout)\n", b.Timeout)
	return ExitTimedOut
}

// exitStatus is the launcher's status for a child that ended with ws: its own, or 128+N for
// signal N.
func exitStatus(ws syscall.WaitStatus, err error) (int, error) {
	switch {
	case err != nil:
		return 0, err
	case ws.Signaled():
		return 128 + int(ws.Signal()), nil
	}
	return ws.ExitStatus(), nil
}
