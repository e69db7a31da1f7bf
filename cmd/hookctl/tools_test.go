package main

import (
	"os"
	"os/exec"
	"path/filepath"
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

// userHome is a temporary user for the binary run as a child process: a home, hookctl's
// directory beneath it (not made), and the environment that points both there, with extra
// appended.
func userHome(t *testing.T, extra ...string) (home, hh string, env []string) {
	t.Helper()
	home = t.TempDir()
	hh = filepath.Join(home, ".config", "hookctl")
	env = append(append(os.Environ(), "HOME="+home, "HOOKCTL_HOME="+hh, "XDG_CONFIG_HOME="), extra...)
	return home, hh, env
}
