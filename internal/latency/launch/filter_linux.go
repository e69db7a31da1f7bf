//go:build linux

package main

import "github.com/hookctl/hookctl/internal/latency/yardstick"

// writeFilter writes the program the layers' yardstick installs to path (yardstick.WriteFilter)
// and returns path.
func writeFilter(path string) string {
	if err := yardstick.WriteFilter(path); err != nil {
		fail(err)
	}
	return path
}

// readOnlyMasks are the paths the layers' yardstick masks (yardstick.Masks).
func readOnlyMasks(hookctlHome, userHome string) string {
	return yardstick.Masks(hookctlHome, userHome)
}
