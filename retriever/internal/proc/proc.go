// Package proc starts the retriever's child processes so that none outlives its retrieval. Both
// of the retriever's processes use it: the front (hookctl retrieve, which runs the worker with
// GroupCommand) and the isolated worker (which runs a distiller program with RunStopping).
//
// Two rules keep a distiller from outliving its retrieval:
//
//   - The worker runs a distiller program (claude -p, a command) inside its Landlock domain,
//     which is applied thread by thread (landlock_restrict_self through AllThreadsSyscall; ABI 7
//     has no flag that makes one domain of a whole process). Each OS thread so has a domain of
//     its own, a child inherits the domain of the thread that forked it, and signal scoping lets
//     a thread signal only processes of its own domain. exec.CommandContext kills from another
//     goroutine, on any thread, and gets EPERM: the child ran on past its deadline. RunStopping
//     starts and kills the child from one locked thread.
//   - The front runs the worker in a process group of its own and kills the group, so that a
//     distiller the worker started dies with it (killing the worker alone left it running,
//     orphaned, with the untrusted content and the network).
package proc

import (
	"context"
	"os/exec"
	"runtime"
	"syscall"
	"time"
)

// RunStopping runs cmd and kills it when ctx is done; it returns Wait's error.
func RunStopping(ctx context.Context, cmd *exec.Cmd) error {
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	if cmd.SysProcAttr == nil {
		cmd.SysProcAttr = &syscall.SysProcAttr{}
	}
	dieWithParent(cmd.SysProcAttr)
	if err := cmd.Start(); err != nil {
		return err
	}
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	select {
	case err := <-done:
		return err
	case <-ctx.Done():
		cmd.Process.Kill() // from this thread: see above
		return <-done
	}
}

// GroupCommand is exec.CommandContext for a child that leads a process group, all of which is
// killed when ctx is done.
func GroupCommand(ctx context.Context, name string, args ...string) *exec.Cmd {
	cmd := exec.CommandContext(ctx, name, args...)
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	dieWithParent(cmd.SysProcAttr)
	cmd.Cancel = func() error { return syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL) }
	cmd.WaitDelay = 2 * time.Second
	return cmd
}
