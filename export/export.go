// Package export is hookctl-export: it ships hookctl's decision log and audit, every record,
// to the organisation's OpenTelemetry collector as OTLP log records (docs/fleet.md,
// docs/decisions/0013-telemetry-export.md).
//
// It runs as its own process, which the hook starts after it has answered (package launch) and
// which holds $HOOKCTL_HOME/export.lock while it runs: one exporter at a time, and the hook never
// waits for one. It reads each log from a persisted cursor, sends a batch, and advances the
// cursor only when the collector has acknowledged the batch: at least once, in order per
// session, each record carrying hookctl.record.id for de-duplication. A collector that is down
// is retried with a backoff, while the lock is held; past a bounded time the exporter exits,
// and the next hook starts another. Records rotated away before they were shipped are counted
// and reported in a hookctl.export.dropped record.
package export

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"syscall"
	"time"

	"github.com/hookctl/hookctl/audit"
	"github.com/hookctl/hookctl/config"
	"github.com/hookctl/hookctl/export/launch"
	"github.com/hookctl/hookctl/internal/fsutil"
	"github.com/hookctl/hookctl/internal/jsonl"
)

// Options configure one exporter run.
type Options struct {
	Home      string
	Telemetry config.TelemetryConfig
	// AuditMaxBytes is the audit's rotation size (config [audit] max_bytes).
	AuditMaxBytes int64
	// Locked: the lock is held already, on launch.LockedFD (the hook took it for this process).
	Locked bool
	// Idle: exit once no new record has come for this long. GiveUp: exit once every send has
	// failed for this long. MaxBackoff caps the wait between failed sends.
	Idle, GiveUp, MaxBackoff time.Duration
	// Log receives what the exporter has to say (its standard error).
	Log io.Writer
}

// Defaults of Options.
const (
	DefaultIdle       = 3 * time.Second
	DefaultGiveUp     = 10 * time.Minute
	DefaultMaxBackoff = 30 * time.Second
	firstBackoff      = 500 * time.Millisecond
	poll              = 200 * time.Millisecond
	// batchSize records, of batchBytes of log lines at most, go in one request (a collector's
	// default limit on a request is 20 MiB; audit lines are up to 64 KiB); window is how many a
	// lane contributes to one pass.
	batchSize  = 512
	batchBytes = 4 << 20
	window     = 2048
)

// ErrBusy is returned when another exporter holds the lock.
var ErrBusy = errors.New("another hookctl-export is running")

// source is one log the exporter ships.
type source struct {
	name string
	log  *jsonl.Log
}

// Exporter ships the logs of one hookctl home.
type Exporter struct {
	o       Options
	sources []source
	cursor  string
	send    sender
}

// New builds an exporter; nothing is sent yet.
func New(o Options) (*Exporter, error) {
	if !o.Telemetry.Enabled() {
		return nil, errors.New("no [telemetry] otlp_endpoint in the config: nothing to export")
	}
	if o.Idle <= 0 {
		o.Idle = DefaultIdle
	}
	if o.GiveUp <= 0 {
		o.GiveUp = DefaultGiveUp
	}
	if o.MaxBackoff <= 0 {
		o.MaxBackoff = DefaultMaxBackoff
	}
	if o.Log == nil {
		o.Log = io.Discard
	}
	s, err := newSender(o.Telemetry)
	if err != nil {
		return nil, err
	}
	frontAudit := audit.AuditAt(o.Home)
	frontAudit.MaxBytes = o.AuditMaxBytes
	return &Exporter{
		o:       o,
		sources: []source{{"decisions", audit.DecisionLogAt(o.Home).JSONL()}, {"audit", frontAudit.JSONL()}},
		cursor:  filepath.Join(o.Home, launch.CursorFile),
		send:    s,
	}, nil
}

// Run ships until the logs have been idle for Options.Idle, or every send has failed for
// Options.GiveUp. After it lets the lock go it looks once more: a hook that found the lock held
// just before had appended its record already, and that record must not wait for the next hook.
func (e *Exporter) Run(ctx context.Context) error {
	defer e.send.shutdown()
	locked := e.o.Locked
	for {
		unlock, err := e.lock(locked)
		locked = false
		if err != nil {
			return err
		}
		err = e.loop(ctx)
		unlock()
		if err != nil || ctx.Err() != nil {
			return err
		}
		if n, err := e.pending(); err != nil || n == 0 {
			return err
		}
	}
}

// lock takes the exporter's lock, or checks the one the hook handed over.
func (e *Exporter) lock(inherited bool) (func(), error) {
	if inherited {
		f := os.NewFile(launch.LockedFD, launch.LockFile)
		// Taking a lock this open file holds already succeeds at once; any other lock on the
		// file fails, and then another exporter runs.
		if f != nil && syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB) == nil {
			return func() { f.Close() }, nil
		}
		if f != nil {
			f.Close()
		}
	}
	unlock, err := fsutil.TryLock(filepath.Join(e.o.Home, launch.LockFile))
	if errors.Is(err, fsutil.ErrLockTimeout) {
		return nil, ErrBusy
	}
	return unlock, err
}

// loop ships batches while there are records, backing off while sends fail.
func (e *Exporter) loop(ctx context.Context) error {
	// Read once a run, under the lock, and kept: what a failing pass learns (the records counted
	// in each file, which a rotation may take away) is saved too, for a loss to be counted.
	c, err := loadCursor(e.cursor)
	if err != nil {
		fmt.Fprintf(e.o.Log, "hookctl-export: %v\n", err)
	}
	active := time.Now()
	var failingSince time.Time
	backoff := firstBackoff
	for ctx.Err() == nil {
		n, err := e.pass(ctx, c)
		switch {
		case err != nil:
			if failingSince.IsZero() {
				failingSince = time.Now()
			}
			fmt.Fprintf(e.o.Log, "hookctl-export: %v; again in %s\n", err, backoff)
			if time.Since(failingSince) >= e.o.GiveUp {
				return fmt.Errorf("gave up after %s of failures (the next hook call starts another exporter): %w", e.o.GiveUp, err)
			}
			sleep(ctx, backoff)
			backoff = min(2*backoff, e.o.MaxBackoff)
		case n > 0:
			active, failingSince, backoff = time.Now(), time.Time{}, firstBackoff
		default:
			if time.Since(active) >= e.o.Idle {
				return nil
			}
			sleep(ctx, poll)
		}
	}
	return nil
}

func sleep(ctx context.Context, d time.Duration) {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
	case <-t.C:
	}
}

// item is one record read from a log, not yet shipped.
type item struct {
	log   string
	lane  int
	ino   uint64
	start int64
	end   int64
	id    string
	hash  string // the SHA-256 of the line's exact bytes, which the next record of its lane names
	time  time.Time
	data  []byte
}

// lane is one lane's unshipped records of a pass, in order.
type lane struct {
	log       string
	k         int
	items     []*item
	truncated bool // more were left unread
}

// pass ships at most one batch from cursor c and reports how many records it shipped.
func (e *Exporter) pass(ctx context.Context, c *cursor) (int, error) {
	lanes, lost, err := e.read(c)
	if err != nil {
		return 0, err
	}
	if len(lost) > 0 {
		// The loss is kept with the reset cursor, in one write, before anything else is sent.
		for _, d := range lost {
			c.addDropped(d)
			fmt.Fprintf(e.o.Log, "hookctl-export: %d records of the %s log (lane %d) were rotated away before they were exported\n", d.Records, d.Log, d.Lane)
		}
		if err := c.save(e.cursor); err != nil {
			return 0, fmt.Errorf("failed to write the cursor: %w", err)
		}
	}
	batch := merge(lanes, batchSize-len(c.Dropped))
	if len(batch) == 0 && len(c.Dropped) == 0 {
		return 0, nil
	}
	if err := e.send.send(ctx, c.Dropped, batch); err != nil {
		c.save(e.cursor) // what was counted; the places are unchanged
		return 0, err
	}
	n := len(c.Dropped) + len(batch)
	c.Dropped = nil
	for _, it := range batch {
		c.lane(it.log, it.lane).advance(it)
	}
	if err := c.save(e.cursor); err != nil {
		return n, fmt.Errorf("failed to write the cursor (the batch sent may be sent again): %w", err)
	}
	return n, nil
}

// pending counts the unshipped records, without sending.
func (e *Exporter) pending() (int, error) {
	c, _ := loadCursor(e.cursor)
	lanes, lost, err := e.read(c)
	n := len(lost)
	for _, l := range lanes {
		n += len(l.items)
	}
	return n, err
}

// read reads every lane's unshipped records, up to window each, counting losses.
func (e *Exporter) read(c *cursor) ([]*lane, []drop, error) {
	var lanes []*lane
	var lost []drop
	for _, src := range e.sources {
		snap, err := src.log.Open()
		if err != nil {
			return nil, nil, fmt.Errorf("failed to read the %s log: %w", src.name, err)
		}
		byLane := map[int][]int{}
		maxLane := -1
		for i, f := range snap.Files {
			byLane[f.Lane] = append(byLane[f.Lane], i)
			maxLane = max(maxLane, f.Lane)
		}
		for k := 0; k <= maxLane; k++ {
			lc := c.lane(src.name, k)
			starts, loss := lc.plan(src.name, snap, byLane[k])
			if loss != nil {
				loss.Lane = k
				if loss.Records > 0 || loss.AtLeast {
					lost = append(lost, *loss)
				}
			}
			l := &lane{log: src.name, k: k}
			for _, s := range starts {
				f := snap.Files[s.file]
				snap.ReadFile(s.file, s.offset, func(r jsonl.Record) error {
					if len(l.items) == window {
						l.truncated = true
						return jsonl.ErrStop
					}
					l.items = append(l.items, &item{log: src.name, lane: k, ino: f.Ino, start: r.Offset, end: r.End,
						id: recordID(src.name, r.Data), hash: jsonl.LineHash(r.Raw), time: recordTime(r.Data), data: bytes.Clone(r.Data)})
					return nil
				})
				if l.truncated {
					break
				}
			}
			lanes = append(lanes, l)
		}
		snap.Close()
	}
	return lanes, lost, nil
}

// recordTime is a record's "time", or the zero time (it then goes first, in its lane's order).
func recordTime(data []byte) time.Time {
	var r struct {
		Time time.Time `json:"time"`
	}
	json.Unmarshal(data, &r)
	return r.Time
}

// merge takes up to n records from the lanes, oldest first, each lane in its own order (so
// that its cursor is a prefix): records of one session, which may be in several lanes and both
// logs, go in the order they were made. A lane read only in part ends the batch when its part
// does, as its next record may be older than the other lanes' next.
func merge(lanes []*lane, n int) []*item {
	var out []*item
	heads := make([]int, len(lanes))
	size := 0
	for len(out) < n && size < batchBytes {
		best := -1
		for i, l := range lanes {
			if heads[i] < len(l.items) && (best < 0 || l.items[heads[i]].time.Before(lanes[best].items[heads[best]].time)) {
				best = i
			}
		}
		if best < 0 {
			break
		}
		next := lanes[best].items[heads[best]]
		if len(out) > 0 && size+len(next.data) > batchBytes {
			break
		}
		out = append(out, next)
		size += len(next.data)
		heads[best]++
		if heads[best] == len(lanes[best].items) && lanes[best].truncated {
			break
		}
	}
	return out
}
