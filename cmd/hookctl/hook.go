package main

import (
	"github.com/spf13/cobra"

	"github.com/hookctl/hookctl/agents/claude"
	"github.com/hookctl/hookctl/hook"
)

func newHookCmd(s *streams) *cobra.Command {
	return &cobra.Command{
		Use:   "hook",
		Short: "Answer one Claude Code hook call (payload on stdin, decision on stdout)",
		Long: `hook reads one Claude Code hook payload on standard input and prints the decision.
It is what the Claude Code settings run; it prints nothing but the decision on stdout,
and on any failure it refuses the call.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			if code := runHook(s); code != hook.ExitDecided {
				return exitCode(code)
			}
			return nil
		},
	}
}

// runHook answers one hook call and returns the exit code.
func runHook(s *streams) int {
	r := &hook.Runner{
		Stdin: s.in, Stdout: s.out, Stderr: s.err,
		Adapter:    claude.Adapter{},
		LoadConfig: loadConfig,
		// Session modes arrive with session state; until then only read-only agent types are
		// read-only.
		Modes: hook.FixedMode(hook.ModeEdit),
	}
	return r.Run()
}

func loadConfig() (*hook.Config, error) {
	home, err := hook.Home()
	if err != nil {
		return nil, err
	}
	return hook.LoadConfig(home)
}
