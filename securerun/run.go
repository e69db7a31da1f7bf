package securerun

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"hash"
	"io"
	"os"
	"path/filepath"
	"syscall"
	"time"

	"github.com/hookctl/hookctl/internal/fsutil"
	"github.com/hookctl/hookctl/sandbox"
	"github.com/hookctl/hookctl/sandbox/egress"
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
	// Record: the command's standard output is also kept in the output directory (StdoutName),
	// up to DefaultMaxSize; for an output that is not a terminal.
	Record bool
	Stderr io.Writer
	// Signals are the signals that interrupt the run; Grace is how long its processes get
	// between SIGTERM and SIGKILL.
	Signals <-chan os.Signal
	Grace   time.Duration
	// Model-only: the launcher starts in a network namespace of its own and hands the broker's
	// listener back; Broker is started with it (Worker: hookctl-network broker) and
	// Config on its standard input. Nil Broker: no network at all.
	Broker *egress.BrokerConfig
	Worker string
	// Decisions counts the agent's tool calls its hookctl hooks decided, from their decision
	// log beneath the run's home, once the run has ended; nil: no agent hooks.
	Decisions func() *ToolCalls
}

// ToolCalls counts the decisions of the agent's hookctl hooks in a run. They come from a log
// the agent's own sandbox can write: a count an agent that escaped its hooks could change.
type ToolCalls struct {
	Allowed int `json:"allowed"`
	Denied  int `json:"denied"`
	// Damaged lines of the log, which were not counted.
	Damaged int `json:"damaged,omitempty"`
}

// LauncherArgs is the launcher's command line for p, binary being hookctl.
func LauncherArgs(binary string, p *Preflight) []string {
	argv := []string{binary, "sandbox", "--profile", sandbox.SecureReadOnlyName, "--run-init"}
	for _, r := range p.RunRoots() {
		argv = append(argv, "--read", r)
	}
	for _, w := range p.Writable {
		argv = append(argv, "--write", w)
	}
	argv = append(argv, "--status-fd", "3")
	if p.broker != nil {
		argv = append(argv, "--model-fd", "4")
		for _, v := range p.ModelVars() {
			argv = append(argv, "--model-var", v)
		}
	}
	return append(argv, "--")
}

// Outcome is how a supervised launch went.
type Outcome struct {
	Started     bool
	NotStarted  string // why not
	Applied     *sandbox.Applied
	Exit        *Exit
	Interrupted *Interruption
	Leftover    int
	Network     *NetworkUse
}

// NetworkUse is what the broker saw of a model-only run's network.
type NetworkUse struct {
	// Requests reached the model; Refused were refused by the broker (another host, another
	// path, a proxy request); Failed were admitted and could not reach the model.
	Requests int `json:"model_requests"`
	Refused  int `json:"refused_requests"`
	Failed   int `json:"failed_requests"`
	// Refusals are the first refused requests: method, path and why.
	Refusals []egress.BrokerEvent `json:"refusals,omitempty"`
	Sent     int64                `json:"bytes_sent"`
	Received int64                `json:"bytes_received"`
	// BrokerError is why the broker could not serve, if it could not.
	BrokerError string `json:"broker_error,omitempty"`
	// Models are the models the agent's requests asked for, and Clients their User-Agents
	// (the agent and its version), each once.
	Models  []string `json:"models,omitempty"`
	Clients []string `json:"clients,omitempty"`
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
	if p.Agent != nil {
		if err := writeAgentFiles(l, p.Agent); err != nil {
			return nil, ExitNotStarted, err
		}
	}
	meta := NewRunMeta(id, time.Now(), p)
	meta.State = StateRunning
	if err := meta.Write(l); err != nil {
		return nil, ExitNotStarted, err
	}
	launch.Argv, launch.Env, launch.Dir, launch.Broker = p.Argv(), p.Env(), p.Repository.Root, p.broker
	var rec *recorder
	if launch.Record {
		f, err := os.OpenFile(filepath.Join(l.Out, StdoutName), os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
		if err != nil {
			return nil, ExitNotStarted, fmt.Errorf("failed to create %s: %w", StdoutName, err)
		}
		defer f.Close()
		rec = &recorder{f: f, h: sha256.New(), max: DefaultMaxSize}
		launch.Stdout = io.MultiWriter(launch.Stdout, rec)
	}
	o := Supervise(launch)
	os.RemoveAll(l.Tmp())
	v := ValidateArtifacts(l, p.Artifacts.MaxBytes)
	meta.Ended = time.Now().UTC()
	meta.DurationMS = meta.Ended.Sub(meta.Started).Milliseconds()
	meta.Applied, meta.Exit, meta.Interrupted, meta.Leftover, meta.Output = o.Applied, o.Exit, o.Interrupted, o.Leftover, &v
	meta.Network = o.Network
	if rec != nil {
		meta.Stdout = &Recorded{Path: StdoutName, Size: rec.n, SHA256: hex.EncodeToString(rec.h.Sum(nil)), Truncated: rec.truncated}
	}
	if launch.Decisions != nil && o.Started {
		meta.ToolCalls = launch.Decisions()
	}
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
	if err := meta.WriteSARIF(l); err != nil {
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

// writeAgentFiles writes what hookctl installs for the agent beneath config/, which the run
// reads and cannot change.
func writeAgentFiles(l Layout, a *AgentRun) error {
	if err := os.Mkdir(l.Config(), 0o700); err != nil {
		return fmt.Errorf("failed to create %s: %w", l.Config(), err)
	}
	for _, name := range a.FileNames {
		if err := fsutil.WriteAtomic(filepath.Join(l.Config(), name), a.Files[name], 0o600); err != nil {
			return fmt.Errorf("failed to write the agent's %s: %w", name, err)
		}
	}
	return nil
}

// StdoutName is where a recorded run keeps its command's standard output.
const StdoutName = "stdout.txt"

// Recorded is the kept standard output, in runmeta.json.
type Recorded struct {
	Path      string `json:"path"`
	Size      int64  `json:"size"`
	SHA256    string `json:"sha256"`
	Truncated bool   `json:"truncated,omitempty"` // past the cap: the rest went to the terminal only
}

// recorder keeps what passes through it, up to max bytes, and never fails the stream: a full
// disk or the cap stops the record, not the run's output.
type recorder struct {
	f         *os.File
	h         hash.Hash
	n, max    int64
	truncated bool
}

func (r *recorder) Write(p []byte) (int, error) {
	keep := p
	if r.n+int64(len(keep)) > r.max {
		keep, r.truncated = keep[:max(0, r.max-r.n)], true
	}
	if len(keep) > 0 {
		if _, err := r.f.Write(keep); err != nil {
			r.truncated, r.max = true, r.n
			return len(p), nil
		}
		r.h.Write(keep)
		r.n += int64(len(keep))
	}
	return len(p), nil
}
