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
// `withoutLandlock PROGRAM ARGS…` it makes the Landlock system calls fail with ENOSYS, as on a
// kernel built without it, and execs PROGRAM.
func TestMain(m *testing.M) {
	if len(os.Args) > 1 {
		switch os.Args[1] {
		case "sandbox":
			os.Exit(run(os.Args[1:]))
		case withoutLandlockArg:
			fmt.Fprintln(os.Stderr, execWithoutLandlock(os.Args[2:]))
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

// atLandlockABIArg runs a program as if the kernel's Landlock were an older ABI:
// `test-landlock-abi N PROGRAM ARGS…` (execAtLandlockABI).
const atLandlockABIArg = "test-landlock-abi"

// withoutLandlock is a command that runs argv on a machine whose kernel has no Landlock.
func withoutLandlock(t *testing.T, argv ...string) *exec.Cmd {
	t.Helper()
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	return exec.Command(self, append([]string{withoutLandlockArg}, argv...)...)
}
