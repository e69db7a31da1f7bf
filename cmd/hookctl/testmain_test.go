package main

import (
	"fmt"
	"os"
	"os/exec"
	"strconv"
	"testing"

	"github.com/hookctl/hookctl/internal/testbin"
)

// TestMain lets this test binary stand in for hookctl where hookctl runs itself (the sandbox
// probe execs its own executable as `hookctl sandbox …`, and in the in-process tests that
// executable is this one), and gives the tests a machine without Landlock: as
// `test-without-landlock PROGRAM ARGS…` it makes the Landlock system calls fail with ENOSYS, as
// on a kernel built without it (and with -or-namespaces, new namespaces with EPERM), and execs
// PROGRAM; as `test-landlock-abi N PROGRAM ARGS…`, a kernel whose Landlock is ABI N.
func TestMain(m *testing.M) {
	if len(os.Args) > 1 {
		switch os.Args[1] {
		case "sandbox":
			os.Exit(run(os.Args[1:]))
		case withoutLandlockArg, withoutLandlockOrNamespacesArg:
			fmt.Fprintln(os.Stderr, execWithoutLandlock(os.Args[2:], os.Args[1] == withoutLandlockArg))
			os.Exit(111)
		case childCannotMapArg:
			fmt.Fprintln(os.Stderr, execChildCannotMap(os.Args[2:]))
			os.Exit(111)
		case atLandlockABIArg:
			abi, err := strconv.Atoi(os.Args[2])
			if err == nil {
				err = execAtLandlockABI(abi, os.Args[3:])
			}
			fmt.Fprintln(os.Stderr, err)
			os.Exit(111)
		}
	}
	code := m.Run()
	testbin.Cleanup()
	os.Exit(code)
}

const withoutLandlockArg = "test-without-landlock"

// withoutLandlockOrNamespacesArg is withoutLandlockArg on a machine that refuses new namespaces
// too (unshare, clone with CLONE_NEW*): where the read-only mounts that stand in for Landlock
// cannot apply either, and the sandbox is policy-only.
const withoutLandlockOrNamespacesArg = "test-without-landlock-or-namespaces"

// atLandlockABIArg runs a program as if the kernel's Landlock were an older ABI:
// `test-landlock-abi N PROGRAM ARGS…` (execAtLandlockABI).
const atLandlockABIArg = "test-landlock-abi"

// childCannotMapArg runs a program where a process may not write its own user namespace's
// mappings (Ubuntu's AppArmor restriction): `test-child-cannot-map PROGRAM ARGS…`
// (execChildCannotMap).
const childCannotMapArg = "test-child-cannot-map"

// withoutLandlock is a command that runs argv on a machine whose kernel has no Landlock and
// refuses new namespaces: no sandbox for the read-only profile.
func withoutLandlock(t *testing.T, argv ...string) *exec.Cmd {
	t.Helper()
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	return exec.Command(self, append([]string{withoutLandlockOrNamespacesArg}, argv...)...)
}
