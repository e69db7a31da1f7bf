package main

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"

	"github.com/spf13/cobra"

	"github.com/hookctl/hookctl/agents/claude"
	"github.com/hookctl/hookctl/hook"
	"github.com/hookctl/hookctl/retriever/front"
	"github.com/hookctl/hookctl/sandbox"
)

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
}

// exitSandboxFailed is the launcher's status when the sandbox could not be applied and so
// nothing ran (126: "found but could not be run", as the shell says it).
const exitSandboxFailed = 126

func newSandboxCmd(s *streams) *cobra.Command {
	opts := &sandboxOptions{}
	cmd := &cobra.Command{
		Use:   "sandbox [--session ID] -- PROGRAM [ARG…] | sandbox --probe",
		Short: "Run a program under the read-only OS sandbox (what the hook runs admitted commands in)",
		Long: `sandbox restricts itself with the read-only profile and then runs PROGRAM: it may read and
execute anything but hookctl's own directory, write only the session's scratch directory
(TMPDIR) and /dev/null, and use no network of any kind. The restrictions (Landlock, a seccomp
filter, no capabilities) bind PROGRAM and everything it starts, and cannot be lifted.

If the sandbox cannot be applied, nothing runs and the exit status is 126.
With --probe it tries the sandbox for real and says whether this machine supports it.`,
		Example: `  hookctl sandbox -- bash --noprofile --norc -c 'git status'
  hookctl sandbox --probe`,
		RunE: func(cmd *cobra.Command, args []string) error {
			switch {
			case opts.InsideCheck != "":
				return json.NewEncoder(s.out).Encode(sandbox.InsideCheck(opts.InsideCheck, opts.Marker))
			case opts.InsideCheckEdit != "":
				return json.NewEncoder(s.out).Encode(sandbox.InsideCheckEdit(opts.InsideCheckEdit, opts.Marker, opts.Outside))
			case opts.Probe:
				return sandboxProbe(s, opts)
			case opts.Profile != sandbox.ReadOnlyName && opts.Profile != sandbox.EditName:
				return fmt.Errorf("unknown profile %q: the profiles are %s and %s", opts.Profile, sandbox.ReadOnlyName, sandbox.EditName)
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
	cmd.Flags().MarkHidden("inside-check")
	cmd.Flags().MarkHidden("marker")
	cmd.Flags().SetInterspersed(false)
	return cmd
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
	if opts.Profile == sandbox.EditName && os.Geteuid() != 0 && !opts.InUserNS {
		argv := []string{"hookctl", "sandbox", "--in-user-namespace", "--profile", sandbox.EditName, "--session", opts.Session,
			"--project", opts.Project, "--scratch", scratch}
		if opts.ProbeConfine {
			argv = append(argv, "--probe-confine")
		}
		return sandbox.RunInUserNamespace(append(append(argv, "--"), args...))
	}
	p := sandbox.ReadOnly(sandbox.ReadOnlyHidden(home), scratch)
	if opts.Profile == sandbox.EditName {
		p = editProfile(home, opts.Project, scratch, opts.ProbeConfine)
		p.InNamespace = opts.InUserNS
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
// project, the temporary directories and the caches, never hookctl's files, the client's
// settings (whole .claude directories, in the home and in the project and above) or the shell's
// start-up files.
//
// confine (the probe's) leaves the project as the only writable directory.
func editProfile(home, project, scratch string, confine bool) *sandbox.Profile {
	userHome, _ := os.UserHomeDir()
	binary := hookEnv().binary
	frozen := hook.ProtectedPaths(claude.Client, home, userHome, binary, project)
	frozen = append(frozen, binary, front.WorkerPath(binary))
	if userHome != "" {
		frozen = append(frozen, filepath.Join(userHome, ".claude"), filepath.Join(userHome, ".claude.json"))
	}
	for d := filepath.Clean(project); ; d = filepath.Dir(d) {
		frozen = append(frozen, filepath.Join(d, ".claude"))
		if d == filepath.Dir(d) {
			break
		}
	}
	frozen = append(frozen, "/etc/claude-code")
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
