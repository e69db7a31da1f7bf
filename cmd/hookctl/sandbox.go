package main

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"

	"github.com/spf13/cobra"

	"github.com/hookctl/hookctl/hook"
	"github.com/hookctl/hookctl/sandbox"
)

type sandboxOptions struct {
	Profile string
	Session string
	Scratch string // the probe's own scratch directory, instead of a session's
	Probe   bool
	JSON    bool
	// The probe's inside half.
	InsideCheck string
	Marker      string
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
			case opts.Probe:
				return sandboxProbe(s, opts)
			case opts.Profile != sandbox.ReadOnlyName:
				return fmt.Errorf("unknown profile %q: the only profile is %s", opts.Profile, sandbox.ReadOnlyName)
			case len(args) == 0:
				return errors.New("give the program after --, e.g. hookctl sandbox -- ls -la")
			}
			err := sandboxExec(opts, args)
			fmt.Fprintln(s.err, "hookctl sandbox:", err)
			return exitCode(exitSandboxFailed)
		},
	}
	cmd.Flags().StringVar(&opts.Profile, "profile", sandbox.ReadOnlyName, "the sandbox profile")
	cmd.Flags().StringVar(&opts.Session, "session", "", "the session whose scratch directory is TMPDIR")
	cmd.Flags().StringVar(&opts.Scratch, "scratch", "", "use `DIR` as the scratch directory")
	cmd.Flags().BoolVar(&opts.Probe, "probe", false, "try the sandbox and report whether it holds here")
	cmd.Flags().BoolVar(&opts.JSON, "json", false, "with --probe, print the result as JSON")
	cmd.Flags().StringVar(&opts.InsideCheck, "inside-check", "", "")
	cmd.Flags().StringVar(&opts.Marker, "marker", "", "")
	cmd.Flags().MarkHidden("inside-check")
	cmd.Flags().MarkHidden("marker")
	cmd.Flags().SetInterspersed(false)
	return cmd
}

// sandboxExec applies the profile and execs args; it returns only on failure.
func sandboxExec(opts *sandboxOptions, args []string) error {
	home, err := hook.Home()
	if err != nil {
		return err
	}
	scratch := opts.Scratch
	if scratch == "" {
		base := sandbox.ScratchBase()
		if scratch, err = sandbox.Scratch(base, opts.Session); err != nil {
			return err
		}
		sandbox.Sweep(base, scratch)
	}
	p := sandbox.ReadOnly(sandbox.HiddenDirs(home), scratch)
	err = sandbox.Exec(p, args, os.Environ())
	// The probe promised a sandbox and the kernel refused it: the next hook probes again, so
	// that the status line and doctor tell the user.
	sandbox.Forget(home)
	return err
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
	for _, c := range st.Checks {
		mark := "ok  "
		if !c.OK {
			mark = "FAIL"
		}
		fmt.Fprintf(s.out, "%s %s\n", mark, c.Name)
	}
	if !st.Available {
		fmt.Fprintln(s.out, "no sandbox:", st.Reason)
		return exitCode(exitDenied)
	}
	fmt.Fprintln(s.out, "sandbox available:", st.Isolation)
	return nil
}
