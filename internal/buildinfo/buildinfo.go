// Package buildinfo identifies a build of hookctl: its version, the identity the front and the
// retriever's worker compare before a retrieval, and whether it was built with the test seams.
// Both executables link it (hookctl, in every process, and hookctl-network); it links
// no network code.
package buildinfo

import (
	"crypto/sha256"
	"encoding/hex"
	"runtime"
	"runtime/debug"
	"strings"
	"sync"
)

// version is set at build time with
// -ldflags "-X github.com/hookctl/hookctl/internal/buildinfo.version=…"; otherwise it is the
// module version, or "devel".
var version = ""

// stamp is set at build time, by make, to one value for both executables of one build
// (-X github.com/hookctl/hookctl/internal/buildinfo.stamp=…), so that a worker left over from
// another build is told apart even when the version is the same.
var stamp = ""

// Version is hookctl's version.
func Version() string {
	read.Do(readBuild)
	return theVersion
}

// ID identifies this build for the check that hookctl and its worker come from the same one:
// the version, make's stamp, the source revision when Go recorded it, the toolchain, the
// platform, and the test seams.
func ID() string {
	read.Do(readBuild)
	return theID
}

// The build's information is read once a process: debug.ReadBuildInfo parses it anew on every
// call, and the hook asks for the version and the ID on every call. (A sync.Once, not
// OnceValue, which would allocate at start-up: internal/buildcheck.)
var (
	read              sync.Once
	theVersion, theID string
)

func readBuild() {
	bi, ok := debug.ReadBuildInfo()
	theVersion = version
	if theVersion == "" {
		theVersion = "devel"
		if ok && bi.Main.Version != "" && bi.Main.Version != "(devel)" {
			theVersion = bi.Main.Version
		}
	}
	parts := []string{theVersion}
	if stamp != "" {
		parts = append(parts, "stamp "+stamp)
	}
	if ok {
		for _, s := range bi.Settings {
			switch {
			case s.Key == "vcs.revision":
				parts = append(parts, "rev "+s.Value)
			case s.Key == "vcs.modified" && s.Value == "true":
				parts = append(parts, "modified")
			}
		}
	}
	parts = append(parts, runtime.Version(), runtime.GOOS+"/"+runtime.GOARCH)
	if TestSeams {
		parts = append(parts, "test seams")
	}
	theID = strings.Join(parts, ", ")
}

// Describe is what a program of this build prints for its version: its name and version, the
// build's identity, and, for a test build, a warning.
func Describe(program string) string {
	s := program + " " + Version() + "\nbuild: " + ID() + "\n"
	if TestSeams {
		s += TestSeamsWarning + "\n"
	}
	return s
}

// TestSeamsWarning is how a test build says what it is.
const TestSeamsWarning = "⚠ built with the hookctl_testseams tag, for tests: its retriever reaches loopback and private addresses. Never install it."

// Digest is a short digest of ID, for a command line that must name this build (the read-only
// launcher's --build: hookctl-sandbox refuses to run for another build's hook).
func Digest() string { return DigestOf(ID()) }

// DigestOf is Digest for the build whose ID is id.
func DigestOf(id string) string {
	sum := sha256.Sum256([]byte(id))
	return hex.EncodeToString(sum[:6])
}

// DigestOfVersion is the Digest of the build whose program printed version (Describe's "build:"
// line), for the tests and benchmarks that start another executable; false if it names none.
func DigestOfVersion(version string) (string, bool) {
	for _, line := range strings.Split(version, "\n") {
		if id, ok := strings.CutPrefix(line, "build: "); ok {
			return DigestOf(id), true
		}
	}
	return "", false
}
