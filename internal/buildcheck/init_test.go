package buildcheck

import (
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"testing"
)

// maxInitBytes bounds what any hookctl package allocates at start-up. Every tool call starts a
// hookctl process, which runs the initialisation of every package in the binary; the
// retriever's rule tables once cost 1.8 MB and 4.8 ms there (docs/decisions/0002). Allocation
// is counted, not time, so the test does not depend on the machine's load.
const maxInitBytes = 200 << 10

var initLine = regexp.MustCompile(`(?m)^init (github\.com/hookctl/\S+) @\S+ ms, \S+ ms clock, (\d+) bytes, (\d+) allocs$`)

func TestStartupAllocatesLittle(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the binary")
	}
	bin := filepath.Join(t.TempDir(), "hookctl")
	build := exec.Command("go", "build", "-o", bin, "../../cmd/hookctl")
	build.Env = append(os.Environ(), "CGO_ENABLED=0")
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("build: %v\n%s", err, out)
	}
	cmd := exec.Command(bin, "version")
	cmd.Env = append(os.Environ(), "GODEBUG=inittrace=1")
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	m := initLine.FindAllStringSubmatch(string(out), -1)
	if len(m) < 3 {
		t.Fatalf("found %d hookctl package inits in the trace, so the test proves nothing:\n%s", len(m), out)
	}
	for _, l := range m {
		if n, _ := strconv.Atoi(l[2]); n > maxInitBytes {
			t.Errorf("%s allocates %d bytes (%s allocations) at start-up, over %d: defer the work to first use", l[1], n, l[3], maxInitBytes)
		}
	}
}
