//go:build linux && (amd64 || arm64)

package sandbox

import (
	"syscall"
	"unsafe"
)

// The launch of a read-only command forks a child that becomes the command without starting
// Go again: everything the child does between the fork and the exec is a list of system calls
// the launcher worked out beforehand (childOp), with every path, structure and descriptor
// ready, which the child makes in order and stops at the first that fails. This is what
// syscall.ForkExec does for its own options (its child, too, may make raw system calls only:
// no allocation, no stack growth, no scheduler), with the runtime's own fork hooks; the list
// holds what ForkExec cannot do for the command: a /proc of its namespace, the masks over the
// hidden paths (and where Landlock is missing, the read-only mounts), dropping capabilities,
// Landlock, no_new_privs and seccomp.

// The runtime's fork hooks, as syscall.forkExec calls them: before the fork, signals are
// blocked and the goroutine's stack may not grow; after it, the parent undoes that, and the
// child resets the signal handlers and mask the command inherits.
//
//go:linkname runtimeBeforeFork syscall.runtime_BeforeFork
func runtimeBeforeFork()

//go:linkname runtimeAfterFork syscall.runtime_AfterFork
func runtimeAfterFork()

//go:linkname runtimeAfterForkInChild syscall.runtime_AfterForkInChild
func runtimeAfterForkInChild()

// childOp is one system call of the child's list.
type childOp struct {
	nr   uintptr
	args [6]uintptr
	// allow is an error that counts as success (EINVAL from a kernel without ambient
	// capabilities); want, when not zero, is the result that must come back, plus one.
	allow syscall.Errno
	want  uintptr
	// save keeps the result (a descriptor) for the next op with fromSaved, as its first
	// argument, or with patch, written where patch points (a field of a structure the op
	// passes).
	save, fromSaved bool
	patch           *int32
	// stage says what a failure here costs: the launcher retries without the mounts of that
	// stage (stageMasks, stageMounts), or gives up (stageApply, and every stage where the
	// read-only mounts stand in for Landlock: stageTree).
	stage uint8
}

const (
	stageApply uint8 = iota
	stageMounts
	stageMasks
	stageTree
)

// childFailure is what a child that failed writes on its report pipe before it exits: which op,
// and the error.
type childFailure struct {
	op    int32
	errno int32
}

// forkChild forks a child that makes ops and reports a failure on report; the child never
// returns. The caller holds syscall.ForkLock and has locked its thread (the child's parent-death
// signal is the thread's).
//
//go:nosplit
//go:norace
func forkChild(ops []childOp, flags uintptr, report int) (pid uintptr, err syscall.Errno) {
	runtimeBeforeFork()
	pid, _, err = syscall.RawSyscall6(syscall.SYS_CLONE, flags|uintptr(syscall.SIGCHLD), 0, 0, 0, 0, 0)
	if err != 0 || pid != 0 {
		runtimeAfterFork()
		return pid, err
	}
	runtimeAfterForkInChild()
	runOps(ops, report)
	return 0, 0 // not reached: runOps ends in execve or exit
}

// runOps is the child's whole life: the ops, the last of which is the execve.
//
//go:nosplit
//go:norace
func runOps(ops []childOp, report int) {
	var saved uintptr
	var f childFailure
	for i := 0; i < len(ops); i++ {
		op := &ops[i]
		a := op.args
		if op.fromSaved {
			a[0] = saved
		}
		if op.patch != nil {
			*op.patch = int32(saved)
		}
		r, _, e := syscall.RawSyscall6(op.nr, a[0], a[1], a[2], a[3], a[4], a[5])
		if e == 0 && op.want != 0 && r != op.want-1 {
			e = syscall.EIO
		}
		if e != 0 && e != op.allow {
			f.op, f.errno = int32(i), int32(e)
			syscall.RawSyscall(syscall.SYS_WRITE, uintptr(report), uintptr(unsafe.Pointer(&f)), unsafe.Sizeof(f))
			for {
				syscall.RawSyscall(syscall.SYS_EXIT_GROUP, 126, 0, 0)
			}
		}
		if op.save {
			saved = r
		}
	}
	for {
		syscall.RawSyscall(syscall.SYS_EXIT_GROUP, 126, 0, 0)
	}
}
