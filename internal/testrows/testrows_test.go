package testrows

import "testing"

type fake struct{ cleanups []func() }

func (*fake) Helper()               {}
func (*fake) Errorf(string, ...any) {}
func (f *fake) Cleanup(fn func())   { f.cleanups = append(f.cleanups, fn) }
func (f *fake) finish() {
	for _, c := range f.cleanups {
		c()
	}
}

// TestTwice: a row is new once per test, tests do not share rows, and a test's rows are
// forgotten when it ends.
func TestTwice(t *testing.T) {
	a, b := &fake{}, &fake{}
	if Twice(a, "x") || !Twice(a, "x") || Twice(b, "x") || Twice(a, "y") {
		t.Error("Twice miscounts")
	}
	a.finish()
	b.finish()
	mu.Lock()
	defer mu.Unlock()
	if _, ok := seen[a]; ok || len(seen) != 0 {
		t.Errorf("rows kept after cleanup: %d tests", len(seen))
	}
}
