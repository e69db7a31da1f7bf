// Package testbin builds hookctl once per test process, for the tests that run it as a process
// (the sandbox launcher, the hook as the client starts it), with the retriever's worker beside
// it, where hookctl looks for it (edit mode's egress proxy is the worker too), and the dashboard. It is imported by
// tests only.
package testbin

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"sync"
	"testing"
)

var built struct {
	once sync.Once
	dir  string
	path string
	err  error
}

// Hookctl returns the path of cmd/hookctl built as it is released (without cgo), building it
// cmd/hookctl-network, cmd/hookctl-dashboard, cmd/hookctl-export and cmd/hookctl-sandbox into the
// same directory on first use.
func Hookctl(t testing.TB) string {
	t.Helper()
	built.once.Do(func() {
		if built.dir, built.err = os.MkdirTemp("", "hookctl-bin-"); built.err != nil {
			return
		}
		path := filepath.Join(built.dir, "hookctl")
		cmd := exec.Command("go", "build", "-o", built.dir+string(filepath.Separator),
			"github.com/hookctl/hookctl/cmd/hookctl", "github.com/hookctl/hookctl/cmd/hookctl-network",
			"github.com/hookctl/hookctl/cmd/hookctl-dashboard", "github.com/hookctl/hookctl/cmd/hookctl-export",
			"github.com/hookctl/hookctl/cmd/hookctl-sandbox")
		cmd.Env = append(os.Environ(), "CGO_ENABLED=0")
		if out, err := cmd.CombinedOutput(); err != nil {
			built.err = fmt.Errorf("failed to build hookctl: %w\n%s", err, out)
			return
		}
		built.path = path
	})
	if built.err != nil {
		t.Fatal(built.err)
	}
	return built.path
}

// Cleanup removes the build; TestMain calls it once the tests have run.
func Cleanup() {
	if built.dir != "" {
		os.RemoveAll(built.dir)
	}
}

// RepoRoot is the nearest directory above the working directory holding go.mod: the checkout a
// test runs in (the clients the end-to-end tests drive are under its .cache).
func RepoRoot() (string, error) {
	dir, err := os.Getwd()
	if err != nil {
		return "", err
	}
	for {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			return dir, nil
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return "", errors.New("no go.mod found")
		}
		dir = parent
	}
}

// RequireTool skips a test that needs a program that is not installed, or fails it under
// HOOKCTL_REQUIRE_ALL=1, where nothing may be skipped.
func RequireTool(t testing.TB, name string) {
	t.Helper()
	msg := name + " is not installed"
	if os.Getenv("HOOKCTL_REQUIRE_ALL") == "1" {
		t.Fatal(msg + " (HOOKCTL_REQUIRE_ALL=1)")
	}
	t.Skip(msg)
}
