package front

import (
	"bufio"
	"bytes"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"time"

	"github.com/hookctl/hookctl/hook"
	"github.com/hookctl/hookctl/internal/fsutil"
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
	auditFile    = "audit.jsonl"
	auditLock    = "audit.lock"
	auditMaxLine = 64 << 10
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

// auditLockWait bounds how long an append waits for another process's. An append takes
// milliseconds; a lock held longer belongs to a stuck or hostile process, and waiting for it
// would stall the retrieval, and with it the agent's tool call, without end.
const auditLockWait = 2 * time.Second

// Append writes one entry as one JSON line. Appends from concurrent processes never interleave:
// each takes the log's lock (waiting at most auditLockWait), rotates if the file is full, and
// writes the whole line, newline included, in one write to a file opened O_APPEND. A write that
// fails part way (a full disk, a file size limit) is cut back off, so the log never ends in part
// of a line; a log that does (a crash) gets the line after a newline of its own.
func (a *Audit) Append(e *AuditEntry) error {
	line, err := encodeEntry(e)
	if err != nil {
		return err
	}
	if err := os.MkdirAll(a.Dir, 0o700); err != nil {
		return fmt.Errorf("failed to create the audit directory: %w", err)
	}
	unlock, err := fsutil.Lock(filepath.Join(a.Dir, auditLock), auditLockWait)
	if err != nil {
		return err
	}
	defer unlock()
	path := filepath.Join(a.Dir, auditFile)
	if fi, err := os.Stat(path); err == nil && fi.Size()+int64(len(line)) > a.maxBytes() {
		if err := a.rotate(); err != nil {
			return err
		}
	}
	f, err := os.OpenFile(path, os.O_RDWR|os.O_APPEND|os.O_CREATE, 0o600)
	if err != nil {
		return fmt.Errorf("failed to open the audit log: %w", err)
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return fmt.Errorf("failed to open the audit log: %w", err)
	}
	// A log cut off inside a line (a crash) would glue this entry onto that line's remains.
	if last := make([]byte, 1); fi.Size() > 0 {
		if _, err := f.ReadAt(last, fi.Size()-1); err != nil {
			return fmt.Errorf("failed to read the audit log: %w", err)
		}
		if last[0] != '\n' {
			line = append([]byte{'\n'}, line...)
		}
	}
	if n, err := f.Write(line); err != nil {
		if n > 0 {
			f.Truncate(fi.Size()) // under the lock: the end of the file is this line's part
		}
		return fmt.Errorf("failed to write the audit log: %w", err)
	}
	if err := f.Sync(); err != nil {
		return fmt.Errorf("failed to write the audit log: %w", err)
	}
	return nil
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
	if len(line) > auditMaxLine {
		return nil, fmt.Errorf("audit entry %s is %d bytes, over the %d-byte cap", e.ID, len(line), auditMaxLine)
	}
	return line, nil
}

// maxBytes is MaxBytes, or 10 MiB when it is zero or negative: the config's validation is the
// config's, and a bad value must not make every append rotate, or none.
func (a *Audit) maxBytes() int64 {
	if a.MaxBytes > 0 {
		return a.MaxBytes
	}
	return 10 << 20
}

func (a *Audit) keep() int {
	if a.Keep > 0 {
		return a.Keep
	}
	return 5
}

// rotate shifts audit.jsonl to .1, .1 to .2, …, dropping the oldest. Called under the lock.
func (a *Audit) rotate() error {
	if err := fsutil.Rotate(filepath.Join(a.Dir, auditFile), a.keep()); err != nil {
		return fmt.Errorf("failed to rotate the audit log: %w", err)
	}
	return nil
}

// DamagedLine is an audit line that could not be read: cut short by a crash or a full disk
// before appends were cut back, or edited. Entries skips it and says where it is.
type DamagedLine struct {
	File string
	Line int // from 1
	Why  string
}

func (d DamagedLine) String() string { return fmt.Sprintf("%s:%d: %s", d.File, d.Line, d.Why) }

// Entries reads every entry, oldest first. A line that does not parse is skipped and listed in
// damaged, so that one bad line cannot hide the rest of the log; an error is a file that cannot
// be read at all.
func (a *Audit) Entries() (entries []AuditEntry, damaged []DamagedLine, err error) {
	base := filepath.Join(a.Dir, auditFile)
	for i := a.keep(); i >= 0; i-- {
		path := base
		if i > 0 {
			path = fmt.Sprintf("%s.%d", base, i)
		}
		f, err := os.Open(path)
		if errors.Is(err, fs.ErrNotExist) {
			continue
		}
		if err != nil {
			return nil, nil, fmt.Errorf("failed to read the audit log: %w", err)
		}
		r := bufio.NewReaderSize(f, 64<<10)
		for n := 1; ; n++ {
			line, tooLong, err := readAuditLine(r)
			if err != nil && !errors.Is(err, io.EOF) {
				f.Close()
				return nil, nil, fmt.Errorf("failed to read the audit log %s: %w", path, err)
			}
			if errors.Is(err, io.EOF) && len(line) == 0 && !tooLong {
				break
			}
			var e AuditEntry
			switch {
			case tooLong:
				damaged = append(damaged, DamagedLine{path, n, fmt.Sprintf("longer than the %d-byte cap", auditMaxLine)})
			case json.Unmarshal(line, &e) != nil:
				damaged = append(damaged, DamagedLine{path, n, "not a whole entry (cut short or edited)"})
			default:
				entries = append(entries, e)
			}
			if errors.Is(err, io.EOF) {
				break
			}
		}
		f.Close()
	}
	sort.SliceStable(entries, func(i, j int) bool { return entries[i].Time.Before(entries[j].Time) })
	return entries, damaged, nil
}

// readAuditLine reads one line without its newline, keeping at most auditMaxLine bytes of it:
// tooLong reports that it was longer. err is io.EOF for the last line, newline or not.
func readAuditLine(r *bufio.Reader) (line []byte, tooLong bool, err error) {
	for {
		chunk, err := r.ReadSlice('\n')
		if len(line)+len(chunk) <= auditMaxLine+1 {
			line = append(line, chunk...)
		} else {
			tooLong = true
		}
		if errors.Is(err, bufio.ErrBufferFull) {
			continue // the rest of a long line
		}
		return bytes.TrimSuffix(line, []byte("\n")), tooLong, err
	}
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

// Transcript reads a stored transcript.
func (a *Audit) Transcript(id string) (*Transcript, error) {
	if !validAuditID(id) {
		return nil, fmt.Errorf("invalid audit id %q", id)
	}
	f, err := os.Open(filepath.Join(a.Dir, "transcripts", id+".json"))
	if err != nil {
		return nil, err
	}
	defer f.Close()
	var t Transcript
	if err := json.NewDecoder(io.LimitReader(f, 64<<20)).Decode(&t); err != nil {
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
