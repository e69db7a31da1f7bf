//go:build linux

package main_test

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"unsafe"

	"github.com/hookctl/hookctl/internal/landlock"
	"github.com/hookctl/hookctl/sandbox"
)

// TestLayersApply: the yardstick's -layers does the kernel work it is timed for, or its ratio
// flatters hookctl's launcher. Under it a connection out is refused by the read-only seccomp
// program and, as root, a file in the masked directory is not there; the same commands under
// the plain yardstick connect (refused by the closed port, not by a filter) and read it.
func TestLayersApply(t *testing.T) {
	if _, err := landlock.ABI(); err != nil {
		t.Skipf("no Landlock here (%v): the yardstick cannot run", err)
	}
	dir := t.TempDir()
	bin := filepath.Join(dir, "minlaunch")
	if out, err := exec.Command("go", "build", "-o", bin, ".").CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	abi, _ := landlock.ABI()
	prog, err := sandbox.ReadOnlyProgram(abi)
	if err != nil {
		t.Fatal(err)
	}
	for i := range prog {
		if prog[i].Code == 0x54 && prog[i].K == 0x7e020080 {
			prog[i].K = 0 // as the launch bench clears it: the yardstick makes namespaces after
		}
	}
	filter := filepath.Join(dir, "filter")
	if err := os.WriteFile(filter, unsafe.Slice((*byte)(unsafe.Pointer(&prog[0])), len(prog)*8), 0o644); err != nil {
		t.Fatal(err)
	}
	hide, write := filepath.Join(dir, "hide"), filepath.Join(dir, "write")
	for _, d := range []string{hide, write} {
		if err := os.Mkdir(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.WriteFile(filepath.Join(hide, "canary"), []byte("CANARY\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	script := `cat ` + filepath.Join(hide, "canary") + `; exec 3<>/dev/tcp/127.0.0.1/9 && echo connected`
	run := func(args ...string) string {
		out, _ := exec.Command(bin, append(args, write, "bash", "--noprofile", "--norc", "-c", script)...).CombinedOutput()
		return string(out)
	}
	plain, layered := run("-isolate"), run("-layers", filter, hide)
	if !strings.Contains(plain, "CANARY") || !strings.Contains(plain, "Connection refused") {
		t.Fatalf("control: the isolated yardstick should read the canary and reach the closed port:\n%s", plain)
	}
	if !strings.Contains(layered, "Operation not permitted") || strings.Contains(layered, "Connection refused") || strings.Contains(layered, "connected") {
		t.Errorf("under -layers a connection was not refused by the seccomp program:\n%s", layered)
	}
	if os.Geteuid() == 0 && strings.Contains(layered, "CANARY") {
		t.Errorf("under -layers, as root, the masked directory's file was read:\n%s", layered)
	}
}
