//go:build !linux

package overload

// Enter does nothing here: thread priorities are Linux's.
func Enter(path string, before func()) bool { return false }
