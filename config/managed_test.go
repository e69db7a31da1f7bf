package config

import (
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/hookctl/hookctl/hook"
)

// TestManagedLetsTheUserTighten: where the organisation chose the looser value, the user's own
// file can still be stricter; where the user's file says nothing, the managed value applies.
func TestManagedLetsTheUserTighten(t *testing.T) {
	m, _ := ParseConfig(ManagedConfigPath, "default_mode = \"edit\"\ndirect_fetch = true\nallow_read = [\"~/.aws/config\"]\n[network]\nedit = \"full\"\n")
	u, _ := ParseConfig("user.toml", "default_mode = \"read-only\"\ndirect_fetch = false\nallow_read = []\n[network]\nedit = \"proxy\"\n")
	u.ApplyManaged(m)
	if u.SessionDefault() != hook.ModeReadOnly || u.DirectFetch || len(u.AllowRead) != 0 || u.FullNetwork() {
		t.Errorf("the user's stricter choices were lost: %+v", u)
	}
	empty := &Config{}
	empty.ApplyManaged(m)
	if empty.SessionDefault() != hook.ModeEdit || !empty.DirectFetch || len(empty.AllowRead) != 1 || !empty.FullNetwork() || len(empty.Warnings) != 0 {
		t.Errorf("without a user file the managed values apply: %+v", empty)
	}
}

// managedDir makes a directory root alone can write, outside the temporary directories (which
// anyone may write, so a managed file there is refused, rightly).
func managedDir(t *testing.T) string {
	t.Helper()
	if os.Geteuid() != 0 {
		t.Skip("the managed file must be root's: the test runs as root")
	}
	d, err := os.MkdirTemp("/var/lib", "hookctl-managed-test-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(d) })
	os.Chmod(d, 0o755)
	return d
}

// TestManagedFileMustBeRoots: a managed file anyone but root could have written is refused with
// why, never skipped (that would loosen what the organisation set); so is one that is not a
// file. Control: the same file, root's and 0644, loads.
func TestManagedFileMustBeRoots(t *testing.T) {
	d := managedDir(t)
	path := filepath.Join(d, "config.toml")
	write := func() { os.Remove(path); os.WriteFile(path, []byte("default_mode = \"read-only\"\n"), 0o644) }
	write()
	if c, err := loadManaged(path); err != nil || c == nil || c.DefaultMode != "read-only" {
		t.Fatalf("control: a root-owned 0644 file: %v %v", c, err)
	}
	if c, err := loadManaged(filepath.Join(d, "absent.toml")); c != nil || err != nil {
		t.Errorf("no managed file: %v %v", c, err)
	}
	bad := []struct {
		name, want string
		make       func()
	}{
		{"group-writable", "writable by its group", func() { write(); os.Chmod(path, 0o664) }},
		{"world-writable", "writable by everyone", func() { write(); os.Chmod(path, 0o646) }},
		{"a user's", "owned by uid 65534", func() { write(); os.Chown(path, 65534, 65534) }},
		{"a link", "symbolic link", func() { os.Remove(path); os.Symlink("/etc/hostname", path) }},
		{"a FIFO", "not a regular file", func() { os.Remove(path); syscall.Mkfifo(path, 0o644) }},
		{"a directory open to others", "everyone", func() { write(); os.Chmod(d, 0o777) }},
		{"bad TOML", "config.toml:2:", func() {
			os.Chmod(d, 0o755)
			os.Remove(path)
			os.WriteFile(path, []byte("sandbox = \"require\"\ndefault_mode = \n"), 0o644)
		}},
	}
	for _, b := range bad {
		b.make()
		c, err := loadManaged(path)
		if err == nil || !strings.Contains(err.Error(), b.want) {
			t.Errorf("%s: %v %v, want an error saying %q", b.name, c, err, b.want)
		}
	}
}
