package fsutil

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"syscall"
	"testing"
	"time"
)

func TestWriteAtomic(t *testing.T) {
	p := filepath.Join(t.TempDir(), "f")
	if err := WriteAtomic(p, []byte("one"), 0o640); err != nil {
		t.Fatal(err)
	}
	if err := WriteAtomic(p, []byte("two"), 0o600); err != nil {
		t.Fatal(err)
	}
	b, _ := os.ReadFile(p)
	fi, _ := os.Stat(p)
	if string(b) != "two" || fi.Mode().Perm() != 0o600 {
		t.Errorf("%q %v", b, fi.Mode())
	}
	if left, _ := filepath.Glob(filepath.Join(filepath.Dir(p), ".*.tmp")); len(left) != 0 {
		t.Errorf("temporary files left: %v", left)
	}
	if err := WriteAtomic(filepath.Join(t.TempDir(), "missing", "f"), nil, 0o600); err == nil {
		t.Error("no error for a missing directory")
	}
}

func TestLockTimesOutAndHandsOver(t *testing.T) {
	p := filepath.Join(t.TempDir(), "l")
	unlock, err := Lock(p, time.Second)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := Lock(p, 50*time.Millisecond); !errors.Is(err, ErrLockTimeout) {
		t.Errorf("a held lock: %v", err)
	}
	go func() { time.Sleep(50 * time.Millisecond); unlock() }()
	unlock2, err := Lock(p, 2*time.Second)
	if err != nil {
		t.Fatalf("after release: %v", err)
	}
	unlock2()
	unlock3, err := Lock(p, 0)
	if err != nil {
		t.Fatal(err)
	}
	unlock3()
}

// TestReadFileBounds: ReadFile reads a file whole at any size up to its cap and refuses one
// over it; it refuses what is not a regular file without blocking (a FIFO with no writer), a
// link when told not to follow one, and reads a file whose size the kernel does not tell (/proc).
func TestReadFileBounds(t *testing.T) {
	dir := t.TempDir()
	const max = 5000
	for _, n := range []int{0, 1, 511, 512, 513, 4095, 4096, 4097, max} {
		p := filepath.Join(dir, "f")
		want := make([]byte, n)
		for i := range want {
			want[i] = byte('a' + i%26)
		}
		os.WriteFile(p, want, 0o600)
		got, mod, err := ReadFileModTime(p, max, true)
		fi, _ := os.Stat(p)
		if err != nil || string(got) != string(want) || !mod.Equal(fi.ModTime()) {
			t.Fatalf("%d bytes: read %d, %v, mod %v (stat %v)", n, len(got), err, mod, fi.ModTime())
		}
	}
	os.WriteFile(filepath.Join(dir, "big"), make([]byte, max+1), 0o600)
	if _, err := ReadFile(filepath.Join(dir, "big"), max, true); !errors.Is(err, ErrTooLarge) {
		t.Errorf("a file over the cap: %v", err)
	}
	if _, err := ReadFile(filepath.Join(dir, "missing"), max, true); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("a missing file: %v", err)
	}
	os.Symlink(filepath.Join(dir, "f"), filepath.Join(dir, "link"))
	if _, err := ReadFile(filepath.Join(dir, "link"), max, true); !errors.Is(err, ErrNotRegular) {
		t.Errorf("a link, not followed: %v", err)
	}
	if b, err := ReadFile(filepath.Join(dir, "link"), max, false); err != nil || len(b) != max {
		t.Errorf("a link, followed: %d bytes, %v", len(b), err)
	}
	if _, err := ReadFile(dir, max, true); !errors.Is(err, ErrNotRegular) {
		t.Errorf("a directory: %v", err)
	}
	fifo := filepath.Join(dir, "fifo")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { _, err := ReadFile(fifo, max, true); done <- err }()
	select {
	case err := <-done:
		if !errors.Is(err, ErrNotRegular) {
			t.Errorf("a FIFO: %v", err)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("reading a FIFO blocked")
	}
	if runtime.GOOS != "linux" {
		return
	}
	want, _ := os.ReadFile("/proc/self/mountinfo")
	if got, err := ReadFile("/proc/self/mountinfo", 1<<20, true); err != nil || len(got) < 100 || len(want) < 100 {
		t.Errorf("/proc/self/mountinfo: %d bytes (%d by os.ReadFile), %v", len(got), len(want), err)
	}
}

// TestIdentity: a file's identity changes with a write that keeps its size and its times (as
// cp -p would leave them), and with another file renamed over it; it stays while nothing
// happens, and is "" for no file.
func TestIdentity(t *testing.T) {
	path := filepath.Join(t.TempDir(), "f")
	if err := os.WriteFile(path, []byte("one"), 0o755); err != nil {
		t.Fatal(err)
	}
	first := Identity(path)
	if first == "" || Identity(path) != first {
		t.Fatalf("identity %q, then %q", first, Identity(path))
	}
	fi, _ := os.Stat(path)
	time.Sleep(10 * time.Millisecond) // past the file system's clock granularity
	if err := os.WriteFile(path, []byte("two"), 0o755); err != nil {
		t.Fatal(err)
	}
	os.Chtimes(path, fi.ModTime(), fi.ModTime())
	second := Identity(path)
	if second == first {
		t.Errorf("a write of the same size, with the old times put back, kept the identity %q", first)
	}
	other := path + ".new"
	os.WriteFile(other, []byte("two"), 0o755)
	os.Chtimes(other, fi.ModTime(), fi.ModTime())
	if err := os.Rename(other, path); err != nil {
		t.Fatal(err)
	}
	if Identity(path) == second {
		t.Errorf("a file renamed over it kept the identity %q", second)
	}
	if id := Identity(path + ".missing"); id != "" {
		t.Errorf("no file has the identity %q", id)
	}
}
