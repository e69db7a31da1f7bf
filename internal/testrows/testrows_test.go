package testrows

import (
	"fmt"
	"strings"
	"testing"
)

// TestTwice: a row is new once per test, tests do not share rows, and a test's rows are
// forgotten when it ends.
func TestTwice(t *testing.T) {
	a, b := &Recorder{}, &Recorder{}
	if Twice(a, "x") || !Twice(a, "x") || Twice(b, "x") || Twice(a, "y") {
		t.Error("Twice miscounts")
	}
	a.Finish()
	b.Finish()
	mu.Lock()
	defer mu.Unlock()
	if _, ok := seen[a]; ok || len(seen) != 0 {
		t.Errorf("rows kept after cleanup: %d tests", len(seen))
	}
}

// TestUnique: a table with distinct keys passes; one key listed twice panics, naming the table
// and the key.
func TestUnique(t *testing.T) {
	key := func(s string) string { return s }
	Unique("distinct", []string{"a", "b", "c"}, key)
	defer func() {
		if r := recover(); r == nil || !strings.Contains(fmt.Sprint(r), "duplicate twice row: b") {
			t.Errorf("a duplicate row: recovered %v", r)
		}
	}()
	Unique("twice", []string{"a", "b", "c", "b"}, key)
}

// TestDistinct: each key listed again is reported once per repeat, and a table without repeats
// reports nothing.
func TestDistinct(t *testing.T) {
	rows := []string{"a", "b", "a", "c", "a"}
	r := &Recorder{}
	Distinct(r, "row", len(rows), func(i int) string { return rows[i] })
	if len(r.Errors) != 2 || !strings.Contains(r.Errors[0], `row "a" is listed twice`) {
		t.Errorf("repeats reported: %q", r.Errors)
	}
	r = &Recorder{}
	Distinct(r, "row", 3, func(i int) string { return rows[i+1] })
	if len(r.Errors) != 0 {
		t.Errorf("no repeats, but reported: %q", r.Errors)
	}
}
