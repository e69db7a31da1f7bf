package main

import (
	"os"
	"testing"
)

// TestMain lets this test binary stand in for hookctl where hookctl runs itself: the sandbox
// probe execs its own executable as `hookctl sandbox …`, and in the in-process tests that
// executable is this one.
func TestMain(m *testing.M) {
	if len(os.Args) > 1 && os.Args[1] == "sandbox" {
		os.Exit(run(os.Args[1:]))
	}
	os.Exit(m.Run())
}
