package main

import (
	"errors"
	"fmt"
	"os"
	"time"

	"github.com/spf13/cobra"

	"github.com/hookctl/hookctl/hook"
)

type readonlyOptions struct {
	Verb    string // on, off, review, toggle, status
	Session string
	All     bool
	Dir     string // the directory whose most recent session is meant
}

func newReadonlyCmd(s *streams) *cobra.Command {
	opts := &readonlyOptions{}
	cmd := &cobra.Command{
		Use:   "readonly on|off|review|toggle|status [--session ID]",
		Short: "Show or change a session's mode (read-only, edit or review)",
		Long: `readonly shows or changes the mode of a Claude Code session. Without --session it acts on
the most recent session started in the current directory, so that typing
  ! hookctl readonly off
in Claude Code (a shell command the user runs, which no hook sees) switches the session
you are in. Changing the mode is the user's act: the hook refuses it from the agent.

review is read-only mode plus publishing a review or comment on a pull request
(gh pr review N --comment|--approve|--request-changes -b TEXT, gh pr comment N -b TEXT),
each of which Claude Code asks you to confirm. An approved publish runs outside
hookctl's sandbox, with your gh credentials.

In Claude Code you can also type /readonly, /readonly on, /readonly off or /readonly review.`,
		Example: `  hookctl readonly status
  hookctl readonly off
  hookctl readonly review
  hookctl readonly on --session 0b6c…
  hookctl readonly status --all`,
		ValidArgs: []string{"on", "off", "review", "toggle", "status"},
		Args:      cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			opts.Verb = args[0]
			switch opts.Verb {
			case "on", "off", "review", "toggle", "status":
			default:
				return fmt.Errorf("unknown verb %q: use on, off, review, toggle or status", args[0])
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
			opts.Dir = dir
			return readonlyRun(s, opts)
		},
	}
	cmd.Flags().StringVar(&opts.Session, "session", "", "the session `ID` (default: the most recent session in this directory)")
	cmd.Flags().BoolVar(&opts.All, "all", false, "with status: list every session")
	return cmd
}

func readonlyRun(s *streams, opts *readonlyOptions) error {
	home, err := hook.Home()
	if err != nil {
		return err
	}
	cfg, err := hook.LoadConfig(home)
	if err != nil {
		return err
	}
	store := hook.NewStore(home)
	if opts.All {
		list, err := store.List()
		if err != nil {
			return err
		}
		if len(list) == 0 {
			fmt.Fprintln(s.out, "no sessions yet")
		}
		for _, sess := range list {
			fmt.Fprintf(s.out, "%s  %-12s  %s\n", sess.ID, hook.Badge(sess.Mode), sess.Cwd)
		}
		return nil
	}
	id := opts.Session
	cwd := ""
	if id == "" {
		sess, err := store.MostRecentIn(opts.Dir)
		if err != nil {
			return err
		}
		id, cwd = sess.ID, sess.Cwd
	}
	if opts.Verb == "status" {
		sess, err := store.Load(id)
		switch {
		case errors.Is(err, hook.ErrNoSession):
			fmt.Fprintf(s.out, "session %s: not seen yet; it will start %s\n", id, hook.Badge(cfg.SessionDefault()))
			return nil
		case err != nil:
			return fmt.Errorf("%v (the hook treats the session as read-only; `hookctl readonly on|off --session %s` rewrites it)", err, id)
		}
		fmt.Fprintf(s.out, "session %s (%s): %s\n", sess.ID, sess.Cwd, hook.Badge(sess.Mode))
		if n := len(sess.History); n > 0 {
			last := sess.History[n-1]
			fmt.Fprintf(s.out, "  since %s (%s)\n", last.Time.Local().Format(time.DateTime), last.How)
		}
		return nil
	}
	t := map[string]hook.Toggle{"on": hook.ToggleOn, "off": hook.ToggleOff, "review": hook.ToggleReview, "toggle": hook.ToggleFlip}[opts.Verb]
	from, to, err := t.Apply(store, id, "cli", cwd, cfg.SessionDefault())
	if err != nil {
		return err
	}
	if from == to {
		fmt.Fprintf(s.out, "session %s: already %s\n", id, hook.Badge(to))
		return nil
	}
	fmt.Fprintf(s.out, "session %s: %s → %s\n", id, hook.Badge(from), hook.Badge(to))
	if to == hook.ModeReview {
		fmt.Fprintf(s.out, "  each publish asks you first; %s\n", hook.PublishWhere(isolation(hookEnv()), cfg))
	}
	return nil
}
