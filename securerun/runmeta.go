package securerun

import (
	"encoding/json"
	"time"

	"github.com/hookctl/hookctl/internal/buildinfo"
	"github.com/hookctl/hookctl/internal/fsutil"
	"github.com/hookctl/hookctl/sandbox"
)

// SchemaVersion is runmeta.json's version: a reader that knows an older one must refuse a newer
// one. Every field is documented in docs/secure-read-only.md.
const SchemaVersion = 1

// States of a run.
const (
	StateNotStarted  = "not_started" // the sandbox could not be applied: nothing ran
	StateRunning     = "running"     // started; a file left in this state means hookctl died
	StateFinished    = "finished"    // the command ended by itself
	StateInterrupted = "interrupted" // SIGINT, SIGTERM or SIGHUP tore it down
)

// RunMeta is runmeta.json: a run's record, written when it starts and completed when it ends.
// It holds names, sizes and hashes, never a secret's value nor anything the command printed.
type RunMeta struct {
	Schema        string    `json:"schema"`
	SchemaVersion int       `json:"schema_version"`
	ID            string    `json:"id"`
	Hookctl       Build     `json:"hookctl"`
	State         string    `json:"state"`
	Started       time.Time `json:"started"`
	Ended         time.Time `json:"ended,omitzero"`
	DurationMS    int64     `json:"duration_ms"`
	// NotStarted says why the run did not start (State not_started).
	NotStarted string `json:"not_started,omitempty"`
	// Applied is what the launcher applied before it ran the command.
	Applied     *sandbox.Applied `json:"applied,omitempty"`
	Exit        *Exit            `json:"exit,omitempty"`
	Interrupted *Interruption    `json:"interrupted,omitempty"`
	// Leftover counts the processes the command left running when it ended, which hookctl
	// killed.
	Leftover int `json:"leftover_processes"`
	// Network is what the credential broker saw (model-only runs); ToolCalls what the agent's
	// hookctl hooks decided (agents hookctl knows).
	Network   *NetworkUse `json:"network,omitempty"`
	ToolCalls *ToolCalls  `json:"tool_calls,omitempty"`
	// Stdout is the command's standard output as kept in the output directory.
	Stdout    *Recorded   `json:"stdout,omitempty"`
	Preflight *Preflight  `json:"preflight"`
	Output    *Validation `json:"output,omitempty"`
}

// Build identifies the hookctl that ran.
type Build struct {
	Version string `json:"version"`
	Build   string `json:"build"`
}

// Exit is how the command ended: its status, or the signal that killed it (then Code is
// 128 + its number, as a shell reports it).
type Exit struct {
	Code   int    `json:"code"`
	Signal string `json:"signal,omitempty"`
}

// Interruption is a signal that ended the run.
type Interruption struct {
	Signal string    `json:"signal"`
	At     time.Time `json:"at"`
	// Killed: processes still running after the grace period, killed with SIGKILL.
	Killed int `json:"killed"`
}

// SchemaName names the format.
const SchemaName = "hookctl.runmeta"

// NewRunMeta is the record of a run about to start (or refused) with preflight p.
func NewRunMeta(id string, started time.Time, p *Preflight) *RunMeta {
	return &RunMeta{Schema: SchemaName, SchemaVersion: SchemaVersion, ID: id,
		Hookctl: Build{Version: buildinfo.Version(), Build: buildinfo.ID()}, Started: started.UTC(), Preflight: p}
}

// Write replaces runmeta.json in the output directory atomically: a reader sees the previous
// record or this one, never a torn one.
func (m *RunMeta) Write(l Layout) error {
	data, err := json.MarshalIndent(m, "", "  ")
	if err != nil {
		return err
	}
	return fsutil.WriteAtomic(l.Meta(), append(data, '\n'), 0o600)
}
