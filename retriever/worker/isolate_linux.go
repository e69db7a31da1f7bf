//go:build linux

package worker

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"syscall"
	"unsafe"
)

// Landlock, by hand: three system calls, so a dependency would not pay for itself. Numbers and
// structures from include/uapi/linux/landlock.h; the same on every architecture Go supports.
const (
	sysLandlockCreateRuleset = 444
	sysLandlockAddRule       = 445
	sysLandlockRestrictSelf  = 446

	landlockCreateRulesetVersion = 1 << 0
	landlockRulePathBeneath      = 1

	prSetNoNewPrivs = 38
	oPath           = 0x200000 // O_PATH: the syscall package does not export it
)

// Filesystem access rights, by the ABI version that introduced them.
const (
	accessExecute    = 1 << 0
	accessWriteFile  = 1 << 1
	accessReadFile   = 1 << 2
	accessReadDir    = 1 << 3
	accessRemoveDir  = 1 << 4
	accessRemoveFile = 1 << 5
	accessMakeChar   = 1 << 6
	accessMakeDir    = 1 << 7
	accessMakeReg    = 1 << 8
	accessMakeSock   = 1 << 9
	accessMakeFifo   = 1 << 10
	accessMakeBlock  = 1 << 11
	accessMakeSym    = 1 << 12
	accessRefer      = 1 << 13 // ABI 2
	accessTruncate   = 1 << 14 // ABI 3
	accessIoctlDev   = 1 << 15 // ABI 5

	accessNetBindTCP = 1 << 0 // ABI 4

	scopeAbstractUnixSocket = 1 << 0 // ABI 6
	scopeSignal             = 1 << 1 // ABI 6
)

type landlockRulesetAttr struct {
	handledAccessFS  uint64
	handledAccessNet uint64
	scoped           uint64
}

type landlockPathBeneathAttr struct {
	allowedAccess uint64
	parentFd      int32
}

// IsolationPaths is what the retriever process may touch once isolated.
type IsolationPaths struct {
	Read    []string // files and directories it may read (CA certificates, resolver config)
	Write   []string // directories it may write (its own temporary directory)
	Execute []string // programs and libraries a distiller backend runs (claude, a command)
}

// DefaultIsolationPaths are the files TLS and name resolution need, and tmp, the process's own
// empty temporary directory.
func DefaultIsolationPaths(tmp string) IsolationPaths {
	read := []string{
		"/etc/ssl", "/etc/pki", "/etc/ca-certificates", "/usr/share/ca-certificates",
		"/usr/local/share/ca-certificates", "/etc/resolv.conf", "/etc/hosts", "/etc/nsswitch.conf",
		"/etc/gai.conf", "/etc/host.conf", "/etc/localtime", "/usr/share/zoneinfo", "/dev/null",
		"/dev/urandom",
	}
	for _, v := range []string{"SSL_CERT_FILE", "SSL_CERT_DIR"} {
		if p := os.Getenv(v); p != "" && filepath.IsAbs(p) {
			read = append(read, p)
		}
	}
	return IsolationPaths{Read: read, Write: []string{tmp}}
}

// Isolate restricts this process, all its threads and its children to paths, with Landlock.
// It returns a description of the isolation in force, for the audit ("landlock ABI 7"), or
// "none: …" saying why there is none; an error only when isolation was possible but failed,
// which the caller must treat as fatal.
func Isolate(paths IsolationPaths) (string, error) {
	abi, _, e := syscall.Syscall(sysLandlockCreateRuleset, 0, 0, landlockCreateRulesetVersion)
	if e != 0 {
		return "none: the kernel has no Landlock (" + e.Error() + ")", nil
	}
	fsRights := uint64(accessExecute | accessWriteFile | accessReadFile | accessReadDir | accessRemoveDir |
		accessRemoveFile | accessMakeChar | accessMakeDir | accessMakeReg | accessMakeSock | accessMakeFifo |
		accessMakeBlock | accessMakeSym)
	if abi >= 2 {
		fsRights |= accessRefer
	}
	if abi >= 3 {
		fsRights |= accessTruncate
	}
	if abi >= 5 {
		fsRights |= accessIoctlDev
	}
	attr := landlockRulesetAttr{handledAccessFS: fsRights}
	size := unsafe.Sizeof(attr)
	if abi < 4 {
		size = unsafe.Offsetof(attr.handledAccessNet) // older kernels know only the first field
	} else {
		attr.handledAccessNet = accessNetBindTCP // it may connect out, never listen
	}
	if abi < 6 {
		size = min(size, unsafe.Offsetof(attr.scoped))
	} else {
		attr.scoped = scopeAbstractUnixSocket | scopeSignal // no abstract sockets, no signals out
	}
	fd, _, e := syscall.Syscall(sysLandlockCreateRuleset, uintptr(unsafe.Pointer(&attr)), size, 0)
	if e != 0 {
		return "", fmt.Errorf("failed to create a Landlock ruleset: %v", e)
	}
	defer syscall.Close(int(fd))

	readRights := uint64(accessReadFile | accessReadDir)
	writeRights := readRights | fsRights&^(accessExecute|accessRefer)
	execRights := readRights | accessExecute
	for _, set := range []struct {
		paths  []string
		rights uint64
	}{{paths.Read, readRights}, {paths.Write, writeRights}, {paths.Execute, execRights}} {
		for _, p := range set.paths {
			if err := addPathRule(int(fd), p, set.rights&fsRights); err != nil {
				return "", err
			}
		}
	}
	// Both calls must reach every thread the Go runtime has started; AllThreadsSyscall does
	// that, and refuses when cgo is linked in (its threads are beyond the runtime's reach).
	if _, _, e := syscall.AllThreadsSyscall(syscall.SYS_PRCTL, prSetNoNewPrivs, 1, 0); e != 0 {
		if e == syscall.ENOTSUP {
			return "none: this binary was built with cgo, which Landlock cannot cover", nil
		}
		return "", fmt.Errorf("failed to set no_new_privs: %v", e)
	}
	if _, _, e := syscall.AllThreadsSyscall(sysLandlockRestrictSelf, fd, 0, 0); e != 0 {
		return "", fmt.Errorf("failed to apply the Landlock ruleset: %v", e)
	}
	return fmt.Sprintf("landlock ABI %d", abi), nil
}

// addPathRule allows rights beneath path. A path that does not exist is skipped: the list
// covers every distribution's layout.
func addPathRule(ruleset int, path string, rights uint64) error {
	fd, err := syscall.Open(path, oPath|syscall.O_CLOEXEC, 0)
	if err != nil {
		if errors.Is(err, syscall.ENOENT) || errors.Is(err, syscall.ENOTDIR) {
			return nil
		}
		return fmt.Errorf("failed to open %s for the Landlock ruleset: %v", path, err)
	}
	defer syscall.Close(fd)
	var st syscall.Stat_t
	if err := syscall.Fstat(fd, &st); err != nil {
		return err
	}
	if st.Mode&syscall.S_IFMT != syscall.S_IFDIR {
		// Rights that only make sense on a directory are refused for a file.
		rights &= accessExecute | accessWriteFile | accessReadFile | accessTruncate | accessIoctlDev
	}
	attr := landlockPathBeneathAttr{allowedAccess: rights, parentFd: int32(fd)}
	if _, _, e := syscall.Syscall6(sysLandlockAddRule, uintptr(ruleset), landlockRulePathBeneath,
		uintptr(unsafe.Pointer(&attr)), 0, 0, 0); e != 0 {
		return fmt.Errorf("failed to add %s to the Landlock ruleset: %v", path, e)
	}
	return nil
}
