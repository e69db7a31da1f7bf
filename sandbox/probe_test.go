package sandbox

import (
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"testing"
	"time"

	"github.com/hookctl/hookctl/internal/buildinfo"
)

// TestProbeRemembersASandboxThatHeld: a probe that fails on a machine where one held before is
// failing, not "no sandbox"; one made on another machine key (another kernel, no Landlock)
// carries nothing over; Forget forgets it.
func TestProbeRemembersASandboxThatHeld(t *testing.T) {
	home := t.TempDir()
	held := time.Date(2026, 12, 1, 0, 0, 0, 0, time.UTC)
	write := func(machine string) {
		b, _ := json.Marshal(Status{Available: true, Edit: true, Machine: machine, HeldSince: &held, EditHeldSince: &held})
		os.WriteFile(filepath.Join(home, CacheName), b, 0o600)
	}
	write(machineKey())
	// A probe that fails for a reason of its own (here: a launcher that is not there).
	st := Refresh(home, filepath.Join(t.TempDir(), "no-hookctl"))
	if st.Available || !st.Failing() || !st.EditFailing() || !st.HeldSince.Equal(held) {
		t.Errorf("after a failed probe on a machine that held: available %v failing %v %v held %v (%s)",
			st.Available, st.Failing(), st.EditFailing(), st.HeldSince, st.Reason)
	}
	if c, _ := Cached(home); !c.Failing() {
		t.Error("the failing state was not cached")
	}
	write("another kernel; landlock 7")
	if st := Refresh(home, filepath.Join(t.TempDir(), "no-hookctl")); st.Failing() || st.HeldSince != nil {
		t.Errorf("a sandbox that held under another kernel makes this one failing: %+v", st)
	}
	write(machineKey())
	if err := Forget(home); err != nil {
		t.Fatal(err)
	}
	if st := Refresh(home, filepath.Join(t.TempDir(), "no-hookctl")); st.Failing() {
		t.Errorf("failing after Forget: %+v", st)
	}
}

// TestCachedReadsBackTheProbe: the hook's reader of the cache (cached, one pass over the keys)
// returns every field it reads as the probe wrote it, and only for this machine, build and
// binary.
func TestCachedReadsBackTheProbe(t *testing.T) {
	home := t.TempDir()
	held, editHeld := time.Date(2026, 12, 1, 0, 0, 0, 0, time.UTC), time.Date(2026, 12, 2, 3, 4, 5, 6, time.UTC)
	want := Status{Available: true, Reason: "r", Isolation: "iso", Edit: false, EditReason: "er",
		Checks:       []Check{{Name: "machine", OK: true, Detail: "a decoy: a key of the same name, deeper"}},
		EditLandlock: true, EditLandlockReason: "elr", PolicyOnly: "po", HeldSince: &held, EditHeldSince: &editHeld,
		Machine: machineKey(), Build: buildinfo.ID(), Binary: "/bin/hookctl"}
	b, _ := json.Marshal(want)
	os.WriteFile(filepath.Join(home, CacheName), b, 0o600)
	got, ok := cached(home, "/bin/hookctl")
	want.Checks = nil // not read by the hook
	if !ok || !reflect.DeepEqual(got, want) {
		t.Fatalf("cached:\n got %+v %v\nwant %+v", got, ok, want)
	}
	if _, ok := cached(home, "/other/hookctl"); ok {
		t.Error("another binary's probe was taken")
	}
	for _, spoil := range []func(*Status){func(s *Status) { s.Machine = "another kernel" }, func(s *Status) { s.Build = "another build" }} {
		s := want
		spoil(&s)
		b, _ := json.Marshal(s)
		os.WriteFile(filepath.Join(home, CacheName), b, 0o600)
		if _, ok := cached(home, "/bin/hookctl"); ok {
			t.Errorf("a probe of %q, %q was taken", s.Machine, s.Build)
		}
	}
}
