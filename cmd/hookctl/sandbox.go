package main

import (
	"encoding/json"
	"fmt"

	"github.com/spf13/cobra"

	"github.com/hookctl/hookctl/agents/claude"
	"github.com/hookctl/hookctl/sandbox"
	"github.com/hookctl/hookctl/sandbox/launcher"
)

// exitSandboxFailed is the launcher's status when the sandbox could not be applied and so
// nothing ran (126: "found but could not be run", as the shell says it).
const exitSandboxFailed = launcher.ExitFailed

func newSandboxCmd(s *streams) *cobra.Command {
	opts := &launcher.Options{}
	var probe, forget, asJSON bool
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
			// The processes hookctl starts itself come first (launcher.RoleOf), then the user's
			// --probe and --forget, then the launchers of the profiles.
			if launcher.RoleOf(opts) == "" {
				switch {
				case probe:
					return sandboxProbe(s, asJSON)
				case forget:
					return sandboxForget(s)
				}
			}
			code, err := launcher.Run(launchEnv(), opts, args, launcher.Stdio{In: s.in, Out: s.out, Err: s.err})
			if err != nil {
				return err
			}
			return exitCode(code)
		},
	}
	cmd.Flags().StringVar(&opts.Profile, "profile", sandbox.ReadOnlyName, "the sandbox profile")
	cmd.Flags().StringVar(&opts.Session, "session", "", "the session whose scratch directory is TMPDIR")
	cmd.Flags().StringVar(&opts.Scratch, "scratch", "", "use `DIR` as the scratch directory")
	cmd.Flags().StringVar(&opts.Project, "project", "", "edit profile: the project `DIR` it may write")
	cmd.Flags().BoolVar(&probe, "probe", false, "try the sandbox and report whether it holds here")
	cmd.Flags().BoolVar(&asJSON, "json", false, "with --probe, print the result as JSON")
	cmd.Flags().BoolVar(&forget, "forget", false, "forget the probe's result, and that the sandbox ever held on this machine")
	cmd.Flags().StringArrayVar(&opts.Read, "read", nil, "secure-read-only: a `DIR` it may read")
	cmd.Flags().StringArrayVar(&opts.Write, "write", nil, "secure-read-only: a `DIR` it may write")
	cmd.Flags().DurationVar(&opts.Timeout, "timeout", 0, "stop a read-only or policy-only command after `DURATION`")
	cmd.Flags().StringArrayVar(&opts.PassEnv, "pass-env", nil, "read-only and policy-only: pass the variable `NAME` too (the config's pass_env when none is given)")
	opts.AddFlags(cmd.Flags())
	cmd.Flags().SetInterspersed(false)
	return cmd
}

// launchEnv is what the sandbox launcher knows of this installation: hookctl's executable, and
// every client's settings and configuration directories, which edit mode's sandbox freezes.
func launchEnv() *launcher.Env {
	return &launcher.Env{Binary: hookEnv().binary, Client: guarding(claude.Client),
		ClientDirs: launcher.ClientDirs{Home: clientDirs.home, Project: clientDirs.project, System: clientDirs.system}}
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

func sandboxProbe(s *streams, asJSON bool) error {
	env := hookEnv()
	if env.err != nil {
		return env.err
	}
	st := sandbox.Probe(env.home, env.binary)
	if asJSON {
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
