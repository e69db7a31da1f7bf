package main

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"

	"github.com/spf13/cobra"

	"github.com/hookctl/hookctl/agents/claude"
	"github.com/hookctl/hookctl/config"
	"github.com/hookctl/hookctl/gate"
	"github.com/hookctl/hookctl/hook"
	"github.com/hookctl/hookctl/internal/shellglob"
	"github.com/hookctl/hookctl/lexer"
	"github.com/hookctl/hookctl/policy"
)

type checkOptions struct {
	Mode      string
	AgentType string
	JSON      bool
	Explain   bool
	Payload   string
	Command   string
}

func newCheckCmd(s *streams) *cobra.Command {
	opts := &checkOptions{}
	cmd := &cobra.Command{
		Use:   "check [--mode read-only|edit|review] [--agent-type T] [--explain] [--json] -- 'COMMAND' | check --payload FILE",
		Short: "Judge a shell command (or a whole hook payload) as the hook would",
		Long: `check prints the verdict and reason the hook gives a shell command in a session of the
given mode (read-only unless --mode says otherwise), run from the current directory with the
same configuration the hook would use there (your config and the project's .hookctl.toml),
and the exact command the hook would have the client run instead. With --payload it judges a
recorded Claude Code PreToolUse payload (use - for standard input).

--explain shows how the read-only judge reached it, stage by stage: the lexer's tokens, the
shape parser's structure, whether the second parser (mvdan.cc/sh, as bash and as zsh) agrees,
the rule of each program, the sensitive-file rule over every file named, the rewrite, and
whether the command needs the sandbox. It stops where the judge stops.

Exit status: 0 allowed, or no objection (edit mode's guard passed it); 1 refused; 2 the hook
would ask you (a review-mode publish); 3 a usage or configuration error.`,
		Example: `  hookctl check -- 'sed -i s/a/b/ f'
  hookctl check -- 'git log --oneline -5 | head -3'
  hookctl check --json -- 'rg -n TODO'
  hookctl check --explain -- 'for f in *.md; do wc -l "$f"; done'
  hookctl check --mode edit -- 'rm -rf ~'
  hookctl check --mode review -- 'gh pr comment 7 -b "LGTM"'
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
	cmd.Flags().StringVar(&opts.Mode, "mode", "read-only", "judge as a session in this mode: read-only, edit or review")
	cmd.Flags().StringVar(&opts.AgentType, "agent-type", "", "judge as a call from this subagent type")
	cmd.Flags().BoolVar(&opts.JSON, "json", false, "print the result as JSON")
	cmd.Flags().BoolVar(&opts.Explain, "explain", false, "show each stage of the read-only judge")
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
	// Rule names what decided (the decision log's rule).
	Rule string `json:"rule,omitempty"`
	// Steps are the read-only judge's stages, with --explain.
	Steps []policy.Step `json:"steps,omitempty"`
}

func checkRun(s *streams, opts *checkOptions) error {
	mode, err := hook.ParseMode(opts.Mode)
	if err != nil {
		return err
	}
	call := &hook.ToolCall{Tool: claude.Tools.Shell(), Kind: hook.KindShell, Command: opts.Command, AgentType: opts.AgentType, Input: json.RawMessage(`{}`)}
	if opts.Payload != "" {
		if call, err = readPayload(s, opts.Payload); err != nil {
			return err
		}
	}
	if call.Cwd == "" {
		call.Cwd, _ = os.Getwd() // relative paths are read from here, as the client's shell would
	}
	env := hookEnv()
	if env.err != nil {
		return env.err
	}
	cfg, err := gate.LoadConfigFor(env.home, call.Cwd)
	if err != nil {
		return err
	}
	d := newPolicy(env, cfg, call).Decide(call, policy.SessionState{Mode: mode, Project: call.Cwd})
	res := checkResult{Verdict: d.Verdict.String(), Reason: d.Reason, Command: d.Command, Isolation: d.Isolation, Rule: d.Rule}
	if opts.Explain && call.Kind == hook.KindShell && mode != hook.ModeEdit {
		res.Steps = policy.ExplainReadOnly(lexer.NewCommandLine(call.Command), cfg, shellglob.World{})
	}
	if opts.JSON {
		enc := json.NewEncoder(s.out)
		enc.SetEscapeHTML(false)
		if err := enc.Encode(res); err != nil {
			return err
		}
	} else {
		printSteps(s.out, opts, call, mode, res)
		printCheck(s.out, call, res)
	}
	switch d.Verdict {
	case hook.Deny:
		return exitCode(exitDenied)
	case hook.Ask:
		return exitCode(exitAsked)
	}
	return nil
}

// newPolicy is the policy Claude Code's hook decides a call c with under cfg: the hook's own
// gate's (newGate, Gate.NewPolicy), so that check says what the hook decides. Only the client's
// own permission rules are left out: check says what hookctl decides, and where hookctl passes,
// that the user's rules decide.
func newPolicy(env environment, cfg *config.Config, c *hook.ToolCall) *policy.Policy {
	a, _ := agentNamed("claude")
	loaded := func(string) (*config.Config, error) { return cfg, nil }
	g := newGate(env, a, loaded, func() policy.Isolation { return isolation(env) })
	g.ClientRules = nil
	return g.NewPolicy(cfg, c)
}

// printSteps prints --explain's stages before the verdict. The stages are the read-only
// judge's; in edit mode the guard decides, so only the rule it applied is named.
func printSteps(w io.Writer, opts *checkOptions, c *hook.ToolCall, mode hook.Mode, r checkResult) {
	if !opts.Explain {
		return
	}
	if c.Kind != hook.KindShell || mode == hook.ModeEdit {
		fmt.Fprintf(w, "decided by: %s\n", or(r.Rule, "(no rule recorded)"))
		return
	}
	for i, st := range r.Steps {
		mark := "ok"
		if !st.OK {
			mark = "REFUSED"
		}
		fmt.Fprintf(w, "%d. %s: %s — %s\n", i+1, st.Stage, mark, st.Detail)
	}
	fmt.Fprintf(w, "decided by: %s\n", or(r.Rule, "(no rule recorded)"))
}

func printCheck(w io.Writer, c *hook.ToolCall, r checkResult) {
	switch {
	case r.Verdict == "deny":
		fmt.Fprintf(w, "deny: %s\n", r.Reason)
	case r.Verdict == "ask":
		fmt.Fprintf(w, "ask: %s\nruns, if you approve: %s\n", r.Reason, r.Command)
	case r.Verdict == "pass" && r.Command != "":
		fmt.Fprintf(w, "pass: hookctl has no objection, and your permission rules decide\nruns: %s\n", r.Command)
	case r.Command != "":
		fmt.Fprintf(w, "allow\nruns: %s\n", r.Command)
	default:
		fmt.Fprintf(w, "pass: no objection to %s\n", c.Tool)
		return
	}
	if r.Isolation != "" && r.Verdict != "deny" {
		fmt.Fprintf(w, "under: %s\n", r.Isolation)
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
