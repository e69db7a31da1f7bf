package config

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"syscall"

	"github.com/hookctl/hookctl/agents/clientversion"
)

// ManagedConfigPath is the organisation's policy: one root-owned file that binds every user on
// the machine. Its place is fixed, never taken from the environment or a flag: anything the
// agent or the user could point elsewhere would let them choose a laxer policy.
const ManagedConfigPath = "/etc/hookctl/config.toml"

// managedMerge says, per top-level key the managed file sets, what the user's file may still
// do with it: a key the organisation sets wins, and the user's file can only make it stricter.
// Locked keys take the managed value whole (which endpoints content is sent to, how long a
// command runs, which guard families are off: no direction there is plainly "stricter").
var ManagedMerge = []struct {
	Key   string
	merge func(c, m *Config, userSet bool)
}{
	{"read_only_agents", func(c, m *Config, _ bool) { c.ReadOnlyAgents = union(m.ReadOnlyAgents, c.ReadOnlyAgents) }},
	{"deny_programs", func(c, m *Config, _ bool) { c.DenyPrograms = union(m.DenyPrograms, c.DenyPrograms) }},
	{"default_mode", func(c, m *Config, u bool) { c.DefaultMode = stricterMode(m.DefaultMode, c.DefaultMode, u) }},
	{"direct_fetch", func(c, m *Config, u bool) { c.DirectFetch = m.DirectFetch && (!u || c.DirectFetch) }},
	{"sandbox", func(c, m *Config, _ bool) { c.Sandbox = stricterSandbox(m.Sandbox, c.Sandbox) }},
	{"allow_read", func(c, m *Config, u bool) { c.AllowRead = subset(m.AllowRead, c.AllowRead, u) }},
	{"pass_env", func(c, m *Config, u bool) { c.PassEnv = subset(m.PassEnv, c.PassEnv, u) }},
	{"read_only_runners", func(c, m *Config, u bool) { c.ReadOnlyRunners = subset(m.ReadOnlyRunners, c.ReadOnlyRunners, u) }},
	{"edit_writable", func(c, m *Config, u bool) { c.EditWritable = subset(m.EditWritable, c.EditWritable, u) }},
	{"edit_auto_run_writable", func(c, m *Config, u bool) {
		c.EditAutoRunWritable = subset(m.EditAutoRunWritable, c.EditAutoRunWritable, u)
	}},
	{"edit_unix_sockets", func(c, m *Config, u bool) { c.EditUnixSockets = subset(m.EditUnixSockets, c.EditUnixSockets, u) }},
	{"network", func(c, m *Config, u bool) { c.Network = stricterNetwork(m.Network, c.Network, u) }},
	{"command_timeout", func(c, m *Config, _ bool) { c.CommandTimeout = m.CommandTimeout }},
	{"retriever", func(c, m *Config, _ bool) { c.Retriever = m.Retriever }},
	{"audit", func(c, m *Config, _ bool) { c.Audit = m.Audit }},
	{"run", func(c, m *Config, _ bool) { c.Run = m.Run }},
	{"edit", func(c, m *Config, _ bool) { c.Edit = m.Edit }},
	{"telemetry", func(c, m *Config, _ bool) { c.Telemetry = m.Telemetry }},
	{"min_hookctl_version", func(c, m *Config, u bool) { c.MinHookctlVersion = newer(m.MinHookctlVersion, c.MinHookctlVersion, u) }},
	{"clients", func(c, m *Config, _ bool) { c.Clients = m.Clients }},
}

// newer is the later of the two minimum versions: a user may only ask for a newer hookctl.
func newer(managed, user string, userSet bool) string {
	m, _ := clientversion.Parse(managed)
	if u, err := clientversion.Parse(user); userSet && err == nil && clientversion.Compare(u, m) > 0 {
		return user
	}
	return managed
}

// applyManaged lays the managed file m over the user's config c. The user's file keeps every
// key the organisation left alone; where it tried to loosen a managed key, it is told.
func (c *Config) ApplyManaged(m *Config) {
	for _, e := range ManagedMerge {
		k := e.Key
		if !slices.Contains(m.defined, k) {
			continue
		}
		userSet := slices.Contains(c.defined, k)
		e.merge(c, m, userSet)
		if userSet {
			c.Warnings = append(c.Warnings, fmt.Sprintf("%s sets %s, which your organisation's policy (%s) sets: it holds, and your file may only make it stricter", c.Path, k, m.Path))
		}
		c.ManagedKeys = append(c.ManagedKeys, k)
	}
	slices.Sort(c.ManagedKeys)
	c.Managed, c.ManagedSHA256 = m.Path, m.ManagedSHA256
	for _, check := range m.checks {
		check(c) // again, on what the merge made (runners: the entries that parse)
	}
}

func union(a, b []string) []string {
	out := slices.Clone(a)
	for _, s := range b {
		if !slices.Contains(out, s) {
			out = append(out, s)
		}
	}
	return out
}

// subset is what loosens (paths opened, variables passed, runners admitted) where the managed
// file lists it: the managed list, or the user's entries it also holds where the user set one.
func subset(managed, user []string, userSet bool) []string {
	if !userSet {
		return slices.Clone(managed)
	}
	var out []string
	for _, s := range user {
		if slices.Contains(managed, s) {
			out = append(out, s)
		}
	}
	return out
}

func stricterMode(managed, user string, userSet bool) string {
	if userSet && user != "edit" {
		return user
	}
	return managed
}

func stricterSandbox(managed, user string) string {
	if user == SandboxRequire {
		return user
	}
	return managed
}

func stricterNetwork(m, u NetworkConfig, userSet bool) NetworkConfig {
	out := m
	if userSet {
		if u.Edit != NetworkFull {
			out.Edit = u.Edit
		}
		out.Allow = subset(m.Allow, u.Allow, true)
		out.TLSUnnamed = subset(m.TLSUnnamed, u.TLSUnnamed, true)
	}
	return out
}

// loadManaged reads the managed file at path, or returns nil where there is none. A file that
// anyone but root could have written is refused, not skipped: a policy that can be swapped is
// no policy, and falling back to the user's alone would loosen what the organisation set.
func loadManaged(path string, checks ...Check) (*Config, error) {
	text, err := readManaged(path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	c, err := ParseConfig(path, text, checks...)
	if err == nil {
		sum := sha256.Sum256([]byte(text))
		c.ManagedSHA256 = hex.EncodeToString(sum[:])
	}
	return c, err
}

// readManaged opens the file once, without following a link or blocking, and judges what it
// opened: the directories above it and the file itself must be root's and writable by no one
// else.
func readManaged(path string) (string, error) {
	for d := filepath.Dir(path); ; d = filepath.Dir(d) {
		fi, err := os.Lstat(d)
		if err != nil {
			return "", err
		}
		if err := rootOnly(d, fi); err != nil {
			return "", err
		}
		if d == filepath.Dir(d) {
			break
		}
	}
	f, err := os.OpenFile(path, os.O_RDONLY|syscall.O_NOFOLLOW|syscall.O_NONBLOCK, 0)
	if errors.Is(err, syscall.ELOOP) {
		return "", fmt.Errorf("the organisation's policy %s is a symbolic link; it must be a file of root's: every tool call is refused until it is", path)
	}
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return "", err
		}
		return "", fmt.Errorf("failed to read the organisation's policy: %w", err)
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return "", err
	}
	if !fi.Mode().IsRegular() {
		return "", fmt.Errorf("the organisation's policy %s is not a regular file; every tool call is refused until it is", path)
	}
	if err := rootOnly(path, fi); err != nil {
		return "", err
	}
	b, err := io.ReadAll(io.LimitReader(f, MaxConfigSize+1))
	if err != nil {
		return "", fmt.Errorf("failed to read the organisation's policy: %w", err)
	}
	if len(b) > MaxConfigSize {
		return "", fmt.Errorf("the organisation's policy %s is larger than %d bytes", path, MaxConfigSize)
	}
	return string(b), nil
}

// rootOnly says why path, as fi describes it, could have been written by someone other than
// root, or nil.
func rootOnly(path string, fi fs.FileInfo) error {
	st, ok := fi.Sys().(*syscall.Stat_t)
	switch {
	case !ok:
		return fmt.Errorf("cannot tell who owns %s", path)
	case st.Uid != 0 && !(st.Uid == overflowUID() && !rootMapped()):
		return fmt.Errorf("the organisation's policy is refused: %s is owned by uid %d, not root, so its owner could loosen it; every tool call is refused until root owns it", path, st.Uid)
	case fi.Mode().Perm()&0o022 != 0:
		return fmt.Errorf("the organisation's policy is refused: %s is writable by %s (mode %v), who could loosen it; every tool call is refused until only root can write it",
			path, strings.TrimSuffix(writers(fi.Mode()), " and "), fi.Mode().Perm())
	}
	return nil
}

// In a user namespace that does not map root (a rootless container, bubblewrap, hookctl run as
// an unprivileged user), root's files show as owned by the kernel's overflow uid. Such a file
// is accepted as root's: its real owner is outside the namespace, where nothing in it can
// chown; one that a user inside could have written is still refused by its mode. (Whoever makes
// the namespace can mount any file there anyway: docs/fleet.md.)
func overflowUID() uint32 {
	b, err := os.ReadFile("/proc/sys/kernel/overflowuid")
	if err != nil {
		return 65534
	}
	n, err := strconv.ParseUint(strings.TrimSpace(string(b)), 10, 32)
	if err != nil {
		return 65534
	}
	return uint32(n)
}

// rootMapped says whether this process's user namespace maps root's uid outside it (so that a
// file owned by the overflow uid is not root's); true where it cannot tell.
func rootMapped() bool {
	b, err := os.ReadFile("/proc/self/uid_map")
	if err != nil {
		return true
	}
	for _, line := range strings.Split(strings.TrimSpace(string(b)), "\n") {
		f := strings.Fields(line)
		if len(f) != 3 {
			return true
		}
		outside, err1 := strconv.ParseUint(f[1], 10, 32)
		count, err2 := strconv.ParseUint(f[2], 10, 33)
		if err1 != nil || err2 != nil || outside == 0 && count > 0 {
			return true
		}
	}
	return false
}

func writers(m fs.FileMode) string {
	s := ""
	if m&0o020 != 0 {
		s += "its group and "
	}
	if m&0o002 != 0 {
		s += "everyone and "
	}
	return s
}
