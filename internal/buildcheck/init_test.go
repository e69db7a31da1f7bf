package buildcheck

import (
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"sync"
	"testing"
)

// maxInitBytes bounds what any hookctl package allocates at start-up. Every tool call starts a
// hookctl process, which runs the initialisation of every package in the binary; the
// retriever's rule tables once cost 1.8 MB and 4.8 ms there (docs/decisions/0002). Allocation
// is counted, not time, so the test does not depend on the machine's load.
const maxInitBytes = 200 << 10

// initAllocFree are the packages whose initialisation allocates nothing at all: their tables are
// slices of structs and string lists the compiler lays out, and anything that must be built
// (compiled regular expressions) is built on first use. They once allocated 121, 14 and 38
// times at every start for maps and closures no hook call needed before it judged.
var initAllocFree = []string{
	"github.com/hookctl/hookctl/programs",
	"github.com/hookctl/hookctl/programs/editguard",
	"github.com/hookctl/hookctl/retriever/scrub",
}

var initLine = regexp.MustCompile(`(?m)^init (github\.com/hookctl/\S+) @\S+ ms, \S+ ms clock, (\d+) bytes, (\d+) allocs$`)

var startup struct {
	once sync.Once
	out  string
	err  string
}

// startupTrace builds hookctl without cgo, as `make build` does, and returns the runtime's trace of its
// package initialisation (GODEBUG=inittrace=1) for `hookctl version`: init runs before main,
// whatever the command. The build is shared by the tests that read the trace.
func startupTrace(t *testing.T) string {
	t.Helper()
	if testing.Short() {
		t.Skip("builds the binary")
	}
	startup.once.Do(func() {
		dir, err := os.MkdirTemp("", "hookctl-init")
		if err != nil {
			startup.err = err.Error()
			return
		}
		defer os.RemoveAll(dir)
		bin := filepath.Join(dir, "hookctl")
		build := exec.Command("go", "build", "-trimpath", "-o", bin, "../../cmd/hookctl")
		build.Env = append(os.Environ(), "CGO_ENABLED=0")
		if out, err := build.CombinedOutput(); err != nil {
			startup.err = "build: " + err.Error() + "\n" + string(out)
			return
		}
		cmd := exec.Command(bin, "version")
		cmd.Env = append(os.Environ(), "GODEBUG=inittrace=1")
		out, err := cmd.CombinedOutput()
		if err != nil {
			startup.err = err.Error() + "\n" + string(out)
			return
		}
		startup.out = string(out)
	})
	if startup.err != "" {
		t.Fatal(startup.err)
	}
	return startup.out
}

func TestStartupAllocatesLittle(t *testing.T) {
	out := startupTrace(t)
	m := initLine.FindAllStringSubmatch(out, -1)
	if len(m) < 3 {
		t.Fatalf("found %d hookctl package inits in the trace, so the test proves nothing:\n%s", len(m), out)
	}
	for _, l := range m {
		if n, _ := strconv.Atoi(l[2]); n > maxInitBytes {
			t.Errorf("%s allocates %d bytes (%s allocations) at start-up, over %d: defer the work to first use", l[1], n, l[3], maxInitBytes)
		}
	}
}

// TestInitAllocatesNothing: the packages of initAllocFree make no allocation at start-up. It
// reads the runtime's own count, from the trace, of the allocations each package's init makes in
// the built binary: what every hook process pays, and a count that does not depend on the
// machine's load, as time would. (A test inside the package could not run its init again, and
// reading the compiled init for calls would depend on how the compiler spells them.) A package
// with no init work at all is left out of the trace, which counts as none, so the test first
// checks, with go list, that hookctl links each package.
func TestInitAllocatesNothing(t *testing.T) {
	out := startupTrace(t)
	deps := goList(t, "-deps", "./cmd/hookctl")
	for _, p := range initAllocFree {
		if !slices.Contains(deps, p) {
			t.Errorf("hookctl does not link %s, so its trace says nothing about it", p)
		}
	}
	if !initLine.MatchString(out) {
		t.Fatalf("the trace names no hookctl package, so it is not what this test reads:\n%s", out)
	}
	for _, l := range initLine.FindAllStringSubmatch(out, -1) {
		if slices.Contains(initAllocFree, l[1]) && l[3] != "0" {
			t.Errorf("%s allocates %s times (%s bytes) at start-up, in every hook process: lay the tables out as slices or string lists, or build on first use", l[1], l[3], l[2])
		}
	}
}
