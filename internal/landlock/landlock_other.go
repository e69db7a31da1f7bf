//go:build !linux

package landlock

import "errors"

// ErrUnsupported: Landlock exists only on Linux.
var ErrUnsupported = errors.New("Landlock is Linux-only")

// ABI reports that there is no Landlock.
func ABI() (int, error) { return 0, ErrUnsupported }
