package main

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/hookctl/hookctl/audit"
	"github.com/hookctl/hookctl/gate"
	"github.com/hookctl/hookctl/hook"
	"github.com/hookctl/hookctl/internal/clip"
	"github.com/hookctl/hookctl/policy"
)

type logOptions struct {
	Denied  bool
	Session string
	Since   time.Duration
	JSON    bool
}

func newLogCmd(s *streams) *cobra.Command {
	opts := &logOptions{}
	cmd := &cobra.Command{
		Use:   "log [--denied] [--session ID] [--since 2h] [--json] | log why ID | log verify",
		Short: "List the hook's decisions: every tool call and mode change, and why",
		Long: `log lists every decision the hook made, oldest first: when, in which session and mode,
which tool, the verdict (allow, deny, ask, pass), the part of the policy that decided, and the
command, with anything that looks like a secret withheld; refusals made before any decision (a
payload hookctl could not read, its deadline) too. The log is
$HOOKCTL_HOME/log/decisions.jsonl, rotated at 10 MiB to .1 … .5, with the lanes a burst of
hooks writes beside it (decisions.lane1.jsonl …).

--session takes a session id or a unique prefix of one. log why ID prints one decision step
by step, and what hookctl's rules say about the same command now.

Each log is a hash chain: every record carries its lane's count (seq) and the SHA-256 of the
line before it (prev_hash). log verify checks the decision log's and the audit's chains and
names every record changed, removed or out of order by file, line and id; it exits 1 if a
chain does not hold. Records written by a hookctl older than the chain are counted, not
checked.`,
		Example: `  hookctl log --denied --since 1h
  hookctl log --session 4f0c --json
  hookctl log why 20261201T101500.123Z-8f2a9c1d
  hookctl log verify`,
		Args: cobra.ArbitraryArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			if len(args) == 2 && args[0] == "why" {
				return logWhy(s, args[1])
			}
			if len(args) == 1 && args[0] == "verify" {
				return verifyLogs(s, true, true)
			}
			if len(args) > 0 {
				return errors.New("use hookctl log [flags], hookctl log why ID or hookctl log verify")
			}
			return logList(s, opts)
		},
	}
	cmd.Flags().BoolVar(&opts.Denied, "denied", false, "only refusals")
	cmd.Flags().StringVar(&opts.Session, "session", "", "only this session's decisions (an id or a unique prefix)")
	cmd.Flags().DurationVar(&opts.Since, "since", 0, "only decisions newer than this, e.g. 2h")
	cmd.Flags().BoolVar(&opts.JSON, "json", false, "print the entries as JSON lines")
	return cmd
}

func readLog(s *streams) ([]hook.LogEntry, error) {
	env := hookEnv()
	if env.err != nil {
		return nil, env.err
	}
	entries, damaged, err := audit.DecisionLogAt(env.home).Entries()
	if damaged > 0 {
		fmt.Fprintf(s.err, "hookctl: %d damaged line(s) in the decision log were skipped\n", damaged)
	}
	return entries, err
}

// matchSession resolves a session id or a unique prefix of one among the entries.
func matchSession(entries []hook.LogEntry, want string) (string, error) {
	seen := map[string]bool{}
	var matches []string
	for _, e := range entries {
		if e.Session == want {
			return want, nil
		}
		if strings.HasPrefix(e.Session, want) && !seen[e.Session] {
			seen[e.Session] = true
			matches = append(matches, e.Session)
		}
	}
	switch len(matches) {
	case 0:
		return "", fmt.Errorf("no decisions of a session %q in the log", want)
	case 1:
		return matches[0], nil
	}
	return "", fmt.Errorf("%q is the start of %d sessions' ids (%s): give more of it", want, len(matches), strings.Join(matches, ", "))
}

func logList(s *streams, opts *logOptions) error {
	entries, err := readLog(s)
	if err != nil {
		return err
	}
	session := ""
	if opts.Session != "" {
		if session, err = matchSession(entries, opts.Session); err != nil {
			return err
		}
	}
	cutoff := time.Time{}
	if opts.Since > 0 {
		cutoff = time.Now().Add(-opts.Since)
	}
	n, out := 0, visibleTo(s.out)
	for _, e := range entries {
		if session != "" && e.Session != session || opts.Denied && e.Verdict != "deny" || e.Time.Before(cutoff) {
			continue
		}
		n++
		if opts.JSON {
			b, _ := json.Marshal(e)
			fmt.Fprintln(s.out, string(b))
			continue
		}
		what := e.Command
		if e.Event == "toggle" {
			switch {
			case e.From != "" && e.From != e.To:
				what = "(mode change, " + e.How + ": " + e.From + " → " + e.To + ")"
			case e.From != "":
				what = "(mode asked, " + e.How + ": " + e.To + ")"
			default:
				what = "(mode change, " + or(e.How, "prompt") + ": refused)"
			}
		} else if label := eventLabel(e.Event); label != "" {
			what = label
		} else if what == "" {
			what = "(" + or(e.Tool, e.Event) + ")" // a refusal before any decision names no tool
		}
		fmt.Fprintf(out, "%s  %s  %-9s %-5s %-8s %s\n", e.Time.Local().Format("2006-01-02 15:04:05"), shortID(e.Session),
			e.Mode, e.Verdict, e.Tool, clip.String(what, 80))
		fmt.Fprintf(out, "    id %s  %s: %s\n", e.ID, e.Rule, clip.String(e.Reason, 120))
	}
	if n == 0 && !opts.JSON {
		fmt.Fprintln(s.out, "no decisions recorded")
	}
	return nil
}

// eventLabel shows a record that is not a command's decision, or is "".
func eventLabel(event string) string {
	switch event {
	case "toggle":
		return "(mode change)"
	case "session_start":
		return "(session start)"
	case "session_end":
		return "(session end)"
	case "run_start":
		return "(hookctl run: start)"
	case "run_end":
		return "(hookctl run: end)"
	}
	return ""
}

// logWhy prints one decision step by step, then what the rules say about the same command now
// (they may have changed since: a config edit, a new hookctl).
func logWhy(s *streams, id string) error {
	entries, err := readLog(s)
	if err != nil {
		return err
	}
	for _, e := range entries {
		if e.ID != id {
			continue
		}
		for i, step := range audit.WhySteps(e, judgeNow) {
			fmt.Fprintf(visibleTo(s.out), "%d. %s\n", i+1, step)
		}
		return nil
	}
	return fmt.Errorf("no decision %s in the log", id)
}

// judgeNow decides e's command again with today's config and rules, for a session in mode m.
func judgeNow(e hook.LogEntry, m hook.Mode) hook.Decision {
	env := hookEnv()
	cfg, err := gate.LoadConfigFor(env.home, e.Cwd)
	if err != nil {
		return hook.Decision{Verdict: hook.Deny, Reason: err.Error()}
	}
	call := &hook.ToolCall{Session: e.Session, Tool: e.Tool, Kind: hook.KindShell, Command: e.Command, Cwd: e.Cwd, AgentType: e.AgentType}
	return newPolicy(env, cfg, call).Decide(call, policy.SessionState{Mode: m})
}

// visibleTo writes to w with escape sequences, other control characters and bidi and other
// format characters shown as ⟨U+XXXX⟩ (clip.Visible): the log and the audit quote what the
// model and web pages wrote, which must not reach the user's terminal as control sequences.
func visibleTo(w io.Writer) io.Writer { return visibleWriter{w} }

type visibleWriter struct{ w io.Writer }

func (v visibleWriter) Write(p []byte) (int, error) {
	if _, err := io.WriteString(v.w, clip.Visible(string(p))); err != nil {
		return 0, err
	}
	return len(p), nil
}

func or(s, otherwise string) string {
	if s == "" {
		return otherwise
	}
	return s
}
