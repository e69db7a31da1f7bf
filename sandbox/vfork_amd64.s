#include "textflag.h"

// func rawVfork(flags uintptr) (pid, errno uintptr)
//
// clone(flags) for a child that shares the caller's memory and stack (CLONE_VM|CLONE_VFORK):
// the child returns here on the same stack, and its calls after that overwrite what lies below
// the caller's frame, including this function's return address. So the return address is held
// in a register across the system call (each process has its own registers) and pushed back
// after it; the parent, resumed when the child has exec'd or exited, returns through its own.
TEXT ·rawVfork(SB),NOSPLIT|NOFRAME,$0-24
	MOVQ	flags+0(FP), DI
	MOVQ	$0, SI // the same stack
	MOVQ	$0, DX
	MOVQ	$0, R10
	MOVQ	$0, R8
	MOVQ	$0, R9
	MOVQ	$56, AX // SYS_clone
	POPQ	R12
	SYSCALL
	PUSHQ	R12
	CMPQ	AX, $0xfffffffffffff001
	JLS	ok
	MOVQ	$-1, pid+8(FP)
	NEGQ	AX
	MOVQ	AX, errno+16(FP)
	RET
ok:
	MOVQ	AX, pid+8(FP)
	MOVQ	$0, errno+16(FP)
	RET
