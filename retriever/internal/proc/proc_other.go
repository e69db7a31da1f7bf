//go:build !linux

package proc

import "syscall"

// dieWithParent has no equivalent outside Linux; the process group kill remains.
func dieWithParent(*syscall.SysProcAttr) {}
