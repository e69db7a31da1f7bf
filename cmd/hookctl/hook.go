package main

import (
	"os"
	"path/filepath"

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
	env := hookEnv()
	r := &hook.Runner{
		Stdin: s.in, Stdout: s.out, Stderr: s.err,
		Adapter: claude.Adapter{},
		LoadConfig: func(cwd string) (*hook.Config, error) {
			if env.err != nil {
				return nil, env.err
			}
			return hook.LoadConfigFor(env.home, cwd)
		},
		Modes: hook.FixedMode(hook.ModeReadOnly),
		Protect: func(cwd string) hook.Protection {
			return hook.Protection{Home: env.userHome, Paths: hook.ProtectedPaths(env.home, env.userHome, env.binary, cwd)}
		},
	}
	if env.err == nil {
		r.Store = hook.NewStore(env.home)
		r.Modes = hook.StoreModes{Store: r.Store}
	}
	r.CommandCheck = func() error { return claude.CheckReadonlyCommand(env.userHome) }
	return r.Run()
}

// environment is where hookctl lives on this machine.
type environment struct {
	home     string // $HOOKCTL_HOME
	userHome string
	binary   string // this executable, symlinks resolved
	err      error  // hookctl's home cannot be found: every call is refused
}

func hookEnv() environment {
	var e environment
	e.home, e.err = hook.Home()
	e.userHome, _ = os.UserHomeDir()
	if exe, err := os.Executable(); err == nil {
		if real, err := filepath.EvalSymlinks(exe); err == nil {
			exe = real
		}
		e.binary = exe
	}
	return e
}

func loadConfig() (*hook.Config, error) {
	home, err := hook.Home()
	if err != nil {
		return nil, err
	}
	return hook.LoadConfig(home)
}
