//go:build !linux

package main

import "errors"

// writeFilter: the launch bench runs on Linux only, where the launcher it times runs.
func writeFilter(path string) string {
	fail(errors.New("the launch bench runs on Linux only"))
	return ""
}

func readOnlyMasks(hookctlHome, userHome string) string { return "" }
