package proc

import (
	"context"
	"fmt"
	"os/exec"
	"testing"
	"time"
)

// TestGroupCommandKillsTheTree: when ctx ends, the whole process group goes, not only its
// leader: a grandchild that would hold the untrusted content and the network dies too.
func TestGroupCommandKillsTheTree(t *testing.T) {
	marker := fmt.Sprintf("grandchild-%d", time.Now().UnixNano())
	ctx, cancel := context.WithTimeout(context.Background(), 500*time.Millisecond)
	defer cancel()
	// The grandchild's $0 is the marker, so pgrep -f finds it.
	cmd := GroupCommand(ctx, "sh", "-c", `sh -c 'while :; do sleep 1; done' `+marker+` & wait`)
	start := time.Now()
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	time.Sleep(200 * time.Millisecond)
	if seen, _ := exec.Command("pgrep", "-f", marker).Output(); len(seen) == 0 {
		t.Fatal("the grandchild is not visible to pgrep, so the test proves nothing")
	}
	if err := cmd.Wait(); err == nil {
		t.Fatal("the command finished by itself")
	}
	if d := time.Since(start); d > 5*time.Second {
		t.Errorf("took %v", d)
	}
	time.Sleep(100 * time.Millisecond)
	if left, _ := exec.Command("pgrep", "-f", marker).Output(); len(left) > 0 {
		exec.Command("pkill", "-f", marker).Run()
		t.Errorf("a grandchild survived: pids %s", left)
	}
}
