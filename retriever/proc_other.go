//go:build !linux

package retriever

import "syscall"

// dieWithParent has no equivalent outside Linux; the process group kill remains.
func dieWithParent(*syscall.SysProcAttr) {}
