//go:build linux && (amd64 || arm64)

package sandbox

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"os/signal"
	"runtime"
	"strconv"
	"strings"
	"syscall"
	"unsafe"
)

// RunIsolated runs argv (hookctl's launcher again, told where it is) as a child in a new mount
// namespace and the namespaces ns names; it waits, passes on the signals a terminal or the
// client sends, and returns the child's exit status. The Go runtime is multithreaded, and a new
// user namespace can be entered only by a single-threaded process: hence a child, which the
// kernel starts in it. Where the namespaces are refused (Ubuntu's AppArmor restriction, a
// container), it fails and nothing has run.
//
// With ns.Net the child's descriptor 3 is a socket on which it sends the listener
// (BridgeNetwork). The parent, which is outside the child's network namespace, calls onConnect
// with that listener when the first connection arrives (most commands never connect, and do not
// pay for a proxy), and the function onConnect returns when the child has exited.
func RunIsolated(argv []string, ns Namespaces, onConnect func(listener *os.File) (stop func())) (int, error) {
	cmd := exec.Command("/proc/self/exe", argv[1:]...)
	cmd.Args[0] = argv[0]
	cmd.Stdin, cmd.Stdout, cmd.Stderr = os.Stdin, os.Stdout, os.Stderr
	attr := &syscall.SysProcAttr{Cloneflags: syscall.CLONE_NEWNS, Pdeathsig: syscall.SIGKILL}
	if ns.User {
		uid, gid := os.Getuid(), os.Getgid()
		attr.Cloneflags |= syscall.CLONE_NEWUSER
		attr.UidMappings = []syscall.SysProcIDMap{{ContainerID: uid, HostID: uid, Size: 1}}
		attr.GidMappings = []syscall.SysProcIDMap{{ContainerID: gid, HostID: gid, Size: 1}}
		// The user is not root in the new namespace, so an exec would drop the capabilities it
		// got there; ambient ones survive it. The launcher drops them all once it has mounted.
		attr.AmbientCaps = []uintptr{capSysAdmin, capSetpcap, capNetAdmin}
	}
	var handover int = -1
	if ns.Net {
		attr.Cloneflags |= syscall.CLONE_NEWNET
		pair, err := syscall.Socketpair(syscall.AF_UNIX, syscall.SOCK_SEQPACKET|syscall.SOCK_CLOEXEC, 0)
		if err != nil {
			return 0, fmt.Errorf("failed to make the network handover: %v", err)
		}
		handover = pair[0]
		child := os.NewFile(uintptr(pair[1]), "network handover")
		cmd.ExtraFiles = []*os.File{child}
		defer child.Close()
		defer syscall.Close(handover)
	}
	cmd.SysProcAttr = attr
	if err := cmd.Start(); err != nil {
		return 0, fmt.Errorf("failed to enter a namespace of its own: %v", err)
	}
	if ns.Net {
		cmd.ExtraFiles[0].Close() // the child has it; its end closing is how a failed child says so
	}
	sigs := make(chan os.Signal, 8)
	signal.Notify(sigs, syscall.SIGINT, syscall.SIGTERM, syscall.SIGHUP, syscall.SIGQUIT)
	go func() {
		for s := range sigs {
			cmd.Process.Signal(s)
		}
	}()
	bridged := make(chan func(), 1)
	done, cancel := make(chan struct{}), -1
	if ns.Net {
		var p [2]int
		if err := syscall.Pipe2(p[:], syscall.O_CLOEXEC); err != nil {
			cmd.Process.Kill()
			cmd.Wait()
			return 0, fmt.Errorf("failed to make a pipe: %v", err)
		}
		cancel = p[1]
		defer syscall.Close(p[0])
		go func() {
			defer close(done)
			bridged <- serveBridge(handover, p[0], onConnect)
		}()
	} else {
		close(done)
		bridged <- nil
	}
	err := cmd.Wait()
	signal.Stop(sigs)
	if cancel >= 0 {
		syscall.Write(cancel, []byte{0})
		syscall.Close(cancel)
	}
	<-done
	if stop := <-bridged; stop != nil {
		stop()
	}
	var ee *exec.ExitError
	switch {
	case err == nil:
		return 0, nil
	case errors.As(err, &ee):
		if ws, ok := ee.Sys().(syscall.WaitStatus); ok && ws.Signaled() {
			return 128 + int(ws.Signal()), nil
		}
		return ee.ExitCode(), nil
	}
	return 0, err
}

// serveBridge receives the child's listener and, once a connection is waiting on it, hands it
// to onConnect, whose stop it returns. It returns nil, having started nothing, when the child
// sent no listener (it failed first) or exited (cancel became readable) before connecting.
func serveBridge(handover, cancel int, onConnect func(*os.File) func()) func() {
	lfd, err := receiveFD(handover)
	if err != nil {
		return nil
	}
	listener := os.NewFile(uintptr(lfd), "egress listener")
	defer listener.Close() // onConnect's process has its own copy
	fds := []pollFd{{fd: int32(lfd), events: pollIn}, {fd: int32(cancel), events: pollIn}}
	for {
		_, _, e := syscall.Syscall6(syscall.SYS_PPOLL, uintptr(unsafe.Pointer(&fds[0])), uintptr(len(fds)), 0, 0, 0, 0)
		switch {
		case e == syscall.EINTR:
			continue
		case e != 0 || fds[1].revents != 0 || fds[0].revents&pollIn == 0:
			return nil
		}
		return onConnect(listener)
	}
}

type pollFd struct {
	fd      int32
	events  int16
	revents int16
}

const (
	pollIn      = 0x1
	capNetAdmin = 12
)

// receiveFD reads one descriptor sent with SCM_RIGHTS on fd.
func receiveFD(fd int) (int, error) {
	buf, oob := make([]byte, 16), make([]byte, syscall.CmsgSpace(4))
	n, oobn, _, _, err := syscall.Recvmsg(fd, buf, oob, syscall.MSG_CMSG_CLOEXEC)
	if err != nil {
		return -1, err
	}
	if n == 0 && oobn == 0 {
		return -1, errors.New("the child sent nothing")
	}
	msgs, err := syscall.ParseSocketControlMessage(oob[:oobn])
	if err != nil || len(msgs) != 1 {
		return -1, errors.New("the child sent no listener")
	}
	fds, err := syscall.ParseUnixRights(&msgs[0])
	if err != nil || len(fds) != 1 {
		for _, f := range fds {
			syscall.Close(f)
		}
		return -1, errors.New("the child sent no listener")
	}
	return fds[0], nil
}

// BridgeNetwork is the child's half of RunIsolated's Net: in its new network namespace, which
// must have only loopback (else it is not the namespace it was promised), it brings loopback
// up, listens on 127.0.0.1, sends the listener on handover, closes both, and returns the proxy
// URL for the command's environment.
func BridgeNetwork(handover int) (string, error) {
	defer syscall.Close(handover)
	if err := ownNetwork(); err != nil {
		return "", err
	}
	if err := loopbackUp(); err != nil {
		return "", err
	}
	lfd, err := syscall.Socket(syscall.AF_INET, syscall.SOCK_STREAM|syscall.SOCK_CLOEXEC, 0)
	if err != nil {
		return "", fmt.Errorf("failed to make the proxy's listener: %v", err)
	}
	defer syscall.Close(lfd)
	if err := syscall.Bind(lfd, &syscall.SockaddrInet4{Addr: [4]byte{127, 0, 0, 1}}); err != nil {
		return "", fmt.Errorf("failed to bind the proxy's listener: %v", err)
	}
	if err := syscall.Listen(lfd, 128); err != nil {
		return "", fmt.Errorf("failed to listen: %v", err)
	}
	sa, err := syscall.Getsockname(lfd)
	if err != nil {
		return "", fmt.Errorf("failed to read the listener's port: %v", err)
	}
	port := sa.(*syscall.SockaddrInet4).Port
	if err := syscall.Sendmsg(handover, []byte{'L'}, syscall.UnixRights(lfd), nil, 0); err != nil {
		return "", fmt.Errorf("failed to hand the listener over: %v", err)
	}
	return "http://127.0.0.1:" + strconv.Itoa(port), nil
}

// ownNetwork says whether the calling thread is in a network namespace whose only interface is
// loopback, and if not, why.
func ownNetwork() error {
	// thread-self: the network namespace is per thread, and the launcher that unshares its own
	// (StartWatcher) does so on its locked thread, which need not be the main one.
	b, err := os.ReadFile("/proc/thread-self/net/dev")
	if err != nil {
		return fmt.Errorf("failed to list the network interfaces: %v", err)
	}
	for _, line := range strings.Split(string(b), "\n")[2:] {
		if name, _, ok := strings.Cut(strings.TrimSpace(line), ":"); ok && name != "lo" {
			return fmt.Errorf("not in a network namespace of its own (it has %s)", name)
		}
	}
	return nil
}

// BridgePort is the port of a BridgeNetwork URL.
func BridgePort(url string) uint16 {
	i := strings.LastIndexByte(url, ':')
	n, err := strconv.Atoi(url[i+1:])
	if i < 0 || err != nil || n <= 0 || n > 65535 {
		return 0
	}
	return uint16(n)
}

// ReceiveListener is the other end of BridgeNetwork for a caller that started the launcher in
// its network namespace itself (hookctl run): it waits for the listener on handover.
func ReceiveListener(handover *os.File) (*os.File, error) {
	fd, err := receiveFD(int(handover.Fd()))
	if err != nil {
		return nil, err
	}
	return os.NewFile(uintptr(fd), "broker listener"), nil
}

// StartWatcher is the bridge for a launcher that has the capabilities to make the command's
// network namespace itself (root): instead of a child in the namespaces (a second start of
// hookctl before the command, RunIsolated), the launcher starts argv — hookctl's watcher,
// which serves the bridge from outside (Watch) — and goes on to unshare its own network
// namespace on its locked thread, hand the listener over on the returned descriptor
// (BridgeNetwork) and exec the command, which keeps its pid: the watcher starts beside it
// instead of before it. The watcher's descriptor 3 is the other end.
func StartWatcher(argv []string) (int, error) {
	pair, err := syscall.Socketpair(syscall.AF_UNIX, syscall.SOCK_SEQPACKET|syscall.SOCK_CLOEXEC, 0)
	if err != nil {
		return -1, fmt.Errorf("failed to make the network handover: %v", err)
	}
	other := os.NewFile(uintptr(pair[1]), "network handover")
	defer other.Close()
	cmd := exec.Command("/proc/self/exe", argv[1:]...)
	cmd.Args[0] = argv[0]
	// Its stderr is the command's, for the refusals the model reads; nothing else of the
	// command's is its.
	cmd.Stderr = os.Stderr
	cmd.ExtraFiles = []*os.File{other}
	if err := cmd.Start(); err != nil {
		syscall.Close(pair[0])
		return -1, fmt.Errorf("failed to start the egress watcher: %v", err)
	}
	cmd.Process.Release() // the command, which this process becomes, is its parent
	return pair[0], nil
}

// UnshareNetwork gives the calling thread, locked to its goroutine, a network namespace of its
// own (StartWatcher).
func UnshareNetwork() error {
	runtime.LockOSThread()
	if err := syscall.Unshare(syscall.CLONE_NEWNET); err != nil {
		return fmt.Errorf("failed to make a network namespace: %v", err)
	}
	return nil
}

// Watch is the watcher's half of StartWatcher: it receives the listener on handover, hands it
// to onConnect when the first connection arrives, and calls onConnect's stop once the process
// pid (its parent, the command) has exited. It returns at once if its parent is not pid any
// more (the command is gone) or never sends the listener (it failed before).
func Watch(handover, pid int, onConnect func(*os.File) func()) error {
	const sysPidfdOpen = 434 // the same number on amd64 and arm64
	r, _, e := syscall.Syscall(sysPidfdOpen, uintptr(pid), 0, 0)
	switch {
	case e == syscall.ESRCH:
		return nil // the command has finished already
	case e != 0:
		return fmt.Errorf("failed to watch the command: %v", e)
	}
	pidfd := int(r)
	defer syscall.Close(pidfd)
	syscall.CloseOnExec(pidfd)
	if os.Getppid() != pid {
		return nil // exited before the pidfd was taken: nothing to serve
	}
	stop := serveBridge(handover, pidfd, onConnect)
	if stop == nil {
		return nil
	}
	fds := []pollFd{{fd: int32(pidfd), events: pollIn}}
	for {
		if _, _, e := syscall.Syscall6(syscall.SYS_PPOLL, uintptr(unsafe.Pointer(&fds[0])), 1, 0, 0, 0, 0); e != syscall.EINTR {
			break
		}
	}
	stop()
	return nil
}

// loopbackUp sets lo up (a new network namespace has it down).
func loopbackUp() error {
	const siocgifflags, siocsifflags, iffUp = 0x8913, 0x8914, 0x1
	fd, err := syscall.Socket(syscall.AF_INET, syscall.SOCK_DGRAM|syscall.SOCK_CLOEXEC, 0)
	if err != nil {
		return fmt.Errorf("failed to bring loopback up: %v", err)
	}
	defer syscall.Close(fd)
	var req struct {
		name  [16]byte
		flags uint16
		_     [22]byte
	}
	copy(req.name[:], "lo")
	if _, _, e := syscall.Syscall(syscall.SYS_IOCTL, uintptr(fd), siocgifflags, uintptr(unsafe.Pointer(&req))); e != 0 {
		return fmt.Errorf("failed to bring loopback up: %v", e)
	}
	req.flags |= iffUp
	if _, _, e := syscall.Syscall(syscall.SYS_IOCTL, uintptr(fd), siocsifflags, uintptr(unsafe.Pointer(&req))); e != 0 {
		return fmt.Errorf("failed to bring loopback up: %v", e)
	}
	return nil
}
