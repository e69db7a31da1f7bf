//go:build linux && (amd64 || arm64)

package sandbox

import (
	"os/exec"
	"runtime"
	"syscall"
	"testing"
	"unsafe"
)

// TestForkChildRunsOps: a child forked by forkChild (rawVfork, this architecture's assembly)
// makes its ops in order and ends in their execve, and one whose op fails reports which and
// exits 126. TestArm64Programs runs it built for arm64 too, under qemu's user mode: there, the
// only run of vfork_arm64.s this machine can give (qemu makes a vfork a fork, so only the
// child's and the parent's paths through the assembly are tried, not the sharing).
func TestForkChildRunsOps(t *testing.T) {
	truePath, err := exec.LookPath("true")
	if err != nil {
		t.Skip("no true(1) to exec")
	}
	var out, report [2]int
	for _, p := range []*[2]int{&out, &report} {
		if err := syscall.Pipe2(p[:], syscall.O_CLOEXEC); err != nil {
			t.Fatal(err)
		}
		defer syscall.Close(p[0])
	}
	c := &childPlan{ruleset: -1}
	msg := []byte("from the child")
	c.keep = append(c.keep, msg)
	c.add(stageApply, "write", syscall.SYS_WRITE, uintptr(out[1]), uintptr(unsafe.Pointer(&msg[0])), uintptr(len(msg)))
	c.add(stageApply, "exec", syscall.SYS_EXECVE, c.str(truePath), c.strv([]string{"true"}), c.strv(nil))
	run := func(ops []childOp, shared bool) (syscall.WaitStatus, childFailure) {
		t.Helper()
		syscall.ForkLock.Lock()
		pid, e := forkChild(ops, 0, report[1], shared)
		syscall.ForkLock.Unlock()
		if e != 0 {
			t.Fatalf("forkChild: %v", e)
		}
		ws, err := wait4(int(pid))
		if err != nil {
			t.Fatal(err)
		}
		var f childFailure
		if ws.ExitStatus() == 126 {
			buf := (*[unsafe.Sizeof(f)]byte)(unsafe.Pointer(&f))[:]
			if n, err := syscall.Read(report[0], buf); err != nil || n != len(buf) {
				t.Fatalf("the failed child reported %d bytes: %v", n, err)
			}
		}
		return ws, f
	}
	for _, shared := range []bool{true, false} {
		ws, _ := run(c.ops, shared)
		if !ws.Exited() || ws.ExitStatus() != 0 {
			t.Errorf("shared %v: the child ended %v, want exit 0 from true(1)", shared, ws)
		}
		buf := make([]byte, 64)
		n, _ := syscall.Read(out[0], buf)
		if string(buf[:n]) != string(msg) {
			t.Errorf("shared %v: the child wrote %q, want %q", shared, buf[:n], msg)
		}
	}
	// A failing op: an execve of a file that is not there, after the write.
	bad := append([]childOp(nil), c.ops...)
	missing := c.str("/nonexistent/hookctl-fork-test")
	bad[1].args[0] = missing
	ws, f := run(bad, true)
	if ws.ExitStatus() != 126 || f.op != 1 || syscall.Errno(f.errno) != syscall.ENOENT {
		t.Errorf("a failed exec: the child ended %v reporting op %d, %v; want 126, op 1, ENOENT", ws, f.op, syscall.Errno(f.errno))
	}
	syscall.Read(out[0], make([]byte, 64))
	runtime.KeepAlive(c)
}
