package proc

import "syscall"

// dieWithParent has the kernel kill the child when the thread that started it exits: when the
// process is killed, since RunStopping and the front keep that thread until the child is waited for.
func dieWithParent(attr *syscall.SysProcAttr) { attr.Pdeathsig = syscall.SIGKILL }
