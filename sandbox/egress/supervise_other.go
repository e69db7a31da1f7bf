//go:build !linux

package egress

import "os/exec"

// diesWithParent: only Linux runs the egress proxy (its network namespaces are Linux's).
func diesWithParent(*exec.Cmd) {}
