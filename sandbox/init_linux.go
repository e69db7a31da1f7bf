//go:build linux && (amd64 || arm64)

package sandbox

import (
	"encoding/binary"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"os/signal"
	"runtime"
	"syscall"
	"time"
	"unsafe"

	"github.com/hookctl/hookctl/internal/landlock"
	"github.com/hookctl/hookctl/internal/seccomp"
)

// An edit-mode command runs under a supervisor of its own, the sandbox's init:
//
//	the client's shell
//	└ hookctl sandbox --profile edit …        the launcher, outside: RunInit
//	  └ hookctl sandbox … --init              pid 1 of new pid, mount (user, network)
//	    │                                     namespaces: ServeInit
//	    └ bash --noprofile --norc -c '…'      forked by the init, the filter applied: startCommand
//
// The pid namespace holds every process the command starts, whatever it does (setsid, a double
// fork, a main thread that exits): none can leave it, and when its init dies the kernel kills
// them all. The launcher registers the init (Started) before the command starts, and exits
// with the command's status; the init stays, reaping, for as long as anything the command
// started runs, until the session leaves edit mode (EndEdit). The init also answers the calls
// the filter hands it (supervise_linux.go): it shares the command's Landlock domain and
// credentials, without its filter, so that what it does for the command is what the command
// could do, bar what the supervisor refuses.

// control messages between the launcher and the init, on a SOCK_SEQPACKET pair (the init's
// descriptor 3).
const (
	initControlFD = 3
	initNetworkFD = 4 // the network handover, when the init has a network namespace
	goByte        = 'g'
)

// RunInit starts the sandbox's init in new pid and mount namespaces (and, per l.NS, user and
// network ones), lets the command start once Started accepts the init, passes on the
// signals a terminal or the client sends, and returns the command's exit status once the
// command has exited. What the command left running stays with the init.
func RunInit(l InitLaunch) (int, error) {
	control, err := syscall.Socketpair(syscall.AF_UNIX, syscall.SOCK_SEQPACKET|syscall.SOCK_CLOEXEC, 0)
	if err != nil {
		return 0, fmt.Errorf("failed to make the init's control channel: %v", err)
	}
	ctl := os.NewFile(uintptr(control[0]), "init control")
	defer ctl.Close()
	childCtl := os.NewFile(uintptr(control[1]), "init control")
	cmd := exec.Command("/proc/self/exe", l.Argv[1:]...)
	cmd.Args[0] = l.Argv[0]
	cmd.Stdin, cmd.Stdout, cmd.Stderr = os.Stdin, os.Stdout, os.Stderr
	cmd.ExtraFiles = []*os.File{childCtl}
	attr := &syscall.SysProcAttr{Cloneflags: syscall.CLONE_NEWNS | syscall.CLONE_NEWPID}
	if l.NS.User {
		uid, gid := os.Getuid(), os.Getgid()
		attr.Cloneflags |= syscall.CLONE_NEWUSER
		attr.UidMappings = []syscall.SysProcIDMap{{ContainerID: uid, HostID: uid, Size: 1}}
		attr.GidMappings = []syscall.SysProcIDMap{{ContainerID: gid, HostID: gid, Size: 1}}
		// The init's own, dropped before anything runs (restrictInit): to mount, drop the
		// bounding set and bring loopback up; and CAP_DAC_OVERRIDE, without which an overlay
		// mounted in a user namespace is refused (EACCES, measured on Linux 6.18).
		attr.AmbientCaps = []uintptr{capSysAdmin, capSetpcap, capNetAdmin, capDacOverride}
	}
	handover := -1
	if l.NS.Net {
		attr.Cloneflags |= syscall.CLONE_NEWNET
		pair, err := syscall.Socketpair(syscall.AF_UNIX, syscall.SOCK_SEQPACKET|syscall.SOCK_CLOEXEC, 0)
		if err != nil {
			childCtl.Close()
			return 0, fmt.Errorf("failed to make the network handover: %v", err)
		}
		handover = pair[0]
		defer syscall.Close(handover)
		child := os.NewFile(uintptr(pair[1]), "network handover")
		defer child.Close()
		cmd.ExtraFiles = append(cmd.ExtraFiles, child)
	}
	cmd.SysProcAttr = attr
	err = cmd.Start()
	for _, f := range cmd.ExtraFiles {
		f.Close() // the init has them; their closing is how a failed init says so
	}
	if err != nil {
		return 0, fmt.Errorf("failed to enter namespaces of its own: %v", err)
	}
	if l.Started != nil {
		if err := l.Started(cmd.Process.Pid); err != nil {
			cmd.Process.Kill()
			cmd.Wait()
			return 0, err
		}
	}
	if _, err := ctl.Write([]byte{goByte}); err != nil {
		cmd.Process.Kill()
		cmd.Wait()
		return 0, fmt.Errorf("the sandbox's init is gone: %v", err)
	}
	sigs := make(chan os.Signal, 8)
	signal.Notify(sigs, syscall.SIGINT, syscall.SIGTERM, syscall.SIGHUP, syscall.SIGQUIT)
	defer signal.Stop(sigs)
	go func() {
		for s := range sigs {
			cmd.Process.Signal(s)
		}
	}()
	bridged := make(chan func(), 1)
	var cancel [2]int
	if l.NS.Net {
		if err := syscall.Pipe2(cancel[:], syscall.O_CLOEXEC); err != nil {
			cmd.Process.Kill()
			return 0, fmt.Errorf("failed to make a pipe: %v", err)
		}
		defer syscall.Close(cancel[0])
		go func() { bridged <- serveBridge(handover, cancel[0], l.OnConnect) }()
	} else {
		bridged <- nil
	}
	code, ok := readStatus(ctl)
	// The init ends at once when the command left nothing running: then its record goes.
	exited := make(chan struct{})
	go func() { cmd.Wait(); close(exited) }()
	if l.NS.Net {
		syscall.Write(cancel[1], []byte{0})
		syscall.Close(cancel[1])
	}
	if stop := <-bridged; stop != nil {
		stop()
	}
	if !ok {
		// The init ended before the command did (its setup failed, and it said why on
		// stderr): its own status is the answer.
		<-exited
		if c := cmd.ProcessState.ExitCode(); c > 0 {
			return c, nil
		}
		return 0, errors.New("the sandbox's init ended without the command's status")
	}
	select {
	case <-exited:
		if l.Ended != nil {
			l.Ended(cmd.Process.Pid)
		}
	case <-time.After(100 * time.Millisecond):
	}
	return code, nil
}

// readStatus reads the command's exit status from the init; false if the init closed the
// channel without one.
func readStatus(ctl *os.File) (int, bool) {
	b := make([]byte, 8)
	for {
		n, err := ctl.Read(b)
		if errors.Is(err, syscall.EINTR) {
			continue
		}
		if err != nil || n != 4 {
			return 0, false
		}
		return int(binary.LittleEndian.Uint32(b)), true
	}
}

// ServeInit is the init's body: it checks it is what RunInit made (pid 1 of a pid namespace,
// in a mount namespace of its own), sets up the profile's mounts and network, restricts
// itself, waits for the launcher's go, starts the command (startCommand) and supervises what
// it runs until nothing is left. It returns the init's exit status: 0, or exitSetup when it failed
// before the command ran (having said why on stderr).
func ServeInit(c InitConfig) int {
	fail := func(err error) int {
		fmt.Fprintln(os.Stderr, "hookctl sandbox:", errNotApplied(err))
		return exitSetup
	}
	if err := ownInit(); err != nil {
		return fail(err)
	}
	p := c.Profile
	if c.Bridge {
		url, err := BridgeNetwork(initNetworkFD)
		if err != nil {
			return fail(err)
		}
		p.Proxy = url
	}
	env := p.Environ(c.Env)
	forbid, frozen, err := privateMounts(p)
	if err != nil {
		return fail(err)
	}
	allow := socketKeys(c.Sockets)
	syscall.Umask(0) // what it makes for the command gets the command's umask (supervise_linux.go)
	domain, err := restrictInit(p)
	if err != nil {
		return fail(err)
	}
	ctl := os.NewFile(initControlFD, "init control")
	if b := make([]byte, 1); !readByte(ctl, b) || b[0] != goByte {
		return exitSetup // the launcher did not accept this init: nothing runs
	}
	main, listener, err := startCommand(p, c.Argv, env)
	if err != nil {
		return fail(err)
	}
	sup := &supervisor{allow: allow, forbid: forbid, frozen: frozen, domain: domain, report: os.Stderr, listener: listener}
	go sup.serve()

	sigs := make(chan os.Signal, 8)
	signal.Notify(sigs, syscall.SIGINT, syscall.SIGTERM, syscall.SIGHUP, syscall.SIGQUIT)
	mainDone := make(chan struct{})
	go func() {
		for {
			select {
			case s := <-sigs:
				syscall.Kill(main, s.(syscall.Signal))
			case <-mainDone:
				signal.Stop(sigs)
				return
			}
		}
	}()
	if ws, ok := reapUntil(main); ok {
		code := ws.ExitStatus()
		if ws.Signaled() {
			code = 128 + int(ws.Signal())
		}
		var b [4]byte
		binary.LittleEndian.PutUint32(b[:], uint32(code))
		ctl.Write(b[:])
		ctl.Close()
		close(mainDone)
		// The command's output ends with it: what it left running cannot keep the client
		// waiting through the init's copies, and nothing is reported any more.
		sup.quiet()
		if null, err := os.OpenFile(os.DevNull, os.O_RDWR, 0); err == nil {
			for fd := 0; fd <= 2; fd++ {
				syscall.Dup3(int(null.Fd()), fd, 0)
			}
			null.Close()
		}
	}
	reapUntil(0) // what the command left running: the namespace ends with this init
	return 0
}

// reapUntil reaps this init's children, orphans the command left included, until main ends
// (its status, true) or none is left (false); main 0 reaps them all.
func reapUntil(main int) (syscall.WaitStatus, bool) {
	for {
		var ws syscall.WaitStatus
		pid, err := syscall.Wait4(-1, &ws, 0, nil)
		if errors.Is(err, syscall.EINTR) {
			continue
		}
		if err != nil {
			return ws, false // ECHILD: nothing left
		}
		if pid == main {
			return ws, true
		}
	}
}

// exitSetup is the init's status when nothing ran (the launcher's 126, exitSandboxFailed).
const exitSetup = 126

func readByte(f *os.File, b []byte) bool {
	for {
		n, err := f.Read(b)
		if errors.Is(err, syscall.EINTR) {
			continue
		}
		return err == nil && n == 1
	}
}

// ownInit checks that this process is pid 1 of a pid namespace and that its mount namespace is
// not the one pid 1 of the machine (as /proc still shows it) is in: the --init flag is on
// hookctl's command line, which anyone can type, and the mounts that follow must never reach
// the user's own namespace.
func ownInit() error {
	if os.Getpid() != 1 {
		return errors.New("the sandbox's init runs only as pid 1 of a pid namespace of its own")
	}
	self, err := os.Readlink("/proc/self/ns/mnt")
	if err != nil {
		return fmt.Errorf("failed to read its mount namespace: %v", err)
	}
	// The machine's pid 1, as the procfs mounted before this namespace names it. Where it
	// cannot be read (another user's), the user namespace is the proof: one of its own, whose
	// mount namespace the user's does not share.
	if host, err := os.Readlink("/proc/1/ns/mnt"); err == nil && host == self {
		return errors.New("the sandbox's init is in the machine's mount namespace")
	}
	if os.Geteuid() != 0 && !ownNamespaces() {
		return errors.New("the sandbox's init is not in a user namespace of its own")
	}
	return nil
}

// restrictInit makes the init undumpable, so that nothing it starts can read or write its
// memory or take its descriptors through /proc or ptrace (that takes CAP_SYS_PTRACE, which none
// of them has), and starts the thread the supervisor makes files on: it drops every capability
// and applies p's Landlock ruleset, which is also the command's (startCommand applies it), so that
// what the supervisor makes for the command, the command could have made. The init's other
// threads stay outside Landlock: a Go process's threads would each get a domain of their own
// (Landlock ABI 7 cannot share one), and the command's, which only that thread could then trace
// or signal. They keep the init's capabilities, which open nothing the command could not (its
// user's own files, and connections the supervisor makes for it after its own checks).
func restrictInit(p *Profile) (chan<- func(), error) {
	const prSetDumpable = 4
	if _, _, e := syscall.RawSyscall(syscall.SYS_PRCTL, prSetDumpable, 0, 0); e != 0 {
		return nil, fmt.Errorf("failed to make the init undumpable: %v", e)
	}
	ops := make(chan func())
	errc := make(chan error, 1)
	go func() {
		// Never unlocked: the thread ends with this goroutine, and no other goroutine runs on it.
		runtime.LockOSThread()
		_, err := dropCapabilities()
		if err == nil {
			_, err = landlock.Restrict(landlock.Ruleset{Rules: editLandlockRules(p), Scope: editScope})
		}
		errc <- err
		if err != nil {
			return
		}
		for op := range ops {
			op()
		}
	}()
	return ops, <-errc
}

// editScope is what the edit profile's Landlock domain is scoped to: abstract unix sockets
// and signals of its own.
const editScope = landlock.ScopeAbstractUnixSocket | landlock.ScopeSignal

const capDacOverride = 1

// startCommand starts argv, with env, as the init's child: it drops every capability, applies
// p's Landlock ruleset (the init's domain thread has the same) and the edit profile's filter,
// whose supervised calls the init answers on the listener returned, and execs. The child is not
// Go started again: it makes a list of system calls worked out here (forkChild), and shares the
// init's descriptor table until its exec (CLONE_FILES), so that the filter's listener lands in
// the init's table; every other descriptor of the table is close-on-exec by then.
func startCommand(p *Profile, argv, env []string) (pid, listener int, err error) {
	path, err := lookCommand(argv)
	if err != nil {
		return 0, 0, err
	}
	prog, err := assembleEdit()
	if err != nil {
		return 0, 0, err
	}
	if err := closeOnExec(); err != nil {
		return 0, 0, err
	}
	c := &childPlan{ruleset: -1, flags: syscall.CLONE_FILES}
	defer c.close()
	if err := capOps(c, false); err != nil {
		return 0, 0, err
	}
	if c.ruleset, _, err = landlock.Prepare(landlock.Ruleset{Rules: editLandlockRules(p), Scope: editScope}); err != nil {
		return 0, 0, err
	}
	fprog := &sockFprog{len: uint16(len(prog)), filter: &prog[0]}
	fd := new(int32)
	*fd = -1
	c.keep = append(c.keep, fprog, prog, fd)
	c.add(stageApply, "set no_new_privs", syscall.SYS_PRCTL, prSetNoNewPrivs, 1, 0, 0, 0)
	c.add(stageApply, "apply the Landlock ruleset", landlock.SysRestrictSelf, uintptr(c.ruleset), 0)
	nr, op, flags := seccomp.ListenerCall()
	c.add(stageApply, "install the seccomp filter", nr, op, flags, uintptr(unsafe.Pointer(fprog))).save = true
	// The listener's number, written where the init reads it before the exec.
	c.add(stageApply, "run "+argv[0], syscall.SYS_EXECVE, c.str(path), c.strv(argv), c.strv(env)).patch = fd
	pid, failed, err := c.start(false)
	if err != nil {
		return 0, 0, err
	}
	if failed != nil {
		wait4(pid)
		if *fd >= 0 {
			syscall.Close(int(*fd))
		}
		return 0, 0, failed.err
	}
	return pid, int(*fd), nil
}

// waitGone waits, up to d, for the process pidfd refers to to exit.
func waitGone(pidfd int, d time.Duration) bool {
	fds := []pollFd{{fd: int32(pidfd), events: pollIn}}
	ts := syscall.NsecToTimespec(d.Nanoseconds())
	for {
		n, _, e := syscall.Syscall6(syscall.SYS_PPOLL, uintptr(unsafe.Pointer(&fds[0])), 1, uintptr(unsafe.Pointer(&ts)), 0, 0, 0)
		if e == syscall.EINTR {
			continue
		}
		return e == 0 && n == 1
	}
}
