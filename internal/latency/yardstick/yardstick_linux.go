//go:build linux

// Package yardstick prepares what the minimal launcher's -layers takes (internal/latency/minlaunch):
// the read-only profile's seccomp program and the paths it masks, as hookctl's launcher has
// them on this machine, so that the launch bench (internal/latency/launch) and the test that the
// yardstick really applies them give it the same.
package yardstick

import (
	"fmt"
	"os"
	"slices"
	"strings"
	"unsafe"

	"github.com/hookctl/hookctl/internal/landlock"
	"github.com/hookctl/hookctl/sandbox"
	"github.com/hookctl/hookctl/sandbox/readonly"
)

// WriteFilter writes the read-only profile's seccomp program for this kernel to path, as
// -layers reads it. The program refuses new namespaces, which the yardstick still makes for
// the command after installing it (hookctl's launcher installs it in the child, last): its
// mask of namespace flags is cleared, which keeps the program's length and shape, what
// installing it costs.
func WriteFilter(path string) error {
	abi, _ := landlock.ABI()
	prog, err := sandbox.ReadOnlyProgram(abi)
	if err != nil {
		return err
	}
	cleared := 0
	for i, ins := range prog {
		if ins.Code == bpfAndK && ins.K == cloneNewMask {
			prog[i].K, cleared = 0, cleared+1
		}
	}
	if cleared != 1 {
		return fmt.Errorf("the read-only seccomp program masks namespace flags %d times, want 1", cleared)
	}
	return os.WriteFile(path, unsafe.Slice((*byte)(unsafe.Pointer(&prog[0])), len(prog)*int(unsafe.Sizeof(prog[0]))), 0o644)
}

// The read-only program's test of clone's flags: A &= CLONE_NEWNS|NEWCGROUP|NEWUTS|NEWIPC|
// NEWUSER|NEWPID|NEWNET|NEWTIME, then refused unless A is zero (sandbox/filter_linux.go).
const (
	bpfAndK      = 0x54 // BPF_ALU | BPF_AND | BPF_K
	cloneNewMask = 0x7e020080
)

// Masks are the paths outside hookctl's home that the read-only profile masks for a user whose
// home is userHome (the system's secrets, other terminals, the credential stores that exist),
// each that exists and is no link, as -layers takes them: "d:" or "f:" and the path,
// comma-separated. hookctl's home itself is the yardstick's HIDE.
func Masks(hookctlHome, userHome string) string {
	old := os.Getenv("HOME")
	os.Setenv("HOME", userHome) // ReadOnlyHidden's stores are the user's, as the launcher sees them
	hidden := append(sandbox.ReadOnlyHidden(hookctlHome), readonly.OtherTerminals)
	os.Setenv("HOME", old)
	var masks []string
	for _, p := range hidden {
		st, err := os.Lstat(p)
		switch {
		case slices.Contains(sandbox.HiddenDirs(hookctlHome), p):
		case err != nil || st.Mode()&os.ModeSymlink != 0 || strings.Contains(p, ","):
		case st.IsDir():
			masks = append(masks, "d:"+p)
		default:
			masks = append(masks, "f:"+p)
		}
	}
	return strings.Join(masks, ",")
}
