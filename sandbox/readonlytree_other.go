//go:build !(linux && (amd64 || arm64))

package sandbox

import (
	"errors"
	"fmt"
	"os/exec"
	"syscall"
)

// ReadOnlyTree: only Linux's read-only profile stands in for Landlock with mounts.
func ReadOnlyTree(*Profile) error { return errors.New("no read-only mounts on this platform") }

// ExecFilterOnly runs argv with p's environment: no seccomp filter here.
func ExecFilterOnly(p *Profile, argv, env []string) error {
	if len(argv) == 0 {
		return errors.New("no command to run")
	}
	path, err := exec.LookPath(argv[0])
	if err != nil {
		return fmt.Errorf("cannot run %s: %v", argv[0], err)
	}
	err = syscall.Exec(path, argv, p.Environ(env))
	return fmt.Errorf("failed to run %s: %v", argv[0], err)
}

func policyOnlyHolds([]Check) string { return "" }

// EditLandlockName is the Landlock-only edit profile's name; Linux's alone.
const EditLandlockName = "edit-landlock"

// EditLandlock: Linux's alone (Exec refuses the profile elsewhere).
func EditLandlock(p *Profile, fullNetwork bool) { p.Name = EditLandlockName }

// InsideCheckEditLandlock: Linux's alone.
func InsideCheckEditLandlock(string, string, string) []Check { return nil }
