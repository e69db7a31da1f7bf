package hook

import (
	"encoding/binary"
	"encoding/hex"
	"math/rand/v2"
	"strconv"
	"time"
	"unicode/utf8"
)

// maxLogField clips each text field of a record, so that a line stays one small write.
const maxLogField = 4 << 10

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
	// hookctl's version, the client's version as learned from its process and package ("" where
	// it cannot be: agents/clientversion), and the SHA-256 of the organisation's policy in force
	// ("" for none).
	Version       string `json:"version,omitempty"`
	ClientVersion string `json:"client_version,omitempty"`
	Policy        string `json:"policy,omitempty"`
	// ToolUseID is the client's id of a tool call (the tool_use_id of Claude Code, Codex and
	// Qwen Code), so that the record joins the client's own telemetry; "" where it sends none.
	ToolUseID string `json:"tool_use_id,omitempty"`
	// A hookctl run's (run_start, run_end, and the decisions of the agent it ran, copied from
	// the run's own log): the run's id, its state at the end and the command's exit status.
	Run   string `json:"run,omitempty"`
	State string `json:"state,omitempty"`
	Exit  *int   `json:"exit,omitempty"`
}

// appendJSON renders the entry as one JSON line, newline included, each text field clipped.
func (e *LogEntry) AppendJSON(b []byte) []byte {
	b = append(b, `{"id":`...)
	b = AppendJSONString(b, e.ID)
	b = append(b, `,"time":"`...)
	b = e.Time.UTC().AppendFormat(b, time.RFC3339Nano)
	b = append(b, '"')
	for _, f := range []struct{ name, value string }{
		{"session", e.Session}, {"agent", e.Agent}, {"agent_type", e.AgentType}, {"event", e.Event}, {"tool", e.Tool}, {"tool_use_id", e.ToolUseID}, {"kind", e.Kind},
		{"mode", e.Mode}, {"verdict", e.Verdict}, {"rule", e.Rule}, {"reason", e.Reason}, {"command", e.Command},
		{"isolation", e.Isolation}, {"cwd", e.Cwd}, {"user_rule", e.UserRule}, {"how", e.How}, {"from", e.From}, {"to", e.To},
		{"version", e.Version}, {"client_version", e.ClientVersion}, {"policy", e.Policy}, {"run", e.Run}, {"state", e.State},
	} {
		if f.value == "" && f.name != "event" && f.name != "verdict" {
			continue
		}
		b = append(b, ',', '"')
		b = append(b, f.name...)
		b = append(b, '"', ':')
		b = AppendJSONString(b, clipField(f.value))
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
func AppendJSONString(b []byte, s string) []byte {
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

// NewLogID is a decision's id: the time to the millisecond, then four random bytes, from the
// runtime's generator, which the kernel's randomness seeds (no file to open on every call). It
// names an entry for `hookctl log why`, guards nothing.
func NewLogID(t time.Time) string {
	var b [4]byte
	binary.BigEndian.PutUint32(b[:], rand.Uint32())
	return t.UTC().Format("20060102T150405.000Z") + "-" + hex.EncodeToString(b[:])
}
