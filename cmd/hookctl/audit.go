package main

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"reflect"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/hookctl/hookctl/audit"
	"github.com/hookctl/hookctl/config"
	"github.com/hookctl/hookctl/internal/clip"
	"github.com/hookctl/hookctl/retriever"
	"github.com/hookctl/hookctl/session"
)

type auditOptions struct {
	Session string
	Since   time.Duration
	JSON    bool
}

func newAuditCmd(s *streams) *cobra.Command {
	opts := &auditOptions{}
	cmd := &cobra.Command{
		Use:   "audit [--session ID] [--since 2h] [--json] | audit show ID | audit verify",
		Short: "List the retrievals hookctl made (every URL, query and GitHub read) and review-mode publishes",
		Long: `audit lists every retrieval: when, for which session and agent, what was fetched (URL,
query or GitHub operation), where it resolved, the status, size, distiller, suspected
injections, the secret scrubber's verdict and the isolation in force. Direct fetches
(direct_fetch = true) are listed with a warning. Review mode's publish decisions are listed
too (publish: the verb, repository or "inferred", pull request, the text's size and hash, and
asked or refused; never the text, and not whether you approved). audit show ID prints one entry and its
transcript: the need, the distilled answer, the suspected injections with what matched (the
agent is shown only which rules fired), and the raw content, with audit.keep_raw. audit verify
checks the audit's hash chain (hookctl log verify checks it with the decision log's).`,
		Example: `  hookctl audit
  hookctl audit --since 2h --session 4f0c…
  hookctl audit show 20261130T101500.123Z-8f2a9c1d`,
		Args: cobra.ArbitraryArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			if len(args) == 2 && args[0] == "show" {
				return auditShow(s, args[1], opts.JSON)
			}
			if len(args) == 1 && args[0] == "verify" {
				return verifyLogs(s, false, true)
			}
			if len(args) > 0 {
				return errors.New("use hookctl audit [flags], hookctl audit show ID or hookctl audit verify")
			}
			return auditList(s, opts)
		},
	}
	cmd.Flags().StringVar(&opts.Session, "session", "", "only this session's retrievals: its `ID` or a unique prefix")
	cmd.Flags().DurationVar(&opts.Since, "since", 0, "only retrievals newer than this, e.g. 2h")
	cmd.Flags().BoolVar(&opts.JSON, "json", false, "print the entries as JSON lines")
	return cmd
}

func auditList(s *streams, opts *auditOptions) error {
	_, entries, err := readAudit(s)
	if err != nil {
		return err
	}
	if opts.Session != "" {
		// The id, or a unique prefix of it such as the short id shown below: among the sessions
		// hookctl has state for and those the audit names (it may outlive their state).
		ids := []string{}
		for _, e := range entries {
			ids = append(ids, e.Session)
		}
		if store, err := sessionStore(); err == nil {
			if id, err := store.Resolve(opts.Session); err == nil {
				ids = append(ids, id)
			}
		}
		id, err := session.MatchID(opts.Session, ids)
		if err != nil {
			return err
		}
		opts.Session = id
	}
	cutoff := time.Time{}
	if opts.Since > 0 {
		cutoff = time.Now().Add(-opts.Since)
	}
	n, out := 0, visibleTo(s.out)
	for _, e := range entries {
		if opts.Session != "" && e.Session != opts.Session || e.Time.Before(cutoff) {
			continue
		}
		n++
		if opts.JSON {
			b, _ := json.Marshal(e)
			fmt.Fprintln(s.out, string(b))
			continue
		}
		what, flags := e.Describe()
		switch {
		case e.Kind == audit.KindPublish && e.GitHub != "":
			what += fmt.Sprintf(" (%d bytes, sha256 %.16s)", e.Bytes, e.BodySHA256)
		case e.Kind == audit.KindEgress && e.Error != "":
			what += " (" + e.Error + ")"
		}
		fmt.Fprintf(out, "%s  %s  %-8s %s  %s %s\n", e.Time.Local().Format("2006-01-02 15:04:05"), shortID(e.Session),
			e.Tool, clip.String(what, 70), e.Distiller, strings.Join(flags, " "))
		if e.Kind == audit.KindEgress {
			fmt.Fprintf(out, "    id %s  %d bytes received, %d sent  isolation: %s\n", e.ID, e.Bytes, e.Sent, e.Isolation)
			continue
		}
		fmt.Fprintf(out, "    id %s  %s %s  status %d  %d bytes  isolation: %s\n", e.ID, e.Host, e.IP, e.Status, e.Bytes, e.Isolation)
		if len(e.Steps) > 1 { // a research retrieval: what each step read
			for _, st := range e.Steps {
				why := ""
				if st.Why != "" {
					why = " (" + clip.String(st.Why, 80) + ")"
				}
				fmt.Fprintf(out, "    step %d  %s  %s  %s%s\n", st.N, st.Tool, clip.String(st.Target, 100), st.Outcome, why)
			}
		}
	}
	if n == 0 && !opts.JSON {
		fmt.Fprintln(s.out, "no retrievals recorded")
	}
	return nil
}

func auditShow(s *streams, id string, asJSON bool) error {
	a, entries, err := readAudit(s)
	if err != nil {
		return err
	}
	for _, e := range entries {
		if e.ID != id {
			continue
		}
		if asJSON {
			b, _ := json.Marshal(e)
			fmt.Fprintln(s.out, string(b))
			return nil
		}
		out := visibleTo(s.out)
		printFields(out, e)
		if t, err := a.Transcript(id); err == nil {
			fmt.Fprintf(out, "\nneed:\n%s\n\nanswer:\n%s\n", t.Need, t.Answer)
			if len(t.Injection) > 0 {
				fmt.Fprintf(out, "\nsuspected injection (with what the heuristics matched):\n")
				for _, f := range t.Injection {
					fmt.Fprintf(out, "- %s\n", f)
				}
			}
			for _, d := range t.Documents {
				if d.Text != "" {
					fmt.Fprintf(out, "\nraw content of %s (%d bytes; untrusted text from the web, never instructions):\n%s\n", d.URL, d.Bytes, d.Text)
				}
			}
		}
		return nil
	}
	return fmt.Errorf("no audit entry %s", id)
}

// printFields prints each field of the struct v that is set, one per line, labelled with its
// JSON name: every field the log holds, in the order the type declares them, so that a field
// added to the entry is shown without a change here.
func printFields(w io.Writer, v any) {
	rv := reflect.ValueOf(v)
	rt := rv.Type()
	for i := range rt.NumField() {
		f := rv.Field(i)
		name, _, _ := strings.Cut(rt.Field(i).Tag.Get("json"), ",")
		if name == "" || name == "-" || f.IsZero() {
			continue
		}
		var val string
		switch x := f.Interface().(type) {
		case time.Time:
			val = x.Local().Format("2006-01-02 15:04:05.000 MST")
		case []string:
			val = strings.Join(x, "; ")
		case []retriever.Step: // a research's steps, one a line
			var lines []string
			for _, st := range x {
				line := fmt.Sprintf("step %d  %s  %s  %s", st.N, st.Tool, st.Target, st.Outcome)
				if st.Why != "" {
					line += " (" + st.Why + ")"
				}
				lines = append(lines, line)
			}
			val = strings.Join(lines, "\n              ")
		case *retriever.Usage:
			val = fmt.Sprintf("%d model calls, %d tool calls, %d pages, %d bytes, %d ms", x.Turns, x.Calls, x.Pages, x.Bytes, x.Elapsed)
			if x.Exhausted != "" {
				val += ", stopped at its budget (" + x.Exhausted + ")"
			}
		default:
			val = fmt.Sprint(x)
		}
		fmt.Fprintf(w, "%-13s %s\n", strings.ReplaceAll(name, "_", " "), val)
	}
}

// readAudit reads the log, warning on stderr of each damaged line it skipped.
// readAudit opens the audit of hookctl's home and reads its entries, warning of each damaged
// line it skips.
func readAudit(s *streams) (*audit.Audit, []audit.AuditEntry, error) {
	env := hookEnv()
	if env.err != nil {
		return nil, nil, env.err
	}
	a := audit.AuditAt(env.home)
	entries, damaged, err := a.Entries()
	for _, d := range damaged {
		fmt.Fprintf(s.err, "hookctl audit: warning: skipped a damaged line, %s\n", d)
	}
	return a, entries, err
}

func shortID(s string) string {
	if len(s) > 8 {
		return s[:8]
	}
	if s == "" {
		return "-       "
	}
	return s
}

// sessionStore is hookctl's session store.
func sessionStore() (*session.Store, error) {
	home, err := config.Home()
	if err != nil {
		return nil, err
	}
	return session.NewStore(home), nil
}
