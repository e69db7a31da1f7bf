package main

import (
	"strings"
	"testing"
)

// TestDashboardNeedsItsExecutable: hookctl dashboard runs hookctl-dashboard from its own
// directory and nowhere else; without it, it says where it should be. (The dashboard itself is
// tested in package dashboard, through the built hookctl.)
func TestDashboardNeedsItsExecutable(t *testing.T) {
	home := t.TempDir()
	// This test binary stands in for hookctl, and has no hookctl-dashboard beside it.
	if code, _, errOut := runCLI(t, home, "", "dashboard"); code != exitError || !strings.Contains(errOut, "hookctl-dashboard is missing; it is installed next to hookctl") {
		t.Errorf("%d %q", code, errOut)
	}
	if code, _, _ := runCLI(t, home, "", "dashboard", "extra"); code != exitError {
		t.Errorf("an argument: %d", code)
	}
}
