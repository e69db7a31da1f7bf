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

	"github.com/spf13/cobra"

	"github.com/hookctl/hookctl/agents/claude"
	"github.com/hookctl/hookctl/hook"
	"github.com/hookctl/hookctl/retriever/front"
	"github.com/hookctl/hookctl/sandbox"
	"github.com/hookctl/hookctl/sandbox/egress"
)

// policyFor is the egress policy of a command under opts's profile: a publish reaches the GitHub
// API alone; an edit-mode command the registries, its project's remotes as recorded when hookctl
// first saw a session there (and as the human added since), and the user's [network] allow.
func policyFor(home string, opts *sandboxOptions, cfg *hook.Config) func() (*egress.Policy, error) {
	if opts.Profile == sandbox.PublishName {
		return publishPolicy
	}
	return func() (*egress.Policy, error) {
		var remotes []string
		if sess, err := hook.NewStore(home).Load(opts.Session); err == nil {
			remotes = hook.NewProjects(home).RemotesFor(sess)
		}
		return egress.New(remotes, cfg.Network.Allow, cfg.Network.TLSUnnamed)
	}
}

// egressWatch is the watcher a root launcher starts beside the command (sandbox.StartWatcher):
// the bridge's listener comes on descriptor 3.
func egressWatch(opts *sandboxOptions) error {
	home, err := hook.Home()
	if err != nil {
		return err
	}
	cfg, err := hook.LoadConfig(home)
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
	JSON    bool
	// The probe's inside half.
	InsideCheck     string
	InsideCheckEdit string
	Marker          string
	Outside         string
	ProbeConfine    bool
	InUserNS        bool
	EgressFD        int
	EgressWatch     int // the watcher of StartWatcher: the pid of the command it serves
	ProxyConnect    bool
	// The secure-read-only profile's roots and report descriptor (hookctl run passes them).
	Read, Write []string
	StatusFD    int
	// --network model-only: the handover descriptor on which the launcher, started by hookctl
	// run in a network namespace of its own, sends the credential broker's listener, and the
	// variables it points at the broker (ANTHROPIC_BASE_URL).
	ModelFD   int
	ModelVars []string
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

If the sandbox cannot be applied, nothing runs and the exit status is 126.
With --probe it tries the sandbox for real and says whether this machine supports it.`,
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
				return proxyConnect(s, args[0], args[1])
			case opts.InsideCheck != "":
				return json.NewEncoder(s.out).Encode(sandbox.InsideCheck(opts.InsideCheck, opts.Marker))
			case opts.InsideCheckEdit != "":
				return json.NewEncoder(s.out).Encode(sandbox.InsideCheckEdit(opts.InsideCheckEdit, opts.Marker, opts.Outside))
			case opts.Probe:
				return sandboxProbe(s, opts)
			case opts.Profile == sandbox.SecureReadOnlyName:
				err := secureExec(opts, args)
				fmt.Fprintln(s.err, "hookctl sandbox:", err)
				return exitCode(exitSandboxFailed)
			case opts.Profile != sandbox.ReadOnlyName && opts.Profile != sandbox.EditName && opts.Profile != sandbox.PublishName:
				return fmt.Errorf("unknown profile %q: the profiles are %s, %s and %s", opts.Profile, sandbox.ReadOnlyName, sandbox.EditName, sandbox.PublishName)
			case opts.Profile == sandbox.EditName && !filepath.IsAbs(opts.Project):
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
	cmd.Flags().StringVar(&opts.InsideCheck, "inside-check", "", "")
	cmd.Flags().StringVar(&opts.InsideCheckEdit, "inside-check-edit", "", "")
	cmd.Flags().MarkHidden("inside-check-edit")
	cmd.Flags().StringVar(&opts.Marker, "marker", "", "")
	cmd.Flags().StringVar(&opts.Outside, "outside", "", "")
	cmd.Flags().MarkHidden("outside")
	cmd.Flags().BoolVar(&opts.ProbeConfine, "probe-confine", false, "")
	cmd.Flags().MarkHidden("probe-confine")
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
	cmd.Flags().IntVar(&opts.StatusFD, "status-fd", 0, "")
	cmd.Flags().MarkHidden("status-fd")
	cmd.Flags().IntVar(&opts.ModelFD, "model-fd", 0, "")
	cmd.Flags().MarkHidden("model-fd")
	cmd.Flags().StringArrayVar(&opts.ModelVars, "model-var", nil, "")
	cmd.Flags().MarkHidden("model-var")
	cmd.Flags().SetInterspersed(false)
	return cmd
}

// secureExec is the secure-read-only profile's launcher, as hookctl run starts it: the roots
// come on its command line, the environment is already the run's, and what it applied, or why
// nothing ran, goes to --status-fd. It returns only on failure.
func secureExec(opts *sandboxOptions, args []string) error {
	err := func() error {
		env := os.Environ()
		if len(opts.Write) == 0 && opts.Session != "" {
			// A command the hooks of a run admitted: the run's roots to read, and its session's
			// scratch directory as the one it writes, its TMPDIR.
			scratch, err := sandbox.Scratch(sandbox.ScratchBase(), opts.Session)
			if err != nil {
				return err
			}
			opts.Write = []string{scratch}
			env = append(slices.DeleteFunc(env, func(kv string) bool { return strings.HasPrefix(kv, "TMPDIR=") }), "TMPDIR="+scratch)
		}
		switch {
		case len(args) == 0:
			return errors.New("give the program after --")
		case len(opts.Read) == 0 || len(opts.Write) == 0:
			return errors.New("the secure-read-only profile needs --read DIR and --write DIR (or --session ID)")
		}
		for i, d := range append(slices.Clone(opts.Read), opts.Write...) {
			if !filepath.IsAbs(d) {
				return fmt.Errorf("%s is not an absolute path", d)
			}
			// --read may name a file (hookctl's executable, for the agent's hooks).
			if fi, err := os.Stat(d); err != nil || (i >= len(opts.Read) && !fi.IsDir()) {
				return fmt.Errorf("%s is not a directory", d)
			}
		}
		p := sandbox.SecureReadOnly(opts.Read, opts.Write)
		p.StatusFD = opts.StatusFD
		if opts.ModelFD > 0 {
			// The network namespace hookctl run started this launcher in holds only loopback;
			// the broker (outside it) accepts on the listener made here, and the command may
			// connect to that port alone.
			url, err := sandbox.BridgeNetwork(opts.ModelFD)
			if err != nil {
				return err
			}
			p.ConnectPorts = []uint16{sandbox.BridgePort(url)}
			// getenv finds the first of duplicates: drop any the environment has already.
			env = slices.DeleteFunc(env, func(kv string) bool {
				name, _, _ := strings.Cut(kv, "=")
				return slices.Contains(opts.ModelVars, name)
			})
			for _, v := range opts.ModelVars {
				env = append(env, v+"="+url)
			}
		}
		return sandbox.Exec(p, args, env)
	}()
	if opts.StatusFD > 0 {
		sandbox.ReportFailure(opts.StatusFD, err)
	}
	return err
}

// sandboxExec applies the profile and execs args; it returns only on failure, or with the exit
// status of the child an unprivileged edit profile runs in a user namespace.
func sandboxExec(opts *sandboxOptions, args []string) (int, error) {
	home, err := hook.Home()
	if err != nil {
		return 0, err
	}
	scratch := opts.Scratch
	if scratch == "" {
		base := sandbox.ScratchBase()
		if scratch, err = sandbox.Scratch(base, opts.Session); err != nil {
			return 0, err
		}
		sandbox.Sweep(base, scratch)
	}
	if opts.Profile != sandbox.ReadOnlyName && !opts.InUserNS && opts.EgressFD == 0 {
		// The probe tries the profile as the kernel allows it, whatever the user's config says:
		// a broken config is reported as such, not cached as "no edit sandbox here".
		cfg := &hook.Config{}
		if !opts.ProbeConfine {
			if cfg, err = hook.LoadConfig(home); err != nil {
				return 0, err
			}
		}
		// Namespaces of its own: a user namespace where the user is not root (to mount, and to
		// bring loopback up), a network namespace unless the user gave edit mode the full
		// network (the probe always tries one: it is what edit mode has by default).
		ns := sandbox.Namespaces{User: os.Geteuid() != 0, Net: !cfg.FullNetwork() || opts.ProbeConfine || opts.Profile == sandbox.PublishName}
		switch {
		case ns.Net && !ns.User:
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
		case ns.User || ns.Net:
			argv := []string{"hookctl", "sandbox", "--profile", opts.Profile, "--session", opts.Session,
				"--project", opts.Project, "--scratch", scratch}
			if ns.User {
				argv = append(argv, "--in-user-namespace")
			}
			if ns.Net {
				argv = append(argv, "--egress-fd", "3")
			}
			if opts.ProbeConfine {
				argv = append(argv, "--probe-confine")
			}
			return sandbox.RunIsolated(append(append(argv, "--"), args...), ns, egressStarter(home, opts.Session, opts.Profile, policyFor(home, opts, cfg)))
		}
	}
	p := sandbox.ReadOnly(sandbox.ReadOnlyHidden(home), scratch)
	if opts.Profile == sandbox.PublishName {
		// gh reads its token from its hosts.yml, a credential store the read-only profile hides.
		p = sandbox.Publish(sandbox.HiddenDirs(home), scratch, hook.PublishEnv)
		if p.Proxy, err = sandbox.BridgeNetwork(opts.EgressFD); err != nil {
			return 0, err
		}
	}
	if opts.Profile == sandbox.EditName {
		p = editProfile(home, opts.Project, scratch, opts.ProbeConfine)
		p.InNamespace = opts.InUserNS
		p.ConnectHelper = hookEnv().binary
		if !opts.ProbeConfine {
			if err := sandbox.CheckLinks(p); err != nil {
				return 0, err
			}
		}
		if opts.EgressFD != 0 {
			if p.Proxy, err = sandbox.BridgeNetwork(opts.EgressFD); err != nil {
				return 0, err
			}
		}
	}
	err = sandbox.Exec(p, args, os.Environ())
	// The probe promised a sandbox and the kernel refused it: the next hook probes again, so
	// that the status line and doctor tell the user.
	sandbox.Forget(home)
	return 0, err
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

// editProfile is the edit profile for a session whose project is project: it may write the
// project, the temporary directories and the caches, never hookctl's files, the clients'
// settings (whole .claude directories, and the other clients' (clientDirs), in the home and in the
// project and above) or the shell's start-up files.
//
// confine (the probe's) leaves the project as the only writable directory.
func editProfile(home, project, scratch string, confine bool) *sandbox.Profile {
	userHome, _ := os.UserHomeDir()
	binary := hookEnv().binary
	frozen := hook.ProtectedPaths(guarding(claude.Client), home, userHome, binary, project)
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
	writable := []string{project, "/tmp", "/var/tmp", "/dev/shm", os.TempDir()}
	for _, d := range editWritable {
		if userHome != "" {
			writable = append(writable, filepath.Join(userHome, d))
		}
	}
	if cfg, err := hook.LoadConfig(home); err == nil {
		writable = append(writable, cfg.EditWritable...)
	}
	if confine {
		writable = []string{project}
	}
	return sandbox.Edit(sandbox.HiddenDirs(home), frozen, writable, scratch, project)
}
