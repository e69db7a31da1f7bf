package main

import "syscall"

// answerSyscall makes the system call the tracee pid is stopped at (a seccomp stop) return ret
// without running it: a system call number of -1 skips it, and the return register holds ret.
func answerSyscall(pid int, ret uint64) error {
	var regs syscall.PtraceRegs
	if err := syscall.PtraceGetRegs(pid, &regs); err != nil {
		return err
	}
	regs.Orig_rax, regs.Rax = ^uint64(0), ret
	return syscall.PtraceSetRegs(pid, &regs)
}

// syscallArg is argument n (0 to 5) of the system call the tracee pid is stopped at.
func syscallArg(pid, n int) uint64 {
	var regs syscall.PtraceRegs
	syscall.PtraceGetRegs(pid, &regs)
	return [6]uint64{regs.Rdi, regs.Rsi, regs.Rdx, regs.R10, regs.R8, regs.R9}[n]
}
