package main

import (
	"fmt"
	"os"
	"os/exec"
	"runtime"
	"syscall"
	"testing"

	"github.com/hookctl/hookctl/internal/seccomp"
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
		}
	}
	os.Exit(m.Run())
}

const withoutLandlockArg = "test-without-landlock"

func execWithoutLandlock(argv []string) error {
	audit := map[string]uint32{"amd64": 0xc000003e, "arm64": 0xc00000b7}[runtime.GOARCH]
	var rules []seccomp.Rule
	for _, nr := range []int{444, 445, 446} {
		rules = append(rules, seccomp.Rule{Name: "landlock", Nr: nr, Errno: syscall.ENOSYS})
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

// withoutLandlock is a command that runs argv on a machine whose kernel has no Landlock.
func withoutLandlock(t *testing.T, argv ...string) *exec.Cmd {
	t.Helper()
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	return exec.Command(self, append([]string{withoutLandlockArg}, argv...)...)
}
