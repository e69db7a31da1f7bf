// Package readonly is the launcher of the read-only profile, the process every shell command the
// read-only judge admits starts as, and of the policy-only one that stands in for it where the
// kernel's sandbox cannot apply. It has an executable of its own, hookctl-sandbox (cmd), which
// links only this package and what it needs: the config, the sandbox, git's files. It starts
// before every admitted read, and in hookctl's executable the start-up alone (the package inits
// of the hook, the judge and the CLI) was 0.8 ms of a 4.9 ms launch (issue 28).
// `hookctl sandbox` runs the same code for the same profiles (sandbox/launcher).
package readonly

import (
	"fmt"
	"os"
	"strings"
	"time"

	"github.com/hookctl/hookctl/internal/gitrepo"
	"github.com/hookctl/hookctl/sandbox"
)

// PolicyOnlyName is the profile where the sandbox cannot apply (`--profile policy-only`): the
// read-only profile's environment and time bound, no kernel rules.
const PolicyOnlyName = "policy-only"

// Executable is the launcher's own executable, installed beside hookctl's.
const Executable = sandbox.LauncherName

// Options are the launch's: the session whose scratch directory the command may write (or the
// probe's own directory, Scratch), the bound on its run, and the variables the user's config
// adds to the environment's allowlist (pass_env), as the hook that admitted the command read
// it: the launcher reads no config, and links no TOML decoder to start up.
type Options struct {
	Session string
	Scratch string
	Timeout time.Duration
	PassEnv []string
}

// Launch runs args in the read-only profile, as a child bounded by o.Timeout in namespaces of
// its own where the kernel allows (sandbox.RunReadOnly), and returns its exit status. It fails,
// and nothing has run, when the sandbox cannot be applied.
func Launch(home string, o Options, args []string) (int, error) {
	scratch, err := OpenScratch(home, o)
	if err != nil {
		return 0, err
	}
	defer scratch.Close()
	// Other terminals too: a command could read one's input, its user's keystrokes (its own
	// terminal it has open already, and /dev/tty).
	hidden := append(sandbox.ReadOnlyHidden(home), OtherTerminals)
	if o.Scratch != "" {
		// The probe tries the kernel's mechanisms, not the user's files: nothing a command can
		// write (a link at a credential path) may decide whether the machine can sandbox.
		hidden = sandbox.HiddenDirs(home)
	}
	p := sandbox.ReadOnly(hidden, scratch.Path)
	p.ScratchDir = scratch.Dir
	p.PassEnv, p.Pins = o.PassEnv, Pins()
	code, err := sandbox.RunReadOnly(p, args, os.Environ(), sandbox.Bound{Timeout: o.Timeout, Isolate: true})
	noteFailure(code, err, args)
	return code, err
}

// LaunchPolicyOnly runs args where the sandbox cannot apply (issue 23): a child bounded in time,
// in a process namespace of its own where the kernel allows, with the read-only profile's
// environment, the allowlist (Profile.Environ), and what of the kernel's layers still applies
// there (sandbox.RunPolicyOnly: the seccomp filter, no_new_privs, no capabilities; issue 28).
func LaunchPolicyOnly(home string, o Options, args []string) (int, error) {
	scratch, err := OpenScratch(home, o)
	if err != nil {
		return 0, err
	}
	defer scratch.Close()
	p := sandbox.ReadOnly(nil, scratch.Path)
	p.Name = PolicyOnlyName
	p.PassEnv, p.Pins = o.PassEnv, Pins()
	code, err := sandbox.RunPolicyOnly(p, args, os.Environ(), sandbox.Bound{Timeout: o.Timeout, PidOnly: true})
	noteFailure(code, err, args)
	return code, err
}

// OtherTerminals is where the machine's pseudo-terminals are, which read-only and publish
// commands may not open (edit mode's get a devpts of their own).
const OtherTerminals = "/dev/pts"

// OpenScratch opens the directory a read-only or publish command may write: the probe's own
// (Options.Scratch), or the session's beneath hookctl's home, by descriptor
// (sandbox.OpenScratch).
func OpenScratch(home string, o Options) (*sandbox.Scratch, error) {
	if o.Scratch != "" {
		return sandbox.OpenDir(o.Scratch)
	}
	s, err := sandbox.OpenScratch(home, o.Session)
	if err == nil && s.Idle {
		sandbox.Sweep(home, s.Path)
	}
	return s, err
}

// Pins are the variables that turn the repository's own git filter drivers off
// (gitrepo.FilterPins), for a read-only command's environment.
func Pins() []string {
	wd, err := os.Getwd()
	if err != nil {
		return nil
	}
	userHome, _ := os.UserHomeDir()
	return gitrepo.FilterPins(wd, userHome)
}

// failureNotes explain a failure the user would not otherwise connect with hookctl: the launcher
// prints the note of a pin (which programs' rules set) the command ran with when it fails. go
// list and go doc report a module missing from the module cache as "module lookup disabled by
// GOPROXY=off", which names neither hookctl nor what to do (issue 30).
var failureNotes = []struct{ Pin, Note string }{
	{"GOPROXY=off", "hookctl: go ran in hookctl's read-only sandbox with GOPROXY=off (no network): a module missing from " +
		"your module cache is an error there, not a download; run `go mod download` yourself (outside the agent) and try again"},
}

// noteFailure prints the note of the first pin of failureNotes a command that failed ran with.
func noteFailure(code int, err error, args []string) {
	if err != nil || code == 0 || code == sandbox.ExitTimedOut {
		return
	}
	script := strings.Join(args, " ")
	for _, n := range failureNotes {
		if strings.Contains(script, n.Pin) {
			fmt.Fprintln(os.Stderr, n.Note)
			return
		}
	}
}
