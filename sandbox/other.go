//go:build !darwin && !(linux && (amd64 || arm64))

package sandbox

import (
	"errors"
	"os"
)

// Supported: this build has no sandbox for this platform.
const Supported = false

var errUnsupported = errors.New("hookctl has no sandbox for this platform yet")

func ready() error     { return errUnsupported }
func describe() string { return "none" }

func execSandboxed(*Profile, string, []string, []string) error { return errNotApplied(errUnsupported) }

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
