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
// holds what ForkExec cannot do for the command: its user namespace's mappings, a /proc of its
// namespace, the masks over the hidden paths (and where Landlock is missing, the read-only
// mounts), dropping capabilities, Landlock, no_new_privs and seccomp.
//
// The child shares the launcher's memory, as ForkExec's does (CLONE_VM|CLONE_VFORK): the
// launcher's thread is suspended until the child has exec'd or exited, so nothing of its is
// copied. Copying a Go process's address space, and the exec's tearing the copy down, was a
// quarter of a millisecond of every launch (issue 28). The child writes only its own frames,
// below the launcher's, and the ops' patch fields, which the launcher does not read again.

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
	// stage (stageMasks, stageMounts), has the launcher map the user namespace (stageUserNS:
	// childPlan.startMapped), or gives up (stageApply, and every stage where the read-only
	// mounts stand in for Landlock: stageTree).
	stage uint8
}

const (
	stageApply uint8 = iota
	stageMounts
	stageMasks
	stageTree
	stageUserNS
)

// childFailure is what a child that failed writes on its report pipe before it exits: which op,
// and the error.
type childFailure struct {
	op    int32
	errno int32
}

// rawVfork is clone(2) with flags, no new stack, for a child that shares the caller's memory
// (vfork_amd64.s, vfork_arm64.s).
//
//go:noescape
func rawVfork(flags uintptr) (pid, errno uintptr)

// forkChild forks a child that makes ops and reports a failure on report; the child never
// returns. With shared, the child shares the launcher's memory, and forkChild returns once it
// has exec'd the command or exited: a failure it reported is on report by then. Without, the
// child is a copy, which may wait for the launcher (childPlan.startMapped). The caller holds
// syscall.ForkLock; its thread outlives the child (readOnlyExec: the child's parent-death signal
// is the thread's).
//
//go:nosplit
//go:norace
func forkChild(ops []childOp, flags uintptr, report int, shared bool) (pid uintptr, err syscall.Errno) {
	runtimeBeforeFork()
	var e uintptr
	if shared {
		pid, e = rawVfork(flags | syscall.CLONE_VM | syscall.CLONE_VFORK | uintptr(syscall.SIGCHLD))
	} else {
		pid, _, err = syscall.RawSyscall6(syscall.SYS_CLONE, flags|uintptr(syscall.SIGCHLD), 0, 0, 0, 0, 0)
		e = uintptr(err)
	}
	if e != 0 || pid != 0 {
		// The parent, resumed: all it reads of the stack the child ran on is its return
		// address, which rawVfork kept in a register, and rawVfork's results, which it
		// wrote on resuming.
		runtimeAfterFork()
		return pid, syscall.Errno(e)
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
