package main

import (
	"strings"
	"testing"
)

// TestReport: a skipped test is listed with its reason, a failed test's output is printed and
// fails the run, a build failure fails it, and a stream without tests fails it.
func TestReport(t *testing.T) {
	const pass = `{"Action":"run","Package":"p","Test":"TestA"}
{"Action":"output","Package":"p","Test":"TestA","Output":"=== RUN   TestA\n"}
{"Action":"pass","Package":"p","Test":"TestA"}
{"Action":"output","Package":"p","Test":"TestB","Output":"    b_test.go:9: chromium is not installed\n"}
{"Action":"output","Package":"p","Test":"TestB","Output":"--- SKIP: TestB (0.00s)\n"}
{"Action":"skip","Package":"p","Test":"TestB"}
{"Action":"pass","Package":"p","Elapsed":1.5}
`
	const fail = `{"Action":"output","Package":"q","Test":"TestC","Output":"    c_test.go:3: want 1, got 2\n"}
{"Action":"fail","Package":"q","Test":"TestC"}
{"Action":"output","Package":"q","Output":"FAIL\n"}
{"Action":"output","Package":"q","Output":"FAIL\tq\t0.100s\n"}
{"Action":"fail","Package":"q","Elapsed":0.1}
`
	const build = `{"Action":"build-output","Package":"r","Output":"r/x.go:1:1: expected 'package'\n"}
{"Action":"build-fail","Package":"r"}
`
	for _, c := range []struct {
		name, in string
		code     int
		want     []string
	}{
		{"pass and skip", pass, 0, []string{"ok  \tp\t1.5s", "1 skipped:\n  p TestB: chromium is not installed", "1 tests passed, 1 skipped"}},
		{"a failure", pass + fail, 1, []string{"c_test.go:3: want 1, got 2", "FAIL\tq", "FAIL: 1 package(s) failed"}},
		{"a build failure", pass + build, 1, []string{"expected 'package'", "FAIL: 1 package(s) failed"}},
		{"nothing ran", "", 1, []string{"no test ran"}},
	} {
		var out strings.Builder
		r := &report{out: &out, output: map[key][]string{}}
		if err := r.read(strings.NewReader(c.in)); err != nil {
			t.Fatal(err)
		}
		code := r.summary()
		for _, w := range c.want {
			if !strings.Contains(out.String(), w) {
				t.Errorf("%s: output lacks %q:\n%s", c.name, w, out.String())
			}
		}
		if n := strings.Count(out.String(), "FAIL\tq"); n > 1 {
			t.Errorf("%s: the package's FAIL line %d times:\n%s", c.name, n, out.String())
		}
		if code != c.code {
			t.Errorf("%s: exit %d, want %d", c.name, code, c.code)
		}
	}
}
