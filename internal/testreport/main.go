// Command testreport reads `go test -json` on standard input and prints what `go test` would —
// a line per package, and the whole output of every test that failed — followed by every test
// that was skipped and why, so that make test skips nothing silently. It exits 1 if anything
// failed (a test, a package, a build), or if the stream held no test at all.
package main

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"sort"
	"strings"
	"time"
)

// event is one line of test2json's output (go doc cmd/test2json).
type event struct {
	Action  string
	Package string
	Test    string
	Output  string
	Elapsed float64
}

type key struct{ pkg, test string }

type report struct {
	out      io.Writer
	output   map[key][]string // each running test's output, and each package's (test "")
	skipped  []string
	failed   int
	packages int
	tests    int
}

func main() {
	r := &report{out: os.Stdout, output: map[key][]string{}}
	if err := r.read(os.Stdin); err != nil {
		fmt.Fprintln(os.Stderr, "testreport:", err)
		os.Exit(1)
	}
	os.Exit(r.summary())
}

func (r *report) read(in io.Reader) error {
	sc := bufio.NewScanner(in)
	sc.Buffer(make([]byte, 1<<20), 16<<20)
	for sc.Scan() {
		line := sc.Bytes()
		var e event
		if len(line) == 0 || line[0] != '{' || json.Unmarshal(line, &e) != nil {
			fmt.Fprintln(r.out, string(line)) // not test2json: a build error, a toolchain message
			continue
		}
		r.event(e)
	}
	return sc.Err()
}

func (r *report) event(e event) {
	k := key{e.Package, e.Test}
	switch e.Action {
	case "output", "build-output":
		r.output[k] = append(r.output[k], e.Output)
	case "build-fail":
		r.failed++
		fmt.Fprint(r.out, strings.Join(r.output[key{e.Package, ""}], ""))
	case "pass", "fail", "skip":
		if e.Test == "" {
			r.packageDone(e)
		} else {
			r.testDone(k, e.Action)
		}
		delete(r.output, k)
	}
}

func (r *report) testDone(k key, action string) {
	r.tests++
	switch action {
	case "fail":
		fmt.Fprint(r.out, strings.Join(r.output[k], ""))
	case "skip":
		r.skipped = append(r.skipped, fmt.Sprintf("%s %s: %s", k.pkg, k.test, skipReason(r.output[k])))
	}
}

func (r *report) packageDone(e event) {
	r.packages++
	elapsed := (time.Duration(e.Elapsed * float64(time.Second))).Round(time.Millisecond)
	switch e.Action {
	case "pass":
		fmt.Fprintf(r.out, "ok  \t%s\t%v\n", e.Package, elapsed)
	case "skip": // no test files
		fmt.Fprintf(r.out, "?   \t%s\t[no test files]\n", e.Package)
	case "fail":
		r.failed++
		// A package that failed outside any test (a panic in TestMain, a timeout) says why here;
		// go test's own FAIL lines are left for the one below.
		for _, l := range r.output[key{e.Package, ""}] {
			if t := strings.TrimSpace(l); t != "FAIL" && !strings.HasPrefix(t, "FAIL\t") {
				fmt.Fprint(r.out, l)
			}
		}
		fmt.Fprintf(r.out, "FAIL\t%s\t%v\n", e.Package, elapsed)
	}
}

// skipReason is the message a skipped test gave: its output but the === and --- lines.
func skipReason(lines []string) string {
	var msg []string
	for _, l := range lines {
		t := strings.TrimSpace(l)
		if t == "" || strings.HasPrefix(t, "=== ") || strings.HasPrefix(t, "--- ") {
			continue
		}
		if _, rest, ok := strings.Cut(t, ".go:"); ok { // file.go:12: message
			if _, m, ok := strings.Cut(rest, ": "); ok {
				t = m
			}
		}
		msg = append(msg, t)
	}
	if len(msg) == 0 {
		return "(no reason given)"
	}
	return strings.Join(msg, " ")
}

func (r *report) summary() int {
	sort.Strings(r.skipped)
	if len(r.skipped) > 0 {
		fmt.Fprintf(r.out, "\n%d skipped:\n", len(r.skipped))
		for _, s := range r.skipped {
			fmt.Fprintln(r.out, "  "+s)
		}
	}
	switch {
	case r.failed > 0:
		fmt.Fprintf(r.out, "\nFAIL: %d package(s) failed\n", r.failed)
		return 1
	case r.tests == 0:
		fmt.Fprintln(r.out, "\nFAIL: no test ran")
		return 1
	}
	fmt.Fprintf(r.out, "\n%d packages, %d tests passed, %d skipped\n", r.packages, r.tests-len(r.skipped), len(r.skipped))
	return 0
}
