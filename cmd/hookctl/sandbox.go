package main

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/spf13/cobra"

	"github.com/hookctl/hookctl/agents/claude"
	"github.com/hookctl/hookctl/config"
	"github.com/hookctl/hookctl/gate"
	"github.com/hookctl/hookctl/hook"
	"github.com/hookctl/hookctl/internal/fsutil"
	"github.com/hookctl/hookctl/policy"
	"github.com/hookctl/hookctl/programs"
	"github.com/hookctl/hookctl/retriever/front"
	"github.com/hookctl/hookctl/sandbox"
	"github.com/hookctl/hookctl/sandbox/egress"
	"github.com/hookctl/hookctl/session"
)

// policyFor is the egress policy of a command under opts's profile: a publish reaches the GitHub
// API alone; an edit-mode command the registries, its project's remotes as recorded when hookctl
// first saw a session there (and as the human added since), and the user's [network] allow.
func policyFor(home string, opts *sandboxOptions, cfg *config.Config) func() (*egress.Policy, error) {
	if opts.Profile == sandbox.PublishName {
		return publishPolicy
	}
	return func() (*egress.Policy, error) {
		var remotes []string
		if sess, err := session.NewStore(home).Load(opts.Session); err == nil {
			remotes = session.NewProjects(home).RemotesFor(sess)
		}
		return egress.New(remotes, cfg.Network.Allow, cfg.Network.TLSUnnamed)
	}
}

// egressWatch is the watcher a root launcher starts beside the command (sandbox.StartWatcher):
// the bridge's listener comes on descriptor 3.
func egressWatch(opts *sandboxOptions) error {
	home, err := config.Home()
	if err != nil {
		return err
	}
	cfg, err := gate.LoadConfig(home)
	if err != nil {
		return err
	}
	return sandbox.Watch(3, opts.EgressWatch, egressStarter(home, opts.Session, opts.Profile, policyFor(home, opts, cfg)))
}

// publishPolicy is what a publish may reach: the GitHub API (gh's GH_HOST is pinned to
// github.com), on 443, and at public addresses only.
func publishPolicy() (*egress.Policy, error) {
	return &egress.Policy{Rules: []egress.Rule{{Host: "api.github.com", Port: 443, Source: "publish"}}}, nil
}

type sandboxOptions struct {
	Profile string
	Session string
	Scratch string // the probe's own scratch directory, instead of a session's
	Project string // edit profile: the session's project, which it may write
	Probe   bool
	Forget  bool
	JSON    bool
	// The probe's inside half.
	InsideCheck     string
	InsideCheckEdit string
	// The Landlock-only edit probe's inside half.
	InsideCheckEditLandlock string
	Marker                  string
	Outside                 string
	ProbeConfine            bool
	InUserNS                bool
	Init, Inner             bool // the edit sandbox's init and inner launcher (editExec)
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
	Timeout   time.Duration
	ModelPort int  // the inner launcher's: the port the run's init listens on for the broker
	RunInit   bool // the launcher as the init of a hookctl run (secureInit)
}

// exitSandboxFailed is the launcher's status when the sandbox could not be applied and so
// nothing ran (126: "found but could not be run", as the shell says it).
const exitSandboxFailed = 126

func newSandboxCmd(s *streams) *cobra.Command {
	opts := &sandboxOptions{}
	cmd := &cobra.Command{
		Use:   "sandbox [--profile read-only|edit|publish] [--session ID] -- PROGRAM [ARG…] | sandbox --probe",
		Short: "Run a program under hookctl's OS sandbox (what the hook runs admitted commands in)",
		Long: `sandbox restricts itself with a profile and then runs PROGRAM. The restrictions (Landlock, a
seccomp filter, no capabilities, and for edit and publish namespaces of their own) bind PROGRAM
and everything it starts, and cannot be lifted.

  read-only  (the default) read and execute anything but hookctl's own directory, write only the
             session's scratch directory (TMPDIR) and /dev/null, no network of any kind
  edit       --project DIR: write the project, the temporary directories and the tool caches,
             never hookctl's files or the client's settings; the network only through hookctl's
             egress proxy, to the hosts of the config's [network] (docs/decisions/0006, 0007)
  publish    review mode's approved gh publish: read-only, gh's credentials and pins as the whole
             environment, the network only to api.github.com through the egress proxy
  secure-read-only
             hookctl run's: --read DIR… and the system's directories readable, --write DIR…
             the only ones writable, no network (docs/secure-read-only.md)
  policy-only
             where the sandbox cannot apply: the read-only profile's environment (an
             allowlist, no secret) and time bound, without the kernel's rules

read-only and policy-only run the program as a child, bounded by --timeout (it is stopped then,
and says so); read-only runs it in process and mount namespaces of its own where the kernel
allows, with a /proc that shows its own processes only.

If the sandbox cannot be applied, nothing runs and the exit status is 126.
With --probe it tries the sandbox for real and says whether this machine supports it. Once a
sandbox has held on a machine, a failure refuses commands rather than running them without it;
--forget (yours to run, never an agent's) forgets that, for a machine that has none any more.`,
		Example: `  hookctl sandbox -- bash --noprofile --norc -c 'git status'
  hookctl sandbox --probe`,
		RunE: func(cmd *cobra.Command, args []string) error {
			switch {
			case opts.EgressWatch != 0:
				return egressWatch(opts)
			case opts.ProxyConnect:
				if len(args) != 2 {
					return errors.New("--proxy-connect takes HOST PORT (ssh's %h %p)")
				}
				return egress.ProxyConnect(s.in, s.out, args[0], args[1])
			case opts.InsideCheck != "":
				return json.NewEncoder(s.out).Encode(sandbox.InsideCheck(opts.InsideCheck, opts.Marker))
			case opts.InsideCheckEditLandlock != "":
				return json.NewEncoder(s.out).Encode(sandbox.InsideCheckEditLandlock(opts.InsideCheckEditLandlock, opts.Marker, opts.Outside))
			case opts.InsideCheckEdit != "":
				return json.NewEncoder(s.out).Encode(sandbox.InsideCheckEdit(opts.InsideCheckEdit, opts.Marker, opts.Outside))
			case opts.Probe:
				return sandboxProbe(s, opts)
			case opts.Forget:
				return sandboxForget(s)
			case opts.Profile == sandbox.SecureReadOnlyName && opts.RunInit:
				return exitCode(sandbox.ServeSecureInit(secureLaunch(opts), args, os.Environ()))
			case opts.Profile == sandbox.SecureReadOnlyName:
				err := secureExec(opts, args)
				fmt.Fprintln(s.err, "hookctl sandbox:", err)
				return exitCode(exitSandboxFailed)
			case opts.Profile != sandbox.ReadOnlyName && opts.Profile != sandbox.EditName && opts.Profile != sandbox.PublishName && opts.Profile != policy.PolicyOnlyProfile &&
				opts.Profile != sandbox.EditLandlockName:
				return fmt.Errorf("unknown profile %q: the profiles are %s, %s, %s, %s and %s", opts.Profile, sandbox.ReadOnlyName, sandbox.EditName,
					sandbox.EditLandlockName, sandbox.PublishName, policy.PolicyOnlyProfile)
			case (opts.Profile == sandbox.EditName || opts.Profile == sandbox.EditLandlockName) && !filepath.IsAbs(opts.Project):
				return errors.New("the edit profile needs --project DIR, an absolute path")
			case len(args) == 0:
				return errors.New("give the program after --, e.g. hookctl sandbox -- ls -la")
			}
			code, err := sandboxExec(opts, args)
			if err == nil {
				return exitCode(code)
			}
			fmt.Fprintln(s.err, "hookctl sandbox:", err)
			return exitCode(exitSandboxFailed)
		},
	}
	cmd.Flags().StringVar(&opts.Profile, "profile", sandbox.ReadOnlyName, "the sandbox profile")
	cmd.Flags().StringVar(&opts.Session, "session", "", "the session whose scratch directory is TMPDIR")
	cmd.Flags().StringVar(&opts.Scratch, "scratch", "", "use `DIR` as the scratch directory")
	cmd.Flags().StringVar(&opts.Project, "project", "", "edit profile: the project `DIR` it may write")
	cmd.Flags().BoolVar(&opts.Probe, "probe", false, "try the sandbox and report whether it holds here")
	cmd.Flags().BoolVar(&opts.JSON, "json", false, "with --probe, print the result as JSON")
	cmd.Flags().BoolVar(&opts.Forget, "forget", false, "forget the probe's result, and that the sandbox ever held on this machine")
	cmd.Flags().StringVar(&opts.InsideCheck, "inside-check", "", "")
	cmd.Flags().StringVar(&opts.InsideCheckEdit, "inside-check-edit", "", "")
	cmd.Flags().MarkHidden("inside-check-edit")
	cmd.Flags().StringVar(&opts.InsideCheckEditLandlock, "inside-check-edit-landlock", "", "")
	cmd.Flags().MarkHidden("inside-check-edit-landlock")
	cmd.Flags().StringVar(&opts.Marker, "marker", "", "")
	cmd.Flags().StringVar(&opts.Outside, "outside", "", "")
	cmd.Flags().MarkHidden("outside")
	cmd.Flags().BoolVar(&opts.ProbeConfine, "probe-confine", false, "")
	cmd.Flags().MarkHidden("probe-confine")
	cmd.Flags().BoolVar(&opts.Init, "init", false, "")
	cmd.Flags().MarkHidden("init")
	cmd.Flags().BoolVar(&opts.Inner, "inner", false, "")
	cmd.Flags().MarkHidden("inner")
	cmd.Flags().BoolVar(&opts.InUserNS, "in-user-namespace", false, "")
	cmd.Flags().MarkHidden("in-user-namespace")
	cmd.Flags().IntVar(&opts.EgressFD, "egress-fd", 0, "")
	cmd.Flags().MarkHidden("egress-fd")
	cmd.Flags().BoolVar(&opts.ProxyConnect, "proxy-connect", false, "")
	cmd.Flags().MarkHidden("proxy-connect")
	cmd.Flags().IntVar(&opts.EgressWatch, "egress-watch", 0, "")
	cmd.Flags().MarkHidden("egress-watch")
	cmd.Flags().MarkHidden("inside-check")
	cmd.Flags().MarkHidden("marker")
	cmd.Flags().StringArrayVar(&opts.Read, "read", nil, "secure-read-only: a `DIR` it may read")
	cmd.Flags().StringArrayVar(&opts.Write, "write", nil, "secure-read-only: a `DIR` it may write")
	cmd.Flags().DurationVar(&opts.Timeout, "timeout", 0, "stop a read-only or policy-only command after `DURATION`")
	cmd.Flags().IntVar(&opts.StatusFD, "status-fd", 0, "")
	cmd.Flags().MarkHidden("status-fd")
	cmd.Flags().IntVar(&opts.ModelFD, "model-fd", 0, "")
	cmd.Flags().MarkHidden("model-fd")
	cmd.Flags().StringArrayVar(&opts.ModelVars, "model-var", nil, "")
	cmd.Flags().IntVar(&opts.ModelPort, "model-port", 0, "")
	cmd.Flags().MarkHidden("model-port")
	cmd.Flags().BoolVar(&opts.RunInit, "run-init", false, "")
	cmd.Flags().MarkHidden("run-init")
	cmd.Flags().MarkHidden("model-var")
	cmd.Flags().SetInterspersed(false)
	return cmd
}

// secureLaunch is the secure-read-only launcher's and its run's init's command line.
func secureLaunch(opts *sandboxOptions) sandbox.SecureLaunch {
	return sandbox.SecureLaunch{Read: opts.Read, Write: opts.Write, StatusFD: opts.StatusFD,
		ModelFD: opts.ModelFD, ModelVars: opts.ModelVars, ModelPort: opts.ModelPort}
}

// secureExec is the secure-read-only profile's launcher, as hookctl run starts it
// (sandbox.ExecSecure). A command the hooks of a run admitted comes with --session instead of
// --write: the run's roots to read, and its session's scratch directory as the one it writes,
// its TMPDIR. It returns only on failure.
func secureExec(opts *sandboxOptions, args []string) error {
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

// sandboxExec applies the profile and execs args; it returns only on failure, or with the exit
// status of the child an unprivileged edit profile runs in a user namespace.
func sandboxExec(opts *sandboxOptions, args []string) (int, error) {
	home, err := config.Home()
	if err != nil {
		return 0, err
	}
	if opts.Profile == sandbox.EditName {
		return editExec(home, opts, args)
	}
	if opts.Profile == sandbox.EditLandlockName {
		return 0, editLandlockExec(home, opts, args)
	}
	if opts.Profile == policy.PolicyOnlyProfile {
		return policyOnlyExec(opts, home, args)
	}
	scratch, err := scratchFor(home, opts)
	if err != nil {
		return 0, err
	}
	defer scratch.Close()
	if opts.Profile == sandbox.PublishName && !opts.InUserNS && opts.EgressFD == 0 {
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
			return sandbox.RunIsolated(append(argv, args...), ns, egressStarter(home, opts.Session, opts.Profile, policyFor(home, opts, cfg)))
		}
	}
	// Other terminals too: a command could read one's input, its user's keystrokes (its own
	// terminal it has open already, and /dev/tty).
	hidden := append(sandbox.ReadOnlyHidden(home), otherTerminals)
	if opts.Scratch != "" {
		// The probe tries the kernel's mechanisms, not the user's files: nothing a command can
		// write (a link at a credential path) may decide whether the machine can sandbox.
		hidden = sandbox.HiddenDirs(home)
	}
	p := sandbox.ReadOnly(hidden, scratch.Path)
	p.ScratchDir = scratch.Dir
	p.PassEnv, p.Pins = readOnlyEnv(home)
	if opts.Profile == sandbox.ReadOnlyName {
		// A child bounded in time, in namespaces of its own where the kernel allows, with the
		// hidden paths masked by mounts there (sandbox.RunReadOnly).
		code, err := sandbox.RunReadOnly(p, args, os.Environ(), sandbox.Bound{Timeout: opts.Timeout, Isolate: true})
		if err == nil && code != 0 && code != sandbox.ExitTimedOut {
			if note := programs.FailureNote(strings.Join(args, " ")); note != "" {
				fmt.Fprintln(os.Stderr, note)
			}
		}
		return code, err
	}
	if opts.Profile == sandbox.PublishName {
		// gh reads its token from its hosts.yml, a credential store the read-only profile hides.
		p = sandbox.Publish(append(sandbox.HiddenDirs(home), otherTerminals), scratch.Path, policy.PublishEnv)
		p.ScratchDir = scratch.Dir
		if p.Proxy, err = sandbox.BridgeNetwork(opts.EgressFD); err != nil {
			return 0, err
		}
	}
	// The probe promised a sandbox and it failed to apply: nothing runs, and the hook goes on
	// sending commands here (never around it) until the user's doctor finds out why. Forgetting
	// the probe here would let whatever made it fail turn the sandbox off.
	return 0, sandbox.Exec(p, args, os.Environ())
}

// otherTerminals is where the machine's pseudo-terminals are, which read-only and publish
// commands may not open (edit mode's get a devpts of their own).
const otherTerminals = "/dev/pts"

// editExec runs args in the edit profile: as the launcher the hook's rewrite starts, it starts
// the sandbox's init (sandbox.RunInit) in namespaces of its own and returns the command's
// status; as the init (--init) it serves the sandbox (sandbox.ServeInit); as the inner
// launcher (--inner) it installs the filter and execs the command.
func editExec(home string, opts *sandboxOptions, args []string) (int, error) {
	switch {
	case opts.Inner:
		return 0, sandbox.ExecInner(editProfile(home, opts.Session, opts.Project, opts.Scratch, opts.ProbeConfine), args)
	case opts.Init:
		return editInit(home, opts, args), nil
	}
	// The probe tries the profile as the kernel allows it, whatever the user's config says: a
	// broken config is reported as such, not cached as "no edit sandbox here".
	cfg := &config.Config{}
	if !opts.ProbeConfine {
		var err error
		if cfg, err = gate.LoadConfig(home); err != nil {
			return 0, err
		}
	}
	if !opts.ProbeConfine {
		p := editProfile(home, opts.Session, opts.Project, "", false)
		p.Frozen = append(p.Frozen, nestedClients(home, opts.Session, opts.Project)...)
		if err := sandbox.CheckLinks(p); err != nil {
			return 0, err
		}
	}
	// A user namespace where the user is not root (to mount, and to bring loopback up), a
	// network namespace unless the user gave edit mode the whole network (the probe always
	// tries one: it is what edit mode has by default).
	ns := sandbox.Namespaces{User: os.Geteuid() != 0, Net: !cfg.FullNetwork() || opts.ProbeConfine}
	argv := []string{"hookctl", "sandbox", "--profile", sandbox.EditName, "--init", "--session", opts.Session, "--project", opts.Project}
	if opts.Scratch != "" {
		argv = append(argv, "--scratch", opts.Scratch)
	}
	if ns.Net {
		argv = append(argv, "--egress-fd", "4")
	}
	if opts.ProbeConfine {
		argv = append(argv, "--probe-confine")
	}
	started := func(pid int) error {
		if opts.ProbeConfine {
			return nil // the probe's: no session, and it ends with its command
		}
		if err := sandbox.RegisterInit(home, opts.Session, pid); err != nil {
			return err
		}
		// Recorded first, then the mode: a session that leaves edit mode now either finds
		// this init recorded and ends it, or has already left, which this sees.
		if mode, _, err := session.NewStore(home).Peek(opts.Session); err != nil || mode != hook.ModeEdit {
			sandbox.ForgetInit(home, opts.Session, pid)
			return errors.New("the session is not in edit mode, so edit mode's command did not run")
		}
		return nil
	}
	ended := func(pid int) {
		if !opts.ProbeConfine {
			sandbox.ForgetInit(home, opts.Session, pid)
		}
	}
	return sandbox.RunInit(sandbox.InitLaunch{Argv: append(append(argv, "--"), args...), NS: ns,
		OnConnect: egressStarter(home, opts.Session, opts.Profile, policyFor(home, opts, cfg)), Started: started, Ended: ended})
}

// editInit is the edit sandbox's init: the profile, with the egress proxy's listener made in
// its network namespace, and the unix sockets outside that the user lets commands reach: the
// config's edit_unix_sockets and the ssh agent's (git over ssh signs with it).
func editInit(home string, opts *sandboxOptions, args []string) int {
	p := editProfile(home, opts.Session, opts.Project, opts.Scratch, opts.ProbeConfine)
	p.ConnectHelper = hookEnv().binary
	if !opts.ProbeConfine {
		p.Frozen = append(p.Frozen, nestedClients(home, opts.Session, opts.Project)...)
	}
	var sockets []string
	if cfg, err := gate.LoadConfig(home); err == nil {
		sockets = append(sockets, cfg.EditUnixSockets...)
	}
	if a := os.Getenv("SSH_AUTH_SOCK"); filepath.IsAbs(a) && !opts.ProbeConfine {
		sockets = append(sockets, a)
	}
	inner := []string{"hookctl", "sandbox", "--profile", sandbox.EditName, "--inner", "--project", opts.Project}
	if opts.Scratch != "" {
		inner = append(inner, "--scratch", opts.Scratch)
	}
	if opts.ProbeConfine {
		inner = append(inner, "--probe-confine")
	}
	inner = append(append(inner, "--"), args...)
	return sandbox.ServeInit(sandbox.InitConfig{Profile: p, Inner: inner, Env: os.Environ(), Sockets: sockets, Bridge: opts.EgressFD != 0})
}

// nestedClients are the clients' settings directories below the project (sandbox.NestedClientDirs),
// found once per session and kept beside its scratch directory: the walk costs as much as the
// project is big. The ones the user makes later in the session are not frozen; no edit-mode
// command can make one.
func nestedClients(home, session, project string) []string {
	dir, err := sandbox.EditDir(home, session)
	if err != nil {
		return nil
	}
	cache := filepath.Join(dir, "client-dirs.json")
	var c struct {
		Project string   `json:"project"`
		Dirs    []string `json:"dirs"`
	}
	if b, err := os.ReadFile(cache); err == nil && json.Unmarshal(b, &c) == nil && c.Project == project {
		return c.Dirs
	}
	c.Project = project
	c.Dirs, _ = sandbox.NestedClientDirs(project)
	if b, err := json.Marshal(c); err == nil {
		fsutil.WriteAtomic(cache, b, 0o600)
	}
	return c.Dirs
}

// scratchFor opens the directory a read-only or publish command may write: the probe's own
// (--scratch), or the session's beneath hookctl's home, by descriptor (sandbox.OpenScratch).
func scratchFor(home string, opts *sandboxOptions) (*sandbox.Scratch, error) {
	if opts.Scratch != "" {
		return sandbox.OpenDir(opts.Scratch)
	}
	s, err := sandbox.OpenScratch(home, opts.Session)
	if err == nil && s.Idle {
		sandbox.Sweep(home, s.Path)
	}
	return s, err
}

// sandboxForget is the user's way back from a sandbox that held and fails (sandbox.Status.Failing):
// the next hook probes afresh, and if the machine has no sandbox now, says so.
func sandboxForget(s *streams) error {
	env := hookEnv()
	if env.err != nil {
		return env.err
	}
	if err := sandbox.Forget(env.home); err != nil {
		return fmt.Errorf("failed to forget the probe: %v", err)
	}
	fmt.Fprintln(s.out, "forgot the sandbox probe; the next hook call probes again (hookctl doctor shows what it finds)")
	return nil
}

// policyOnlyExec runs a command where the sandbox cannot apply (issue 23): a child bounded in
// time, in a process namespace of its own where the kernel allows, with the read-only profile's
// environment, the allowlist (Profile.Environ), and what of the kernel's layers still applies
// there (sandbox.RunPolicyOnly: the seccomp filter, no_new_privs, no capabilities; issue 28).
func policyOnlyExec(opts *sandboxOptions, home string, args []string) (int, error) {
	scratch, err := scratchFor(home, opts)
	if err != nil {
		return 0, err
	}
	defer scratch.Close()
	p := sandbox.ReadOnly(nil, scratch.Path)
	p.Name = policy.PolicyOnlyProfile
	p.PassEnv, p.Pins = readOnlyEnv(home)
	code, err := sandbox.RunPolicyOnly(p, args, os.Environ(), sandbox.Bound{Timeout: opts.Timeout, PidOnly: true})
	if err == nil && code != 0 && code != sandbox.ExitTimedOut {
		if note := programs.FailureNote(strings.Join(args, " ")); note != "" {
			fmt.Fprintln(os.Stderr, note)
		}
	}
	return code, err
}

// readOnlyEnv is what a read-only command's environment keeps besides the allowlist (the
// config's pass_env), and the pins that turn the repository's own git filter drivers off
// (gate.GitFilterPins).
func readOnlyEnv(home string) (passEnv, pins []string) {
	if cfg, err := gate.LoadConfig(home); err == nil {
		passEnv = cfg.PassEnv
	}
	if wd, err := os.Getwd(); err == nil {
		userHome, _ := os.UserHomeDir()
		pins = gate.GitFilterPins(wd, userHome)
	}
	return passEnv, pins
}

func sandboxProbe(s *streams, opts *sandboxOptions) error {
	env := hookEnv()
	if env.err != nil {
		return env.err
	}
	st := sandbox.Probe(env.home, env.binary)
	if opts.JSON {
		enc := json.NewEncoder(s.out)
		enc.SetIndent("", "  ")
		return enc.Encode(st)
	}
	printChecks(s, "", st.Checks)
	if !st.Available {
		fmt.Fprintln(s.out, "no sandbox:", st.Reason)
		return exitCode(exitDenied)
	}
	fmt.Fprintln(s.out, "sandbox available:", st.Isolation)
	printChecks(s, "edit: ", st.EditChecks)
	if !st.Edit {
		fmt.Fprintln(s.out, "no edit sandbox:", st.EditReason)
		printChecks(s, "edit, Landlock only: ", st.EditLandlockChecks)
		if st.EditLandlock {
			fmt.Fprintln(s.out, "Landlock-only edit sandbox available: no namespaces here, so no network and no new entries where a protected path is")
		} else {
			fmt.Fprintln(s.out, "no Landlock-only edit sandbox:", st.EditLandlockReason)
		}
	} else {
		fmt.Fprintln(s.out, "edit sandbox available")
	}
	return nil
}

func printChecks(s *streams, prefix string, checks []sandbox.Check) {
	for _, c := range checks {
		mark := "ok  "
		if !c.OK {
			mark = "FAIL"
		}
		fmt.Fprintf(s.out, "%s %s%s\n", mark, prefix, c.Name)
	}
}

// editWritable are the directories beneath the user's home that edit mode's commands may write
// besides the project and the temporary directories: the caches and stores of package managers
// and toolchains. The user's config adds to them (edit_writable).
var editWritable = []string{".cache", ".npm", ".yarn", ".pnpm-store", ".bun", ".deno", ".cargo", ".rustup", "go",
	".m2", ".gradle", ".nuget", ".local/share/pnpm"}

// editProfile is the edit profile for session, whose project is project: it may write the
// project, the temporary directories and the caches, never hookctl's files, the clients'
// settings (whole .claude directories, and the other clients' (clientDirs), in the home and in the
// project and above), the shell's start-up files, or what runs later outside the sandbox: git's
// code-running files and the auto-run files (gate.AutoRun), and the directories on the user's
// PATH that it could otherwise write. The tools' caches (editWritable) it writes through
// layers of the session's own (sandbox.Profile.Layered), so that nothing it puts there (a
// binary on PATH, an init script, a module) runs outside.
//
// confine (the probe's) leaves the project as the only writable directory.
func editProfile(home, session, project, scratch string, confine bool) *sandbox.Profile {
	userHome, _ := os.UserHomeDir()
	binary := hookEnv().binary
	frozen := policy.ProtectedPaths(guarding(claude.Client), home, userHome, binary, project)
	frozen = append(frozen, binary, front.WorkerPath(binary))
	if userHome != "" {
		frozen = append(frozen, filepath.Join(userHome, ".claude"), filepath.Join(userHome, ".claude.json"))
		for _, d := range clientDirs.home {
			frozen = append(frozen, filepath.Join(userHome, d))
		}
	}
	for d := filepath.Clean(project); ; d = filepath.Dir(d) {
		frozen = append(frozen, filepath.Join(d, ".claude"))
		for _, c := range clientDirs.project {
			frozen = append(frozen, filepath.Join(d, c))
		}
		if d == filepath.Dir(d) {
			break
		}
	}
	frozen = append(frozen, "/etc/claude-code")
	frozen = append(frozen, clientDirs.system...)
	shared := []string{project, "/tmp", "/var/tmp", "/dev/shm", os.TempDir()}
	var caches []string
	for _, d := range editWritable {
		if userHome != "" {
			caches = append(caches, filepath.Join(userHome, d))
		}
	}
	var autoWritable []string
	if cfg, err := gate.LoadConfig(home); err == nil {
		shared = append(shared, cfg.EditWritable...)
		autoWritable = cfg.EditAutoRunWritable
	}
	writable := append(slices.Clone(shared), caches...)
	if confine {
		shared, writable, caches = []string{project}, []string{project}, nil
	}
	// What runs code later outside the sandbox (git's hooks and config, .envrc, .vscode, …):
	// frozen, and refused where it does not exist yet; the git directories are anchored.
	auto, gitDirs := gate.AutoRun(project, userHome, autoWritable)
	auto = append(auto, pathDirs(shared, autoWritable)...)
	why := map[string]string{}
	for _, a := range auto {
		frozen = append(frozen, a.Path)
		why[a.Path] = a.Refusal()
	}
	p := sandbox.Edit(sandbox.HiddenDirs(home), frozen, writable, scratch, project)
	p.FrozenWhy = why
	for _, d := range gitDirs {
		if fi, err := os.Stat(d); err == nil && fi.IsDir() {
			p.Anchors = append(p.Anchors, d)
		}
	}
	if session != "" && len(caches) > 0 {
		p.SetLayers(sandbox.LayersDir(home, session), caches)
	}
	return p
}

// pathDirs are the directories on the user's PATH (as the client runs commands with it) beneath
// a directory edit mode writes as it is (shared: the project, the temporary directories, the
// user's edit_writable): what a command put there would run the next time the user typed its
// name. A relative entry (., bin) names the directory the user is in, which no sandbox can keep.
func pathDirs(shared, autoWritable []string) []policy.AutoRunPath {
	var out []policy.AutoRunPath
	for _, d := range filepath.SplitList(os.Getenv("PATH")) {
		if !filepath.IsAbs(d) {
			continue
		}
		d = filepath.Clean(d)
		if !slices.ContainsFunc(shared, func(w string) bool { return withinDir(d, filepath.Clean(w)) }) ||
			slices.ContainsFunc(autoWritable, func(w string) bool { return filepath.IsAbs(w) && withinDir(d, filepath.Clean(w)) }) {
			continue
		}
		out = append(out, policy.AutoRunPath{Path: d, Key: d,
			What: "a directory on your PATH: a program put there runs instead of the one you meant, the next time you type its name"})
	}
	return out
}

// withinDir says whether path is dir or beneath it.
func withinDir(path, dir string) bool {
	return path == dir || strings.HasPrefix(path, dir+"/")
}
