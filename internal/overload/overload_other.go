//go:build !linux

package overload

// Enter does nothing here: thread priorities are Linux's.
func Enter(path string) bool { return false }

// Yield does nothing here.
func Yield() bool { return false }
