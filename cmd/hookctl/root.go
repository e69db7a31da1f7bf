package main

import (
	"errors"
	"fmt"
	"io"
	"os"

	"github.com/spf13/cobra"
)

// Exit codes.
const (
	exitOK     = 0
	exitDenied = 1 // hookctl check: the command is refused
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
	root := newRootCmd(s)
	root.SetArgs(args)
	err := root.Execute()
	var code exitCode
	switch {
	case err == nil:
		return exitOK
	case errors.As(err, &code):
		return int(code)
	default:
		fmt.Fprintln(s.err, "hookctl:", err)
		return exitError
	}
}

func newRootCmd(s *streams) *cobra.Command {
	root := &cobra.Command{
		Use:           "hookctl",
		Short:         "A policy gate for coding agents: keeps read-only sessions read-only",
		SilenceErrors: true,
		SilenceUsage:  true,
	}
	root.SetIn(s.in)
	root.SetOut(s.out)
	root.SetErr(s.err)
	root.AddCommand(newHookCmd(s), newCheckCmd(s), newReadonlyCmd(s), newRetrieveCmd(s),
		newAuditCmd(s), newInstallCmd(s), newUninstallCmd(s), newDoctorCmd(s), newStatuslineCmd(s), newVersionCmd(s))
	return root
}
