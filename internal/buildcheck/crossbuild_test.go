package buildcheck

import (
	"os"
	"os/exec"
	"path/filepath"
	"testing"
)

// TestBuildsForMacOS: every package builds for macOS, where hookctl runs its commands under
// Seatbelt. Nothing else here compiles for it, and a Linux-only field in a shared file (Stat_t's
// Mtim, in internal/fsutil) once broke the macOS build unseen.
func TestBuildsForMacOS(t *testing.T) {
	if testing.Short() {
		t.Skip("cross-compiles the module")
	}
	gobin := goBinary(t)
	for _, arch := range []string{"arm64", "amd64"} {
		cmd := exec.Command(gobin, "build", "./...")
		cmd.Dir = filepath.Join("..", "..")
		cmd.Env = append(os.Environ(), "GOOS=darwin", "GOARCH="+arch, "CGO_ENABLED=0")
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Errorf("GOOS=darwin GOARCH=%s go build ./...: %v\n%s", arch, err, out)
		}
	}
}

// TestBuildsForLinuxArm64: every package builds, and vets, for Linux on arm64, whose read-only
// launch clones through an assembly function of its own (sandbox/vfork_arm64.s) that nothing
// on this amd64 machine otherwise assembles; vet checks its frame and arguments against the Go
// declaration.
func TestBuildsForLinuxArm64(t *testing.T) {
	if testing.Short() {
		t.Skip("cross-compiles the module")
	}
	gobin := goBinary(t)
	for _, args := range [][]string{{"build", "./..."}, {"vet", "./sandbox"}} {
		cmd := exec.Command(gobin, args...)
		cmd.Dir = filepath.Join("..", "..")
		cmd.Env = append(os.Environ(), "GOOS=linux", "GOARCH=arm64", "CGO_ENABLED=0")
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Errorf("GOARCH=arm64 go %v: %v\n%s", args, err, out)
		}
	}
}
