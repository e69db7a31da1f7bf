package main

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"syscall"

	"github.com/spf13/cobra"
)

// dashboardExecutable is the dashboard's executable (package dashboard), installed next to
// hookctl's: it links net/http, which hookctl must not (internal/buildcheck), so hookctl
// replaces itself with it.
const dashboardExecutable = "hookctl-dashboard"

type dashboardOptions struct {
	Port int
	Open bool
}

func newDashboardCmd(s *streams) *cobra.Command {
	opts := &dashboardOptions{}
	cmd := &cobra.Command{
		Use:   "dashboard [--port N] [--open]",
		Short: "Serve a local web page of every session's mode (with a toggle), the decisions, retrievals and secure runs",
		Long: `dashboard starts a web server on 127.0.0.1 (a free port, or --port) and prints its address
with a fresh token, once: the token lives in the server's memory only, and whoever has it can
change your sessions' modes. The page lists every session with its mode, project, client, start,
last activity, whether it is live and whether its commands run sandboxed; each session's menu
switches its mode, after you confirm, as hookctl readonly does. It also shows the decision log
(filter by session, verdict, tool and time; each decision step by step, as hookctl log why),
the retrieval audit (each entry's need, answer, injection flags and isolation, and the raw
content kept by audit.keep_raw, shown as untrusted text) and the secure runs under
$HOOKCTL_HOME/runs. It updates itself every few seconds. Ctrl-C stops it.

Run it in a terminal of its own, not inside Claude Code: what a command typed there prints goes
to the model, so it refuses to start there. docs/dashboard.md has the threat model.`,
		Example: `  hookctl dashboard
  hookctl dashboard --port 8377 --open`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			return dashboardRun(opts)
		},
	}
	cmd.Flags().IntVar(&opts.Port, "port", 0, "the port on 127.0.0.1 (default: a free one)")
	cmd.Flags().BoolVar(&opts.Open, "open", false, "open the page in the browser, with a token that works once")
	return cmd
}

// dashboardRun replaces this process with the dashboard's executable beside hookctl's, so that
// the terminal, the signals and the process id (which the dashboard checks against the agent
// clients' processes) stay the user's.
func dashboardRun(opts *dashboardOptions) error {
	env := hookEnv()
	if env.err != nil {
		return env.err
	}
	if env.binary == "" || !filepath.IsAbs(env.binary) {
		return errors.New("hookctl cannot find its own executable, next to which " + dashboardExecutable + " is installed")
	}
	path := filepath.Join(filepath.Dir(env.binary), dashboardExecutable)
	if _, err := os.Stat(path); err != nil {
		return fmt.Errorf("%s is missing; it is installed next to hookctl (make install)", path)
	}
	args := []string{dashboardExecutable, "--port", strconv.Itoa(opts.Port)}
	if opts.Open {
		args = append(args, "--open")
	}
	return syscall.Exec(path, args, os.Environ())
}
