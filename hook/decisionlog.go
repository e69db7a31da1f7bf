package hook

import (
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/hookctl/hookctl/internal/jsonl"
	"github.com/hookctl/hookctl/internal/secrets"
)

// The decision log is every answer the hook gave, one JSON line each, in
// $HOOKCTL_HOME/log/decisions.jsonl (with, after a burst of parallel hooks, lanes beside it:
// decisions.lane1.jsonl …), rotated by size to decisions.jsonl.1 … .N. It is written on every
// tool call, so the append is cheap: a hand-written encoder (encoding/json's first use costs
// more than the rest of the hook), no fsync, no waiting on another hook (internal/jsonl says how
// a record stays one whole line, or nothing, through kills, full disks and rotations).

// LogEntry is one decision as the log keeps it. Command is the command with anything that looks
// like a secret withheld (RedactCommand), never a secret value.
type LogEntry struct {
	ID        string    `json:"id"`
	Time      time.Time `json:"time"`
	Session   string    `json:"session,omitempty"`
	Agent     string    `json:"agent,omitempty"` // the client: "Claude Code"
	AgentType string    `json:"agent_type,omitempty"`
	Event     string    `json:"event"`          // "tool", "toggle"
	Tool      string    `json:"tool,omitempty"` // the client's own name for it
	Kind      string    `json:"kind,omitempty"` // what the tool does (Kind's name: "shell", "file write", …)
	Mode      string    `json:"mode,omitempty"` // the session's mode when it was decided
	Verdict   string    `json:"verdict"`        // allow, deny, ask, pass
	Rule      string    `json:"rule,omitempty"` // which part of the policy decided
	Reason    string    `json:"reason,omitempty"`
	Command   string    `json:"command,omitempty"`
	Rewrite   bool      `json:"rewrite,omitempty"` // the hook ran a rewritten command instead
	Isolation string    `json:"isolation,omitempty"`
	Cwd       string    `json:"cwd,omitempty"`
	UserRule  string    `json:"user_rule,omitempty"` // the user's own rule that settled a rewritten call, with its kind and file
	// A toggle's: how the human asked ("prompt", "cli", "dashboard") and the mode before and
	// after (equal for a status request, or a change to the mode the session already had).
	// Verdict is allow when the request was carried out, deny when it was refused.
	How  string `json:"how,omitempty"`
	From string `json:"from,omitempty"`
	To   string `json:"to,omitempty"`
	// A session start's, for the organisation's view of where the gate runs (docs/fleet.md):
	// hookctl's version, and the SHA-256 of the organisation's policy in force ("" for none).
	Version string `json:"version,omitempty"`
	Policy  string `json:"policy,omitempty"`
	// ToolUseID is the client's id of a tool call (the tool_use_id of Claude Code, Codex and
	// Qwen Code), so that the record joins the client's own telemetry; "" where it sends none.
	ToolUseID string `json:"tool_use_id,omitempty"`
	// A hookctl run's (run_start, run_end, and the decisions of the agent it ran, copied from
	// the run's own log): the run's id, its state at the end and the command's exit status.
	Run   string `json:"run,omitempty"`
	State string `json:"state,omitempty"`
	Exit  *int   `json:"exit,omitempty"`
}

// DecisionLog appends to and reads the log in Dir.
type DecisionLog struct {
	Dir      string
	MaxBytes int64 // rotate past this; 0 means 10 MiB
	Keep     int   // rotated files kept; 0 means 5
}

const (
	decisionFile = "decisions.jsonl"
	// Fields are clipped so that a line stays one small write.
	maxLogField = 4 << 10
	maxLogLine  = 32 << 10
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
func (l *DecisionLog) Append(e *LogEntry) error {
	line := e.appendJSON(make([]byte, 0, 512))
	if err := l.log().Append(line[:len(line)-1]); err != nil {
		return fmt.Errorf("failed to record decision %s: %w", e.ID, err)
	}
	return nil
}

// Entries reads the log, oldest first, rotated files and lanes included. A line that is not
// an entry is skipped and counted in damaged, so that one bad line cannot hide the rest; so is a
// file that is not a regular file, which is not opened.
func (l *DecisionLog) Entries() (entries []LogEntry, damaged int, err error) {
	damage, err := l.log().Read(func(r jsonl.Record) error {
		var e LogEntry
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

// appendJSON renders the entry as one JSON line, newline included, each text field clipped.
func (e *LogEntry) appendJSON(b []byte) []byte {
	b = append(b, `{"id":`...)
	b = appendJSONString(b, e.ID)
	b = append(b, `,"time":"`...)
	b = e.Time.UTC().AppendFormat(b, time.RFC3339Nano)
	b = append(b, '"')
	for _, f := range []struct{ name, value string }{
		{"session", e.Session}, {"agent", e.Agent}, {"agent_type", e.AgentType}, {"event", e.Event}, {"tool", e.Tool}, {"tool_use_id", e.ToolUseID}, {"kind", e.Kind},
		{"mode", e.Mode}, {"verdict", e.Verdict}, {"rule", e.Rule}, {"reason", e.Reason}, {"command", e.Command},
		{"isolation", e.Isolation}, {"cwd", e.Cwd}, {"user_rule", e.UserRule}, {"how", e.How}, {"from", e.From}, {"to", e.To},
		{"version", e.Version}, {"policy", e.Policy}, {"run", e.Run}, {"state", e.State},
	} {
		if f.value == "" && f.name != "event" && f.name != "verdict" {
			continue
		}
		b = append(b, ',', '"')
		b = append(b, f.name...)
		b = append(b, '"', ':')
		b = appendJSONString(b, clipField(f.value))
	}
	if e.Rewrite {
		b = append(b, `,"rewrite":true`...)
	}
	if e.Exit != nil {
		b = append(b, `,"exit":`...)
		b = strconv.AppendInt(b, int64(*e.Exit), 10)
	}
	return append(b, '}', '\n')
}

func clipField(s string) string {
	if len(s) <= maxLogField {
		return s
	}
	s = s[:maxLogField]
	for !utf8.ValidString(s) {
		s = s[:len(s)-1]
	}
	return s + "…"
}

// appendJSONString appends s as a JSON string: quotes, backslashes and control characters
// escaped, invalid UTF-8 replaced, and the line and paragraph separators escaped as
// encoding/json does.
func appendJSONString(b []byte, s string) []byte {
	const hexDigits = "0123456789abcdef"
	b = append(b, '"')
	for i := 0; i < len(s); {
		c := s[i]
		if c < utf8.RuneSelf {
			switch {
			case c == '"' || c == '\\':
				b = append(b, '\\', c)
			case c == '\n':
				b = append(b, '\\', 'n')
			case c == '\t':
				b = append(b, '\\', 't')
			case c == '\r':
				b = append(b, '\\', 'r')
			case c < 0x20 || c == 0x7f:
				b = append(b, '\\', 'u', '0', '0', hexDigits[c>>4], hexDigits[c&0xf])
			default:
				b = append(b, c)
			}
			i++
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		switch {
		case r == utf8.RuneError && size == 1:
			b = append(b, `\ufffd`...)
		case r == '\u2028' || r == '\u2029':
			b = append(b, `\u202`...)
			b = append(b, hexDigits[r&0xf])
		default:
			b = append(b, s[i:i+size]...)
		}
		i += size
	}
	return append(b, '"')
}

// NewLogID is a decision's id: the time to the millisecond, then four bytes of the kernel's
// random source (the process id and the nanoseconds if it cannot be read). It names an entry for
// `hookctl log why`, guards nothing.
func NewLogID(t time.Time) string {
	var b [4]byte
	if f, err := os.Open("/dev/urandom"); err == nil {
		_, err = io.ReadFull(f, b[:])
		f.Close()
		if err != nil {
			b = [4]byte{}
		}
	}
	if b == [4]byte{} {
		n := uint32(os.Getpid())<<16 ^ uint32(t.Nanosecond())
		b = [4]byte{byte(n >> 24), byte(n >> 16), byte(n >> 8), byte(n)}
	}
	return t.UTC().Format("20060102T150405.000Z") + "-" + hex.EncodeToString(b[:])
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
func WhySteps(e LogEntry, now func(LogEntry, Mode) Decision) []string {
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
	shell := e.Kind == KindShell.String() || e.Kind == "" && e.Tool == "Bash"
	if now != nil && e.Event == "tool" && shell && e.Command != "" && !strings.Contains(e.Command, "[withheld]") {
		if m, err := ParseMode(e.Mode); err == nil {
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
