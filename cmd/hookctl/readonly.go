package main

import (
	"errors"
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/hookctl/hookctl/agents/claude"
	"github.com/hookctl/hookctl/config"
	"github.com/hookctl/hookctl/gate"
	"github.com/hookctl/hookctl/hook"
	"github.com/hookctl/hookctl/policy"
	"github.com/hookctl/hookctl/sandbox"
	"github.com/hookctl/hookctl/session"
)

type readonlyOptions struct {
	Verb    string // on, off, review, toggle, status
	Session string // an id or a unique prefix, as the user typed it
	All     bool
	Dir     string // the shell's directory: a session whose project holds it is meant
	// Self is this process's pid: the client process it runs under, if any, is among its
	// ancestors (hook.Store.ClientSession).
	Self int
	// EnvSession is the session the client's environment claims (CLAUDE_CODE_SESSION_ID). It
	// is never enough to pick a session, since the agent can set it for a command it runs: it
	// can only make hookctl refuse, when the process tree disagrees or cannot confirm it.
	EnvSession string
}

// envSessionVar is the variable Claude Code sets in the environment of the user's `! cmd`, the
// agent's Bash and the hooks (2.1.328, live), naming the session.
const envSessionVar = "CLAUDE_CODE_SESSION_ID"

func newReadonlyCmd(s *streams) *cobra.Command {
	opts := &readonlyOptions{}
	cmd := &cobra.Command{
		Use:   "readonly [on|off|review|toggle|status] [--session ID]",
		Short: "Show or change a session's mode (read-only, edit or review)",
		Long: `readonly shows or changes the mode of an agent's session (Claude Code, Codex, Gemini CLI,
Copilot CLI, Qwen Code or Cursor); with no verb it shows it.

Typed in the client's own shell mode (in Claude Code a shell command the user runs with !,
which no hook sees)
  ! hookctl readonly off
it acts on the session it is typed in: hookctl finds the client process it runs under,
which its hook noted in that session. In a terminal outside the client it acts on the
session whose project holds the current directory (a subdirectory counts); if several do,
it refuses and lists them, and --session picks one: a whole id, or any unique prefix of
at least four characters, such as the short id the list shows. A session hookctl has not
seen is refused, never created. Changing the mode is the user's act: the hook refuses it
from the agent, and from inside one session hookctl takes no other session out of
read-only mode.

review is read-only mode plus publishing a review or comment on a pull request
(gh pr review N --comment|--approve|--request-changes -b TEXT, gh pr comment N -b TEXT),
each of which the client asks you to confirm (Claude Code; clients that cannot ask refuse it).

In Claude Code you can also type /readonly (or /readonly status) to see the mode, and
/readonly on, /readonly off or /readonly review to change it.`,
		Example: `  hookctl readonly
  hookctl readonly off
  hookctl readonly review
  hookctl readonly on --session 0b6c41d2
  hookctl readonly status --all`,
		ValidArgs: []string{"on", "off", "review", "toggle", "status"},
		Args:      cobra.MaximumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			opts.Verb = "status"
			if len(args) == 1 {
				opts.Verb = args[0]
			}
			switch opts.Verb {
			case "on", "off", "review", "toggle", "status":
			default:
				return fmt.Errorf("unknown verb %q: use on, off, review, toggle or status", opts.Verb)
			}
			if opts.All && opts.Verb != "status" {
				return errors.New("--all goes with status only")
			}
			if opts.All && opts.Session != "" {
				return errors.New("give --all or --session, not both")
			}
			dir, err := os.Getwd()
			if err != nil {
				return err
			}
			opts.Dir, opts.Self, opts.EnvSession = dir, os.Getpid(), os.Getenv(envSessionVar)
			return readonlyRun(s, opts)
		},
	}
	cmd.Flags().StringVar(&opts.Session, "session", "", "the session `ID` or a unique prefix of it (default: the session this runs in, or the one of this project)")
	cmd.Flags().BoolVar(&opts.All, "all", false, "with status: list every session")
	return cmd
}

func readonlyRun(s *streams, opts *readonlyOptions) error {
	home, err := config.Home()
	if err != nil {
		return err
	}
	cfg, err := gate.LoadConfig(home)
	if err != nil {
		return err
	}
	store := session.NewStore(home)
	if opts.All {
		list, err := store.List()
		if err != nil {
			return err
		}
		if len(list) == 0 {
			fmt.Fprintln(s.out, "no sessions yet")
			return nil
		}
		inside, _, _ := store.ClientSession(opts.Self)
		listSessions(s.out, store, list, inside)
		return nil
	}
	id, inside, err := pickSession(store, opts)
	if err != nil {
		return err
	}
	if opts.Verb == "status" {
		sess, err := store.Load(id)
		if err != nil {
			return fmt.Errorf("%v (the hook treats the session as read-only; `hookctl readonly on|off --session %s` rewrites it)", err, id)
		}
		fmt.Fprintf(s.out, "session %s (%s): %s\n", store.Short(sess.ID), sess.Cwd, session.Badge(sess.Mode))
		if n := len(sess.History); n > 0 {
			last := sess.History[n-1]
			fmt.Fprintf(s.out, "  since %s (%s)\n", last.Time.Local().Format(time.DateTime), last.How)
		}
		return nil
	}
	t := map[string]session.Toggle{"on": session.ToggleOn, "off": session.ToggleOff, "review": session.ToggleReview, "toggle": session.ToggleFlip}[opts.Verb]
	from, to, err := store.HumanToggle(t, id, "cli", inside, cfg.SessionDefault())
	if err != nil {
		return err
	}
	startExport(hookEnv(), cfg) // HumanToggle recorded the change in the decision log
	store.LiveClients(true)     // prune the notes of clients that have exited
	if from == to {
		fmt.Fprintf(s.out, "session %s: already %s\n", store.Short(id), session.Badge(to))
		return nil
	}
	fmt.Fprintf(s.out, "session %s: %s → %s\n", store.Short(id), session.Badge(from), session.Badge(to))
	if from == hook.ModeEdit && to != hook.ModeEdit {
		if n := sandbox.EndEdit(hookEnv().home, id); n > 0 {
			fmt.Fprintf(s.out, "  ended %s that edit mode's commands had left running\n", processes(n))
		}
	}
	if to == hook.ModeReview {
		fmt.Fprintf(s.out, "  each publish asks you first; %s\n", policy.PublishWhere(isolation(hookEnv()), cfg))
	}
	if inside == id {
		// Run in the session's own shell (the user's `! hookctl …`): Claude Code sends this output
		// to the model at once (2.1.328, live), so it says what the model may now do, and the
		// hook need not say it again.
		env := hookEnv()
		g := &gate.Gate{Client: claude.Client, Sandbox: func() policy.Isolation { return isolation(env) }}
		fmt.Fprintln(s.out, g.ModeChangeNotice(from, to, cfg))
		store.SetTold(id, to)
	}
	return nil
}

// processes is n processes, in words.
func processes(n int) string {
	if n == 1 {
		return "1 process"
	}
	return strconv.Itoa(n) + " processes"
}

// pickSession finds the session a readonly command means, and the session the shell runs
// inside (or ""): the one --session names; else the one of the client process this runs under;
// else, outside any client, the one session whose project holds the directory (or the one of
// those still running). Anything less certain is refused, listing the candidates.
func pickSession(store *session.Store, opts *readonlyOptions) (id, inside string, err error) {
	inside, client, ok := store.ClientSession(opts.Self)
	if ok && opts.EnvSession != "" && opts.EnvSession != inside {
		return "", "", fmt.Errorf("this shell's Claude Code process (pid %d) is in session %s, but %s says %s; nothing changed. Pass --session ID",
			client.PID, store.Short(inside), envSessionVar, store.Short(opts.EnvSession))
	}
	if opts.Session != "" {
		id, err := store.Resolve(opts.Session)
		return id, inside, err
	}
	if ok {
		if _, err := store.LastUsed(inside); err != nil {
			return "", "", fmt.Errorf("this shell's Claude Code process is in session %s, which hookctl has no state for: %v", store.Short(inside), err)
		}
		return inside, inside, nil
	}
	cands, err := store.InProject(opts.Dir)
	if err != nil {
		return "", "", err
	}
	live := store.LiveClients(false)
	var running []*session.Session
	for _, c := range cands {
		if live[c.ID] > 0 {
			running = append(running, c)
		}
	}
	var b strings.Builder
	switch {
	case opts.EnvSession != "":
		// The environment says this is a session's shell, but no process above it is a client
		// the hook noted: it cannot be confirmed, so it is not guessed either.
		fmt.Fprintf(&b, "this shell says it is in Claude Code session %s, but hookctl cannot confirm that from its processes; nothing changed.",
			store.Short(opts.EnvSession))
	case len(cands) == 1:
		return cands[0].ID, "", nil
	case len(running) == 1:
		return running[0].ID, "", nil
	case len(cands) == 0:
		return "", "", fmt.Errorf("no session hookctl has seen has its project at or above %s; pass --session ID (hookctl readonly status --all lists them)", opts.Dir)
	default:
		fmt.Fprintf(&b, "%d sessions have their project at or above %s and hookctl cannot tell which you mean; nothing changed.", len(cands), opts.Dir)
	}
	if len(cands) > 0 {
		b.WriteString(" Pass --session ID, one of:\n")
		listSessions(&b, store, cands, "")
	} else {
		b.WriteString(" Pass --session ID (hookctl readonly status --all lists them).")
	}
	return "", "", errors.New(strings.TrimRight(b.String(), "\n"))
}

// listSessions writes one line per session: the short id hookctl accepts, the mode, when it
// started, when the hook last saw it, whether a client is still running it, and its project.
// The session this shell runs in is marked.
func listSessions(w io.Writer, store *session.Store, list []*session.Session, inside string) {
	live := store.LiveClients(false)
	fmt.Fprintf(w, "  %-8s  %-12s  %-16s  %-16s  %-7s  %s\n", "SESSION", "MODE", "STARTED", "LAST ACTIVE", "CLIENT", "PROJECT")
	for _, sess := range list {
		mark := " "
		if sess.ID == inside {
			mark = "*"
		}
		state := "ended"
		if live[sess.ID] > 0 {
			state = "running"
		}
		used := "?"
		if t, err := store.LastUsed(sess.ID); err == nil {
			used = t.Local().Format("2006-01-02 15:04")
		}
		fmt.Fprintf(w, "%s %-8s  %-12s  %-16s  %-16s  %-7s  %s\n", mark, store.Short(sess.ID), session.Badge(sess.Mode),
			sess.Started.Local().Format("2006-01-02 15:04"), used, state, sess.Cwd)
	}
}
