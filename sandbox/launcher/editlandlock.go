package launcher

import (
	"errors"
	"os"

	"github.com/hookctl/hookctl/config"
	"github.com/hookctl/hookctl/gate"
	"github.com/hookctl/hookctl/session"

	"github.com/hookctl/hookctl/hook"
	"github.com/hookctl/hookctl/sandbox"
)

// editLandlockExec runs args in the Landlock-only edit profile (sandbox.EditLandlock), where
// the kernel gives edit mode no namespaces: hookctl's files, the clients' settings, git's
// code-running files and everything outside the project and the temporary directories stay
// read-only, and there is no network (no egress proxy without a network namespace) unless the
// user gave edit mode the whole network (issue 28). The launcher applies it to itself and execs
// the command; it returns only on failure.
func editLandlockExec(e *Env, home string, opts *Options, args []string) (int, error) {
	cfg := &config.Config{}
	if !opts.ProbeConfine {
		// Checked here, as edit mode's init is registered: a command launched after the session
		// left edit mode does not run. (Without a process namespace, what it starts can outlive
		// the mode: docs/sandbox-environments.md.)
		if mode, _, err := session.NewStore(home).Peek(opts.Session); err != nil || mode != hook.ModeEdit {
			return 0, errors.New("the session is not in edit mode, so edit mode's command did not run")
		}
		var err error
		if cfg, err = gate.LoadConfig(home); err != nil {
			return 0, err
		}
	}
	p := e.EditProfile(home, opts.Session, opts.Project, opts.Scratch, opts.ProbeConfine)
	if !opts.ProbeConfine {
		p.Frozen = append(p.Frozen, nestedClients(home, opts.Session, opts.Project)...)
		if err := sandbox.CheckLinks(p); err != nil {
			return 0, err
		}
	}
	sandbox.EditLandlock(p, cfg.FullNetwork())
	return 0, sandbox.Exec(p, args, os.Environ())
}
