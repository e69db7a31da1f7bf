package sandbox

import (
	"encoding/json"
	"os"
	"path/filepath"
	"testing"
	"time"
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
