//go:build linux

package faultbench

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

// MountTmpfs mounts a tmpfs of size bytes at dir, owned by cred's user (root when nil), and
// returns its unmount. It needs root.
func MountTmpfs(dir string, size int64, cred *syscall.Credential) (func(), error) {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, err
	}
	opts := fmt.Sprintf("size=%d,mode=0755", size)
	if cred != nil {
		opts += fmt.Sprintf(",uid=%d,gid=%d", cred.Uid, cred.Gid)
	}
	if err := syscall.Mount("tmpfs", dir, "tmpfs", syscall.MS_NOSUID|syscall.MS_NODEV, opts); err != nil {
		return nil, fmt.Errorf("mount a tmpfs at %s: %w", dir, err)
	}
	return func() { syscall.Unmount(dir, syscall.MNT_DETACH) }, nil
}

// TmpfsFor mounts a tmpfs of size bytes on a temporary directory of t's, unmounted when t ends,
// and returns the directory. It needs root: for another user t is skipped, or fails where every
// test must run (HOOKCTL_REQUIRE_ALL=1).
func TmpfsFor(t testing.TB, size int64) string {
	t.Helper()
	if os.Geteuid() != 0 {
		if os.Getenv("HOOKCTL_REQUIRE_ALL") == "1" {
			t.Fatal("mounting a tmpfs needs root (HOOKCTL_REQUIRE_ALL=1)")
		}
		t.Skip("mounting a tmpfs needs root")
	}
	dir := t.TempDir()
	unmount, err := MountTmpfs(dir, size, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(unmount)
	return dir
}

// Fill writes a file in dir until the filesystem takes not one more byte, and returns its
// path: remove it to free the space.
func Fill(dir string) (string, error) {
	path := filepath.Join(dir, "filler")
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_APPEND, 0o600)
	if err != nil {
		return "", err
	}
	defer f.Close()
	for _, size := range []int{1 << 20, 64 << 10, 4 << 10, 512, 64, 1} {
		buf := make([]byte, size)
		for {
			n, err := syscall.Write(int(f.Fd()), buf)
			if err != nil || n < size {
				break
			}
		}
	}
	if _, err := syscall.Write(int(f.Fd()), []byte{0}); !errors.Is(err, syscall.ENOSPC) {
		return path, fmt.Errorf("the filesystem is not full: one more byte gave %v", err)
	}
	return path, nil
}

// FullDiskFigures counts what failed with hookctl's home on a full filesystem.
type FullDiskFigures struct {
	Rounds int
	// ToggleFailed: `readonly on` exited non-zero on the full disk; NotReadOnly: the session was
	// not read-only after it; WritePassed: a Write was not refused after it.
	ToggleFailed, NotReadOnly, WritePassed int
	// Log is the decision log after every round, read raw.
	Log LogFigures
	// Failures names what went wrong, for the reader.
	Failures []string
}

func (f FullDiskFigures) String() string {
	return fmt.Sprintf("%d full-disk rounds: toggle to read-only failed %d, session not read-only after it %d, Write not refused after it %d; decision log: %s",
		f.Rounds, f.ToggleFailed, f.NotReadOnly, f.WritePassed, f.Log)
}

// FullDisk puts hookctl's home on a tmpfs of 2 MiB, records a session in edit mode, and then,
// rounds times: fills the tmpfs to the last byte, makes hook calls (whose log lines find no
// room), toggles the session to read-only, checks that a Write is refused, frees the space,
// makes more calls, and takes the session back to edit mode. dir must be reachable by cred's
// user.
func FullDisk(bin, dir string, cred *syscall.Credential, rounds int) (FullDiskFigures, error) {
	var fig FullDiskFigures
	mnt := filepath.Join(dir, "disk")
	unmount, err := MountTmpfs(mnt, 2<<20, cred)
	if err != nil {
		return fig, err
	}
	defer unmount()
	w, err := NewWorld(bin, mnt, cred)
	if err != nil {
		return fig, err
	}
	project := filepath.Join(dir, "project")
	if err := os.MkdirAll(project, 0o755); err != nil {
		return fig, err
	}
	const session = "e0f1a2b3-full-disk"
	if err := w.Record(session, project, "edit"); err != nil {
		return fig, err
	}
	fail := func(format string, args ...any) { fig.Failures = append(fig.Failures, fmt.Sprintf(format, args...)) }
	for round := range rounds {
		fig.Rounds++
		if r := w.Readonly("off", session); r.Code != 0 {
			return fig, fmt.Errorf("round %d: readonly off with room: exit %d: %s", round, r.Code, r.Err)
		}
		if v := Verdict(w.Hook(Write(session, project, project+"/f")).Out); v == "deny" {
			return fig, fmt.Errorf("round %d: a Write in edit mode was refused", round)
		}
		filler, err := Fill(mnt)
		if err != nil {
			return fig, err
		}
		// Calls whose log lines find no room, of lengths that cross page boundaries.
		for i := range 12 {
			w.Hook(Bash(session, project, "echo "+strings.Repeat(fmt.Sprint(i%10), 150+round*37+i*311)))
		}
		r := w.Readonly("on", session)
		if r.Code != 0 {
			fig.ToggleFailed++
			fail("round %d: readonly on exited %d: %s", round, r.Code, strings.TrimSpace(r.Err))
		}
		if m := w.Mode(session); m != "read-only" {
			fig.NotReadOnly++
			fail("round %d: after readonly on the session is %s", round, m)
		}
		if v := Verdict(w.Hook(Write(session, project, project+"/f")).Out); v != "deny" {
			fig.WritePassed++
			fail("round %d: after readonly on a Write got %s", round, v)
		}
		os.Remove(filler)
		for i := range 3 {
			w.Hook(Bash(session, project, fmt.Sprintf("echo after-round-%d-%d", round, i)))
		}
	}
	fig.Log, err = ScanLog(DecisionLog(w.Home))
	return fig, err
}
