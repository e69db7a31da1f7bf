package main

import (
	"fmt"
	"path/filepath"

	"github.com/hookctl/hookctl/audit"

	"github.com/hookctl/hookctl/internal/jsonl"
)

// exitBroken is log verify's status when a chain does not hold.
const exitBroken = 1

// verifyLogs is `hookctl log verify` (the decision log and the audit) and `hookctl audit
// verify` (the audit): each log's hash chain, lane by lane (internal/jsonl), with every break
// named by file, line and record id. Exit 0: every chain holds; exitBroken: one does not;
// exitError: a log could not be read.
func verifyLogs(s *streams, decisions, auditToo bool) error {
	env := hookEnv()
	if env.err != nil {
		return env.err
	}
	type named struct {
		name string
		log  *jsonl.Log
	}
	var logs []named
	if decisions {
		logs = append(logs, named{"decision log", audit.DecisionLogAt(env.home).JSONL()})
	}
	if auditToo {
		logs = append(logs, named{"audit", audit.AuditAt(env.home).JSONL()})
	}
	out := visibleTo(s.out) // a break quotes a record's id, which an edit may have made anything
	broken := 0
	for _, l := range logs {
		rep, err := l.log.Verify()
		if err != nil {
			return fmt.Errorf("failed to verify the %s: %w", l.name, err)
		}
		records, chained, older, breaks := rep.Totals()
		verdict := "the chain holds"
		if breaks > 0 {
			verdict = fmt.Sprintf("BROKEN at %d place(s)", breaks)
			broken++
		}
		fmt.Fprintf(out, "%s (%s): %d records in %d lane(s), %d chained: %s\n", l.name, l.log.Dir, records, len(rep.Lanes), chained, verdict)
		if older > 0 {
			fmt.Fprintf(out, "  %d record(s) written before the chain began (an older hookctl): not verifiable\n", older)
		}
		for _, b := range rep.Unread {
			fmt.Fprintf(out, "  break: %s\n", filepath.Join(l.log.Dir, b.String()))
		}
		for _, lr := range rep.Lanes {
			for _, b := range lr.Breaks {
				fmt.Fprintf(out, "  break: %s\n", filepath.Join(l.log.Dir, b.String()))
			}
			for _, n := range lr.Notes {
				fmt.Fprintf(out, "  note (lane %d): %s\n", lr.Lane, n)
			}
		}
	}
	if broken > 0 {
		fmt.Fprintln(s.err, "hookctl: a log's hash chain does not hold: records were changed, removed or reordered where it says")
		return exitCode(exitBroken)
	}
	return nil
}
