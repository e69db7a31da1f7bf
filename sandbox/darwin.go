//go:build darwin

package sandbox

import (
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

// wrapped is argv run under Seatbelt: sandbox-exec with p's profile.
func wrapped(p *Profile, path string, argv []string) (string, []string, error) {
	if p.Readable != nil {
		return "", nil, errNotApplied(fmt.Errorf("the %s profile is Linux only so far", p.Name))
	}
	return sandboxExec, append([]string{"sandbox-exec", "-p", Seatbelt(p), path}, argv[1:]...), nil
}

func execSandboxed(p *Profile, path string, argv, env []string) error {
	if p.Readable != nil {
		return errNotApplied(fmt.Errorf("the %s profile is Linux only so far", p.Name))
	}
	args := append([]string{"sandbox-exec", "-p", Seatbelt(p), path}, argv[1:]...)
	err := syscall.Exec(sandboxExec, args, env)
	return errNotApplied(err)
}

// Mechanisms: Seatbelt has no Landlock ABI; the secure-read-only profile is Linux only.
func Mechanisms() (string, int, error) {
	return "", 0, fmt.Errorf("the %s profile is Linux only so far", SecureReadOnlyName)
}
