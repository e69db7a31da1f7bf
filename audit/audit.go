package audit

import (
	"bytes"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"time"

	"github.com/hookctl/hookctl/hook"
	"github.com/hookctl/hookctl/internal/fsutil"
	"github.com/hookctl/hookctl/internal/jsonl"
	"github.com/hookctl/hookctl/retriever"
)

// AuditEntry is one retrieval, as the audit log records it.
type AuditEntry struct {
	ID          string         `json:"id"`
	Time        time.Time      `json:"time"`
	Session     string         `json:"session,omitempty"`
	AgentID     string         `json:"agent_id,omitempty"`
	AgentType   string         `json:"agent_type,omitempty"`
	Tool        string         `json:"tool,omitempty"` // WebFetch, WebSearch, Bash, cli
	Kind        retriever.Kind `json:"kind"`
	URL         string         `json:"url,omitempty"`
	Query       string         `json:"query,omitempty"`
	GitHub      string         `json:"github,omitempty"` // the operation, e.g. "pr-diff cli/cli 123"
	FinalURL    string         `json:"final_url,omitempty"`
	Host        string         `json:"host,omitempty"`
	IP          string         `json:"ip,omitempty"`
	Status      int            `json:"status,omitempty"`
	Bytes       int64          `json:"bytes,omitempty"`
	ContentType string         `json:"content_type,omitempty"`
	Distiller   string         `json:"distiller,omitempty"`
	DurationMS  int64          `json:"duration_ms"`
	Injection   []string       `json:"injection,omitempty"`
	// Scrub is "clean" or the kind of secret that blocked the retrieval (never its value).
	Scrub     string `json:"scrub"`
	Isolation string `json:"isolation,omitempty"`
	// Outcome is "answered", "refused" (scrubber, address, policy) or "failed"; for a publish,
	// "asked" (the user was asked to confirm it) or "refused".
	Outcome string `json:"outcome"`
	Error   string `json:"error,omitempty"`
	// Direct marks a WebFetch or WebSearch let through unmediated because direct_fetch is on.
	Direct bool `json:"direct,omitempty"`
	// BodySHA256 is the hex SHA-256 of a publish's text (KindPublish; Bytes is its length).
	BodySHA256 string `json:"body_sha256,omitempty"`
	// An edit-mode command's connections to one host through the egress proxy (KindEgress):
	// how many, the rule that admitted them, the bytes sent (Bytes: received).
	Connections int    `json:"connections,omitempty"`
	Rule        string `json:"rule,omitempty"`
	Sent        int64  `json:"sent,omitempty"`
	// Steps are a research retrieval's tool calls: every URL, query, GitHub read and snapshot,
	// with the step that asked for it (0: the caller's own request), each target clipped.
	Steps []retriever.Step `json:"steps,omitempty"`
	// Usage is what the research spent of its budget.
	Usage *retriever.Usage `json:"usage,omitempty"`
	// Citations are the sources the answer named, as the worker checked them.
	Citations []string `json:"citations,omitempty"`
}

// Transcript is what a retrieval was asked and answered; the raw content only when the user
// set audit.keep_raw.
type Transcript struct {
	ID        string               `json:"id"`
	Need      string               `json:"need"`
	Answer    string               `json:"answer"`
	Injection []string             `json:"injection,omitempty"`
	Steps     []retriever.Step     `json:"steps,omitempty"`     // whole, unclipped
	Documents []retriever.Document `json:"documents,omitempty"` // with Text only under keep_raw
}

// Audit is the append-only log of retrievals under a directory: audit.jsonl (rotated to
// audit.jsonl.1 … .N by size) and transcripts/<id>.json.
type Audit struct {
	Dir      string
	MaxBytes int64 // rotate when the log would pass this; 0 means 10 MiB
	Keep     int   // rotated files kept; 0 means 5
}

const (
	AuditFile    = "audit.jsonl"
	AuditMaxLine = 64 << 10
)

// NewID returns a new entry id: sortable by time, and unique: the time, then four bytes from the
// kernel's random source. It names a transcript file, so it must not collide; it guards nothing
// (the audit's directory is listable by whoever can read it). The bytes come from /dev/urandom
// rather than crypto/rand, which this package would bring into the hook binary, and with it the
// FIPS module's initialisation on every tool call; if it cannot be read, the process id and the
// nanoseconds stand in.
func NewID(t time.Time) string {
	var b [4]byte
	if f, err := os.Open("/dev/urandom"); err == nil {
		_, err = io.ReadFull(f, b[:])
		f.Close()
		if err != nil {
			b = fallbackIDBytes(t)
		}
	} else {
		b = fallbackIDBytes(t)
	}
	return t.UTC().Format("20060102T150405.000Z") + "-" + hex.EncodeToString(b[:])
}

func fallbackIDBytes(t time.Time) [4]byte {
	n := uint32(os.Getpid())<<16 ^ uint32(t.Nanosecond())
	return [4]byte{byte(n >> 24), byte(n >> 16), byte(n >> 8), byte(n)}
}

// auditLockWait bounds how long an append waits for another process's (each syncs its line,
// which on a busy disk takes a while); past it the line is appended without the lock.
const AuditLockWait = 2 * time.Second

// Append writes one entry as one JSON line, synced to disk: a whole line or nothing, whatever
// runs at the same time, whatever is killed, however full the disk (internal/jsonl).
func (a *Audit) Append(e *AuditEntry) error {
	line, err := encodeEntry(e)
	if err != nil {
		return err
	}
	if err := a.log().Append(bytes.TrimSuffix(line, []byte("\n"))); err != nil {
		return fmt.Errorf("failed to write the audit log: %w", err)
	}
	return nil
}

// JSONL is the audit's files, for a reader that resumes where it stopped (hookctl-export).
func (a *Audit) JSONL() *jsonl.Log { return a.log() }

// log is the audit's JSONL log. Its appends are rare (a retrieval, a publish, a command's
// connections) and worth keeping across a crash, so each is synced, and one lane is enough.
func (a *Audit) log() *jsonl.Log {
	// A zero or negative MaxBytes or Keep (which the config should refuse) is jsonl's default,
	// not a rotation on every append.
	return &jsonl.Log{Dir: a.Dir, Name: AuditFile, MaxBytes: a.MaxBytes, Keep: a.Keep, MaxRecord: AuditMaxLine, Sync: true, Wait: AuditLockWait, Chain: true}
}

// encodeEntry renders an entry as one JSON line, newline included, capped. (encoding/json, not
// a logging library: zerolog links package net, and this code runs in the hook process.)
func encodeEntry(e *AuditEntry) ([]byte, error) {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false) // the log is read by people and by hookctl audit, never by a browser
	if err := enc.Encode(e); err != nil {
		return nil, fmt.Errorf("failed to encode audit entry %s: %w", e.ID, err)
	}
	line := buf.Bytes()
	if len(line) > AuditMaxLine {
		return nil, fmt.Errorf("audit entry %s is %d bytes, over the %d-byte cap", e.ID, len(line), AuditMaxLine)
	}
	return line, nil
}

// DamagedLine is an audit line that could not be read: cut short by a crash or a full disk
// before appends were cut back, or edited. Entries skips it and says where it is.
type DamagedLine struct {
	File string
	Line int // from 1; 0: the whole file
	Why  string
}

func (d DamagedLine) String() string {
	if d.Line == 0 {
		return d.File + ": " + d.Why
	}
	return fmt.Sprintf("%s:%d: %s", d.File, d.Line, d.Why)
}

// Entries reads every entry, oldest first. A line that does not parse is skipped and listed in
// damaged, so that one bad line cannot hide the rest of the log; so is a file that is not a
// regular file, which is not opened. An error is a log that cannot be read at all.
func (a *Audit) Entries() (entries []AuditEntry, damaged []DamagedLine, err error) {
	damage, err := a.log().Read(func(r jsonl.Record) error {
		var e AuditEntry
		if err := json.Unmarshal(r.Data, &e); err != nil {
			return errors.New("not a whole entry (cut short or edited)")
		}
		entries = append(entries, e)
		return nil
	})
	for _, d := range damage {
		damaged = append(damaged, DamagedLine{File: filepath.Join(a.Dir, d.File), Line: d.Line, Why: d.Why})
	}
	if err != nil {
		return nil, damaged, fmt.Errorf("failed to read the audit log: %w", err)
	}
	sort.SliceStable(entries, func(i, j int) bool { return entries[i].Time.Before(entries[j].Time) })
	return entries, damaged, nil
}

// SaveTranscript stores a transcript, written atomically.
func (a *Audit) SaveTranscript(t *Transcript) error {
	if !validAuditID(t.ID) {
		return fmt.Errorf("invalid audit id %q", t.ID)
	}
	dir := filepath.Join(a.Dir, "transcripts")
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return err
	}
	b, err := json.MarshalIndent(t, "", "  ")
	if err != nil {
		return err
	}
	return fsutil.WriteAtomic(filepath.Join(dir, t.ID+".json"), b, 0o600)
}

// maxTranscript caps what a transcript read takes: the raw documents of keep_raw included.
const maxTranscript = 64 << 20

// Transcript reads a stored transcript: a regular file only, opened without blocking, never
// through a link (a FIFO or a link to a device there must not stall hookctl audit show).
func (a *Audit) Transcript(id string) (*Transcript, error) {
	if !validAuditID(id) {
		return nil, fmt.Errorf("invalid audit id %q", id)
	}
	b, err := fsutil.ReadFile(filepath.Join(a.Dir, "transcripts", id+".json"), maxTranscript, true)
	if err != nil {
		return nil, err
	}
	var t Transcript
	if err := json.Unmarshal(b, &t); err != nil {
		return nil, err
	}
	return &t, nil
}

func validAuditID(id string) bool {
	if id == "" || len(id) > 64 {
		return false
	}
	for _, c := range id {
		if !(c >= '0' && c <= '9' || c >= 'A' && c <= 'Z' || c >= 'a' && c <= 'z' || strings.ContainsRune(".-", c)) {
			return false
		}
	}
	return true
}

// KindEgress marks an audit entry that records an edit-mode command's connections through the
// egress proxy, not a retrieval.
const KindEgress retriever.Kind = "egress"

// KindPublish marks an audit entry that records a review-mode publish decision, not a retrieval.
const KindPublish retriever.Kind = "publish"

// AppendPublish records a review-mode publish decision in the same log, at the time the hook
// answers: the repository (or "inferred"), the pull request, the verb, the text's length and
// hash (never the text), the scrubber's verdict, and whether the user was asked or the publish
// refused. What happens after the user's answer is not seen here: a PreToolUse hook does not
// learn whether the call ran (docs/threat-model.md).
func (a *Audit) AppendPublish(c *hook.ToolCall, r *hook.PublishRecord) error {
	now := time.Now()
	e := &AuditEntry{ID: NewID(now), Time: now.UTC(), Session: c.Session, AgentID: c.AgentID, AgentType: c.AgentType,
		Tool: c.Tool, Kind: KindPublish, Bytes: int64(r.BodyBytes), BodySHA256: r.BodySHA256, Scrub: r.Scrub,
		Isolation: r.Isolation, Error: r.Refused}
	if e.Isolation == "" {
		e.Isolation = "none: refused, nothing runs"
	}
	if r.Verb != "" {
		e.GitHub = "pr " + r.Verb + " " + r.Repo + " " + r.PR
	}
	switch r.Decision {
	case hook.Ask:
		e.Outcome = "asked"
	default:
		e.Outcome = "refused"
	}
	return a.Append(e)
}

// AuditAt is the audit under hookctl's home, for reading it.
func AuditAt(home string) *Audit { return &Audit{Dir: filepath.Join(home, "audit")} }
