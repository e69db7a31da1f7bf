//go:build unix && !(linux && (amd64 || arm64))

package sandbox

import (
	"errors"
	"syscall"
)

// boundAttr: no namespaces here; RunBounded's child gets a process group of its own.
func boundAttr(isolate, pidOnly bool) *syscall.SysProcAttr {
	return &syscall.SysProcAttr{Setpgid: true}
}

// MountProc: no process namespaces here.
func MountProc() error { return errors.New("no process namespaces on this platform") }

// MaskHidden: no mount namespaces here; the sandbox hides the paths by itself.
func MaskHidden(*Profile) error { return errors.New("no mount namespaces on this platform") }
