//go:build linux

package seccomp

import (
	"fmt"
	"syscall"
	"unsafe"
)

const (
	prSetNoNewPrivs   = 38
	prSetSeccomp      = 22
	seccompModeFilter = 2
)

type sockFprog struct {
	len    uint16
	filter *Instruction
}

// Install applies prog to the calling thread, which the caller has locked and will exec from
// (a filter is inherited across execve and by every child). It sets no_new_privs first, which
// the kernel requires of an unprivileged process.
func Install(prog []Instruction) error {
	if len(prog) == 0 {
		return fmt.Errorf("seccomp: an empty program")
	}
	if _, _, e := syscall.RawSyscall(syscall.SYS_PRCTL, prSetNoNewPrivs, 1, 0); e != 0 {
		return fmt.Errorf("failed to set no_new_privs: %v", e)
	}
	fp := sockFprog{len: uint16(len(prog)), filter: &prog[0]}
	if _, _, e := syscall.RawSyscall(syscall.SYS_PRCTL, prSetSeccomp, seccompModeFilter, uintptr(unsafe.Pointer(&fp))); e != 0 {
		return fmt.Errorf("failed to install the seccomp filter: %v", e)
	}
	return nil
}
