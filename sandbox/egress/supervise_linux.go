package egress

import (
	"os/exec"
	"syscall"
)

// diesWithParent has the kernel kill c when the launcher dies, however it dies.
func diesWithParent(c *exec.Cmd) {
	c.SysProcAttr = &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL}
}
