package securerun

import (
	"fmt"
	"io"
	"os"
	"syscall"
	"time"

	"github.com/hookctl/hookctl/sandbox"
)

// Launch is the sandboxed command as Supervise starts it.
type Launch struct {
	// Launcher is hookctl's launcher up to the command: hookctl sandbox --profile
	// secure-read-only --read … --write … --status-fd 3 --.
	Launcher []string
	Argv     []string
	Env      []string
	Dir      string
	Stdin    io.Reader
	Stdout   io.Writer
	Stderr   io.Writer
	// Signals are the signals that interrupt the run; Grace is how long its processes get
	// between SIGTERM and SIGKILL.
	Signals <-chan os.Signal
	Grace   time.Duration
}

// LauncherArgs is the launcher's command line for p, binary being hookctl.
func LauncherArgs(binary string, p *Preflight) []string {
	argv := []string{binary, "sandbox", "--profile", sandbox.SecureReadOnlyName}
	for _, r := range p.Readable {
		if r == p.Repository.Root || contains(p.Repository.GitDirs, r) {
			argv = append(argv, "--read", r)
		}
	}
	for _, w := range p.Writable {
		argv = append(argv, "--write", w)
	}
	return append(argv, "--status-fd", "3", "--")
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

// Outcome is how a supervised launch went.
type Outcome struct {
	Started     bool
	NotStarted  string // why not
	Applied     *sandbox.Applied
	Exit        *Exit
	Interrupted *Interruption
	Leftover    int
}

// ExitNotStarted is hookctl run's status when the run did not start (the preflight refused it,
// or the sandbox could not be applied), as timeout(1) and env(1) use 125 for their own failures.
const ExitNotStarted = 125

// Run starts a run whose preflight passed: it makes the output directory, writes runmeta.json,
// supervises the launch, removes the temporary directory, validates the artifacts and completes
// runmeta.json. It returns the record and hookctl run's exit status: the command's, 128 + the
// signal's number when interrupted, ExitNotStarted when nothing ran.
func Run(p *Preflight, id string, launch Launch) (*RunMeta, int, error) {
	l := Layout{Out: p.Out}
	if err := os.MkdirAll(p.Out, 0o700); err != nil {
		return nil, ExitNotStarted, fmt.Errorf("failed to create the output directory: %w", err)
	}
	for _, d := range l.Writable() {
		if err := os.Mkdir(d, 0o700); err != nil {
			return nil, ExitNotStarted, fmt.Errorf("failed to create %s: %w", d, err)
		}
	}
	meta := NewRunMeta(id, time.Now(), p)
	meta.State = StateRunning
	if err := meta.Write(l); err != nil {
		return nil, ExitNotStarted, err
	}
	launch.Argv, launch.Env, launch.Dir = p.Argv(), p.Env(), p.Repository.Root
	o := Supervise(launch)
	os.RemoveAll(l.Tmp())
	v := ValidateArtifacts(l, p.Artifacts.MaxBytes)
	meta.Ended = time.Now().UTC()
	meta.DurationMS = meta.Ended.Sub(meta.Started).Milliseconds()
	meta.Applied, meta.Exit, meta.Interrupted, meta.Leftover, meta.Output = o.Applied, o.Exit, o.Interrupted, o.Leftover, &v
	code := ExitNotStarted
	switch {
	case !o.Started:
		meta.State, meta.NotStarted = StateNotStarted, o.NotStarted
	case o.Interrupted != nil:
		meta.State = StateInterrupted
		code = 128 + signalNumber(o.Interrupted.Signal)
	default:
		meta.State, code = StateFinished, o.Exit.Code
	}
	if err := meta.Write(l); err != nil {
		return meta, code, err
	}
	return meta, code, nil
}

// signalNumber is the number of a signal Interruption names.
func signalNumber(name string) int {
	switch name {
	case "SIGHUP":
		return int(syscall.SIGHUP)
	case "SIGINT":
		return int(syscall.SIGINT)
	}
	return int(syscall.SIGTERM)
}
