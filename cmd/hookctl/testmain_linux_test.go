//go:build linux

package main

import (
	"errors"
	"os"
	"os/exec"
	"runtime"
	"syscall"

	"github.com/hookctl/hookctl/internal/seccomp"
)

func execWithoutLandlock(argv []string, namespaces bool) error {
	audit := map[string]uint32{"amd64": 0xc000003e, "arm64": 0xc00000b7}[runtime.GOARCH]
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
	prog, err := seccomp.Assemble(seccomp.Arch{Audit: audit}, rules)
	if err != nil {
		return err
	}
	path, err := exec.LookPath(argv[0])
	if err != nil {
		return err
	}
	runtime.LockOSThread()
	if err := seccomp.Install(prog); err != nil {
		return err
	}
	return syscall.Exec(path, argv, os.Environ())
}

// execAtLandlockABI runs argv on this kernel as if its Landlock were ABI abi (1, 2, 3, …): a
// seccomp filter hands every landlock_create_ruleset(NULL, 0, LANDLOCK_CREATE_RULESET_VERSION)
// of argv and all it starts to this process, which answers abi; every other call, the real
// ruleset's creation included, goes to the kernel, so argv asks for that ABI's rights only and
// the kernel enforces them. It stays to answer until argv exits, and exits with its status.
// Test-only: the shipped binary has no way to be told a lower ABI.
func execAtLandlockABI(abi int, argv []string) error {
	audit := map[string]uint32{"amd64": 0xc000003e, "arm64": 0xc00000b7}[runtime.GOARCH]
	const createRuleset, versionFlag = 444, 1
	prog, err := seccomp.Assemble(seccomp.Arch{Audit: audit}, []seccomp.Rule{{Name: "landlock_create_ruleset (version)", Nr: createRuleset,
		Notify: true, When: []seccomp.Cond{{Arg: 2, Op: seccomp.In, Values: []uint32{versionFlag}}}}})
	if err != nil {
		return err
	}
	path, err := exec.LookPath(argv[0])
	if err != nil {
		return err
	}
	// The filter is the calling thread's, and the child is forked from it.
	runtime.LockOSThread()
	listener, err := seccomp.InstallListener(prog) // close-on-exec: argv cannot answer itself
	if err != nil {
		return err
	}
	go func() {
		for {
			n, err := seccomp.Recv(listener)
			if errors.Is(err, syscall.ENOENT) {
				continue
			}
			if err != nil {
				return
			}
			seccomp.Respond(listener, n.ID, int64(abi), 0)
		}
	}()
	cmd := exec.Command(path, argv[1:]...)
	cmd.Args[0] = argv[0]
	cmd.Stdin, cmd.Stdout, cmd.Stderr = os.Stdin, os.Stdout, os.Stderr
	err = cmd.Run()
	if ee, ok := err.(*exec.ExitError); ok {
		os.Exit(ee.ExitCode())
	}
	if err != nil {
		return err
	}
	os.Exit(0)
	return nil
}
