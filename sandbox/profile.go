// Package sandbox runs a command the policy admitted under an OS sandbox, so that a rule that
// misjudges a program still cannot write or reach the network.
//
// The policy decides first (packages policy and programs); this package only contains what it
// admitted. A Profile is data, shared by every mechanism: on Linux it becomes a Landlock
// ruleset, a seccomp filter and an empty capability set, applied by hookctl's launcher
// (`hookctl sandbox`) to itself just before it execs a clean shell on the judged command; on
// macOS it becomes a Seatbelt policy for sandbox-exec (generated and unit-tested as text;
// untested on a Mac).
//
// The read-only profile:
//   - reads and executes anything, except Hidden (hookctl's own home: config, state, locks,
//     audit; and the user's credential stores, ReadOnlyHidden), whose files can be neither read
//     nor written — their names can still be listed, because listing / or ~ is granted to the
//     whole tree beneath (Landlock grants hierarchies; nothing can be carved out of one);
//   - writes only to the session's Scratch directory (TMPDIR points there) and to WriteFiles
//     (/dev/null, /dev/tty);
//   - no network: no socket of any family but a local unix stream pair, no connect, bind or
//     listen (so no TCP or UDP to any address, loopback included, and no pathname or abstract
//     unix socket), no sendto an address;
//   - no metadata changes Landlock does not cover (chmod, chown, utimes, xattrs, inode flags),
//     no System V or POSIX message queues and shared memory, no keyrings, no io_uring, no
//     ptrace or cross-process memory access, no terminal input injection (TIOCSTI), no new
//     namespaces, no mounts;
//   - no signals or ptrace to processes outside the sandbox (Landlock scopes, ABI 6);
//   - no capabilities and no new privileges, even when the user is root.
package sandbox

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/hookctl/hookctl/internal/secrets"
	"github.com/hookctl/hookctl/scrub"
)

// Profile is what a sandboxed command may touch.
type Profile struct {
	Name string
	// Edit is edit mode's profile: see Edit.
	Edit bool
	// Writable are directories the command may change (edit mode: the project, the temporary
	// directories, tool caches).
	Writable []string
	// Frozen are files and directories that stay read-only whatever contains them (hookctl's
	// binary, the client's settings, the shell's start-up files, git's and the editors' files
	// that run code later); one that does not exist may not be made (the sandbox's supervisor
	// refuses it). FrozenWhy says why, for the refusal, by path (a default otherwise). Anchors
	// are directories bound onto themselves, which then cannot be renamed or removed: the
	// project and its git directory, which hold frozen paths. Edit mode enforces them with a
	// private mount namespace (privateMounts).
	Frozen, Anchors []string
	FrozenWhy       map[string]string
	// Layered are writable directories the command writes through an overlay of its own (upper
	// and work directories beneath Layers): the tools' caches and stores (~/.cargo, ~/go, …),
	// whose content runs later (a binary on PATH, a build's init script, a module another
	// project builds). What the command writes there, later commands of the session see; the
	// user's own directory never changes.
	Layered []string
	Layers  string
	// Create are frozen directories to make, empty, where they are missing, so that they cannot
	// be made inside the sandbox with settings in them: the project's own .claude.
	Create []string
	// Hidden are directories and files neither readable nor writable inside the sandbox.
	Hidden []string
	// Scratch is the one directory the command may write, and TMPDIR inside the sandbox;
	// ScratchDir, when set, is it opened once (OpenScratch), which is what the sandbox grants.
	Scratch    string
	ScratchDir *os.File
	// WriteFiles are files the command may open for writing (devices: /dev/null, the tty).
	WriteFiles []string
	// Proxy is the egress proxy's URL inside the command's network namespace (edit mode), or ""
	// when the command has the user's network. Environ points every proxy variable at it, and
	// git's ssh at ConnectHelper (hookctl, whose `sandbox --proxy-connect HOST PORT` tunnels
	// through the proxy) unless the user has their own GIT_SSH_COMMAND.
	Proxy, ConnectHelper string
	// Network: sockets are allowed, because the command is in a network namespace of its own
	// whose one way out is the egress proxy (the publish profile).
	Network bool
	// Keep are the only variables of the caller's environment the command gets, and Pins are
	// set on top (the publish profile; the read-only profile's git filter pins); nil Keep keeps
	// them all (the edit profile), but for the read-only profile, whose environment is an
	// allowlist (Environ).
	Keep, Pins []string
	// PassEnv are the variables the user's config adds to the read-only allowlist (pass_env).
	PassEnv []string
	// Readable, when not nil, are the only trees the command may read and execute, Hidden
	// carved out of them, and Writable the only ones it may change (the secure-read-only
	// profile); nil reads and executes everything but Hidden.
	Readable []string
	// ConnectPorts, with Readable (the secure-read-only profile's --network model-only), are
	// the TCP ports the command may connect to: the credential broker's listener in a network
	// namespace of its own whose only interface is loopback. Nothing else of the network is
	// open: no other port (Landlock), no UDP, raw or unix socket, no bind, listen or accept
	// (seccomp), and no route off the machine (the namespace).
	ConnectPorts []uint16
	// StatusFD, when not 0, is a descriptor on which the launcher reports, as one JSON line
	// (LaunchReport), what it applied or why it could not; the exec closes it.
	StatusFD int
	// masked: Hidden is masked in this process's own mount namespace (maskOps), so that
	// Landlock may grant reading the whole tree.
	masked bool
	// landlockOnly: the edit profile without namespaces (EditLandlock).
	landlockOnly bool
}

// ReadOnlyName is the read-only profile's name, as `hookctl sandbox --profile` spells it.
const ReadOnlyName = "read-only"

// ReadOnly is the read-only profile for a session whose scratch directory is scratch, hiding
// hidden (hookctl's home).
func ReadOnly(hidden []string, scratch string) *Profile {
	var h []string
	for _, p := range hidden {
		if filepath.IsAbs(p) {
			h = append(h, filepath.Clean(p))
		}
	}
	slices.Sort(h)
	if scratch != "" {
		scratch = filepath.Clean(scratch)
	}
	return &Profile{
		Name:       ReadOnlyName,
		Hidden:     slices.Compact(h),
		Scratch:    scratch,
		WriteFiles: []string{"/dev/null", "/dev/tty"},
	}
}

// SetLayers makes dirs, writable directories of p, Layered beneath layers: each that exists is
// written through an overlay (by its real path), and one an overlay cannot take (its path holds
// a comma or a colon, which the overlay's options cannot say, or it holds layers) is not
// writable at all. A pure function of the paths, so that the launcher and the sandbox's init,
// which each work the profile out, agree.
func (p *Profile) SetLayers(layers string, dirs []string) {
	p.Layers = filepath.Clean(layers)
	for _, d := range cleanAbs(dirs) {
		real, err := filepath.EvalSymlinks(d)
		if err != nil {
			continue // missing: nothing is written there (its parent is not writable)
		}
		if fi, err := os.Stat(real); err != nil || !fi.IsDir() || strings.ContainsAny(real, ",:") || within(p.Layers, real) {
			p.Writable = slices.DeleteFunc(p.Writable, func(w string) bool { return w == d })
			continue
		}
		p.Layered = append(p.Layered, real)
	}
}

// within says whether path is dir or beneath it.
func within(path, dir string) bool {
	return path == dir || dir == "/" || strings.HasPrefix(path, dir+"/")
}

// layerDirs are the upper and work directories of dir's layer beneath layers.
func layerDirs(layers, dir string) (upper, work string) {
	sum := sha256.Sum256([]byte(dir))
	base := filepath.Join(layers, filepath.Base(dir)+"-"+hex.EncodeToString(sum[:6]))
	return filepath.Join(base, "upper"), filepath.Join(base, "work")
}

// frozenWhy is why a frozen path may not be made or changed, for the supervisor's refusal.
func (p *Profile) frozenWhy(path string) string {
	if why := p.FrozenWhy[path]; why != "" {
		return why
	}
	return "hookctl keeps it read-only in edit mode (hookctl's own files, the clients' settings and the shell's start-up files)"
}

// EditName is the edit profile's name, as `hookctl sandbox --profile` spells it.
const EditName = "edit"

// Edit is edit mode's profile: reads and executes anything but Hidden; writes the Writable
// directories and the scratch directory, but never Frozen paths, even inside them (a
// project's .claude, the client's settings, hookctl's binary); no container engine sockets;
// a network namespace of its own whose only way out is hookctl's egress proxy (docs/decisions/0007:
// the launcher bridges it, and Proxy names it), unless the user chose the whole network; no ptrace, no
// signals outside, no new privileges, no mounts. It needs a private mount namespace (root, or
// a user namespace), because Landlock cannot carve a read-only path out of a writable tree.
func Edit(hidden, frozen, writable []string, scratch, project string) *Profile {
	p := ReadOnly(hidden, scratch)
	p.Create = []string{filepath.Join(filepath.Clean(project), ".claude")}
	frozen = append(frozen, p.Create...)
	p.Name, p.Edit = EditName, true
	p.Frozen = cleanAbs(frozen)
	p.Writable = cleanAbs(writable)
	p.Anchors = []string{filepath.Clean(project)}
	p.WriteFiles = append(p.WriteFiles, "/dev/ptmx", "/dev/pts")
	return p
}

func cleanAbs(paths []string) []string {
	var out []string
	for _, p := range paths {
		if filepath.IsAbs(p) {
			out = append(out, filepath.Clean(p))
		}
	}
	slices.Sort(out)
	return slices.Compact(out)
}

// PublishName is the publish profile's name, as `hookctl sandbox --profile` spells it.
const PublishName = "publish"

// Publish is review mode's profile for a publish the user approved: the read-only profile's
// files (read anything but hidden, write only the scratch directory), sockets allowed in a
// network namespace of its own whose one way out is the egress proxy (the launcher admits
// api.github.com:443 alone), and an environment of gh's credentials and config (publishKeep)
// with pins on top (policy.PublishEnv).
func Publish(hidden []string, scratch string, pins []string) *Profile {
	p := ReadOnly(hidden, scratch)
	p.Name, p.Network = PublishName, true
	p.Keep, p.Pins = publishKeep, pins
	return p
}

// publishKeep is what a publish keeps of the caller's environment: where programs and the home
// are, the locale and terminal, gh's token and config directory, and the CA certificates a
// corporate TLS proxy needs.
var publishKeep = []string{"PATH", "HOME", "USER", "LOGNAME", "LANG", "LANGUAGE", "LC_ALL", "LC_CTYPE", "LC_MESSAGES",
	"TZ", "TERM", "NO_COLOR", "GH_TOKEN", "GITHUB_TOKEN", "GH_CONFIG_DIR", "XDG_CONFIG_HOME", "SSL_CERT_FILE", "SSL_CERT_DIR"}

// scrubbedEnv lists the environment variables the launcher removes before it execs the shell:
// each makes a shell run or read something other than the judged command (a start-up file, an
// exported function that shadows a program, options, a directory search path for cd).
var scrubbedEnv = []string{"BASH_ENV", "ENV", "SHELLOPTS", "BASHOPTS", "CDPATH", "GLOBIGNORE",
	"PROMPT_COMMAND", "PS4", "IFS", "ZDOTDIR"}

// cacheEnv points the caches of build tools and test runners into the scratch directory (a
// read-only runner's tests would otherwise fail on their first cache write, or write bytecode
// next to the sources): name, then the path beneath the scratch directory or, if it starts
// with "=", the value.
var cacheEnv = [][2]string{
	{"TMPDIR", ""}, {"XDG_CACHE_HOME", "cache"}, {"GOCACHE", "go-build"}, {"CARGO_TARGET_DIR", "cargo-target"},
	{"npm_config_cache", "npm"}, {"PYTHONPYCACHEPREFIX", "pycache"}, {"PYTHONDONTWRITEBYTECODE", "=1"},
}

// Environ is env as the sandboxed shell gets it: for the read-only profile only the allowlist's
// variables (passed), scrubbedEnv and exported bash functions (BASH_FUNC_name%%) removed, TMPDIR
// and the caches of cacheEnv in the scratch directory, pytest's cache off.
//
// The edit profile keeps TMPDIR and the caches where the user has them (it may write them).
func (p *Profile) Environ(env []string) []string {
	if p.Readable != nil {
		// hookctl run built the environment from an allowlist: nothing to add or take away
		// but what makes a shell run something else.
		out := make([]string, 0, len(env))
		for _, kv := range env {
			if name, _, ok := cut(kv); ok && !scrubbed(name) {
				out = append(out, kv)
			}
		}
		return out
	}
	if p.Keep != nil {
		out := make([]string, 0, len(p.Keep)+len(p.Pins)+len(proxyEnv)+1)
		for _, kv := range env {
			if name, _, ok := cut(kv); ok && slices.Contains(p.Keep, name) &&
				!slices.ContainsFunc(p.Pins, func(pin string) bool { return strings.HasPrefix(pin, name+"=") }) {
				out = append(out, kv)
			}
		}
		out = append(append(out, p.Pins...), "TMPDIR="+p.Scratch)
		return append(out, p.proxyVars()...)
	}
	if p.Edit {
		out := make([]string, 0, len(env)+len(proxyEnv))
		gitConfigs := 0
		for _, kv := range env {
			name, value, ok := cut(kv)
			switch {
			case !ok || scrubbed(name):
				continue
			case p.Proxy != "" && slices.ContainsFunc(proxyEnv, func(v string) bool { return strings.EqualFold(v, name) }):
				continue
			case p.Proxy != "" && name == "GIT_CONFIG_COUNT":
				fmt.Sscan(value, &gitConfigs)
				continue
			}
			out = append(out, kv)
		}
		if p.Proxy == "" {
			return out
		}
		if p.ConnectHelper != "" && !slices.ContainsFunc(env, func(kv string) bool { return strings.HasPrefix(kv, "GIT_SSH_COMMAND=") }) {
			out = append(out, "GIT_SSH_COMMAND=ssh -o ProxyCommand="+shellQuote(shellQuote(p.ConnectHelper)+" sandbox --proxy-connect %h %p"))
		}
		// git's http.proxy in the user's gitconfig would win over the variables; a config
		// given in the environment wins over it.
		n := max(gitConfigs, 0)
		return append(append(out, p.proxyVars()...), fmt.Sprintf("GIT_CONFIG_KEY_%d=http.proxy", n),
			fmt.Sprintf("GIT_CONFIG_VALUE_%d=%s", n, p.Proxy), fmt.Sprintf("GIT_CONFIG_COUNT=%d", n+1))
	}
	out := make([]string, 0, len(env)+len(cacheEnv)+1)
	pytest := "-p no:cacheprovider"
	for _, kv := range env {
		name, value, ok := cut(kv)
		switch {
		case !ok || scrubbed(name):
			continue
		case !p.passed(name, value):
			continue
		case slices.ContainsFunc(cacheEnv, func(c [2]string) bool { return c[0] == name }):
			continue
		case name == "PYTEST_ADDOPTS":
			pytest = value + " " + pytest
			continue
		}
		out = append(out, kv)
	}
	for _, c := range cacheEnv {
		switch {
		case strings.HasPrefix(c[1], "="):
			out = append(out, c[0]+c[1])
		default:
			out = append(out, c[0]+"="+filepath.Join(p.Scratch, c[1]))
		}
	}
	out = append(out, p.Pins...)
	return append(out, "PYTEST_ADDOPTS="+pytest)
}

// passed says whether the read-only profile passes a variable of the caller's: it is on the
// allowlist (secrets.PassedEnv, secrets.ToolchainEnv) and its value holds nothing that looks like
// a secret (a token of a known format, a password in a URL), or the user's config names it
// (pass_env). Every other variable stays out, so that no secret of the environment enters a
// read-only command, whatever reads it (/proc/self/environ, a runner's code, printenv): issue 23,
// docs/decisions/0012-environment.md.
func (p *Profile) passed(name, value string) bool {
	if slices.Contains(p.PassEnv, name) {
		return true
	}
	if !slices.Contains(secrets.PassedEnv, name) && !slices.Contains(secrets.ToolchainEnv, name) {
		return false
	}
	return !secretValue(value)
}

// secretValue reports whether an allowed variable's value still looks like a secret: a known
// token format or a password in a URL (GOPROXY=https://user:token@proxy), as the retriever's
// scrubber finds them.
func secretValue(v string) bool {
	if len(v) < 8 {
		return false
	}
	return (&scrub.Scrubber{}).Check("environment", v) != nil
}

// SecureReadOnlyName is the profile of `hookctl run --profile secure-read-only`.
const SecureReadOnlyName = "secure-read-only"

// SecureReadOnly is the profile of a whole agent run on a sensitive repository (docs/secure-read-only.md):
// it reads and executes only beneath readable (the repository), writable (the run's output,
// home and temporary directories, which it may also change) and SystemReadable, with
// SystemHidden carved out; it writes nothing else but WriteFiles; it has no network (the
// read-only profile's seccomp filter and Landlock's TCP rules), no capabilities, and no signals
// or ptrace outside. Its environment is the caller's, which `hookctl run` has rebuilt from an
// allowlist.
func SecureReadOnly(readable, writable []string) *Profile {
	hidden := slices.Clone(systemHiddenFiles)
	for _, pattern := range systemHiddenGlobs {
		m, _ := filepath.Glob(pattern)
		hidden = append(hidden, m...)
	}
	return &Profile{
		Name:       SecureReadOnlyName,
		Readable:   append(cleanAbs(readable), SystemReadable...),
		Writable:   cleanAbs(writable),
		Hidden:     cleanAbs(hidden),
		WriteFiles: []string{"/dev/null", "/dev/tty"},
	}
}

// SecureMinABI is the Landlock ABI the secure-read-only profile needs: 6, which scopes signals
// to the sandbox (below it a command could signal the user's other processes). The network and
// abstract unix sockets are the seccomp filter's on any ABI.
const SecureMinABI = 6

// SystemReadable are the trees beyond the repository that the secure-read-only profile lets a
// program read and execute, because programs need them to start and run: the system's
// programs and libraries (/bin, /sbin and /lib* are links into /usr on merged systems, real
// directories elsewhere), its configuration (/etc, without SystemHidden) and a few devices.
// Not /proc: it shows every process's command line and the machine's connections, and the
// programs tried (bash, coreutils, git, python3, node) run without it, node seeing no CPUs
// (docs/secure-read-only.md). Not the home, /tmp, /var, /run, /opt, /srv, /mnt, /media, /sys
// or /dev/pts (another terminal's input).
var SystemReadable = []string{"/usr", "/bin", "/sbin", "/lib", "/lib32", "/lib64", "/libx32", "/etc",
	"/dev/null", "/dev/zero", "/dev/full", "/dev/random", "/dev/urandom", "/dev/tty"}

// systemHiddenFiles are the files and directories of /etc that hold the machine's credentials:
// the password hashes, private keys of TLS and Kerberos, the network's passwords. The
// secure-read-only profile leaves them out of /etc.
var systemHiddenFiles = []string{
	"/etc/shadow", "/etc/shadow-", "/etc/gshadow", "/etc/gshadow-", "/etc/security/opasswd",
	"/etc/ssl/private", "/etc/pki/tls/private", "/etc/pki/CA/private", "/etc/letsencrypt",
	"/etc/krb5.keytab", "/etc/NetworkManager/system-connections", "/etc/wpa_supplicant",
	"/etc/wireguard", "/etc/openvpn", "/etc/ppp/chap-secrets", "/etc/ppp/pap-secrets",
	"/etc/ipsec.secrets", "/etc/ipsec.d/private", "/etc/sudoers", "/etc/sudoers.d",
}

// systemHiddenGlobs are SystemHidden by pattern: the SSH host keys, named for their type.
var systemHiddenGlobs = []string{"/etc/ssh/ssh_host_*_key"}

// SystemHidden is what the secure-read-only profile carves out of /etc, as it is shown to the
// user (the patterns, not this machine's matches).
func SystemHidden() []string {
	return append(slices.Clone(systemHiddenFiles), systemHiddenGlobs...)
}

// shellQuote quotes s for a POSIX shell (git runs GIT_SSH_COMMAND, and ssh its ProxyCommand,
// through one).
func shellQuote(s string) string {
	return "'" + strings.ReplaceAll(s, "'", `'"'"'`) + "'"
}

// proxyVars sets every variable of proxyEnv to the egress proxy (none without one).
func (p *Profile) proxyVars() []string {
	if p.Proxy == "" {
		return nil
	}
	var out []string
	for _, v := range proxyEnv {
		switch {
		case strings.EqualFold(v, "NO_PROXY") || v == "npm_config_noproxy":
			out = append(out, v+"=localhost,127.0.0.1,::1")
		case v == "GIT_PROXY_COMMAND":
		default:
			out = append(out, v+"="+p.Proxy)
		}
	}
	return out
}

// proxyEnv are the variables through which programs find a proxy, every one pointed at the
// egress proxy (NO_PROXY at loopback, which is the command's own; GIT_PROXY_COMMAND removed),
// so that none is left naming the user's own proxy, which the command's network namespace cannot
// reach. The names are compared without case: curl and git read both spellings.
var proxyEnv = []string{"HTTPS_PROXY", "https_proxy", "HTTP_PROXY", "http_proxy", "ALL_PROXY", "all_proxy",
	"NO_PROXY", "no_proxy", "npm_config_proxy", "npm_config_https_proxy", "npm_config_noproxy",
	"YARN_HTTP_PROXY", "YARN_HTTPS_PROXY", "CARGO_HTTP_PROXY", "GIT_PROXY_COMMAND"}

// scrubbed says whether the shell must not see the variable name: scrubbedEnv, or an exported
// function.
func scrubbed(name string) bool {
	return slices.Contains(scrubbedEnv, name) || strings.HasPrefix(name, "BASH_FUNC")
}

func cut(kv string) (name, value string, ok bool) {
	for i := 0; i < len(kv); i++ {
		if kv[i] == '=' {
			return kv[:i], kv[i+1:], i > 0
		}
	}
	return "", "", false
}

// hiddenSource names the tmpfs that masks hookctl's home in the edit profile; InsideEditSandbox
// looks for it.
const hiddenSource = "hookctl-hidden"

// InsideEditSandbox says whether this process runs in the edit profile: its mount table holds
// the tmpfs that masks hookctl's home. Nothing inside can mount or unmount, so a process there
// cannot hide it; one outside that mounts such a tmpfs only makes hookctl refuse more.
func InsideEditSandbox() bool {
	b, err := os.ReadFile("/proc/self/mountinfo")
	return err == nil && strings.Contains(string(b), " - tmpfs "+hiddenSource+" ")
}
