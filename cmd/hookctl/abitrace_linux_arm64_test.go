package main

import (
	"syscall"
	"unsafe"
)

// answerSyscall makes the system call the tracee pid is stopped at (a seccomp stop) return ret
// without running it: a system call number of -1 (NT_ARM_SYSTEM_CALL) skips it, and x0 holds
// ret.
func answerSyscall(pid int, ret uint64) error {
	const ntArmSystemCall = 0x404
	nr := int32(-1)
	iov := syscall.Iovec{Base: (*byte)(unsafe.Pointer(&nr)), Len: 4}
	if _, _, e := syscall.Syscall6(syscall.SYS_PTRACE, syscall.PTRACE_SETREGSET, uintptr(pid), ntArmSystemCall, uintptr(unsafe.Pointer(&iov)), 0, 0); e != 0 {
		return e
	}
	var regs syscall.PtraceRegs
	if err := syscall.PtraceGetRegs(pid, &regs); err != nil {
		return err
	}
	regs.Regs[0] = ret
	return syscall.PtraceSetRegs(pid, &regs)
}

// syscallArg is argument n (0 to 5) of the system call the tracee pid is stopped at.
func syscallArg(pid, n int) uint64 {
	var regs syscall.PtraceRegs
	syscall.PtraceGetRegs(pid, &regs)
	return regs.Regs[n]
}
