package overload

import (
	"bufio"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"syscall"
	"testing"
)

// TestSlotsThenYield: each process that enters holds one slot for as long as it lives; with
// every slot held, the next holds none and lowers its priority to Nice (unless it runs lower
// already, as under `nice`); a slot given up by a process that exited is taken again. The
// slots held are read from outside, with F_GETLK.
func TestSlotsThenYield(t *testing.T) {
	path := filepath.Join(t.TempDir(), "hooks.slots")
	enter := func() (yielded bool, niceBefore int, release func()) {
		t.Helper()
		cmd := exec.Command(os.Args[0], "-test.run=^TestEnterHelper$")
		cmd.Env = append(os.Environ(), "HOOKCTL_OVERLOAD_SLOTS="+path)
		stdin, _ := cmd.StdinPipe()
		stdout, _ := cmd.StdoutPipe()
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		if _, err := fmt.Fscan(bufio.NewReader(stdout), &yielded, &niceBefore); err != nil {
			t.Fatalf("the helper said nothing: %v", err)
		}
		return yielded, niceBefore, func() { stdin.Close(); cmd.Wait() }
	}
	held := func() int {
		t.Helper()
		f, err := os.Open(path)
		if err != nil {
			t.Fatal(err)
		}
		defer f.Close()
		n := 0
		for i := range Slots() {
			lk := syscall.Flock_t{Type: syscall.F_RDLCK, Start: int64(i), Len: 1}
			if err := syscall.FcntlFlock(f.Fd(), syscall.F_GETLK, &lk); err != nil {
				t.Fatal(err)
			}
			if lk.Type != syscall.F_UNLCK {
				n++
			}
		}
		return n
	}
	var releases []func()
	defer func() {
		for _, r := range releases {
			r()
		}
	}()
	for i := range Slots() {
		yielded, _, release := enter()
		releases = append(releases, release)
		if yielded || held() != i+1 {
			t.Fatalf("process %d of %d slots: yielded %v, %d slots held", i+1, Slots(), yielded, held())
		}
	}
	yielded, before, release := enter()
	if held() != Slots() || before < Nice && !yielded {
		t.Errorf("with every slot held: %d held, yielded %v (its nice value was %d)", held(), yielded, before)
	}
	release()
	releases[0]()
	releases = releases[1:]
	if held() != Slots()-1 {
		t.Fatalf("a process that exited still holds its slot: %d held", held())
	}
	yielded, _, release = enter()
	releases = append(releases, release)
	if yielded || held() != Slots() {
		t.Errorf("the slot given up was not taken again: yielded %v, %d held", yielded, held())
	}
}

// TestEnterHelper is a process of TestSlotsThenYield: it enters, says whether it yielded and its
// nice value before, and holds its slot until its standard input closes.
func TestEnterHelper(t *testing.T) {
	path := os.Getenv("HOOKCTL_OVERLOAD_SLOTS")
	if path == "" {
		t.Skip("a helper of TestSlotsThenYield")
	}
	prio, _ := syscall.Getpriority(syscall.PRIO_PROCESS, 0)
	fmt.Println(Enter(path), 20-prio)
	io.Copy(io.Discard, os.Stdin)
}
