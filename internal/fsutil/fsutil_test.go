package fsutil

import (
	"errors"
	"os"
	"path/filepath"
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
