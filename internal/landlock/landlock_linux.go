//go:build linux

// Package landlock applies Landlock rulesets by hand: three system calls, so a binding would not
// pay for itself. Numbers and structures are from include/uapi/linux/landlock.h and are the same
// on every architecture Go supports.
//
// Two processes use it: the retriever's worker, which keeps running Go code once restricted
// (AllThreads), and hookctl's sandbox launcher, which restricts the one thread that then calls
// execve (the other threads die with the exec).
package landlock

import (
	"errors"
	"fmt"
	"syscall"
	"unsafe"
)

const (
	sysCreateRuleset = 444
	sysAddRule       = 445
	sysRestrictSelf  = 446

	createRulesetVersion = 1 << 0
	rulePathBeneath      = 1
	ruleNetPort          = 2

	prSetNoNewPrivs = 38
	oPath           = 0x200000 // O_PATH: the syscall package does not export it
)

// Filesystem access rights, by the ABI version that introduced them.
const (
	Execute    = 1 << 0
	WriteFile  = 1 << 1
	ReadFile   = 1 << 2
	ReadDir    = 1 << 3
	RemoveDir  = 1 << 4
	RemoveFile = 1 << 5
	MakeChar   = 1 << 6
	MakeDir    = 1 << 7
	MakeReg    = 1 << 8
	MakeSock   = 1 << 9
	MakeFifo   = 1 << 10
	MakeBlock  = 1 << 11
	MakeSym    = 1 << 12
	Refer      = 1 << 13 // ABI 2
	Truncate   = 1 << 14 // ABI 3
	IoctlDev   = 1 << 15 // ABI 5

	// Read is what reading a file or listing a directory needs.
	Read = ReadFile | ReadDir
	// Write is every right that changes the tree beneath a directory.
	Write = WriteFile | RemoveDir | RemoveFile | MakeChar | MakeDir | MakeReg | MakeSock | MakeFifo |
		MakeBlock | MakeSym | Refer | Truncate
)

// Network rights (ABI 4) and scopes (ABI 6).
const (
	NetBindTCP    = 1 << 0
	NetConnectTCP = 1 << 1

	ScopeAbstractUnixSocket = 1 << 0
	ScopeSignal             = 1 << 1
)

// fileRights are the rights that make sense on a file rather than a directory.
const fileRights = Execute | WriteFile | ReadFile | Truncate | IoctlDev

type rulesetAttr struct {
	handledAccessFS  uint64
	handledAccessNet uint64
	scoped           uint64
}

// netPortAttr is struct landlock_net_port_attr: two 64-bit fields, so Go lays it out as the
// kernel's packed struct.
type netPortAttr struct {
	allowedAccess uint64
	port          uint64
}

type pathBeneathAttr struct {
	allowedAccess uint64
	parentFd      int32
}

// Rule grants Access beneath Path (a directory), or on Path (a file). With FD set (above 0),
// the rule is for the file FD has open, and Path only names it in errors: a directory opened
// once is granted as it was opened, whatever its path has become since.
type Rule struct {
	Path   string
	FD     int
	Access uint64
}

// Ruleset is a whole restriction: every filesystem right the kernel knows is handled, so what
// Rules do not grant is denied.
type Ruleset struct {
	Rules []Rule
	// DenyNet lists the network rights to handle (NetBindTCP, NetConnectTCP); none is granted
	// but ConnectTCP.
	DenyNet uint64
	// ConnectTCP are the TCP ports a connect may still reach when DenyNet handles
	// NetConnectTCP (any address: Landlock rules name ports, not hosts).
	ConnectTCP []uint16
	// Scope lists the scopes to apply (ScopeAbstractUnixSocket, ScopeSignal).
	Scope uint64
	// AllThreads applies the ruleset to every thread of the Go runtime; otherwise only the
	// calling thread, which the caller has locked (runtime.LockOSThread) and will exec from.
	AllThreads bool
}

// ErrUnsupported means the kernel has no Landlock (not built, or disabled at boot).
var ErrUnsupported = errors.New("the kernel has no Landlock")

// ErrCgo means the binary links cgo, whose threads AllThreads cannot reach.
var ErrCgo = errors.New("this binary was built with cgo, which Landlock cannot cover")

// ABI returns the Landlock ABI version of the running kernel.
func ABI() (int, error) {
	abi, _, e := syscall.Syscall(sysCreateRuleset, 0, 0, createRulesetVersion)
	if e != 0 {
		return 0, fmt.Errorf("%w (%v)", ErrUnsupported, e)
	}
	return int(abi), nil
}

// HandledFS is every filesystem right ABI abi knows.
func HandledFS(abi int) uint64 {
	r := uint64(Execute | WriteFile | ReadFile | ReadDir | RemoveDir | RemoveFile | MakeChar | MakeDir |
		MakeReg | MakeSock | MakeFifo | MakeBlock | MakeSym)
	if abi >= 2 {
		r |= Refer
	}
	if abi >= 3 {
		r |= Truncate
	}
	if abi >= 5 {
		r |= IoctlDev
	}
	return r
}

// Restrict applies rs and returns the ABI it applied. It sets no_new_privs, which Landlock
// requires of an unprivileged process. Network rights and scopes the kernel does not know are
// left out; the caller reads the ABI to tell what held.
func Restrict(rs Ruleset) (int, error) {
	fd, abi, err := Prepare(rs)
	if err != nil {
		return 0, err
	}
	defer syscall.Close(fd)
	call := syscall.RawSyscall
	if rs.AllThreads {
		// AllThreadsSyscall refuses when cgo is linked in (its threads are beyond the runtime's
		// reach).
		call = syscall.AllThreadsSyscall
	}
	if _, _, e := call(syscall.SYS_PRCTL, prSetNoNewPrivs, 1, 0); e != 0 {
		if e == syscall.ENOTSUP {
			return 0, ErrCgo
		}
		return 0, fmt.Errorf("failed to set no_new_privs: %v", e)
	}
	if _, _, e := call(SysRestrictSelf, uintptr(fd), 0, 0); e != 0 {
		return 0, fmt.Errorf("failed to apply the Landlock ruleset: %v", e)
	}
	return abi, nil
}

// SysRestrictSelf is landlock_restrict_self(2), the same number on every architecture, for a
// caller that applies a Prepared ruleset in a forked child (which may make raw system calls
// only).
const SysRestrictSelf = sysRestrictSelf

// SysAddRule and RulePathBeneath are landlock_add_rule(2) and its rule type for a directory, for
// a child that grants a directory it mounted itself.
const (
	SysAddRule      = sysAddRule
	RulePathBeneath = rulePathBeneath
)

// Prepare builds rs's ruleset and returns its descriptor (close-on-exec: the kernel makes it
// so) and the ABI, for the caller to apply with landlock_restrict_self, in this process
// (Restrict) or in a child it forks. Building it applies nothing.
func Prepare(rs Ruleset) (fd, abi int, err error) {
	if abi, err = ABI(); err != nil {
		return -1, 0, err
	}
	fsRights := HandledFS(abi)
	attr := rulesetAttr{handledAccessFS: fsRights}
	size := unsafe.Sizeof(attr)
	if abi < 4 {
		size = unsafe.Offsetof(attr.handledAccessNet) // older kernels know only the first field
	} else {
		attr.handledAccessNet = rs.DenyNet
	}
	if abi < 6 {
		size = min(size, unsafe.Offsetof(attr.scoped))
	} else {
		attr.scoped = rs.Scope
	}
	r, _, e := syscall.Syscall(sysCreateRuleset, uintptr(unsafe.Pointer(&attr)), size, 0)
	if e != 0 {
		return -1, 0, fmt.Errorf("failed to create a Landlock ruleset: %v", e)
	}
	fd = int(r)
	defer func() {
		if err != nil {
			syscall.Close(fd)
			fd = -1
		}
	}()
	for _, r := range rs.Rules {
		if err := addPathRule(fd, r, r.Access&fsRights); err != nil {
			return fd, 0, err
		}
	}
	if len(rs.ConnectTCP) > 0 {
		// A port granted on a kernel that cannot restrict ports would leave every port open
		// while the caller believes one is.
		if abi < 4 || rs.DenyNet&NetConnectTCP == 0 {
			return fd, 0, fmt.Errorf("restricting TCP connect to ports needs Landlock ABI 4 and NetConnectTCP handled (this kernel: ABI %d)", abi)
		}
		for _, port := range rs.ConnectTCP {
			attr := netPortAttr{allowedAccess: NetConnectTCP, port: uint64(port)}
			if _, _, e := syscall.Syscall6(sysAddRule, uintptr(fd), ruleNetPort, uintptr(unsafe.Pointer(&attr)), 0, 0, 0); e != 0 {
				return fd, 0, fmt.Errorf("failed to allow TCP port %d in the Landlock ruleset: %v", port, e)
			}
		}
	}
	return fd, abi, nil
}

// addPathRule allows rights beneath r's path or descriptor. A path that does not exist is
// skipped: lists cover every distribution's layout; so is one this user cannot reach (a
// private TMPDIR of another user's), which it could not use either.
func addPathRule(ruleset int, r Rule, rights uint64) error {
	path, fd := r.Path, r.FD
	if fd <= 0 {
		var err error
		fd, err = syscall.Open(path, oPath|syscall.O_CLOEXEC, 0)
		if err != nil {
			if errors.Is(err, syscall.ENOENT) || errors.Is(err, syscall.ENOTDIR) || errors.Is(err, syscall.EACCES) {
				return nil
			}
			return fmt.Errorf("failed to open %s for the Landlock ruleset: %v", path, err)
		}
		defer syscall.Close(fd)
	}
	var st syscall.Stat_t
	if err := syscall.Fstat(fd, &st); err != nil {
		return err
	}
	if st.Mode&syscall.S_IFMT != syscall.S_IFDIR {
		rights &= fileRights // the kernel refuses directory rights on a file
	}
	if rights == 0 {
		return nil
	}
	attr := pathBeneathAttr{allowedAccess: rights, parentFd: int32(fd)}
	if _, _, e := syscall.Syscall6(sysAddRule, uintptr(ruleset), rulePathBeneath,
		uintptr(unsafe.Pointer(&attr)), 0, 0, 0); e != 0 {
		return fmt.Errorf("failed to add %s to the Landlock ruleset: %v", path, e)
	}
	return nil
}
