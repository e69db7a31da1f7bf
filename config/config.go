// Package config is hookctl's configuration: config.toml (global), .hookctl.toml (a project's,
// which may only tighten it) and the organisation's managed file laid over both (managed.go),
// with everything TOML can say checked as the file is read. The checks that need the judges
// (the edit guard's families, read-only runners as the lexer reads them) are Checks that gate
// supplies: this package links no judge.
package config

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"time"

	"github.com/BurntSushi/toml"

	"github.com/hookctl/hookctl/agents/clientversion"
	"github.com/hookctl/hookctl/config/home"
	"github.com/hookctl/hookctl/hook"
	"github.com/hookctl/hookctl/internal/fsutil"
	"github.com/hookctl/hookctl/retriever/settings"
	"github.com/hookctl/hookctl/sandbox/egress"
)

// MaxConfigSize caps the config file. A config larger than this is refused, not truncated.
const MaxConfigSize = 256 << 10

// DefaultReadOnlyAgents are the subagent types that are read-only in every mode. Config can add
// to this list, never remove from it.
var DefaultReadOnlyAgents = []string{"Explore", "Plan"}

// Config is the configuration in force for one call: the user's global file, tightened by the
// project's .hookctl.toml. It can only make the read-only gate stricter: it adds read-only agent
// types and removes programs from the allowlist. The security settings (default_mode) are read
// from the user's global file only; a project file that sets one is ignored for it, with a
// warning, since a repository's author is not the user.
type Config struct {
	// ReadOnlyAgents are agent types (matched exactly on the client's agent_type) that are
	// read-only in every mode, in addition to DefaultReadOnlyAgents.
	ReadOnlyAgents []string `toml:"read_only_agents"`
	// UserHome is the user's home directory ($HOME when the config is loaded), which a `~` or
	// `$HOME` in a read-only command stands for: the judge judges, and the rewrite runs, the
	// literal path. Empty (not known): such a command is refused. Not read from any file.
	UserHome string `toml:"-"`
	// DenyPrograms are removed from the read-only allowlist.
	DenyPrograms []string `toml:"deny_programs"`
	// DefaultMode is the mode of a session hookctl has not seen: "read-only" (the default) or
	// "edit". Global only.
	DefaultMode string `toml:"default_mode"`
	// DirectFetch lets the client's web tools run directly, unmediated by the retriever: an
	// escape hatch, audited with a warning on every call and shown in the status line. Global
	// only.
	DirectFetch bool `toml:"direct_fetch"`
	// Retriever configures quarantined retrieval: distiller, search provider, GitHub hosts.
	// Global only: a project cannot choose where content is sent.
	Retriever settings.Config `toml:"retriever"`
	// Audit configures the retrieval audit log. Global only.
	Audit AuditConfig `toml:"audit"`
	// Sandbox is "auto" (the default: admitted commands run in the OS sandbox where the machine
	// has one, on the policy alone where not, and the status line says which) or "require"
	// (every shell command the sandbox cannot hold is refused). A project file may set
	// "require", never relax it.
	Sandbox string `toml:"sandbox"`
	// CommandTimeout bounds how long an admitted read-only command runs ("2m" by default, at
	// most "10m"): the launcher stops it then and says so (issue 23). A longer timeout the
	// client's own call asks for wins. Global only.
	CommandTimeout string `toml:"command_timeout"`
	// PassEnv are variables, besides hookctl's allowlist (secrets.PassedEnv, ToolchainEnv),
	// that read-only commands get from the client's environment: a toolchain's own that a
	// read-only runner needs. The user names them knowingly; any value is passed. Global only.
	PassEnv []string `toml:"pass_env"`
	// ReadOnlyRunners are commands read-only mode admits although they run the repository's
	// code (test runners: "go test ./...", "cargo test", "npm test"), matched on the whole
	// argv, run only in the sandbox. Global only. See runners.go.
	ReadOnlyRunners []string `toml:"read_only_runners"`
	// EditWritable are directories edit mode's sandbox lets commands write, besides the
	// project, the temporary directories and the usual tool caches. Global only.
	EditWritable []string `toml:"edit_writable"`
	// EditAutoRunWritable are the files that run code later outside the sandbox (git's hooks
	// and config, .envrc, .vscode, …: cmd/hookctl's autoRun) which edit mode's sandbox lets
	// commands write all the same: a path relative to the project (".husky", ".vscode"), or
	// an absolute one. Global only.
	EditAutoRunWritable []string `toml:"edit_auto_run_writable"`
	// EditUnixSockets are the unix sockets of services outside the sandbox that edit mode's
	// commands may connect to (the ssh agent's is always allowed; a gpg agent's, say, is not
	// unless listed): absolute paths. Global only.
	EditUnixSockets []string `toml:"edit_unix_sockets"`
	// Network is edit mode's network: through hookctl's egress proxy to allowed hosts (the
	// default), or the user's whole network. Global only: a project cannot open a host.
	Network NetworkConfig `toml:"network"`
	// AllowRead are paths the sensitive-file rule lets agents read (secrets.go): an absolute
	// path or one under ~/ allows it and everything beneath; a name without a `/` (".env.test")
	// allows project secret files of that base name. Global only: a repository's author must not
	// be able to open a credential store to the agent.
	AllowRead []string `toml:"allow_read"`
	// Run configures hookctl run. Global only: the repository a run reads must not choose
	// where its content goes.
	Run RunConfig `toml:"run"`
	// Edit configures edit mode's accident guard (docs/edit-guard.md). Global only: a
	// repository's author must not be able to loosen it.
	Edit EditConfig `toml:"edit"`
	// Telemetry is where hookctl-export sends every record (telemetry.go). Global only.
	Telemetry TelemetryConfig `toml:"telemetry"`
	// MinHookctlVersion is the oldest hookctl that may answer a tool call, and Clients the
	// versions of each client allowed (agents/clientversion). Global only; meant for the
	// organisation's policy.
	MinHookctlVersion string                        `toml:"min_hookctl_version"`
	Clients           map[string]clientversion.Rule `toml:"clients"`
	// TempDir is $TMPDIR when the config is loaded (the hook inherits the client's environment,
	// as the agent's shell does), absolute and clean, or "": the guard resolves $TMPDIR in a
	// command to it. Not read from any file.
	TempDir string `toml:"-"`

	// Path is the global file the config was read from, or "" for the defaults.
	Path string `toml:"-"`
	// Project is the project file merged in, or "".
	Project string `toml:"-"`
	// Managed is the organisation's policy laid over the user's file (ManagedConfigPath), or
	// "", and ManagedKeys the top-level keys it sets: theirs hold (managed.go).
	Managed     string   `toml:"-"`
	ManagedKeys []string `toml:"-"`
	// ManagedSHA256 is the hex SHA-256 of the managed file as read, which each session start's
	// record carries so that the organisation sees which policy a machine runs.
	ManagedSHA256 string `toml:"-"`
	// Warnings are problems that did not stop the config from loading, for the user.
	Warnings []string `toml:"-"`

	// Runners are ReadOnlyRunners as the judge's check parsed them (Check).
	Runners []Runner `toml:"-"`

	defined []string // the top-level keys the file set
	checks  []Check  // what the file was checked with, for the merge of the managed file
}

// Runner is one read_only_runners entry, parsed: its words, and whether it ended in " *",
// admitting further arguments.
type Runner struct {
	Words []string
	More  bool
}

// A Check is a check of the config that needs more than TOML can say: the judges' own (the edit
// guard's families, the runners as the lexer reads them), which gate supplies, so that this
// package links no judge. It runs on each file as it is read, and may fill in what it parsed;
// key names the line of its error.
type Check func(c *Config) (key toml.Key, err error)

// EditConfig is the [edit] section.
type EditConfig struct {
	// Sudo are commands the guard lets run under sudo, each an argv prefix written as words
	// ("apt-get install", "systemctl restart nginx"); the command is still judged.
	Sudo []string `toml:"sudo"`
	// Allow are the guard's rule families to turn off (editguard.Families: "databases",
	// "containers", …).
	Allow []string `toml:"allow"`
}

// SudoPrefixes returns Edit.Sudo split into words.
func (c *Config) SudoPrefixes() [][]string {
	if c == nil {
		return nil
	}
	var out [][]string
	for _, s := range c.Edit.Sudo {
		out = append(out, strings.Fields(s))
	}
	return out
}

// AuditConfig is the [audit] section.
type AuditConfig struct {
	// KeepRaw stores the raw content of each retrieval in its transcript.
	KeepRaw bool `toml:"keep_raw"`
	// MaxBytes rotates the audit log past this size; 0 means 10 MiB.
	MaxBytes int64 `toml:"max_bytes"`
}

// RunConfig is the [run] section.
type RunConfig struct {
	// ModelEndpoints are the model base URLs `hookctl run --network model-only` may reach
	// besides each backend's public default (https://api.anthropic.com): a gateway, a proxy of
	// the organisation's, a local model. The user's own entries may resolve to private and
	// loopback addresses, and may be http://.
	ModelEndpoints []string `toml:"model_endpoints"`
}

// NetworkConfig is the [network] section.
type NetworkConfig struct {
	// Edit is NetworkProxy (the default) or NetworkFull.
	Edit string `toml:"edit"`
	// Allow are hosts edit mode's commands may reach besides the package registries and the
	// project's git remotes: "host", "host:port", "*.domain", an IP address. The user's own
	// entries may resolve to private and loopback addresses.
	Allow []string `toml:"allow"`
	// TLSUnnamed are hosts of Allow (or defaults, or remotes) whose TLS connections may name
	// no server, or an encrypted one (ECH). Every other tunnel's TLS must name the host it was
	// allowed for, so that a CDN serving another host on the same address is not reached.
	TLSUnnamed []string `toml:"tls_unnamed"`
}

// Edit mode's network settings.
const (
	NetworkProxy = "proxy" // only allowed hosts, through hookctl's egress proxy
	NetworkFull  = "full"  // the user's network, unfiltered: shown in the status line
)

// FullNetwork says whether edit mode's commands get the user's whole network.
func (c *Config) FullNetwork() bool { return c != nil && c.Network.Edit == NetworkFull }

// globalOnly are the keys only the user's own config may set.
var globalOnly = []string{"default_mode", "direct_fetch", "retriever", "audit", "command_timeout", "pass_env", "read_only_runners", "edit_writable",
	"edit_auto_run_writable", "edit_unix_sockets", "network", "allow_read", "run", "edit", "telemetry",
	"min_hookctl_version", "clients"}

// ProjectConfigName is the project's own config file, found in the session's directory or
// above it.
const ProjectConfigName = ".hookctl.toml"

// SessionDefault is the mode a session starts in.
func (c *Config) SessionDefault() hook.Mode {
	if c.DefaultMode == "edit" {
		return hook.ModeEdit
	}
	return hook.ModeReadOnly
}

// Home returns hookctl's directory for config and state (home.Dir): $HOOKCTL_HOME, else
// $XDG_CONFIG_HOME/hookctl, else ~/.config/hookctl.
func Home() (string, error) { return home.Dir() }

// LoadConfig reads the global file $home/config.toml, with the organisation's policy
// (ManagedConfigPath) laid over it. A missing file means the defaults. Any other problem —
// unreadable, too large, bad TOML, an unknown key, a wrong type, a managed file someone other
// than root could write — is an error naming the file (and the line, where the TOML decoder
// knows it): a broken config must never silently fall back to defaults the user did not choose.
func LoadConfig(home string, checks ...Check) (*Config, error) {
	managed, err := loadManaged(ManagedConfigPath, checks...)
	if err != nil {
		return nil, err
	}
	path := filepath.Join(home, "config.toml")
	text, err := readConfigFile(path)
	c := &Config{}
	switch {
	case errors.Is(err, fs.ErrNotExist):
	case err != nil:
		return nil, err
	default:
		if c, err = ParseConfig(path, text, checks...); err != nil {
			return nil, err
		}
	}
	if managed != nil {
		c.ApplyManaged(managed)
	}
	if h, err := os.UserHomeDir(); err == nil && filepath.IsAbs(h) {
		c.UserHome = filepath.Clean(h)
	}
	if t := os.Getenv("TMPDIR"); filepath.IsAbs(t) {
		c.TempDir = filepath.Clean(t)
	}
	return c, nil
}

// LoadConfigFor reads the global config and merges the project file nearest to dir (dir itself
// or a parent, not above the user's home directory), which may only tighten it.
func LoadConfigFor(home, dir string, checks ...Check) (*Config, error) {
	c, err := LoadConfig(home, checks...)
	if err != nil {
		return nil, err
	}
	path := findProjectConfig(dir)
	if path == "" {
		return c, nil
	}
	text, err := readConfigFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		return c, nil
	}
	if err != nil {
		return nil, err
	}
	p, err := ParseConfig(path, text, checks...)
	if err != nil {
		return nil, err
	}
	c.Project = path
	c.ReadOnlyAgents = append(c.ReadOnlyAgents, p.ReadOnlyAgents...)
	c.DenyPrograms = append(c.DenyPrograms, p.DenyPrograms...)
	if p.Sandbox == SandboxRequire {
		c.Sandbox = SandboxRequire
	}
	for _, k := range p.defined {
		if slices.Contains(globalOnly, k) {
			c.Warnings = append(c.Warnings, fmt.Sprintf("%s sets %s, which only your own config (%s) may set; ignored", path, k, filepath.Join(home, "config.toml")))
		}
	}
	return c, nil
}

// findProjectConfig returns the nearest .hookctl.toml at or above dir, stopping below the
// user's home directory and at the root.
func findProjectConfig(dir string) string {
	if dir == "" || !filepath.IsAbs(dir) {
		return ""
	}
	home, _ := os.UserHomeDir()
	for d := filepath.Clean(dir); ; d = filepath.Dir(d) {
		if d == home || d == filepath.Dir(d) {
			return ""
		}
		p := filepath.Join(d, ProjectConfigName)
		if _, err := os.Lstat(p); err == nil {
			return p
		}
	}
}

// readConfigFile reads a config file, following a symbolic link (dotfile managers link config
// files) but never one that leads nowhere: a dangling link is an error, not "no config", since
// the user meant a file to be there. It never blocks on a FIFO or a device.
func readConfigFile(path string) (string, error) {
	b, err := fsutil.ReadFile(path, MaxConfigSize, false)
	if errors.Is(err, fs.ErrNotExist) {
		if fi, lerr := os.Lstat(path); lerr == nil && fi.Mode()&fs.ModeSymlink != 0 {
			target, _ := os.Readlink(path)
			return "", fmt.Errorf("%s is a symbolic link to %s, which does not exist", path, target)
		}
		return "", err
	}
	if err != nil {
		return "", fmt.Errorf("failed to read %s: %w", path, err)
	}
	return string(b), nil
}

// ParseConfig decodes config text; path names it in errors.
func ParseConfig(path, text string, checks ...Check) (*Config, error) {
	var c Config
	md, err := toml.Decode(text, &c)
	if err != nil {
		var perr toml.ParseError
		if errors.As(err, &perr) {
			return nil, fmt.Errorf("%s:%d: %s", path, perr.Position.Line, perr.Message)
		}
		return nil, fmt.Errorf("%s: %v", path, err)
	}
	if und := md.Undecoded(); len(und) > 0 {
		key, hint := und[0].String(), misplacedKeyHint(und[0])
		if line := lineOfKey(text, und[0]); line > 0 {
			return nil, fmt.Errorf("%s:%d: unknown key %q%s", path, line, key, hint)
		}
		return nil, fmt.Errorf("%s: unknown key %q%s", path, key, hint)
	}
	for _, a := range c.ReadOnlyAgents {
		if a == "" {
			return nil, fmt.Errorf("%s: read_only_agents holds an empty name", path)
		}
	}
	for _, k := range md.Keys() {
		// k[0] of every key: a table set only through its subtables ([clients.claude]) is set.
		if !slices.Contains(c.defined, k[0]) {
			c.defined = append(c.defined, k[0])
		}
	}
	if err := clientversion.Validate(c.MinHookctlVersion, c.Clients); err != nil {
		key := strings.SplitN(strings.SplitN(err.Error(), ":", 2)[0], ".", 2)
		return nil, fmt.Errorf("%s:%d: %v", path, lineOfKey(text, toml.Key{key[0]}), err)
	}
	if c.Audit.MaxBytes < 0 {
		return nil, fmt.Errorf("%s:%d: audit.max_bytes is negative", path, lineOfKey(text, toml.Key{"audit", "max_bytes"}))
	}
	if c.Retriever.MaxBytes < 0 {
		return nil, fmt.Errorf("%s:%d: retriever.max_bytes is negative", path, lineOfKey(text, toml.Key{"retriever", "max_bytes"}))
	}
	for _, w := range c.EditWritable {
		if !filepath.IsAbs(w) {
			return nil, fmt.Errorf("%s:%d: edit_writable entry %q is not an absolute path", path, lineOfKey(text, toml.Key{"edit_writable"}), w)
		}
	}
	for _, w := range c.EditUnixSockets {
		if !filepath.IsAbs(w) {
			return nil, fmt.Errorf("%s:%d: edit_unix_sockets entry %q is not an absolute path", path, lineOfKey(text, toml.Key{"edit_unix_sockets"}), w)
		}
	}
	for _, w := range c.EditAutoRunWritable {
		if w == "" || slices.Contains(strings.Split(filepath.ToSlash(w), "/"), "..") {
			return nil, fmt.Errorf("%s:%d: edit_auto_run_writable entry %q must be a path in the project or an absolute path, without ..",
				path, lineOfKey(text, toml.Key{"edit_auto_run_writable"}), w)
		}
	}
	switch c.Network.Edit {
	case "", NetworkProxy, NetworkFull:
	default:
		return nil, fmt.Errorf("%s:%d: network.edit must be %q or %q, not %q", path, lineOfKey(text, toml.Key{"network", "edit"}), NetworkProxy, NetworkFull, c.Network.Edit)
	}
	for _, h := range c.Network.Allow {
		if _, err := egress.ParseRule(h, "config", true); err != nil {
			return nil, fmt.Errorf("%s:%d: network.allow: %v", path, lineOfKey(text, toml.Key{"network", "allow"}), err)
		}
	}
	for _, h := range c.Network.TLSUnnamed {
		if _, err := egress.ParseRule(h, "config", true); err != nil {
			return nil, fmt.Errorf("%s:%d: network.tls_unnamed: %v", path, lineOfKey(text, toml.Key{"network", "tls_unnamed"}), err)
		}
	}
	for _, s := range c.Edit.Sudo {
		if len(strings.Fields(s)) == 0 {
			return nil, fmt.Errorf("%s:%d: edit.sudo holds an empty command", path, lineOfKey(text, toml.Key{"edit", "sudo"}))
		}
	}
	for _, a := range c.AllowRead {
		if a == "" || strings.Contains(a, "/") && !filepath.IsAbs(a) && !strings.HasPrefix(a, "~/") {
			return nil, fmt.Errorf("%s:%d: allow_read entry %q is neither an absolute path, a path under ~/, nor a file name", path, lineOfKey(text, toml.Key{"allow_read"}), a)
		}
	}
	if c.CommandTimeout != "" {
		if d, err := time.ParseDuration(c.CommandTimeout); err != nil || d <= 0 || d > MaxCommandTimeout {
			return nil, fmt.Errorf("%s:%d: command_timeout must be a duration up to %v, such as \"2m\" (not %q)", path, lineOfKey(text, toml.Key{"command_timeout"}), MaxCommandTimeout, c.CommandTimeout)
		}
	}
	for _, n := range c.PassEnv {
		if n == "" || strings.ContainsAny(n, "= \x00") {
			return nil, fmt.Errorf("%s:%d: pass_env entry %q is not a variable's name", path, lineOfKey(text, toml.Key{"pass_env"}), n)
		}
	}
	switch c.Sandbox {
	case "", SandboxAuto, SandboxRequire:
	default:
		return nil, fmt.Errorf("%s:%d: sandbox must be %q or %q, not %q", path, lineOfKey(text, toml.Key{"sandbox"}), SandboxAuto, SandboxRequire, c.Sandbox)
	}
	if c.DefaultMode != "" {
		// Review mode publishes, so it is chosen per session (/readonly review), never by default.
		if m, err := hook.ParseMode(c.DefaultMode); err != nil || m == hook.ModeReview {
			if err == nil {
				err = errors.New(`"review" is chosen per session with /readonly review, not by default (want read-only or edit)`)
			}
			return nil, fmt.Errorf("%s:%d: default_mode: %v", path, lineOfKey(text, toml.Key{"default_mode"}), err)
		}
	}
	if err := c.Telemetry.validate(path, text); err != nil {
		return nil, err
	}
	for _, check := range checks {
		if key, err := check(&c); err != nil {
			return nil, fmt.Errorf("%s:%d: %v", path, lineOfKey(text, key), err)
		}
	}
	c.Path, c.checks = path, checks
	return &c, nil
}

// Bounds on an admitted read-only command's time (CommandTimeout): Claude Code's own default for
// its shell tool, and its maximum.
const (
	defaultCommandTimeout = 2 * time.Minute
	MaxCommandTimeout     = 10 * time.Minute
)

// commandTimeout is CommandTimeout as a duration.
func (c *Config) Timeout() time.Duration {
	if c != nil {
		if d, err := time.ParseDuration(c.CommandTimeout); err == nil && d > 0 {
			return d
		}
	}
	return defaultCommandTimeout
}

// lineOfKey finds the line where the last part of key is set, for error messages; 0 if unsure.
// misplacedKeyHint explains the commonest unknown key: a top-level key written after a [table]
// header, which TOML reads as a key of that table.
func misplacedKeyHint(key toml.Key) string {
	if len(key) < 2 {
		return ""
	}
	name := key[len(key)-1]
	t := reflect.TypeFor[Config]()
	for i := range t.NumField() {
		if tag, _, _ := strings.Cut(t.Field(i).Tag.Get("toml"), ","); tag == name {
			return fmt.Sprintf(": %s is a top-level key, and TOML reads every key after a [%s] header as part of that table; "+
				"move it above the first [table] header", name, strings.Join(key[:len(key)-1], "."))
		}
	}
	return ""
}

func lineOfKey(text string, key toml.Key) int {
	last := key[len(key)-1]
	for i, line := range strings.Split(text, "\n") {
		t := strings.TrimSpace(line)
		if strings.HasPrefix(t, last) && strings.HasPrefix(strings.TrimSpace(t[len(last):]), "=") ||
			t == "["+key.String()+"]" || t == "[["+key.String()+"]]" {
			return i + 1
		}
	}
	return 0
}

// ReadOnlyAgent reports whether an agent type is read-only in every mode.
func (c *Config) ReadOnlyAgent(agentType string) bool {
	if agentType == "" {
		return false
	}
	return slices.Contains(DefaultReadOnlyAgents, agentType) || slices.Contains(c.ReadOnlyAgents, agentType)
}

// ProgramDenied reports whether the config removed a program from the allowlist.
func (c *Config) ProgramDenied(name string) bool { return slices.Contains(c.DenyPrograms, name) }

// Sandbox settings (the config's sandbox key).
const (
	// SandboxAuto runs admitted commands in the sandbox where the machine has one, and on the
	// policy alone where it has not, saying so.
	SandboxAuto = "auto"
	// SandboxRequire refuses every shell command that cannot run in the sandbox.
	SandboxRequire = "require"
)
