//go:build linux

package main

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"runtime"
	"syscall"

	"github.com/hookctl/hookctl/internal/seccomp"
)

// nativeArch is this machine's architecture as seccomp names it.
var nativeArch = seccomp.Arch{Audit: map[string]uint32{"amd64": 0xc000003e, "arm64": 0xc00000b7}[runtime.GOARCH]}

// installFor looks argv0 up, then installs prog on this thread, locked to it: the exec or the
// fork that follows takes its filter from the thread it runs on (and ptrace takes every request
// from the thread that traces).
func installFor(argv0 string, prog []seccomp.Instruction) (string, error) {
	path, err := exec.LookPath(argv0)
	if err != nil {
		return "", err
	}
	runtime.LockOSThread()
	return path, seccomp.Install(prog)
}

func execWithoutLandlock(argv []string, namespaces bool) error {
	var rules []seccomp.Rule
	for _, nr := range []int{444, 445, 446} {
		rules = append(rules, seccomp.Rule{Name: "landlock", Nr: nr, Errno: syscall.ENOSYS})
	}
	if !namespaces {
		// As a container that forbids them: no new namespace, by unshare or clone (clone3
		// passes its flags in memory: ENOSYS, and the C library and Go fall back to clone).
		const cloneNewMask, clone3 = 0x7e020080, 435
		rules = append(rules, seccomp.Rule{Name: "unshare", Nr: syscall.SYS_UNSHARE, Errno: syscall.EPERM},
			seccomp.Rule{Name: "clone (namespaces)", Nr: syscall.SYS_CLONE, Errno: syscall.EPERM,
				When: []seccomp.Cond{{Arg: 0, Op: seccomp.NonZero, Mask: cloneNewMask}}},
			seccomp.Rule{Name: "clone3", Nr: clone3, Errno: syscall.ENOSYS})
	}
	prog, err := seccomp.Assemble(nativeArch, rules)
	if err != nil {
		return err
	}
	path, err := installFor(argv[0], prog)
	if err != nil {
		return err
	}
	return syscall.Exec(path, argv, os.Environ())
}

// execAtLandlockABI runs argv on this kernel as if its Landlock were ABI abi (1, 2, 3, …): a
// seccomp filter stops every landlock_create_ruleset(NULL, 0, LANDLOCK_CREATE_RULESET_VERSION)
// of argv and all it starts for this process, their tracer, which skips the call and makes it
// return abi; every other call, the real ruleset's creation included, goes to the kernel, so
// argv asks for that ABI's rights only and the kernel enforces them. It traces (SECCOMP_RET_TRACE
// under ptrace) rather than listens (SECCOMP_RET_USER_NOTIF), because a process may have one
// listener in its filter chain and edit mode's sandbox installs its own. It answers until argv
// exits, and exits with its status; what argv leaves running is then let go (a query after that
// fails with ENOSYS, as on a kernel without Landlock). Test-only: the shipped binary has no way
// to be told a lower ABI.
func execAtLandlockABI(abi int, argv []string) error {
	const createRuleset, versionFlag = 444, 1
	code, err := traceSeccomp(argv, []seccomp.Rule{{Name: "landlock_create_ruleset (version)", Nr: createRuleset,
		Notify: true, When: []seccomp.Cond{{Arg: 2, Op: seccomp.In, Values: []uint32{versionFlag}}}}},
		func(pid int) error {
			if err := answerSyscall(pid, uint64(abi)); err != nil {
				return fmt.Errorf("failed to answer the ABI query: %v", err)
			}
			return nil
		})
	if err != nil {
		return err
	}
	os.Exit(code)
	return nil
}

// execChildCannotMap runs argv where a process that made a user namespace has no capability in
// it, as under Ubuntu 23.10+'s AppArmor restriction: it may not write its own mappings, while
// its parent, the namespace's owner from outside, may. A tracer refuses with EPERM every open
// for writing of /proc/self/uid_map by argv and all it starts; opens of /proc/PID/uid_map, the
// launcher's, go to the kernel. On exit it says on stderr how many it refused. Test-only.
func execChildCannotMap(argv []string) error {
	const oWronly, oAccmode = 1, 3
	refused := 0
	code, err := traceSeccomp(argv, []seccomp.Rule{{Name: "openat (for writing)", Nr: syscall.SYS_OPENAT,
		Notify: true, When: []seccomp.Cond{{Arg: 2, Op: seccomp.In, Mask: oAccmode, Values: []uint32{oWronly}}}}},
		func(pid int) error {
			if path, err := peekString(pid, syscallArg(pid, 1), 64); err != nil || path != "/proc/self/uid_map" {
				return err
			}
			refused++
			eperm := uint64(syscall.EPERM)
			return answerSyscall(pid, -eperm) // a negative errno, as the kernel returns it
		})
	if err != nil {
		return err
	}
	fmt.Fprintf(os.Stderr, "harness: refused %d writes of a process's own uid_map\n", refused)
	os.Exit(code)
	return nil
}

// peekString reads a NUL-terminated string of at most max bytes at addr in pid's memory.
func peekString(pid int, addr uint64, max int) (string, error) {
	buf := make([]byte, max)
	n, err := syscall.PtracePeekData(pid, uintptr(addr), buf)
	if err != nil {
		return "", err
	}
	if i := bytes.IndexByte(buf[:n], 0); i >= 0 {
		return string(buf[:i]), nil
	}
	return string(buf[:n]), nil
}

// traceSeccomp runs argv under a filter of rules whose Notify action is the tracer's
// (SECCOMP_RET_TRACE), and traces it and everything it starts: at each such stop it calls
// answer with the stopped task (which may change the call, or let it run by doing nothing).
// It traces rather than listens (SECCOMP_RET_USER_NOTIF) because a process may have one
// listener in its filter chain and edit mode's sandbox installs its own. It returns argv's exit
// status when argv exits; what argv leaves running is then let go.
func traceSeccomp(argv []string, rules []seccomp.Rule, answer func(pid int) error) (int, error) {
	prog, err := seccomp.Assemble(nativeArch, rules)
	if err != nil {
		return 0, err
	}
	// The assembler knows the listener's action only: the tracer's takes its place.
	const retK, retUserNotif, retTrace = 0x06, 0x7fc00000, 0x7ff00000
	for i := range prog {
		if prog[i].Code == retK && prog[i].K == retUserNotif {
			prog[i].K = retTrace
		}
	}
	path, err := installFor(argv[0], prog)
	if err != nil {
		return 0, err
	}
	pid, err := syscall.ForkExec(path, argv, &syscall.ProcAttr{Env: os.Environ(), Files: []uintptr{0, 1, 2},
		Sys: &syscall.SysProcAttr{Ptrace: true}})
	if err != nil {
		return 0, err
	}
	var ws syscall.WaitStatus
	if _, err := syscall.Wait4(pid, &ws, syscall.WALL, nil); err != nil || !ws.Stopped() {
		return 0, fmt.Errorf("%s did not stop at its exec: %v %v", argv[0], ws, err)
	}
	const (
		optTraceFork, optTraceVfork, optTraceClone, optTraceExec, optTraceSeccomp = 0x2, 0x4, 0x8, 0x10, 0x80
		eventFork, eventVfork, eventClone, eventSeccomp                           = 1, 2, 3, 7
	)
	if err := syscall.PtraceSetOptions(pid, optTraceFork|optTraceVfork|optTraceClone|optTraceExec|optTraceSeccomp); err != nil {
		return 0, err
	}
	if err := syscall.PtraceCont(pid, 0); err != nil {
		return 0, err
	}
	// A task the tracer follows into being starts with a SIGSTOP of its own, which may reach the
	// tracer before or after its parent's event: neither is passed on.
	known, fresh := map[int]bool{pid: true}, map[int]bool{}
	for {
		w, err := syscall.Wait4(-1, &ws, syscall.WALL, nil)
		if err == syscall.EINTR {
			continue
		}
		if err != nil {
			return 0, err
		}
		switch {
		case ws.Exited() || ws.Signaled():
			delete(known, w)
			if w == pid && ws.Exited() {
				return ws.ExitStatus(), nil
			} else if w == pid {
				return 128 + int(ws.Signal()), nil
			}
			continue
		case !ws.Stopped():
			continue
		}
		sig := ws.StopSignal()
		switch {
		case sig == syscall.SIGTRAP && ws.TrapCause() == eventSeccomp:
			if err := answer(w); err != nil {
				return 0, err
			}
			sig = 0
		case sig == syscall.SIGTRAP && (ws.TrapCause() == eventFork || ws.TrapCause() == eventVfork || ws.TrapCause() == eventClone):
			if child, err := syscall.PtraceGetEventMsg(w); err == nil && !known[int(child)] {
				known[int(child)], fresh[int(child)] = true, true
			}
			sig = 0
		case sig == syscall.SIGTRAP && ws.TrapCause() > 0: // exec
			sig = 0
		case sig == syscall.SIGSTOP && (fresh[w] || !known[w]):
			known[w] = true
			delete(fresh, w)
			sig = 0
		}
		syscall.PtraceCont(w, int(sig)) // a task killed meanwhile: ESRCH, and its exit follows
	}
}
