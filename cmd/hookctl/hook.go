package main

import (
	"os"
	"path/filepath"

	"github.com/spf13/cobra"

	"github.com/hookctl/hookctl/agents/claude"
	"github.com/hookctl/hookctl/hook"
)

func newHookCmd(s *streams) *cobra.Command {
	web := false
	cmd := &cobra.Command{
		Use:   "hook [--retrieve]",
		Short: "Answer one Claude Code hook call (payload on stdin, decision on stdout)",
		Long: `hook reads one Claude Code hook payload on standard input and prints the decision.
It is what the Claude Code settings run; it prints nothing but the decision on stdout,
and on any failure it refuses the call. With --retrieve it is the retrieval hook, which
answers WebFetch and WebSearch through the quarantined retriever.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			if code := runHook(s, web); code != hook.ExitDecided {
				return exitCode(code)
			}
			return nil
		},
	}
	cmd.Flags().BoolVar(&web, "retrieve", false, "answer web tools through the retriever")
	return cmd
}

// runHook answers one hook call and returns the exit code.
func runHook(s *streams, web bool) int {
	if os.Getenv(inRetrieverEnv) == "1" {
		return runRetrieverGuard(s)
	}
	env := hookEnv()
	r := &hook.Runner{
		Web: web, Retrieve: hookRetrieve(env), Binary: env.binary,
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

// inRetrieverEnv marks the claude the retriever runs as a distiller (retriever.InRetrieverEnv).
// Its flags keep hookctl's settings-file hooks from firing, but managed hooks always fire; if
// this hook runs there, it refuses every tool call and leaves the rest alone, recording nothing.
const inRetrieverEnv = "HOOKCTL_IN_RETRIEVER"

func runRetrieverGuard(s *streams) int {
	r := &hook.Runner{
		Stdin: s.in, Stdout: s.out, Stderr: s.err, Adapter: claude.Adapter{},
		LoadConfig: func(string) (*hook.Config, error) { return &hook.Config{}, nil },
		Modes:      hook.FixedMode(hook.ModeReadOnly),
	}
	return r.RunRetrieverGuard()
}
