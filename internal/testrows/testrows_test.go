package testrows

import "testing"

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
