package main

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"time"

	"github.com/spf13/cobra"

	"github.com/hookctl/hookctl/config"
	"github.com/hookctl/hookctl/session"
)

type remotesOptions struct {
	Verb    string // list, add
	Host    string
	Project string // a directory of the project, as the user typed it; "" is the current one
	// Self and EnvSession as readonlyOptions has them: the CLI refuses when the environment
	// says it runs in a client session that its processes do not confirm.
	Self       int
	EnvSession string
}

func newRemotesCmd(s *streams) *cobra.Command {
	opts := &remotesOptions{}
	cmd := &cobra.Command{
		Use:   "remotes [add HOST] [--project DIR]",
		Short: "Show or add the hosts edit mode may reach as the project's remotes",
		Long: `remotes shows the hosts edit mode's commands may reach as the project's git remotes, and adds one.

hookctl records a project's remotes once, when it first sees a session there: the hosts of
its git remotes then. It never reads them again from .git/config, which edit mode may
write, so a remote an agent adds (or a pushurl it plants) opens no host, in this session or
the next. When you add a remote yourself, add its host here:
  hookctl remotes add git.example.com
  hookctl remotes add git.example.com:8443
A host is added only by you: the hook refuses this command to the agent in every mode.`,
		Example: `  hookctl remotes
  hookctl remotes add gitlab.example.com
  hookctl remotes --project ~/src/app`,
		Args: cobra.MaximumNArgs(2),
		RunE: func(cmd *cobra.Command, args []string) error {
			switch {
			case len(args) == 0:
				opts.Verb = "list"
			case len(args) == 2 && args[0] == "add":
				opts.Verb, opts.Host = "add", args[1]
			default:
				return errors.New("use `hookctl remotes` or `hookctl remotes add HOST`")
			}
			if opts.Project == "" {
				dir, err := os.Getwd()
				if err != nil {
					return err
				}
				opts.Project = dir
			}
			opts.Self, opts.EnvSession = os.Getpid(), os.Getenv(envSessionVar)
			return remotesRun(s, opts)
		},
	}
	cmd.Flags().StringVar(&opts.Project, "project", "", "a `DIR`ectory of the project (default: the current directory)")
	return cmd
}

func remotesRun(s *streams, opts *remotesOptions) error {
	home, err := config.Home()
	if err != nil {
		return err
	}
	dir, err := filepath.Abs(opts.Project)
	if err != nil {
		return err
	}
	project := session.ProjectOf(dir)
	projects := session.NewProjects(home)
	if opts.Verb == "add" {
		store := session.NewStore(home)
		inside, client, ok := store.ClientSession(opts.Self)
		if opts.EnvSession != "" && (!ok || opts.EnvSession != inside) {
			// As readonly does: the environment says this runs in a client session, and its
			// processes do not confirm which; adding a host is not guessed at.
			return fmt.Errorf("this shell says it is in Claude Code session %s, but hookctl cannot confirm that from its processes%s; nothing changed. Run it in a terminal outside Claude Code",
				store.Short(opts.EnvSession), clientNote(client, ok))
		}
		r, err := projects.Add(project, opts.Host)
		if err != nil {
			return fmt.Errorf("failed to add %s: %w", opts.Host, err)
		}
		fmt.Fprintf(s.out, "%s: edit mode may now reach %s as the project's remotes\n", project, session.DescribeRemotes(r))
		return nil
	}
	r, err := projects.Load(project)
	if errors.Is(err, session.ErrNoProject) {
		fmt.Fprintf(s.out, "%s: no session seen here yet; its remotes are recorded when one starts (or add one: hookctl remotes add HOST)\n", project)
		return nil
	}
	if err != nil {
		return err
	}
	fmt.Fprintf(s.out, "%s: %s\n  recorded %s from %s\n", project, session.DescribeRemotes(r), r.Recorded.Local().Format(time.DateTime), r.From)
	if now := session.ProjectRemotes(dir); len(now) > 0 {
		for _, h := range now {
			if !slices.Contains(r.Hosts(), h) {
				fmt.Fprintf(s.out, "  .git/config now also names %s, which edit mode does not reach (hookctl remotes add %s, if you added it)\n", h, h)
			}
		}
	}
	return nil
}

func clientNote(c session.Proc, ok bool) string {
	if !ok {
		return ""
	}
	return fmt.Sprintf(" (its Claude Code process, pid %d, is in another)", c.PID)
}
