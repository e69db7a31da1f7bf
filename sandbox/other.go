//go:build !darwin && !(linux && (amd64 || arm64))

package sandbox

import "errors"

// Supported: this build has no sandbox for this platform.
const Supported = false

var errUnsupported = errors.New("hookctl has no sandbox for this platform yet")

func ready() error     { return errUnsupported }
func describe() string { return "none" }

func execSandboxed(*Profile, string, []string, []string) error { return errNotApplied(errUnsupported) }

func wrapped(*Profile, string, []string) (string, []string, error) {
	return "", nil, errNotApplied(errUnsupported)
}

// Mechanisms: none on this platform.
func Mechanisms() (string, int, error) { return "", 0, errUnsupported }
