// Package audit is hookctl's record of what it did, in two append-only logs on one JSONL
// primitive (internal/jsonl: a capped line, appended whole, rotated under a lock, read past
// damaged lines): the decision log (every answer the hook gave, DecisionLog, its entry
// hook.LogEntry) and the audit (every retrieval, publish and egress of the retriever and the
// edit sandbox, Audit, its entry AuditEntry), each entry one description that `hookctl log`,
// `hookctl audit`, the dashboard and the exporter all read. It decides nothing; WhySteps says
// why a decision was made.
package audit

import (
	"encoding/json"
	"errors"
	"fmt"
	"path/filepath"
	"sort"
	"strings"

	"github.com/hookctl/hookctl/hook"
	"github.com/hookctl/hookctl/internal/jsonl"
	"github.com/hookctl/hookctl/internal/secrets"
)

// The decision log is every answer the hook gave, one JSON line each, in
// $HOOKCTL_HOME/log/decisions.jsonl (with, after a burst of parallel hooks, lanes beside it:
// decisions.lane1.jsonl …), rotated by size to decisions.jsonl.1 … .N. It is written on every
// tool call, so the append is cheap: a hand-written encoder (encoding/json's first use costs
// more than the rest of the hook), no fsync, no waiting on another hook (internal/jsonl says how
// a record stays one whole line, or nothing, through kills, full disks and rotations).

// DecisionLog appends to and reads the log in Dir.
type DecisionLog struct {
	Dir      string
	MaxBytes int64 // rotate past this; 0 means 10 MiB
	Keep     int   // rotated files kept; 0 means 5
}

const (
	decisionFile = "decisions.jsonl"
	// A line stays one small write (its fields are clipped: maxLogField).
	maxLogLine = 32 << 10
	// decisionLanes is how many files a burst of hooks spreads its records over, rather than
	// queue for one (internal/jsonl).
	decisionLanes = 4
)

// DecisionLogAt is the decision log in hookctl's home.
func DecisionLogAt(home string) *DecisionLog {
	return &DecisionLog{Dir: filepath.Join(home, "log")}
}

// JSONL is the log's files, for a reader that resumes where it stopped (hookctl-export).
func (l *DecisionLog) JSONL() *jsonl.Log { return l.log() }

func (l *DecisionLog) log() *jsonl.Log {
	return &jsonl.Log{Dir: l.Dir, Name: decisionFile, MaxBytes: l.MaxBytes, Keep: l.Keep, MaxRecord: maxLogLine, Lanes: decisionLanes, Chain: true}
}

// Append writes e as one line. An error is for the caller to report; it never changes a
// decision (the log records decisions, it does not make them).
func (l *DecisionLog) Append(e *hook.LogEntry) error {
	line := e.AppendJSON(make([]byte, 0, 512))
	if err := l.log().Append(line[:len(line)-1]); err != nil {
		return fmt.Errorf("failed to record decision %s: %w", e.ID, err)
	}
	return nil
}

// Entries reads the log, oldest first, rotated files and lanes included. A line that is not
// an entry is skipped and counted in damaged, so that one bad line cannot hide the rest; so is a
// file that is not a regular file, which is not opened.
func (l *DecisionLog) Entries() (entries []hook.LogEntry, damaged int, err error) {
	damage, err := l.log().Read(func(r jsonl.Record) error {
		var e hook.LogEntry
		if json.Unmarshal(r.Data, &e) != nil || e.ID == "" {
			return errors.New("not a decision")
		}
		entries = append(entries, e)
		return nil
	})
	if err != nil {
		return nil, len(damage), fmt.Errorf("failed to read the decision log: %w", err)
	}
	// Lanes interleave in time; each is in order, and so is a stable sort.
	sort.SliceStable(entries, func(i, j int) bool { return entries[i].Time.Before(entries[j].Time) })
	return entries, len(damage), nil
}

// secretPrefixes begin the tokens of common providers (GitHub, GitLab, Slack, OpenAI and
// Anthropic, AWS access keys, npm, Stripe, Google).
var secretPrefixes = []string{"ghp_", "gho_", "ghu_", "ghs_", "ghr_", "github_pat_", "glpat-", "xoxb-", "xoxp-", "xoxa-",
	"sk-", "AKIA", "ASIA", "npm_", "sk_live_", "rk_live_", "AIza"}

// withheld replaces a secret in a logged command.
const withheld = "[withheld]"

// RedactCommand is command as the decision log keeps it: the values of environ's secret-named
// variables, words that start like a provider's token, the value of a secret-named assignment
// and what follows an Authorization header or -u user:password all withheld. It is a cheap
// filter for a log read by people, not the retriever's scrubber (whose rules cost milliseconds
// to compile, on every call): a secret of no known shape may stay.
func RedactCommand(command string, environ []string) string {
	for _, kv := range environ {
		name, value, ok := strings.Cut(kv, "=")
		if ok && len(value) >= 8 && strings.Contains(command, value) && secrets.Variable(name) {
			command = strings.ReplaceAll(command, value, withheld)
		}
	}
	var b strings.Builder
	i := 0
	for i < len(command) {
		// A word: up to the next blank or quote.
		j := i
		for j < len(command) && !strings.ContainsRune(" \t\n'\"", rune(command[j])) {
			j++
		}
		word := command[i:j]
		switch {
		case j > i && assignsSecret(word):
			name, _, _ := strings.Cut(word, "=")
			b.WriteString(name + "=" + withheld)
		case j > i && hasSecretPrefix(word):
			b.WriteString(withheld)
		default:
			b.WriteString(word)
		}
		if j < len(command) {
			b.WriteByte(command[j])
			j++
		}
		i = j
	}
	out := b.String()
	for _, marker := range []string{"Authorization:", "authorization:", "Bearer ", "bearer ", "-u ", "--user "} {
		if k := strings.Index(out, marker); k >= 0 {
			end := k + len(marker)
			for end < len(out) && out[end] == ' ' {
				end++
			}
			stop := end
			for stop < len(out) && !strings.ContainsRune("'\"\n", rune(out[stop])) && !(marker[0] == '-' && out[stop] == ' ') {
				stop++
			}
			if stop > end {
				out = out[:end] + withheld + out[stop:]
			}
		}
	}
	return out
}

func hasSecretPrefix(word string) bool {
	w := strings.TrimLeft(word, "=:")
	if _, v, ok := strings.Cut(w, "="); ok {
		w = v
	}
	for _, p := range secretPrefixes {
		if strings.HasPrefix(w, p) && len(w) >= len(p)+12 {
			return true
		}
	}
	return false
}

func assignsSecret(word string) bool {
	name, value, ok := strings.Cut(word, "=")
	return ok && value != "" && secrets.Variable(strings.TrimLeft(name, "-")) && !strings.ContainsAny(name, "/.")
}

// WhySteps is `hookctl log why`: decision e, step by step. now, if set, decides e's shell command
// again with today's config and rules in the mode it was decided in (they may have changed
// since: a config edit, a new hookctl), and the last step says whether the verdict still holds.
// The dashboard shows the same steps.
func WhySteps(e hook.LogEntry, now func(hook.LogEntry, hook.Mode) hook.Decision) []string {
	var steps []string
	say := func(format string, args ...any) { steps = append(steps, fmt.Sprintf(format, args...)) }
	say("%s: %s called %s in session %s (%s), in %s", e.Time.Local().Format("2006-01-02 15:04:05"), e.Agent, orElse(e.Tool, e.Event), e.Session, orElse(e.Mode, "?"), orElse(e.Cwd, "?"))
	if e.Command != "" {
		say("the command, as judged (secrets withheld): %s", e.Command)
	}
	if e.AgentType != "" {
		say("the caller was a %s subagent", e.AgentType)
	}
	say("decided by: %s", orElse(e.Rule, "(not recorded)"))
	if e.UserRule != "" {
		say("your own permission rule decided, applied by hookctl to the command as written: %s", e.UserRule)
	}
	say("verdict: %s — %s", e.Verdict, orElse(e.Reason, "(no reason given)"))
	if e.Rewrite {
		say("the hook had the client run its rewrite of the command instead (%s)", orElse(e.Isolation, "no isolation recorded"))
	} else if e.Isolation != "" {
		say("isolation: %s", e.Isolation)
	}
	// An entry written before entries carried a kind is re-judged as it was then: Bash only.
	shell := e.Kind == hook.KindShell.String() || e.Kind == "" && e.Tool == "Bash"
	if now != nil && e.Event == "tool" && shell && e.Command != "" && !strings.Contains(e.Command, "[withheld]") {
		if m, err := hook.ParseMode(e.Mode); err == nil {
			d := now(e, m)
			if d.Verdict.String() == e.Verdict {
				say("today the same command in the same mode gets the same verdict (%s)", d.Verdict)
			} else {
				say("today the same command in the same mode gets %s: %s", d.Verdict, d.Reason)
			}
		}
	}
	return steps
}

func orElse(s, otherwise string) string {
	if s == "" {
		return otherwise
	}
	return s
}
