package main

import (
	"os"
	"os/exec"
	"strings"
	"testing"
)

func shellQuote(s string) string { return "'" + strings.ReplaceAll(s, "'", `'"'"'`) + "'" }

// requireTool skips a test that needs a program this machine lacks, unless every test must run
// (HOOKCTL_REQUIRE_ALL=1, as in CI), when it fails.
func requireTool(t *testing.T, name string) {
	t.Helper()
	if _, err := exec.LookPath(name); err != nil {
		if os.Getenv("HOOKCTL_REQUIRE_ALL") == "1" {
			t.Fatalf("%s is not installed (HOOKCTL_REQUIRE_ALL=1)", name)
		}
		t.Skipf("%s is not installed", name)
	}
}
