package main

import (
	"encoding/json"
	"fmt"
	"strings"
	"time"

	"github.com/hookctl/hookctl/audit"
	"github.com/hookctl/hookctl/config"

	"github.com/hookctl/hookctl/hook"
	"github.com/hookctl/hookctl/securerun"
)

// A hookctl run is recorded in the decision log, which hookctl-export ships with the rest
// (docs/fleet.md): run_start when the preflight has decided (deny: refused, nothing ran),
// run_end with the run's state and exit status when it is over, and between them, copied from
// the run's own hookctl home at its end, every record the agent's hookctl hooks wrote there,
// each with the run's id. Those hooks ran inside the run, in a directory the run can write: what
// they recorded is the agent's hooks' account, which the run could have altered; run_start and
// run_end are hookctl's own, written outside it.

const runRule = "hookctl run --profile " + securerun.Profile

// maxRunBytes caps what is copied from a run's own log, a fifth of the log's rotation size: the
// run can write that log, and a run that filled it must not rotate the user's own records out
// of theirs.
const maxRunBytes = 2 << 20

// recordRunStart records the preflight's verdict on a run about to start.
func recordRunStart(s *streams, env environment, cfg *config.Config, p *securerun.Preflight, id string, at time.Time) {
	e := &hook.LogEntry{ID: hook.NewLogID(at), Time: at, Event: "run_start", Run: id, Rule: runRule, Verdict: hook.Allow.String(),
		Command: strings.Join(p.Command, " "), Cwd: p.Repository.Root, Isolation: runIsolation(p), Version: versionString()}
	if p.OK() {
		e.Reason = "the preflight passed; output in " + p.Out
	} else {
		e.Verdict, e.Reason = hook.Deny.String(), "refused, nothing ran: "+strings.Join(p.Failures, "; ")
	}
	appendRunRecords(s, env, cfg, e)
}

// recordRunEnd records how a run ended, after the records its agent's hooks wrote.
func recordRunEnd(s *streams, env environment, cfg *config.Config, p *securerun.Preflight, id string, meta *securerun.RunMeta, code int, runErr error) {
	var records []*hook.LogEntry
	var notes []string
	if p.Agent != nil && p.Agent.HookctlHome != "" {
		entries, damaged, err := audit.DecisionLogAt(p.Agent.HookctlHome).Entries()
		if err != nil || damaged > 0 {
			fmt.Fprintf(s.err, "hookctl run: the run's own decision log: %d damaged line(s) %v\n", damaged, err)
		}
		size := 0
		for i := range entries {
			e := entries[i]
			e.Run = id
			b, _ := json.Marshal(&e)
			if size += len(b); size > maxRunBytes {
				notes = append(notes, fmt.Sprintf("the run's own log held %d records, more than the %d MiB copied: the last %d were not copied",
					len(entries), maxRunBytes>>20, len(entries)-i))
				break
			}
			records = append(records, &e)
		}
	}
	now := time.Now()
	end := &hook.LogEntry{ID: hook.NewLogID(now), Time: now, Event: "run_end", Run: id, Rule: runRule, Verdict: hook.Allow.String(),
		Command: strings.Join(p.Command, " "), Cwd: p.Repository.Root, Isolation: runIsolation(p), Exit: &code}
	if meta != nil {
		end.State, end.Reason = meta.State, summary(meta)
		if meta.State == securerun.StateNotStarted {
			end.Verdict = hook.Deny.String()
		}
	}
	if runErr != nil {
		notes = append(notes, "error: "+runErr.Error())
	}
	if end.Reason != "" {
		notes = append([]string{end.Reason}, notes...)
	}
	end.Reason = strings.Join(notes, "; ")
	appendRunRecords(s, env, cfg, append(records, end)...)
}

// runIsolation is what held the run, in a few words.
func runIsolation(p *securerun.Preflight) string {
	return fmt.Sprintf("%s: %s; network %s", securerun.Profile, p.Isolation.Mechanism, p.Network.Policy)
}

// appendRunRecords appends to the user's decision log and starts the exporter if the config
// names a collector. A record that cannot be written is said, never a reason to fail the run.
func appendRunRecords(s *streams, env environment, cfg *config.Config, records ...*hook.LogEntry) {
	log := audit.DecisionLogAt(env.home)
	for _, e := range records {
		if err := log.Append(e); err != nil {
			fmt.Fprintln(s.err, "hookctl run:", err)
		}
	}
	startExport(env, cfg)
}
