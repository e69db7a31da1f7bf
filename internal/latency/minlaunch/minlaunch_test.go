//go:build linux

package main_test

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/hookctl/hookctl/internal/landlock"
	"github.com/hookctl/hookctl/internal/latency/yardstick"
)

// TestLayersApply: the yardstick's -layers does the kernel work it is timed for, or its ratio
// flatters hookctl's launcher. Under it a connection out is refused by the read-only seccomp
// program, as root, the capability bounding set is empty, a file in the masked directory
// is not there and a masked file reads empty; the same commands under the isolated yardstick
// connect (refused by the closed port, not by a filter), keep the bounding set and read both.
func TestLayersApply(t *testing.T) {
	if _, err := landlock.ABI(); err != nil {
		t.Skipf("no Landlock here (%v): the yardstick cannot run", err)
	}
	dir := t.TempDir()
	bin := filepath.Join(dir, "minlaunch")
	if out, err := exec.Command("go", "build", "-o", bin, ".").CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	filter := filepath.Join(dir, "filter")
	if err := yardstick.WriteFilter(filter); err != nil {
		t.Fatal(err)
	}
	hide, write := filepath.Join(dir, "hide"), filepath.Join(dir, "write")
	for _, d := range []string{hide, write} {
		if err := os.Mkdir(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	masked := filepath.Join(dir, "masked")
	for _, f := range []string{filepath.Join(hide, "canary"), masked} {
		if err := os.WriteFile(f, []byte("CANARY "+filepath.Base(f)+"\n"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	script := `cat ` + filepath.Join(hide, "canary") + ` ` + masked + `; grep CapBnd /proc/self/status; exec 3<>/dev/tcp/127.0.0.1/9 && echo connected`
	run := func(args ...string) string {
		out, _ := exec.Command(bin, append(args, write, "bash", "--noprofile", "--norc", "-c", script)...).CombinedOutput()
		return string(out)
	}
	plain, layered := run("-isolate"), run("-layers", filter, hide, "f:"+masked)
	const noCaps = "CapBnd:\t0000000000000000"
	if !strings.Contains(plain, "CANARY canary") || !strings.Contains(plain, "CANARY masked") || !strings.Contains(plain, "Connection refused") ||
		os.Geteuid() == 0 && strings.Contains(plain, noCaps) {
		t.Fatalf("control: the isolated yardstick should read both canaries, keep its bounding set and reach the closed port:\n%s", plain)
	}
	if os.Geteuid() == 0 && !strings.Contains(layered, noCaps) {
		t.Errorf("under -layers the capability bounding set is not empty:\n%s", layered)
	}
	if !strings.Contains(layered, "Operation not permitted") || strings.Contains(layered, "Connection refused") || strings.Contains(layered, "connected") {
		t.Errorf("under -layers a connection was not refused by the seccomp program:\n%s", layered)
	}
	if os.Geteuid() == 0 && strings.Contains(layered, "CANARY") {
		t.Errorf("under -layers, as root, the masked directory's file was read:\n%s", layered)
	}
}
