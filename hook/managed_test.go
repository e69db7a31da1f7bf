package hook

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

// TestManagedKeysHold: for every key the organisation's file can set, a user's file that tries
// to loosen it does not. Control: the user's file alone gives the looser value, so each row
// shows a loosening the managed file stopped. A row where the user tightens shows that is kept.
func TestManagedKeysHold(t *testing.T) {
	rows := []struct {
		key, managed, user string
		get                func(*Config) string
		want               string
	}{
		{"read_only_agents", `read_only_agents = ["auditor"]`, `read_only_agents = ["mine"]`, func(c *Config) string { return fmt.Sprint(c.ReadOnlyAgents) }, "[auditor mine]"},
		{"deny_programs", `deny_programs = ["curl"]`, `deny_programs = ["wc"]`, func(c *Config) string { return fmt.Sprint(c.DenyPrograms) }, "[curl wc]"},
		{"default_mode", `default_mode = "read-only"`, `default_mode = "edit"`, func(c *Config) string { return c.SessionDefault().String() }, "read-only"},
		{"direct_fetch", `direct_fetch = false`, `direct_fetch = true`, func(c *Config) string { return fmt.Sprint(c.DirectFetch) }, "false"},
		{"sandbox", `sandbox = "require"`, `sandbox = "auto"`, func(c *Config) string { return c.Sandbox }, "require"},
		{"allow_read", `allow_read = ["~/.aws/config"]`, `allow_read = ["~/.aws/config", "~/.ssh"]`, func(c *Config) string { return fmt.Sprint(c.AllowRead) }, "[~/.aws/config]"},
		{"pass_env", `pass_env = []`, `pass_env = ["AWS_SECRET_ACCESS_KEY"]`, func(c *Config) string { return fmt.Sprint(c.PassEnv) }, "[]"},
		{"read_only_runners", `read_only_runners = ["go test ./..."]`, `read_only_runners = ["go test ./...", "make"]`, func(c *Config) string { return fmt.Sprint(c.ReadOnlyRunners, len(c.runners)) }, "[go test ./...] 1"},
		{"edit_writable", `edit_writable = []`, `edit_writable = ["/srv"]`, func(c *Config) string { return fmt.Sprint(c.EditWritable) }, "[]"},
		{"edit_auto_run_writable", `edit_auto_run_writable = []`, `edit_auto_run_writable = [".husky"]`, func(c *Config) string { return fmt.Sprint(c.EditAutoRunWritable) }, "[]"},
		{"edit_unix_sockets", `edit_unix_sockets = []`, `edit_unix_sockets = ["/run/docker.sock"]`, func(c *Config) string { return fmt.Sprint(c.EditUnixSockets) }, "[]"},
		{"network", "[network]\nedit = \"proxy\"\nallow = [\"example.com\"]\n", "[network]\nedit = \"full\"\nallow = [\"example.com\", \"evil.example\"]\n",
			func(c *Config) string { return fmt.Sprintf("%s %v", c.Network.Edit, c.Network.Allow) }, "proxy [example.com]"},
		{"command_timeout", `command_timeout = "1m"`, `command_timeout = "10m"`, func(c *Config) string { return c.CommandTimeout }, "1m"},
		{"retriever", "[retriever]\nmax_bytes = 1000\n", "[retriever]\nmax_bytes = 9000000\n", func(c *Config) string { return fmt.Sprint(c.Retriever.MaxBytes) }, "1000"},
		{"audit", "[audit]\nkeep_raw = true\n", "[audit]\nkeep_raw = false\n", func(c *Config) string { return fmt.Sprint(c.Audit.KeepRaw) }, "true"},
		{"run", "[run]\nmodel_endpoints = []\n", "[run]\nmodel_endpoints = [\"http://127.0.0.1:9\"]\n", func(c *Config) string { return fmt.Sprint(c.Run.ModelEndpoints) }, "[]"},
		{"edit", "[edit]\nallow = []\n", "[edit]\nallow = [\"databases\"]\n", func(c *Config) string { return fmt.Sprint(c.Edit.Allow) }, "[]"},
		// The destination is locked whole: a user's own collector, headers or CA would send the
		// organisation's records elsewhere, or trust another server as the collector.
		{"telemetry", "[telemetry]\notlp_endpoint = \"https://collector.corp:4318\"\notlp_certificate = \"/etc/ssl/corp.pem\"\n",
			"[telemetry]\notlp_endpoint = \"http://127.0.0.1:4318\"\notlp_headers = { tenant = \"me\" }\n",
			func(c *Config) string {
				return fmt.Sprint(c.Telemetry.Endpoint, c.Telemetry.Headers, c.Telemetry.Certificate)
			}, "https://collector.corp:4318map[]/etc/ssl/corp.pem"},
		// A user may ask for a newer hookctl (newer), never an older one; the clients are locked.
		{"min_hookctl_version", `min_hookctl_version = "1.5.0"`, `min_hookctl_version = "1.0.0"`, func(c *Config) string { return c.MinHookctlVersion }, "1.5.0"},
		{"clients", "[clients.claude]\nmin_version = \"2.1.77\"\n", "[clients.claude]\nmin_version = \"1.0.0\"\n[clients.codex]\nmin_version = \"0.1.0\"\n",
			func(c *Config) string { return fmt.Sprint(c.Clients) }, "map[claude:{2.1.77 map[]}]"},
	}
	covered := map[string]bool{}
	for _, r := range rows {
		covered[r.key] = true
		t.Run(r.key, func(t *testing.T) {
			user, err := ParseConfig("/home/u/.config/hookctl/config.toml", r.user)
			if err != nil {
				t.Fatal(err)
			}
			if got := r.get(user); got == r.want {
				t.Fatalf("control: the user's file alone gives %s already; the row proves nothing", got)
			}
			m, err := ParseConfig(ManagedConfigPath, r.managed)
			if err != nil {
				t.Fatal(err)
			}
			user.applyManaged(m)
			if got := r.get(user); got != r.want {
				t.Errorf("with the managed file: %s, want %s", got, r.want)
			}
			if len(user.ManagedKeys) != 1 || user.ManagedKeys[0] != r.key || user.Managed != ManagedConfigPath {
				t.Errorf("managed keys %v from %q", user.ManagedKeys, user.Managed)
			}
			if len(user.Warnings) != 1 || !strings.Contains(user.Warnings[0], r.key) || !strings.Contains(user.Warnings[0], ManagedConfigPath) {
				t.Errorf("the user is not told: %q", user.Warnings)
			}
		})
	}
	for _, e := range managedMerge {
		if !covered[e.key] {
			t.Errorf("managed key %s has no row", e.key)
		}
	}
}

// TestManagedLetsTheUserTighten: where the organisation chose the looser value, the user's own
// file can still be stricter; where the user's file says nothing, the managed value applies.
func TestManagedLetsTheUserTighten(t *testing.T) {
	m, _ := ParseConfig(ManagedConfigPath, "default_mode = \"edit\"\ndirect_fetch = true\nallow_read = [\"~/.aws/config\"]\n[network]\nedit = \"full\"\n")
	u, _ := ParseConfig("user.toml", "default_mode = \"read-only\"\ndirect_fetch = false\nallow_read = []\n[network]\nedit = \"proxy\"\n")
	u.applyManaged(m)
	if u.SessionDefault() != ModeReadOnly || u.DirectFetch || len(u.AllowRead) != 0 || u.FullNetwork() {
		t.Errorf("the user's stricter choices were lost: %+v", u)
	}
	empty := &Config{}
	empty.applyManaged(m)
	if empty.SessionDefault() != ModeEdit || !empty.DirectFetch || len(empty.AllowRead) != 1 || !empty.FullNetwork() || len(empty.Warnings) != 0 {
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
