package securerun

import (
	"encoding/json"
	"net/url"
	"path/filepath"
	"time"

	"github.com/hookctl/hookctl/internal/fsutil"
)

// SARIFName is the run's record as a SARIF 2.1.0 log, beside runmeta.json.
const SARIFName = "run.sarif"

// sarifLog is the part of SARIF 2.1.0 a run fills: one run of hookctl, with one invocation
// (§3.20) and no results of its own; a tool that merges the agent's findings adds them.
type sarifLog struct {
	Version string     `json:"version"`
	Schema  string     `json:"$schema"`
	Runs    []sarifRun `json:"runs"`
}

type sarifRun struct {
	Tool        sarifTool         `json:"tool"`
	Invocations []sarifInvocation `json:"invocations"`
	Results     []any             `json:"results"`
	Properties  map[string]any    `json:"properties,omitempty"`
}

type sarifTool struct {
	Driver struct {
		Name           string `json:"name"`
		Version        string `json:"version,omitempty"`
		InformationURI string `json:"informationUri,omitempty"`
	} `json:"driver"`
}

type sarifInvocation struct {
	CommandLine         string              `json:"commandLine,omitempty"`
	Arguments           []string            `json:"arguments,omitempty"`
	StartTimeUTC        string              `json:"startTimeUtc"`
	EndTimeUTC          string              `json:"endTimeUtc,omitempty"`
	ExitCode            *int                `json:"exitCode,omitempty"`
	ExitSignalName      string              `json:"exitSignalName,omitempty"`
	ExecutionSuccessful bool                `json:"executionSuccessful"`
	WorkingDirectory    *sarifLocation      `json:"workingDirectory,omitempty"`
	Notifications       []sarifNotification `json:"toolExecutionNotifications,omitempty"`
}

type sarifLocation struct {
	URI string `json:"uri"`
}

type sarifNotification struct {
	Level   string `json:"level"`
	Message struct {
		Text string `json:"text"`
	} `json:"message"`
}

// SARIF is m as a SARIF 2.1.0 log, mapped as docs/secure-read-only.md says.
func (m *RunMeta) SARIF() any {
	inv := sarifInvocation{StartTimeUTC: m.Started.UTC().Format(time.RFC3339Nano)}
	if !m.Ended.IsZero() {
		inv.EndTimeUTC = m.Ended.UTC().Format(time.RFC3339Nano)
	}
	p := m.Preflight
	if p != nil && len(p.Command) > 0 {
		inv.CommandLine, inv.Arguments = quoteArgs(p.Command), p.Command[1:]
	}
	if p != nil && p.Repository.Root != "" {
		inv.WorkingDirectory = &sarifLocation{URI: (&url.URL{Scheme: "file", Path: filepath.ToSlash(p.Repository.Root) + "/"}).String()}
	}
	if m.Exit != nil {
		code := m.Exit.Code
		inv.ExitCode, inv.ExitSignalName = &code, m.Exit.Signal
	}
	if m.Interrupted != nil {
		inv.ExitSignalName = m.Interrupted.Signal
	}
	inv.ExecutionSuccessful = m.State == StateFinished && m.Exit != nil && m.Exit.Code == 0
	note := func(level, text string) {
		n := sarifNotification{Level: level}
		n.Message.Text = text
		inv.Notifications = append(inv.Notifications, n)
	}
	if p != nil {
		for _, w := range p.Warnings {
			note("warning", w)
		}
		for _, f := range p.Failures {
			note("error", f)
		}
	}
	if m.NotStarted != "" {
		note("error", "the run did not start: "+m.NotStarted)
	}
	if m.Output != nil {
		for _, q := range m.Output.Quarantined {
			note("warning", "artifact "+q.Path+" quarantined: "+q.Reason)
		}
	}
	run := sarifRun{Invocations: []sarifInvocation{inv}, Results: []any{},
		Properties: map[string]any{"hookctl.runmeta": MetaName, "hookctl.run_id": m.ID, "hookctl.state": m.State}}
	run.Tool.Driver.Name, run.Tool.Driver.Version = "hookctl", m.Hookctl.Version
	run.Tool.Driver.InformationURI = "https://github.com/hookctl/hookctl/blob/main/docs/secure-read-only.md"
	return sarifLog{Version: "2.1.0", Schema: "https://json.schemastore.org/sarif-2.1.0.json", Runs: []sarifRun{run}}
}

// WriteSARIF writes m's SARIF log into the output directory, atomically.
func (m *RunMeta) WriteSARIF(l Layout) error {
	data, err := json.MarshalIndent(m.SARIF(), "", "  ")
	if err != nil {
		return err
	}
	return fsutil.WriteAtomic(filepath.Join(l.Out, SARIFName), append(data, '\n'), 0o600)
}
