package buildcheck

import (
	"os"
	"os/exec"
	"path/filepath"
	"testing"
)

// TestBuildsForMacOS: every package builds for macOS, where hookctl runs its commands under
// Seatbelt. Nothing else here compiles for it, and a Linux-only field in a shared file (Stat_t's
// Mtim, in internal/fsutil) once broke the macOS build unseen. Vet compiles the tests too: a test
// file without a build constraint that used a Linux-only helper or field kept `go test` from
// starting on a Mac.
func TestBuildsForMacOS(t *testing.T) {
	if testing.Short() {
		t.Skip("cross-compiles the module")
	}
	for _, arch := range []string{"arm64", "amd64"} {
		crossGo(t, "darwin", arch, "build", "./...")
	}
	crossGo(t, "darwin", "arm64", "vet", "./...")
}

// TestBuildsForLinuxArm64: every package builds, and vets, for Linux on arm64, whose read-only
// launch clones through an assembly function of its own (sandbox/vfork_arm64.s) that nothing
// on this amd64 machine otherwise assembles; vet checks its frame and arguments against the Go
// declaration.
func TestBuildsForLinuxArm64(t *testing.T) {
	if testing.Short() {
		t.Skip("cross-compiles the module")
	}
	crossGo(t, "linux", "arm64", "build", "./...")
	crossGo(t, "linux", "arm64", "vet", "./sandbox")
}

// crossGo runs the go command with args in the module's root for goos/goarch, without cgo.
func crossGo(t *testing.T, goos, goarch string, args ...string) {
	t.Helper()
	cmd := exec.Command(goBinary(t), args...)
	cmd.Dir = filepath.Join("..", "..")
	cmd.Env = append(os.Environ(), "GOOS="+goos, "GOARCH="+goarch, "CGO_ENABLED=0")
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Errorf("GOOS=%s GOARCH=%s go %v: %v\n%s", goos, goarch, args, err, out)
	}
}
