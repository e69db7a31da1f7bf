// Package launcher is the sandbox verb's processes: the launcher of each profile, which the
// hook's rewrite of an admitted command starts (read-only, edit, edit-landlock, publish,
// policy-only, and hookctl run's secure-read-only), and the roles those launchers start
// themselves with hidden flags (the edit sandbox's init, the egress watcher,
// ssh's proxy command, the probe's inside checks, the run's init). cmd/hookctl parses the
// user's flags and calls Run; the roles are the table below, each with why it can weaken no
// protection.
//
// It sits above the gate (it loads the config with the judges' checks, reads the auto-run and
// git-filter facts) and below the commands; it knows no client: the wiring hands it the clients'
// settings (Env).
package launcher

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/hookctl/hookctl/config"
	"github.com/hookctl/hookctl/gate"
	"github.com/hookctl/hookctl/hook"
	"github.com/hookctl/hookctl/policy"
	"github.com/hookctl/hookctl/sandbox"
	"github.com/hookctl/hookctl/sandbox/egress"
	"github.com/hookctl/hookctl/sandbox/readonly"
)

// Env is what the launcher knows of the installation from its wiring: hookctl's executable
// (symlinks resolved), and the clients whose settings edit mode's sandbox freezes.
type Env struct {
	Binary string
	// Client's settings are every client's hookctl guards, not only Claude Code's: an agent in
	// one must not rewrite another's hooks, which the user may run in the same project next.
	Client     hook.Client
	ClientDirs ClientDirs
}

// ClientDirs are the clients' whole configuration directories besides .claude, which edit
// mode's sandbox freezes: beneath the user's home, in the project and every directory above it
// (relative names), and the system's (absolute).
type ClientDirs struct{ Home, Project, System []string }

// Options is the sandbox verb's command line: the user's flags and the roles' hidden ones
// (AddFlags).
type Options struct {
	Profile string
	Session string
	Scratch string // the probe's own scratch directory, instead of a session's
	Project string // edit profile: the session's project, which it may write
	// The probe's inside half.
	InsideCheck     string
	InsideCheckEdit string
	// The Landlock-only edit probe's inside half.
	InsideCheckEditLandlock string
	Marker                  string
	Outside                 string
	ProbeConfine            bool
	InUserNS                bool
	Init                    bool // the edit sandbox's init (editExec)
	EgressFD                int
	EgressWatch             int // the watcher of StartWatcher: the pid of the command it serves
	ProxyConnect            bool
	// The secure-read-only profile's roots and report descriptor (hookctl run passes them).
	Read, Write []string
	StatusFD    int
	// --network model-only: the handover descriptor on which the launcher, started by hookctl
	// run in a network namespace of its own, sends the credential broker's listener, and the
	// variables it points at the broker (ANTHROPIC_BASE_URL).
	ModelFD   int
	ModelVars []string
	// Timeout bounds a read-only or policy-only command (config.Config's command_timeout).
	Timeout time.Duration
	// PassEnv are the variables a read-only or policy-only command gets besides the
	// allowlist (config.Config's pass_env), as the hook's rewrite names them; nil: the config's.
	PassEnv   []string
	ModelPort int  // the inner launcher's: the port the run's init listens on for the broker
	RunInit   bool // the launcher as the init of a hookctl run (secureInit)
}

// Stdio are the launcher's standard streams (ssh's proxy command talks on them; the probe's
// inside checks answer on Out).
type Stdio struct {
	In       io.Reader
	Out, Err io.Writer
}

// ExitFailed is the launcher's status when the sandbox could not be applied and so nothing
// ran (126: "found but could not be run", as the shell says it).
const ExitFailed = 126

// A role is one process the sandbox verb can be. Why it can weaken no protection, whoever
// starts it: hookctl's own verbs are the only way to reach it (the read-only judge and the
// edit guard refuse `hookctl sandbox` to an agent in every mode), and a command that execs
// hookctl from inside a sandbox stays in that sandbox (Landlock, the seccomp filter and the
// namespaces bind everything it starts), so that each role either adds confinement or runs
// inside what is applied already; holds says which, and what checks it makes itself.
type role struct {
	name  string
	is    func(o *Options) bool
	run   func(e *Env, o *Options, args []string, s Stdio) (int, error)
	holds string
}

// roles are the processes hookctl starts itself, by hidden flags, chosen before the user's
// --probe and --forget; the first whose flags are set runs.
var roles = []role{
	{"egress watcher", func(o *Options) bool { return o.EgressWatch != 0 }, egressWatch,
		"serves the egress proxy for its parent only (sandbox.Watch: the pid given must be its parent's), on a listener " +
			"made in the command's network namespace; the proxy enforces the session's egress policy, and from inside a " +
			"sandbox it reaches no more than the sandbox does"},
	{"ssh's proxy command", func(o *Options) bool { return o.ProxyConnect }, proxyConnect,
		"relays stdin and stdout through a tunnel of the egress proxy on 127.0.0.1 that HTTPS_PROXY names, which decides the host: " +
			"what any process could do with a socket of its own"},
	{"the probe's inside check", func(o *Options) bool { return o.InsideCheck != "" }, insideCheck,
		"tries the sandbox's rules from inside it and prints what held; applies and lifts nothing"},
	{"the Landlock-only edit probe's inside check", func(o *Options) bool { return o.InsideCheckEditLandlock != "" }, insideCheckEditLandlock,
		"tries the sandbox's rules from inside it and prints what held; applies and lifts nothing"},
	{"the edit probe's inside check", func(o *Options) bool { return o.InsideCheckEdit != "" }, insideCheckEdit,
		"tries the sandbox's rules from inside it and prints what held; applies and lifts nothing"},
}

// RoleOf names the role of roles that o asks for, or "" for a profile's launcher (or the user's
// --probe and --forget, which the caller runs).
func RoleOf(o *Options) string {
	for _, r := range roles {
		if r.is(o) {
			return r.name
		}
	}
	return ""
}

type profile struct {
	name   string
	launch func(e *Env, home string, o *Options, args []string) (int, error)
}

// profiles are the launchers of the profiles the user names (and the hook's rewrite), in the
// order the error for an unknown one lists them: each applies its profile to itself, or starts
// the processes that do, and runs the command there.
var profiles = []profile{
	{sandbox.ReadOnlyName, readOnlyExec},
	{sandbox.EditName, editExec},
	{sandbox.EditLandlockName, editLandlockExec},
	{sandbox.PublishName, readOnlyExec},
	{readonly.PolicyOnlyName, policyOnlyExec},
}

// Run is the sandbox verb's process o asks for, running args: one of roles, hookctl run's
// launcher and init (secure-read-only), or a profile's launcher. It returns the exit status; an
// error is a command line it cannot run, for the caller to print. A sandbox that cannot be
// applied is said on s.Err, and the status is ExitFailed: nothing ran.
func Run(e *Env, o *Options, args []string, s Stdio) (int, error) {
	for _, r := range roles {
		if r.is(o) {
			return r.run(e, o, args, s)
		}
	}
	i := slices.IndexFunc(profiles, func(p profile) bool { return p.name == o.Profile })
	switch {
	case o.Profile == sandbox.SecureReadOnlyName && o.RunInit:
		// hookctl run's init: pid 1 of the run's namespaces (sandbox.ServeRunInit checks it is).
		return sandbox.ServeSecureInit(secureLaunch(o), args, os.Environ()), nil
	case o.Profile == sandbox.SecureReadOnlyName:
		err := secureExec(o, args)
		fmt.Fprintln(s.Err, "hookctl sandbox:", err)
		return ExitFailed, nil
	case i < 0:
		var names []string
		for _, p := range profiles {
			names = append(names, p.name)
		}
		return 0, fmt.Errorf("unknown profile %q: the profiles are %s and %s", o.Profile, strings.Join(names[:len(names)-1], ", "), names[len(names)-1])
	case (o.Profile == sandbox.EditName || o.Profile == sandbox.EditLandlockName) && !filepath.IsAbs(o.Project):
		return 0, errors.New("the edit profile needs --project DIR, an absolute path")
	case len(args) == 0:
		return 0, errors.New("give the program after --, e.g. hookctl sandbox -- ls -la")
	}
	home, err := config.Home()
	if err == nil {
		var code int
		if code, err = profiles[i].launch(e, home, o, args); err == nil {
			return code, nil
		}
	}
	fmt.Fprintln(s.Err, "hookctl sandbox:", err)
	return ExitFailed, nil
}

func proxyConnect(_ *Env, o *Options, args []string, s Stdio) (int, error) {
	if len(args) != 2 {
		return 0, errors.New("--proxy-connect takes HOST PORT (ssh's %h %p)")
	}
	return 0, egress.ProxyConnect(s.In, s.Out, args[0], args[1])
}

func insideCheck(_ *Env, o *Options, _ []string, s Stdio) (int, error) {
	return 0, json.NewEncoder(s.Out).Encode(sandbox.InsideCheck(o.InsideCheck, o.Marker))
}

func insideCheckEditLandlock(_ *Env, o *Options, _ []string, s Stdio) (int, error) {
	return 0, json.NewEncoder(s.Out).Encode(sandbox.InsideCheckEditLandlock(o.InsideCheckEditLandlock, o.Marker, o.Outside))
}

func insideCheckEdit(_ *Env, o *Options, _ []string, s Stdio) (int, error) {
	return 0, json.NewEncoder(s.Out).Encode(sandbox.InsideCheckEdit(o.InsideCheckEdit, o.Marker, o.Outside))
}

// secureLaunch is the secure-read-only launcher's and its run's init's command line.
func secureLaunch(opts *Options) sandbox.SecureLaunch {
	return sandbox.SecureLaunch{Read: opts.Read, Write: opts.Write, StatusFD: opts.StatusFD,
		ModelFD: opts.ModelFD, ModelVars: opts.ModelVars, ModelPort: opts.ModelPort}
}

// secureExec is the secure-read-only profile's launcher, as hookctl run starts it
// (sandbox.ExecSecure). A command the hooks of a run admitted comes with --session instead of
// --write: the run's roots to read, and its session's scratch directory as the one it writes,
// its TMPDIR. It returns only on failure.
func secureExec(opts *Options, args []string) error {
	env := os.Environ()
	if len(opts.Write) == 0 && opts.Session != "" {
		home, err := config.Home()
		if err == nil {
			var scratch *sandbox.Scratch
			if scratch, err = sandbox.OpenScratch(home, opts.Session); err == nil {
				opts.Write = []string{scratch.Path}
				env = append(slices.DeleteFunc(env, func(kv string) bool { return strings.HasPrefix(kv, "TMPDIR=") }), "TMPDIR="+scratch.Path)
			}
		}
		if err != nil {
			if opts.StatusFD > 0 {
				sandbox.ReportFailure(opts.StatusFD, err)
			}
			return err
		}
	}
	return sandbox.ExecSecure(secureLaunch(opts), args, env)
}

// readOnlyExec is the read-only and the publish profiles' launcher: it applies the profile and
// execs args, or runs them as a bounded child (read-only); it returns only on failure, or with
// the command's exit status where it runs a child.
func readOnlyExec(e *Env, home string, opts *Options, args []string) (int, error) {
	ro := readonly.Options{Session: opts.Session, Scratch: opts.Scratch, Timeout: opts.Timeout, PassEnv: passEnv(home, opts)}
	if opts.Profile == sandbox.ReadOnlyName {
		return readonly.Launch(home, ro, args)
	}
	scratch, err := readonly.OpenScratch(home, ro)
	if err != nil {
		return 0, err
	}
	defer scratch.Close()
	if !opts.InUserNS && opts.EgressFD == 0 {
		cfg, err := gate.LoadConfig(home)
		if err != nil {
			return 0, err
		}
		// A network namespace of its own, and for a user who is not root a user namespace, in
		// which it may bring loopback up.
		ns := sandbox.Namespaces{User: os.Geteuid() != 0, Net: true}
		if !ns.User {
			// Root makes the network namespace itself and stays the command; a watcher beside
			// it serves the bridge (sandbox.StartWatcher).
			fd, err := sandbox.StartWatcher([]string{"hookctl", "sandbox", "--egress-watch", strconv.Itoa(os.Getpid()),
				"--profile", opts.Profile, "--session", opts.Session})
			if err != nil {
				return 0, err
			}
			if err := sandbox.UnshareNetwork(); err != nil {
				syscall.Close(fd)
				return 0, err
			}
			opts.EgressFD = fd
		} else {
			argv := []string{"hookctl", "sandbox", "--profile", opts.Profile, "--session", opts.Session, "--in-user-namespace", "--egress-fd", "3", "--"}
			return sandbox.RunIsolated(append(argv, args...), ns, e.egressStarter(home, opts.Session, opts.Profile, policyFor(home, opts, cfg)))
		}
	}
	// gh reads its token from its hosts.yml, a credential store the read-only profile hides.
	p := sandbox.Publish(append(sandbox.HiddenDirs(home), readonly.OtherTerminals), scratch.Path, policy.PublishEnv)
	p.ScratchDir = scratch.Dir
	if p.Proxy, err = sandbox.BridgeNetwork(opts.EgressFD); err != nil {
		return 0, err
	}
	// The probe promised a sandbox and it failed to apply: nothing runs, and the hook goes on
	// sending commands here (never around it) until the user's doctor finds out why. Forgetting
	// the probe here would let whatever made it fail turn the sandbox off.
	return 0, sandbox.Exec(p, args, os.Environ())
}

// policyOnlyExec runs a command where the sandbox cannot apply (readonly.LaunchPolicyOnly).
func policyOnlyExec(_ *Env, home string, opts *Options, args []string) (int, error) {
	return readonly.LaunchPolicyOnly(home, readonly.Options{Session: opts.Session, Scratch: opts.Scratch, Timeout: opts.Timeout, PassEnv: passEnv(home, opts)}, args)
}

// passEnv is what the rewrite named (--pass-env), or, for a command started by hand, what the
// config says: a config that does not load adds nothing.
func passEnv(home string, opts *Options) []string {
	if opts.PassEnv != nil {
		return opts.PassEnv
	}
	if cfg, err := gate.LoadConfig(home); err == nil {
		return cfg.PassEnv
	}
	return nil
}
