//go:build linux && (amd64 || arm64)

package sandbox

import (
	"syscall"

	"github.com/hookctl/hookctl/internal/seccomp"
)

// Numbers the syscall package does not name; since Linux 5.1 new system calls have one number
// on every architecture.
const (
	nrIoUringSetup    = 425
	nrIoUringEnter    = 426
	nrIoUringRegister = 427
	nrOpenTree        = 428
	nrMoveMount       = 429
	nrFsopen          = 430
	nrFsconfig        = 431
	nrFsmount         = 432
	nrFspick          = 433
	nrClone3          = 435
	nrPidfdGetfd      = 438
	nrProcessMadvise  = 440
	nrMountSetattr    = 442
	nrFchmodat2       = 452
	nrSetxattrat      = 463
	nrRemovexattrat   = 466
)

const (
	afUnix        = 1
	afInet        = 2
	afInet6       = 10
	ipprotoTCP    = 6
	sockStream    = 1
	sockSeqpacket = 5
	sockTypeMask  = 0xf // SOCK_NONBLOCK and SOCK_CLOEXEC share the word

	tiocsti         = 0x5412
	tioclinux       = 0x541c
	fsIocSetflags   = 0x40086602
	fsIoc32Setflags = 0x40046602
	fsIocFssetxattr = 0x401c5820
	cloneNewMask    = 0x7e020080 // CLONE_NEWNS|NEWCGROUP|NEWUTS|NEWIPC|NEWUSER|NEWPID|NEWNET|NEWTIME
)

// sys names a system call by its number on this architecture.
type sys struct {
	name string
	nr   int
}

// readOnlyRules is the read-only profile's seccomp filter: what Landlock does not cover on
// every kernel. Each group says why. EPERM unless said otherwise.
func readOnlyRules() []seccomp.Rule {
	rules := make([]seccomp.Rule, 0, 128) // the hundred or so below, in one allocation
	deny := func(errno syscall.Errno, calls []sys) {
		for _, c := range calls {
			rules = append(rules, seccomp.Rule{Name: c.name, Nr: c.nr, Errno: errno})
		}
	}
	// The network. Landlock restricts TCP from ABI 4, UDP from ABI 10 and pathname unix sockets
	// from ABI 9; refusing every socket but a local unix stream, and every connect, covers all
	// of them on any kernel. A socketpair of datagrams is refused too: unix datagram sendmsg
	// honours an address even on a connected pair.
	for _, nr := range []struct {
		name string
		nr   int
	}{{"socket", syscall.SYS_SOCKET}, {"socketpair", syscall.SYS_SOCKETPAIR}} {
		rules = append(rules,
			seccomp.Rule{Name: nr.name + " (family)", Nr: nr.nr, Errno: syscall.EPERM,
				When: []seccomp.Cond{{Arg: 0, Op: seccomp.NotIn, Values: []uint32{afUnix}}}},
			seccomp.Rule{Name: nr.name + " (type)", Nr: nr.nr, Errno: syscall.EPERM,
				When: []seccomp.Cond{{Arg: 1, Op: seccomp.NotIn, Mask: sockTypeMask, Values: []uint32{sockStream, sockSeqpacket}}}})
	}
	deny(syscall.EPERM, []sys{
		{"connect", syscall.SYS_CONNECT}, {"bind", syscall.SYS_BIND}, {"listen", syscall.SYS_LISTEN},
		{"accept", syscall.SYS_ACCEPT}, {"accept4", syscall.SYS_ACCEPT4},
	})
	rules = append(rules, seccomp.Rule{Name: "sendto (an address)", Nr: syscall.SYS_SENDTO, Errno: syscall.EPERM,
		When: []seccomp.Cond{{Arg: 4, Op: seccomp.NonZero64}}})

	// Metadata: Landlock controls the contents and names of files, not their modes, owners,
	// times or extended attributes, and truncate(2) by path only from ABI 3.
	deny(syscall.EPERM, []sys{
		{"fchmod", syscall.SYS_FCHMOD}, {"fchmodat", syscall.SYS_FCHMODAT}, {"fchmodat2", nrFchmodat2},
		{"fchown", syscall.SYS_FCHOWN}, {"fchownat", syscall.SYS_FCHOWNAT},
		{"utimensat", syscall.SYS_UTIMENSAT}, {"setxattr", syscall.SYS_SETXATTR},
		{"lsetxattr", syscall.SYS_LSETXATTR}, {"fsetxattr", syscall.SYS_FSETXATTR},
		{"removexattr", syscall.SYS_REMOVEXATTR}, {"lremovexattr", syscall.SYS_LREMOVEXATTR},
		{"fremovexattr", syscall.SYS_FREMOVEXATTR}, {"setxattrat", nrSetxattrat},
		{"removexattrat", nrRemovexattrat}, {"truncate", syscall.SYS_TRUNCATE},
	})
	deny(syscall.EPERM, legacyMetadata)
	rules = append(rules, truncatingReadRules()...)
	rules = append(rules, seccomp.Rule{Name: "ioctl (inject input, set inode flags)", Nr: syscall.SYS_IOCTL, Errno: syscall.EPERM,
		When: []seccomp.Cond{{Arg: 1, Op: seccomp.In, Values: []uint32{tiocsti, tioclinux, fsIocSetflags, fsIoc32Setflags, fsIocFssetxattr}}}})

	// Other processes' memory and state, and kernel objects outside the filesystem: System V
	// IPC, POSIX message queues, keyrings.
	deny(syscall.EPERM, []sys{
		{"ptrace", syscall.SYS_PTRACE}, {"process_vm_readv", nrProcessVMReadv},
		{"process_vm_writev", nrProcessVMWritev}, {"pidfd_getfd", nrPidfdGetfd},
		{"process_madvise", nrProcessMadvise}, {"shmget", syscall.SYS_SHMGET},
		{"shmat", syscall.SYS_SHMAT}, {"shmctl", syscall.SYS_SHMCTL}, {"msgget", syscall.SYS_MSGGET},
		{"msgsnd", syscall.SYS_MSGSND}, {"msgrcv", syscall.SYS_MSGRCV}, {"msgctl", syscall.SYS_MSGCTL},
		{"semget", syscall.SYS_SEMGET}, {"semop", syscall.SYS_SEMOP},
		{"semtimedop", syscall.SYS_SEMTIMEDOP}, {"semctl", syscall.SYS_SEMCTL},
		{"mq_open", syscall.SYS_MQ_OPEN}, {"mq_unlink", syscall.SYS_MQ_UNLINK},
		{"mq_timedsend", syscall.SYS_MQ_TIMEDSEND}, {"mq_timedreceive", syscall.SYS_MQ_TIMEDRECEIVE},
		{"mq_notify", syscall.SYS_MQ_NOTIFY}, {"mq_getsetattr", syscall.SYS_MQ_GETSETATTR},
		{"add_key", syscall.SYS_ADD_KEY}, {"keyctl", syscall.SYS_KEYCTL},
		{"request_key", syscall.SYS_REQUEST_KEY},
	})
	rules = append(rules, seccomp.Rule{Name: "prlimit64 (another process)", Nr: syscall.SYS_PRLIMIT64, Errno: syscall.EPERM,
		When: []seccomp.Cond{{Arg: 0, Op: seccomp.NonZero}, {Arg: 2, Op: seccomp.NonZero64}}})

	// Watching files: Landlock does not govern inotify or fanotify, so a command could watch
	// what it may not read (hookctl's home, to learn when the user changes modes). ENOSYS for
	// inotify, so that programs (tail -f) fall back to polling.
	deny(syscall.ENOSYS, inotifyCalls)
	deny(syscall.EPERM, []sys{{"fanotify_init", nrFanotifyInit}, {"fanotify_mark", nrFanotifyMark}})

	// io_uring performs network and file operations no filter sees; ENOSYS, so that libraries
	// fall back to plain system calls.
	deny(syscall.ENOSYS, []sys{
		{"io_uring_setup", nrIoUringSetup}, {"io_uring_enter", nrIoUringEnter},
		{"io_uring_register", nrIoUringRegister},
	})

	// Namespaces and mounts: Landlock already forbids mount topology changes and capabilities
	// are gone; refusing them outright keeps that kernel surface out of reach. clone3 passes its
	// flags in memory a filter cannot read: ENOSYS makes the C library fall back to clone.
	deny(syscall.EPERM, []sys{
		{"unshare", syscall.SYS_UNSHARE}, {"setns", nrSetns}, {"mount", syscall.SYS_MOUNT},
		{"umount2", syscall.SYS_UMOUNT2}, {"pivot_root", syscall.SYS_PIVOT_ROOT},
		{"chroot", syscall.SYS_CHROOT}, {"open_tree", nrOpenTree}, {"move_mount", nrMoveMount},
		{"fsopen", nrFsopen}, {"fsconfig", nrFsconfig}, {"fsmount", nrFsmount}, {"fspick", nrFspick},
		{"mount_setattr", nrMountSetattr},
	})
	deny(syscall.ENOSYS, []sys{{"clone3", nrClone3}})
	rules = append(rules, seccomp.Rule{Name: "clone (new namespaces)", Nr: syscall.SYS_CLONE, Errno: syscall.EPERM,
		When: []seccomp.Cond{{Arg: 0, Op: seccomp.NonZero, Mask: cloneNewMask}}})

	// The machine itself: capabilities are dropped, so these fail anyway; refused here too, so
	// that a root user whose capabilities could not be dropped is still held.
	deny(syscall.EPERM, []sys{
		{"reboot", syscall.SYS_REBOOT}, {"kexec_load", syscall.SYS_KEXEC_LOAD},
		{"init_module", syscall.SYS_INIT_MODULE}, {"finit_module", nrFinitModule},
		{"delete_module", syscall.SYS_DELETE_MODULE}, {"swapon", syscall.SYS_SWAPON},
		{"swapoff", syscall.SYS_SWAPOFF}, {"settimeofday", syscall.SYS_SETTIMEOFDAY},
		{"clock_settime", syscall.SYS_CLOCK_SETTIME}, {"clock_adjtime", nrClockAdjtime},
		{"adjtimex", syscall.SYS_ADJTIMEX}, {"sethostname", syscall.SYS_SETHOSTNAME},
		{"setdomainname", syscall.SYS_SETDOMAINNAME}, {"acct", syscall.SYS_ACCT},
		{"quotactl", syscall.SYS_QUOTACTL}, {"bpf", nrBPF},
		{"perf_event_open", syscall.SYS_PERF_EVENT_OPEN},
	})
	sortRules(rules)
	return rules
}

// publishRules is the publish profile's filter: the read-only profile's, but for the rules that
// keep the network out (socket families and types, connect, bind, listen, accept, sendto to an
// address). Its network is a namespace of its own whose one way out is the egress proxy. No
// unix socket but a socketpair: Landlock (below ABI 9) does not govern connecting to one, and a
// service outside listening on one (a container engine, a session bus, a terminal multiplexer)
// would run what the publish asked; gh needs none.
func publishRules() []seccomp.Rule {
	var rules []seccomp.Rule
	for _, r := range readOnlyRules() {
		switch r.Name {
		case "socket (family)", "socket (type)", "socketpair (family)", "socketpair (type)", "connect", "bind", "listen",
			"accept", "accept4", "sendto (an address)":
			continue
		}
		rules = append(rules, r)
	}
	rules = append(rules, seccomp.Rule{Name: "socket (unix)", Nr: syscall.SYS_SOCKET, Errno: syscall.EPERM,
		When: []seccomp.Cond{{Arg: 0, Op: seccomp.In, Values: []uint32{afUnix}}}})
	sortRules(rules)
	return rules
}

// modelOnlyRules is the secure-read-only profile's filter under --network model-only: the
// read-only profile's, but a process may make a TCP socket (IPv4 or IPv6, plain TCP: not
// MPTCP, which Landlock's port rules do not cover) and connect it. Where it connects is held
// by Landlock (the broker's port alone) and by the network namespace (loopback alone). Still
// refused: UDP and so DNS, raw and packet sockets, every unix socket but a socketpair (a
// pathname socket such as a container engine's is reachable by connect on kernels whose
// Landlock does not cover it), bind, listen, accept, and sendto an address (TCP Fast Open
// would connect through it).
func modelOnlyRules() []seccomp.Rule {
	var rules []seccomp.Rule
	for _, r := range readOnlyRules() {
		switch r.Name {
		case "connect", "socket (family)", "socket (type)":
			continue
		}
		rules = append(rules, r)
	}
	rules = append(rules,
		seccomp.Rule{Name: "socket (family)", Nr: syscall.SYS_SOCKET, Errno: syscall.EPERM,
			When: []seccomp.Cond{{Arg: 0, Op: seccomp.NotIn, Values: []uint32{afInet, afInet6}}}},
		seccomp.Rule{Name: "socket (type)", Nr: syscall.SYS_SOCKET, Errno: syscall.EPERM,
			When: []seccomp.Cond{{Arg: 1, Op: seccomp.NotIn, Mask: sockTypeMask, Values: []uint32{sockStream}}}},
		seccomp.Rule{Name: "socket (protocol)", Nr: syscall.SYS_SOCKET, Errno: syscall.EPERM,
			When: []seccomp.Cond{{Arg: 2, Op: seccomp.NotIn, Values: []uint32{0, ipprotoTCP}}}})
	sortRules(rules)
	return rules
}

// editRules is the edit profile's filter: the network is the user's, files are Landlock's and
// the mounts'; what stays refused is reaching into other processes, injecting terminal input,
// new namespaces and mounts (which could undo the frozen paths), io_uring, and the machine.
func editRules() []seccomp.Rule {
	keep := map[string]bool{}
	for _, n := range []string{"ptrace", "process_vm_readv", "process_vm_writev", "pidfd_getfd", "process_madvise",
		"io_uring_setup", "io_uring_enter", "io_uring_register", "unshare", "setns", "mount", "umount2", "pivot_root",
		"chroot", "open_tree", "move_mount", "fsopen", "fsconfig", "fsmount", "fspick", "mount_setattr", "clone3",
		"clone (new namespaces)", "ioctl (inject input, set inode flags)", "reboot", "kexec_load", "init_module",
		"finit_module", "delete_module", "swapon", "swapoff", "settimeofday", "clock_settime", "clock_adjtime",
		"adjtimex", "sethostname", "setdomainname", "acct", "quotactl", "bpf", "iopl", "ioperm",
		truncatingRead("openat"), truncatingRead("open")} {
		keep[n] = true
	}
	var rules []seccomp.Rule
	for _, r := range readOnlyRules() {
		if keep[r.Name] {
			rules = append(rules, r)
		}
	}
	return rules
}

// truncatingReadRules refuse an open for reading that truncates (O_RDONLY|O_TRUNC): Landlock
// checks an open by the access it asks for, and truncation only from ABI 3, so below it such an
// open empties any file the command may read (measured at ABI 1 and 2: issue 28). Their names
// sort before the edit filter's supervised O_CREAT opens, which the first matching rule takes.
func truncatingReadRules() []seccomp.Rule {
	var rules []seccomp.Rule
	for _, c := range append([]sys{{"openat", syscall.SYS_OPENAT}}, legacyOpenCall...) {
		flags := 2 // openat(dirfd, path, flags, mode)
		if c.name == "open" {
			flags = 1
		}
		rules = append(rules, seccomp.Rule{Name: truncatingRead(c.name), Nr: c.nr, Errno: syscall.EPERM,
			When: []seccomp.Cond{{Arg: flags, Op: seccomp.In, Mask: syscall.O_ACCMODE | syscall.O_TRUNC, Values: []uint32{syscall.O_TRUNC}}}})
	}
	return rules
}

func truncatingRead(call string) string { return call + " (O_ACCMODE read-only, O_TRUNC)" }

// oldABIRules are what a kernel whose Landlock is older than ABI 3 needs besides: openat2 passes
// its flags in memory the filter cannot read (truncatingReadRules), so ENOSYS, and callers fall
// back to openat.
func oldABIRules(abi int) []seccomp.Rule {
	if abi >= 3 {
		return nil
	}
	return []seccomp.Rule{{Name: "openat2 (Landlock below ABI 3)", Nr: nrOpenat2, Errno: syscall.ENOSYS}}
}
