//go:build darwin

package sandbox

import (
	"errors"
	"fmt"
	"os"
	"syscall"
)

// Supported: macOS runs commands under Seatbelt through sandbox-exec, if the probe says the
// generated profile holds there (untested on a Mac: see Seatbelt).
const Supported = true

const sandboxExec = "/usr/bin/sandbox-exec"

func ready() error {
	if _, err := os.Stat(sandboxExec); err != nil {
		return fmt.Errorf("%s is missing", sandboxExec)
	}
	return nil
}

func describe() string { return "seatbelt (sandbox-exec), untested on a Mac" }

func execSandboxed(p *Profile, path string, argv, env []string) error {
	args := append([]string{"sandbox-exec", "-p", Seatbelt(p), path}, argv[1:]...)
	err := syscall.Exec(sandboxExec, args, env)
	return errNotApplied(err)
}

// RunIsolated: namespaces are Linux's.
func RunIsolated([]string, Namespaces, func(*os.File) func()) (int, error) {
	return 0, errNotApplied(errors.New("namespaces are Linux's"))
}

// BridgeNetwork: namespaces are Linux's.
func BridgeNetwork(int) (string, error) { return "", errors.New("namespaces are Linux's") }

// StartWatcher: namespaces are Linux's.
func StartWatcher([]string) (int, error) { return -1, errors.New("namespaces are Linux's") }

// UnshareNetwork: namespaces are Linux's.
func UnshareNetwork() error { return errors.New("namespaces are Linux's") }

// Watch: namespaces are Linux's.
func Watch(int, int, func(*os.File) func()) error { return errors.New("namespaces are Linux's") }
