package main

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"

	"github.com/spf13/cobra"

	"github.com/hookctl/hookctl/agents/claude"
	"github.com/hookctl/hookctl/hook"
)

type checkOptions struct {
	AgentType string
	JSON      bool
	Payload   string
	Command   string
}

func newCheckCmd(s *streams) *cobra.Command {
	opts := &checkOptions{}
	cmd := &cobra.Command{
		Use:   "check [--agent-type T] [--json] -- 'COMMAND' | check --payload FILE",
		Short: "Judge a shell command (or a whole hook payload) under read-only rules",
		Long: `check prints the verdict and reason that read-only mode gives a shell command, and the
exact command the hook would run instead. With --payload it judges a recorded Claude Code
PreToolUse payload (use - for standard input) as a read-only session would.

Exit status: 0 allowed (or no opinion), 1 refused.`,
		Example: `  hookctl check -- 'sed -i s/a/b/ f'
  hookctl check -- 'git log --oneline -5 | head -3'
  hookctl check --json -- 'rg -n TODO'
  hookctl check --payload fixtures/claude/explore-bash-sed-i.json`,
		RunE: func(cmd *cobra.Command, args []string) error {
			switch {
			case opts.Payload != "" && len(args) > 0:
				return errors.New("give either --payload or a command, not both")
			case opts.Payload == "" && len(args) != 1:
				return errors.New("give the command as one quoted argument after --, e.g. hookctl check -- 'ls -la'")
			}
			if len(args) == 1 {
				opts.Command = args[0]
			}
			return checkRun(s, opts)
		},
	}
	cmd.Flags().StringVar(&opts.AgentType, "agent-type", "", "judge as a call from this subagent type")
	cmd.Flags().BoolVar(&opts.JSON, "json", false, "print the result as JSON")
	cmd.Flags().StringVar(&opts.Payload, "payload", "", "judge a whole PreToolUse payload from `FILE`")
	return cmd
}

type checkResult struct {
	Verdict string `json:"verdict"`
	Reason  string `json:"reason,omitempty"`
	// Command is what the hook runs instead of the agent's command, on allow.
	Command string `json:"command,omitempty"`
	// Isolation says what holds the command besides the policy (the sandbox, or policy only).
	Isolation string `json:"isolation,omitempty"`
}

func checkRun(s *streams, opts *checkOptions) error {
	cfg, err := loadConfig()
	if err != nil {
		return err
	}
	call := &hook.ToolCall{Tool: "Bash", Kind: hook.KindShell, Command: opts.Command, AgentType: opts.AgentType, Input: json.RawMessage(`{}`)}
	if opts.Payload != "" {
		if call, err = readPayload(s, opts.Payload); err != nil {
			return err
		}
	}
	if call.Cwd == "" {
		call.Cwd, _ = os.Getwd() // relative paths are read from here, as the client's shell would
	}
	env := hookEnv()
	p := &hook.Policy{Config: cfg, Client: claude.Client, Binary: env.binary, ResolveReads: hook.ResolveReads,
		Sandbox: func() hook.Isolation { return isolation(env) }}
	d := p.Decide(call, hook.SessionState{Mode: hook.ModeReadOnly})
	res := checkResult{Verdict: d.Verdict.String(), Reason: d.Reason, Command: d.Command, Isolation: d.Isolation}
	if opts.JSON {
		enc := json.NewEncoder(s.out)
		enc.SetEscapeHTML(false)
		if err := enc.Encode(res); err != nil {
			return err
		}
	} else {
		printCheck(s.out, call, res)
	}
	if d.Verdict == hook.Deny {
		return exitCode(exitDenied)
	}
	return nil
}

func printCheck(w io.Writer, c *hook.ToolCall, r checkResult) {
	switch {
	case r.Verdict == "deny":
		fmt.Fprintf(w, "deny: %s\n", r.Reason)
	case r.Command != "":
		fmt.Fprintf(w, "allow\nruns: %s\n", r.Command)
		if r.Isolation != "" {
			fmt.Fprintf(w, "under: %s\n", r.Isolation)
		}
	default:
		fmt.Fprintf(w, "pass: read-only mode has no objection to %s\n", c.Tool)
	}
}

func readPayload(s *streams, path string) (*hook.ToolCall, error) {
	var r io.Reader = s.in
	if path != "-" {
		f, err := os.Open(path)
		if err != nil {
			return nil, fmt.Errorf("failed to open the payload: %w", err)
		}
		defer f.Close()
		r = f
	}
	b, err := io.ReadAll(io.LimitReader(r, hook.MaxPayload+1))
	if err != nil {
		return nil, fmt.Errorf("failed to read the payload: %w", err)
	}
	if len(b) > hook.MaxPayload {
		return nil, fmt.Errorf("the payload is over %d bytes", hook.MaxPayload)
	}
	ev, err := claude.Adapter{}.Decode(b)
	if err != nil {
		return nil, fmt.Errorf("failed to read the payload: %w", err)
	}
	if ev.Call == nil {
		return nil, errors.New("the payload is not a tool call (PreToolUse)")
	}
	return ev.Call, nil
}
