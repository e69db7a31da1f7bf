package buildcheck

import (
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"sync"
	"testing"
)

// Every tool call starts a hookctl process, which runs the initialisation of every package in
// the binary before it decides anything; the retriever's rule tables once cost 1.8 MB and 4.8 ms
// there (docs/decisions/0002), and map literals in programs, the edit guard, the scrubber, the
// adapter, the lexer and the state checker 200 allocations more (0004). None of hookctl's own
// packages may allocate at start-up now: tables are slices of structs and string lists the
// compiler lays out, and what must be built (compiled regular expressions) is built on first use.
// Allocation is counted, not time, so the test does not depend on the machine's load.

// mustLink are packages hookctl must link for the trace to speak for them: a package with no
// init work at all is left out of the trace, which counts as none.
var mustLink = []string{
	"github.com/hookctl/hookctl/programs",
	"github.com/hookctl/hookctl/programs/editguard",
	"github.com/hookctl/hookctl/scrub",
	"github.com/hookctl/hookctl/hook",
	"github.com/hookctl/hookctl/gate",
	"github.com/hookctl/hookctl/policy",
	"github.com/hookctl/hookctl/session",
	"github.com/hookctl/hookctl/lexer",
	"github.com/hookctl/hookctl/agents/claude",
	"github.com/hookctl/hookctl/retriever",
}

var (
	initLine    = regexp.MustCompile(`(?m)^init (github\.com/hookctl/\S+) @\S+ ms, \S+ ms clock, (\d+) bytes, (\d+) allocs$`)
	runtimeLine = regexp.MustCompile(`(?m)^init runtime @\S+ ms, \S+ ms clock, \d+ bytes, \d+ allocs$`)
)

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

// TestInitAllocatesNothing: no hookctl package allocates at start-up. It reads the runtime's
// own count, from the trace, of the allocations each package's init makes in the built binary:
// what every hook process pays, and a count that does not depend on the machine's load, as time
// would. (A test inside a package could not run its init again, and reading the compiled init
// for calls would depend on how the compiler spells them.) It first checks that the trace is the
// runtime's (it names the runtime's own init) and, with go list, that hookctl links the packages
// it speaks for.
func TestInitAllocatesNothing(t *testing.T) {
	out := startupTrace(t)
	if !runtimeLine.MatchString(out) {
		t.Fatalf("the output is not the runtime's init trace, so it says nothing:\n%s", out)
	}
	deps := goList(t, "-deps", "./cmd/hookctl")
	for _, p := range mustLink {
		if !slices.Contains(deps, p) {
			t.Errorf("hookctl does not link %s, so its trace says nothing about it", p)
		}
	}
	for _, l := range initLine.FindAllStringSubmatch(out, -1) {
		if l[3] != "0" {
			t.Errorf("%s allocates %s times (%s bytes) at start-up, in every hook process: lay the tables out as slices or string lists, or build on first use", l[1], l[3], l[2])
		}
	}
}
