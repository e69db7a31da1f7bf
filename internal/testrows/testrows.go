// Package testrows keeps the row tables of hookctl's rule tests honest: a row listed twice in
// one test is a copy-paste that tests nothing new, and is reported. It is imported by tests only.
package testrows

import (
	"fmt"
	"slices"
	"strings"
	"sync"

	"github.com/hookctl/hookctl/internal/wordlist"
)

// Reporter is the part of *testing.T the table checks use, so that a check's own test can
// record misses instead of failing.
type Reporter interface {
	Helper()
	Errorf(format string, args ...any)
	Cleanup(func())
}

var (
	mu   sync.Mutex
	seen = map[Reporter]map[string]bool{}
)

// Twice reports whether the running test t has already judged the row key, and records it.
// What t has seen is forgotten when t ends.
func Twice(t Reporter, key string) bool {
	mu.Lock()
	defer mu.Unlock()
	m := seen[t]
	if m == nil {
		m = map[string]bool{}
		seen[t] = m
		t.Cleanup(func() {
			mu.Lock()
			delete(seen, t)
			mu.Unlock()
		})
	}
	twice := m[key]
	m[key] = true
	return twice
}

// Unique panics when key gives two rows of a table the same value: a row listed twice is a
// copy-paste that tests nothing new, and hides the case that was meant. Tests call it from init,
// so that a duplicate stops the whole package before any test runs.
func Unique[R any](table string, rows []R, key func(R) string) {
	seen := map[string]bool{}
	for _, r := range rows {
		k := key(r)
		if seen[k] {
			panic(fmt.Sprintf("duplicate %s row: %s", table, k))
		}
		seen[k] = true
	}
}

// Distinct reports each key of a table's n rows (key(i) of row i) listed more than once, for a
// test that checks the table's own content; what names the rows.
func Distinct(t Reporter, what string, n int, key func(i int) string) {
	t.Helper()
	seen := map[string]bool{}
	for i := range n {
		k := key(i)
		if seen[k] {
			t.Errorf("%s %q is listed twice", what, k)
		}
		seen[k] = true
	}
}

// Recorder is a Reporter that keeps errors instead of failing the test, so that a table check's
// own test can count the misses it reports.
type Recorder struct {
	Errors   []string
	cleanups []func()
}

func (*Recorder) Helper() {}

func (r *Recorder) Errorf(format string, args ...any) {
	r.Errors = append(r.Errors, fmt.Sprintf(format, args...))
}

func (r *Recorder) Cleanup(f func()) { r.cleanups = append(r.cleanups, f) }

// Finish runs the cleanups, as the end of a test would.
func (r *Recorder) Finish() {
	for _, f := range r.cleanups {
		f()
	}
}

// WordList checks a space-separated list read with wordlist.Has, named name: its names are
// separated by spaces only (wordlist.Has splits on nothing else), and wordlist.Has finds each of
// them and nothing that merely overlaps one (-n in -nv, -s in -sS, two neighbours joined by a
// space).
func WordList(t Reporter, name, list string) {
	t.Helper()
	words := strings.Fields(list)
	var split []string
	for _, w := range strings.Split(list, " ") {
		if w != "" {
			split = append(split, w)
		}
	}
	if strings.Join(words, " ") != strings.Join(split, " ") {
		t.Errorf("%s is separated by something other than spaces", name)
	}
	for i, w := range words {
		if !wordlist.Has(list, w) {
			t.Errorf("wordlist.Has(%s, %q) = false", name, w)
		}
		for _, near := range []string{w[:len(w)-1], w + "x", w + " ", " " + w, "x" + w} {
			if wordlist.Has(list, near) != slices.Contains(words, near) {
				t.Errorf("wordlist.Has(%s, %q) = %v", name, near, !slices.Contains(words, near))
			}
		}
		if i+1 < len(words) && wordlist.Has(list, w+" "+words[i+1]) {
			t.Errorf("wordlist.Has(%s, %q) = true", name, w+" "+words[i+1])
		}
	}
}
