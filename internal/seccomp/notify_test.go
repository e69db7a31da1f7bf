//go:build linux && (amd64 || arm64)

package seccomp

import (
	"errors"
	"os"
	"os/exec"
	"runtime"
	"syscall"
	"testing"
	"time"
)

// listenerHelper is the environment variable under which the test binary is the process that
// installs a filter with a listener (TestRecvEndsWithTheFilter).
const listenerHelper = "HOOKCTL_SECCOMP_LISTENER_HELPER"

func init() {
	if os.Getenv(listenerHelper) == "" {
		return
	}
	// The filter's only user: it hands its listener over on descriptor 3, then exits once a
	// byte arrives there.
	runtime.LockOSThread()
	nr := map[string]int{"amd64": 110, "arm64": 173}[runtime.GOARCH] // getppid, which nothing here makes
	prog, err := Assemble(testAudit(), []Rule{{Name: "getppid", Nr: nr, Notify: true}})
	if err != nil {
		os.Exit(2)
	}
	fd, err := InstallListener(prog)
	if err != nil {
		os.Exit(3)
	}
	if syscall.Sendmsg(3, []byte{'L'}, syscall.UnixRights(fd), nil, 0) != nil {
		os.Exit(4)
	}
	var b [1]byte
	syscall.Read(3, b[:])
	os.Exit(0)
}

func testAudit() Arch {
	return Arch{Audit: map[string]uint32{"amd64": 0xc000003e, "arm64": 0xc00000b7}[runtime.GOARCH]}
}

// TestRecvEndsWithTheFilter: once no process uses a filter, the kernel answers every read of its
// listener at once with ENOENT, which the edit sandbox's supervisor took for a caller gone
// and read again, spinning on a processor until its init exited. Recv now says ErrNoCallers.
// Control: while the filter's process lives, Recv waits.
func TestRecvEndsWithTheFilter(t *testing.T) {
	pair, err := syscall.Socketpair(syscall.AF_UNIX, syscall.SOCK_SEQPACKET|syscall.SOCK_CLOEXEC, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer syscall.Close(pair[0])
	helper := exec.Command(os.Args[0], "-test.run=^$")
	helper.Env = append(os.Environ(), listenerHelper+"=1")
	helper.ExtraFiles = []*os.File{os.NewFile(uintptr(pair[1]), "helper's end")}
	if err := helper.Start(); err != nil {
		t.Fatal(err)
	}
	syscall.Close(pair[1])
	buf, oob := make([]byte, 1), make([]byte, syscall.CmsgSpace(4))
	_, oobn, _, _, err := syscall.Recvmsg(pair[0], buf, oob, 0)
	if err != nil {
		helper.Process.Kill()
		t.Fatalf("the helper sent no listener: %v (%v)", err, helper.Wait())
	}
	msgs, _ := syscall.ParseSocketControlMessage(oob[:oobn])
	fds, err := syscall.ParseUnixRights(&msgs[0])
	if err != nil || len(fds) != 1 {
		t.Fatalf("no listener in the helper's message: %v", err)
	}
	listener := fds[0]
	defer syscall.Close(listener)

	got := make(chan error, 1)
	go func() {
		_, err := Recv(listener)
		got <- err
	}()
	select {
	case err := <-got:
		t.Fatalf("control: Recv returned while the filter's process lives: %v", err)
	case <-time.After(200 * time.Millisecond):
	}
	syscall.Write(pair[0], []byte{'x'})
	if err := helper.Wait(); err != nil {
		t.Fatalf("the helper: %v", err)
	}
	select {
	case err := <-got:
		if !errors.Is(err, ErrNoCallers) {
			t.Errorf("Recv after the filter's last process exited: %v, want ErrNoCallers", err)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("Recv did not return in 5 s after the filter's last process exited")
	}
}
