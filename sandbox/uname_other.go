//go:build !linux

package sandbox

import "runtime"

// kernelRelease: the platform is all a probe's key needs where there is no Landlock.
func kernelRelease() string { return runtime.GOOS }
