package main

import (
	"errors"
	"fmt"
	"io"
	"os"
	"time"

	"github.com/spf13/cobra"

	"github.com/hookctl/hookctl/hook"
	"github.com/hookctl/hookctl/internal/buildinfo"
)

// Exit codes.
const (
	exitOK     = 0
	exitDenied = 1 // hookctl check: the command is refused
	exitAsked  = 2 // hookctl check: the hook would ask the user (a review-mode publish)
	exitError  = 3 // usage or runtime error
)

// exitError carries a specific exit code out of a command.
type exitCode int

func (e exitCode) Error() string { return fmt.Sprintf("exit %d", int(e)) }

// streams are the process's standard streams, replaced in tests.
type streams struct {
	in       io.Reader
	out, err io.Writer
}

func run(args []string) int {
	s := &streams{in: os.Stdin, out: os.Stdout, err: os.Stderr}
	var root *cobra.Command
	if firstArg(args) == "sandbox" {
		// The launcher starts before every admitted command: it builds its own verb alone.
		root = newRootShell(s)
		root.CompletionOptions.DisableDefaultCmd = true
		root.AddCommand(newSandboxCmd(s))
	} else {
		root = newRootCmd(s)
	}
	root.SetArgs(args)
	var err error
	verb := firstArg(args)
	if verb == "audit" && len(args) > 1 && args[1] == "verify" {
		verb = "audit verify"
	}
	if d, ok := verbDeadline(verb); ok {
		err = withDeadline(d, root.Execute)
	} else {
		err = root.Execute()
	}
	var code exitCode
	switch {
	case err == nil:
		return exitOK
	case errors.As(err, &code):
		return int(code)
	case firstArg(args) == "hook":
		// A hook run that could not start (a flag it does not know): exit 2 with the reason on
		// stderr, which every client reads as a block, where exitError lets Codex and Qwen Code
		// run the call.
		fmt.Fprintf(s.err, "hookctl: %v; the call is refused\n", err)
		return hook.ExitFailed
	default:
		fmt.Fprintln(s.err, "hookctl:", err)
		return exitError
	}
}

// verbDeadline bounds every command a user runs by hand (hook and statusline are bounded where
// they run; retrieve by the retriever's own timeouts): those that read state and config get
// cliDeadline, doctor room for `claude --version` (10 s), install and uninstall room to write.
func verbDeadline(verb string) (time.Duration, bool) {
	switch verb {
	case "readonly", "check", "audit", "version", "--version", "-V":
		return cliDeadline, true
	case "doctor":
		return 20 * time.Second, true
	case "audit verify": // hashes every line: about a second for a full 60 MiB audit
		return time.Minute, true
	case "install", "uninstall":
		return 10 * time.Second, true
	}
	return 0, false
}

func firstArg(args []string) string {
	if len(args) == 0 {
		return ""
	}
	return args[0]
}

// exitCodesHelp is the exit codes as --help lists them.
const exitCodesHelp = `Exit codes:
  0  success; hookctl check: the command is allowed
  1  hookctl check: the command is refused; hookctl doctor: problems found; hookctl log verify,
     audit verify: a log's hash chain does not hold
  2  hookctl check: the hook would ask you (a review-mode publish); hookctl hook: the call
     could not be decided and is refused (the decision is on stdout)
  3  a usage or runtime error, including a session hookctl cannot tell apart (nothing changed)`

func newRootCmd(s *streams) *cobra.Command {
	root := newRootShell(s)
	root.AddCommand(newHookCmd(s), newCheckCmd(s), newReadonlyCmd(s), newRemotesCmd(s), newRetrieveCmd(s),
		newAuditCmd(s), newLogCmd(s), newSandboxCmd(s), newRunCmd(s), newInstallCmd(s), newUninstallCmd(s), newDoctorCmd(s), newStatuslineCmd(s), newVersionCmd(s), newDashboardCmd(s))
	return root
}

// newRootShell is the root command without its verbs.
func newRootShell(s *streams) *cobra.Command {
	version := false
	root := &cobra.Command{
		Use:   "hookctl",
		Short: "A policy gate for coding agents: keeps read-only sessions read-only",
		Long: `hookctl is a policy gate for coding agents. Registered as Claude Code's hook
(hookctl install), it starts every session read-only; you switch a session with
/readonly on|off|review in Claude Code or hookctl readonly.

` + exitCodesHelp,
		Args:          cobra.NoArgs,
		SilenceErrors: true,
		SilenceUsage:  true,
		RunE: func(cmd *cobra.Command, args []string) error {
			if version {
				_, err := fmt.Fprint(s.out, buildinfo.Describe("hookctl"))
				return err
			}
			return cmd.Help()
		},
	}
	root.Flags().BoolVarP(&version, "version", "V", false, "print hookctl's version (as hookctl version does)")
	root.SetIn(s.in)
	root.SetOut(s.out)
	root.SetErr(s.err)
	return root
}
