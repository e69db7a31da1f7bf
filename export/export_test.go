package export

import (
	"context"
	"fmt"
	"maps"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"syscall"
	"testing"
	"time"

	ct "github.com/hookctl/hookctl/agents/claude/claudetest"
	"github.com/hookctl/hookctl/audit"
	"github.com/hookctl/hookctl/config"
	"github.com/hookctl/hookctl/export/launch"
	"github.com/hookctl/hookctl/hook"
	"github.com/hookctl/hookctl/internal/jsonl"
	"github.com/hookctl/hookctl/internal/otelcoltest"
	"github.com/hookctl/hookctl/internal/testbin"
	"github.com/hookctl/hookctl/retriever"
	"go.opentelemetry.io/otel/attribute"
)

// box is a hookctl home whose config sends the records to a collector, with the real
// hookctl (and hookctl-export beside it) to drive.
type box struct {
	t    *testing.T
	home string
	bin  string
	cwd  string
}

func newBox(t *testing.T, endpoint, protocol string) *box {
	if testing.Short() {
		t.Skip("builds hookctl and an OpenTelemetry Collector")
	}
	m := &box{t: t, home: t.TempDir(), bin: testbin.Hookctl(t), cwd: t.TempDir()}
	cfg := ""
	if endpoint != "" {
		cfg = fmt.Sprintf("[telemetry]\notlp_endpoint = %q\n", endpoint)
		if protocol != "" {
			cfg += fmt.Sprintf("otlp_protocol = %q\n", protocol)
		}
	}
	if err := os.WriteFile(filepath.Join(m.home, "config.toml"), []byte(cfg), 0o600); err != nil {
		t.Fatal(err)
	}
	// An exporter the hook started must be gone before the home is removed.
	t.Cleanup(func() { m.waitExporter(30 * time.Second) })
	return m
}

// run runs hookctl with args and stdin, as a client or a user would, and returns its output.
func (m *box) run(stdin string, args ...string) string {
	m.t.Helper()
	cmd := exec.Command(m.bin, args...)
	cmd.Env = append(os.Environ(), "HOOKCTL_HOME="+m.home)
	cmd.Dir = m.cwd
	cmd.Stdin = strings.NewReader(stdin)
	out, err := cmd.CombinedOutput()
	if _, ok := err.(*exec.ExitError); err != nil && !ok {
		m.t.Fatal(err)
	}
	return string(out)
}

func (m *box) hook(session, event, rest string) string {
	m.t.Helper()
	return m.run(fmt.Sprintf(`{"session_id":%q,"cwd":%q,"hook_event_name":%q%s}`, session, m.cwd, event, rest), "hook")
}

func (m *box) bash(session, command string, n int) string {
	m.t.Helper()
	return m.hook(session, "PreToolUse", fmt.Sprintf(`,"tool_name":"Bash","tool_input":{"command":%q},"tool_use_id":"toolu_%d"`, command, n))
}

// exporterRunning says whether an exporter holds the lock.
func (m *box) exporterRunning() bool {
	unlock, err := fsLockFree(filepath.Join(m.home, launch.LockFile))
	if err != nil {
		return true
	}
	unlock()
	return false
}

func fsLockFree(path string) (func(), error) {
	f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE, 0o600)
	if err != nil {
		return nil, err
	}
	if err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB); err != nil {
		f.Close()
		return nil, err
	}
	return func() { f.Close() }, nil
}

func (m *box) waitExporter(d time.Duration) {
	deadline := time.Now().Add(d)
	for m.exporterRunning() && time.Now().Before(deadline) {
		time.Sleep(50 * time.Millisecond)
	}
}

// decisions are the decision log's records, as hookctl log reads them.
func (m *box) decisions() []hook.LogEntry {
	m.t.Helper()
	entries, damaged, err := audit.DecisionLogAt(m.home).Entries()
	if err != nil || damaged > 0 {
		m.t.Fatalf("decision log: %v, %d damaged", err, damaged)
	}
	return entries
}

// byDecision indexes what the collector received by the decision's id, counting copies.
func byDecision(recs []otelcoltest.Record) (map[string]otelcoltest.Record, map[string]int) {
	one, copies := map[string]otelcoltest.Record{}, map[string]int{}
	for _, r := range recs {
		if id, ok := r.Attributes["hookctl.decision.id"].(string); ok {
			one[id] = r
			copies[id]++
		}
	}
	return one, copies
}

// upCollector is a collector, started.
func upCollector(t *testing.T) *otelcoltest.Collector {
	if testing.Short() {
		t.Skip("builds an OpenTelemetry Collector")
	}
	col := otelcoltest.New(t)
	col.Start()
	return col
}

// TestEveryRecordArrives drives the real hookctl as Claude Code and a user do — a session's
// start, an admitted and a refused shell command, a refused Write, a /readonly typed in the
// session, `hookctl readonly` from a terminal, a retrieval in the audit, the session's end — with
// the collector up, and checks that every record of both logs arrives once, with its fields as
// attributes under their names, and the machine's resource.
func TestEveryRecordArrives(t *testing.T) {
	col := upCollector(t)
	m := newBox(t, "http://"+col.HTTP, "")
	s := "5e55a0e1-0000-4000-8000-000000000001"
	m.hook(s, "SessionStart", `,"source":"startup"`)
	if out := m.bash(s, "ls -la", 1); !strings.Contains(out, `"permissionDecision":"allow"`) {
		t.Fatalf("ls: %s", out)
	}
	if out := m.bash(s, "sed -i s/a/b/ README.md", 2); !strings.Contains(out, `"permissionDecision":"deny"`) {
		t.Fatalf("sed -i: %s", out)
	}
	m.hook(s, "PreToolUse", `,"tool_name":"Write","tool_input":{"file_path":"x.txt","content":"x"},"tool_use_id":"toolu_3"`)
	m.hook(s, "UserPromptExpansion", `,"prompt":"/readonly review","command_name":"readonly","command_args":"review","command_source":"userSettings","prompt_id":"p1"`)
	if out := m.run("", "readonly", "off", "--session", s); !strings.Contains(out, "EDIT") {
		t.Fatalf("hookctl readonly off: %s", out)
	}
	// A retrieval, as the retriever's front records it, in the audit.
	now := time.Now()
	if err := audit.AuditAt(m.home).Append(&audit.AuditEntry{ID: audit.NewID(now), Time: now, Session: s, Tool: "WebFetch", Kind: retriever.KindFetch,
		URL: "https://example.com/a", Host: "example.com", Status: 200, Bytes: 1234, Scrub: "clean", Outcome: "answered", Injection: []string{"ignore-previous"}}); err != nil {
		t.Fatal(err)
	}
	m.hook(s, "SessionEnd", `,"reason":"other"`)

	want := m.decisions()
	audit, _, err := audit.AuditAt(m.home).Entries()
	if err != nil || len(audit) != 1 {
		t.Fatalf("audit: %v %d", err, len(audit))
	}
	recs := col.Wait(60*time.Second, func(r []otelcoltest.Record) bool {
		got, _ := byDecision(r)
		return len(got) >= len(want) && slices.ContainsFunc(r, func(r otelcoltest.Record) bool { return r.EventName == "hookctl.retrieval" })
	})
	got, copies := byDecision(recs)
	host, _ := os.Hostname()
	kinds := map[string]int{}
	for _, e := range want {
		r, ok := got[e.ID]
		if !ok {
			t.Errorf("decision %s (%s %s) did not arrive", e.ID, e.Event, e.Tool)
			continue
		}
		kinds[r.EventName]++
		if copies[e.ID] != 1 {
			t.Errorf("decision %s arrived %d times", e.ID, copies[e.ID])
		}
		for name, v := range map[string]string{"session.id": e.Session, "hookctl.event": e.Event, "hookctl.verdict": e.Verdict, "hookctl.tool": e.Tool,
			"hookctl.mode": e.Mode, "hookctl.rule": e.Rule, "hookctl.reason": e.Reason, "hookctl.command": e.Command, "hookctl.client": e.Agent,
			"hookctl.isolation": e.Isolation, "hookctl.version": e.Version, "hookctl.log": "decisions"} {
			if a, _ := r.Attributes[name].(string); a != v {
				t.Errorf("%s %s: %s = %q, want %q", e.Event, e.ID, name, a, v)
			}
		}
		if id, _ := r.Attributes["hookctl.record.id"].(string); len(id) != 32 {
			t.Errorf("%s: record id %q", e.ID, id)
		}
		if !r.Time.Equal(e.Time) {
			t.Errorf("%s: time %v, want %v", e.ID, r.Time, e.Time)
		}
		for name, v := range map[string]string{"service.name": "hookctl", "host.name": host, "service.version": r.Resource["service.version"].(string)} {
			if r.Resource[name] != v || v == "" {
				t.Errorf("resource %s = %v", name, r.Resource[name])
			}
		}
		if r.Resource["user.name"] == nil {
			t.Errorf("resource has no user.name: %v", r.Resource)
		}
	}
	// The events the session made, each named.
	events := map[string]string{}
	for _, e := range want {
		events[e.Event+" "+e.Verdict+" "+e.Tool] = got[e.ID].EventName
	}
	for ev, name := range map[string]string{"session_start pass ": "hookctl.session.start", "tool allow Bash": "hookctl.decision",
		"tool deny Bash": "hookctl.decision", "tool deny Write": "hookctl.decision", "toggle allow ": "hookctl.mode_change", "session_end pass ": "hookctl.session.end"} {
		if events[ev] != name {
			t.Errorf("%q: event %q, want %q (events: %v)", ev, events[ev], name, events)
		}
	}
	// The heartbeat: the gate is installed and firing here, with this build and sandbox.
	for _, e := range want {
		if e.Event == "session_start" {
			r := got[e.ID]
			if r.Attributes["hookctl.version"] == "" || !strings.HasPrefix(r.Attributes["hookctl.isolation"].(string), "read-only: ") || r.Attributes["hookctl.client"] != "Claude Code" {
				t.Errorf("heartbeat attributes: %v", r.Attributes)
			}
		}
		if e.Event == "tool" && e.Verdict == "deny" && got[e.ID].Severity != "DENY" {
			t.Errorf("a refusal's severity %q", got[e.ID].Severity)
		}
	}
	// The CLI's toggle, which the decision log did not hold before.
	if !slices.ContainsFunc(want, func(e hook.LogEntry) bool {
		return e.Event == "toggle" && e.How == "cli" && e.From == "read-only" && e.To == "edit" && e.Verdict == "allow"
	}) {
		t.Errorf("hookctl readonly off was not recorded: %+v", want)
	}
	// The audit's record, by its event: a hookctl.export.dropped record names its log too.
	var a otelcoltest.Record
	for _, r := range recs {
		switch r.EventName {
		case "hookctl.retrieval":
			a = r
		case "hookctl.export.dropped":
			t.Errorf("nothing was lost, and a loss was reported: %v", r.Attributes)
		}
	}
	for name, v := range map[string]any{"session.id": s, "url.full": "https://example.com/a", "server.address": "example.com", "http.response.status_code": int64(200),
		"hookctl.bytes": int64(1234), "hookctl.outcome": "answered", "hookctl.retrieval.kind": "fetch", "hookctl.audit.id": audit[0].ID} {
		if a.Attributes[name] != v {
			t.Errorf("audit record: %s = %#v, want %#v", name, a.Attributes[name], v)
		}
	}
	if inj, _ := a.Attributes["hookctl.injection"].([]any); len(inj) != 1 || inj[0] != "ignore-previous" {
		t.Errorf("audit record injection %#v", a.Attributes["hookctl.injection"])
	}
	// The client's id of each tool call, under OpenTelemetry's name for it, joins the record to
	// the client's own telemetry.
	ids := map[string]string{}
	for _, e := range want {
		if e.Event == "tool" {
			ids[e.Tool+" "+e.Verdict] = fmt.Sprint(got[e.ID].Attributes["gen_ai.tool.call.id"])
		}
	}
	if w := map[string]string{"Bash allow": "toolu_1", "Bash deny": "toolu_2", "Write deny": "toolu_3"}; !maps.Equal(ids, w) {
		t.Errorf("gen_ai.tool.call.id by call: %v, want %v", ids, w)
	}
	links := checkChains(t, recs)
	t.Logf("%d decision records and 1 audit record arrived, each once; by event: %v; %d chain links checked at the collector", len(want), kinds, links)
	for _, r := range recs {
		keys := make([]string, 0, len(r.Attributes))
		for k := range r.Attributes {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		t.Logf("  %-22s %s", r.EventName, strings.Join(keys, " "))
	}
}

// checkChains checks, from what the collector received alone, every lane's hash chain: each
// record's hookctl.record.prev_hash is the hookctl.record.hash of the record before it in its
// log's lane (by hookctl.record.seq), the first names no line. It returns the links checked.
func checkChains(t *testing.T, recs []otelcoltest.Record) int {
	t.Helper()
	type rec struct {
		seq        int64
		hash, prev string
	}
	lanes := map[string][]rec{}
	for _, r := range recs {
		seq, _ := r.Attributes["hookctl.record.seq"].(int64)
		hash, _ := r.Attributes["hookctl.record.hash"].(string)
		prev, _ := r.Attributes["hookctl.record.prev_hash"].(string)
		if r.EventName == "hookctl.export.dropped" {
			continue
		}
		if seq == 0 || len(hash) != 64 || len(prev) != 64 {
			t.Errorf("%s record without its chain: seq %v, hash %q, prev_hash %q", r.EventName, seq, hash, prev)
			continue
		}
		k := fmt.Sprint(r.Attributes["hookctl.log"], "/", r.Attributes["hookctl.record.lane"])
		lanes[k] = append(lanes[k], rec{seq, hash, prev})
	}
	links := 0
	for k, rs := range lanes {
		sort.Slice(rs, func(i, j int) bool { return rs[i].seq < rs[j].seq })
		rs = slices.CompactFunc(rs, func(a, b rec) bool { return a.seq == b.seq && a.hash == b.hash }) // at least once
		for i, r := range rs {
			switch {
			case i == 0 && (r.seq != 1 || r.prev != jsonl.GenesisHash):
				t.Errorf("%s: the first record is seq %d naming %s", k, r.seq, r.prev)
			case i > 0 && (r.seq != rs[i-1].seq+1 || r.prev != rs[i-1].hash):
				t.Errorf("%s: seq %d names %s after seq %d hashing to %s", k, r.seq, r.prev, rs[i-1].seq, rs[i-1].hash)
			case i > 0:
				links++
			}
		}
	}
	return links
}

// TestGRPC: the same export over OTLP/gRPC (otlp_protocol = "grpc").
func TestGRPC(t *testing.T) {
	col := upCollector(t)
	m := newBox(t, "http://"+col.GRPC, "grpc")
	m.bash("grpc-session", "ls", 1)
	want := m.decisions()
	col.Wait(60*time.Second, func(r []otelcoltest.Record) bool {
		got, _ := byDecision(r)
		_, ok := got[want[0].ID]
		return ok
	})
}

// TestOutageLosesNothing: the collector takes some records, stops, 100 decisions are made
// while it is down, and it starts again: every decision arrives, and exactly once after
// de-duplication by hookctl.record.id. Control: with the collector down, none had arrived.
func TestOutageLosesNothing(t *testing.T) {
	col := upCollector(t)
	m := newBox(t, "http://"+col.HTTP, "")
	s := "outage-session"
	m.bash(s, "ls", 0)
	col.Wait(60*time.Second, func(r []otelcoltest.Record) bool { return len(r) >= 1 })
	col.Stop()
	before := len(col.Records())
	for i := 1; i <= 100; i++ {
		cmd := "ls"
		if i%3 == 0 {
			cmd = "rm -rf build" // refused: both verdicts go through the outage
		}
		m.bash(s, cmd, i)
	}
	if !m.exporterRunning() {
		t.Error("no exporter holds on while the collector is down")
	}
	if n := len(col.Records()); n != before {
		t.Fatalf("control: %d records arrived with the collector down", n-before)
	}
	want := m.decisions()
	if len(want) != 101 {
		t.Fatalf("the decision log has %d records, want 101", len(want))
	}
	col.Start()
	// The exporter that waited through the outage sends them (its backoff is capped at 30 s).
	recs := col.Wait(90*time.Second, func(r []otelcoltest.Record) bool {
		got, _ := byDecision(r)
		return len(got) >= len(want)
	})
	m.waitExporter(30 * time.Second)
	recs = col.Records()
	got, copies := byDecision(recs)
	ids := map[string]int{}
	for _, r := range recs {
		ids[r.Attributes["hookctl.record.id"].(string)]++
	}
	dups := 0
	for _, e := range want {
		if _, ok := got[e.ID]; !ok {
			t.Errorf("decision %s did not arrive", e.ID)
		}
		dups += copies[e.ID] - 1
	}
	if len(ids) != len(want) {
		t.Errorf("%d distinct record ids for %d decisions", len(ids), len(want))
	}
	// In order per session: the collector received them in the order they were made.
	var order []string
	for _, r := range recs {
		order = append(order, r.Attributes["hookctl.decision.id"].(string))
	}
	var made []string
	for _, e := range want {
		made = append(made, e.ID)
	}
	if first := dedupe(order); !slices.Equal(first, made) {
		t.Errorf("received out of order:\n got %v\nwant %v", first, made)
	}
	t.Logf("outage: 100 decisions made with the collector down (0 arrived); after its restart it had received %d records, %d distinct ids, "+
		"all 101 decisions (100 + the one before), %d duplicates, in the order made", len(recs), len(ids), dups)
}

func dedupe(ids []string) []string {
	seen := map[string]bool{}
	var out []string
	for _, id := range ids {
		if !seen[id] {
			seen[id] = true
			out = append(out, id)
		}
	}
	return out
}

// TestKillMidSendLosesNothing: the exporter is killed (SIGKILL) again and again at random
// moments while it ships 3,000 records; whatever was acknowledged and not yet in the cursor is
// sent again, nothing is lost, and every copy carries the same record id.
func TestKillMidSendLosesNothing(t *testing.T) {
	col := upCollector(t)
	m := newBox(t, "http://"+col.HTTP, "")
	log := audit.DecisionLogAt(m.home)
	const n = 3000
	for i := range n {
		now := time.Now()
		if err := log.Append(&hook.LogEntry{ID: hook.NewLogID(now), Time: now, Session: fmt.Sprintf("s%d", i%7), Event: "tool", Tool: "Bash",
			Verdict: "allow", Command: fmt.Sprintf("echo %d %s", i, strings.Repeat("x", 200))}); err != nil {
			t.Fatal(err)
		}
	}
	exporter := filepath.Join(filepath.Dir(m.bin), launch.Executable)
	kills := 0
	for try := 0; try < 60; try++ {
		cmd := exec.Command(exporter, "--idle", "200ms")
		cmd.Env = []string{"HOOKCTL_HOME=" + m.home, "HOME=" + os.Getenv("HOME")}
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		time.Sleep(time.Duration(5+rand.IntN(120)) * time.Millisecond)
		cmd.Process.Kill()
		if err := cmd.Wait(); err != nil {
			kills++
		}
		if got, _ := byDecision(col.Records()); len(got) == n {
			break
		}
	}
	// The last run finishes the job.
	cmd := exec.Command(exporter, "--idle", "500ms")
	cmd.Env = []string{"HOOKCTL_HOME=" + m.home, "HOME=" + os.Getenv("HOME")}
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("exporter: %v\n%s", err, out)
	}
	recs := col.Wait(30*time.Second, func(r []otelcoltest.Record) bool { got, _ := byDecision(r); return len(got) == n })
	got, copies := byDecision(recs)
	dups := 0
	for _, c := range copies {
		dups += c - 1
	}
	for _, e := range m.decisions() {
		if _, ok := got[e.ID]; !ok {
			t.Errorf("decision %s lost", e.ID)
		}
	}
	if kills == 0 {
		t.Error("no exporter was killed: the test proves nothing")
	}
	t.Logf("%d records, %d exporters killed mid-run: all %d arrived, %d sent twice (acknowledged, killed before the cursor moved)", n, kills, len(got), dups)
}

// TestRotatedAwayIsCounted: records rotated out of a log before they were shipped are counted,
// and a loud hookctl.export.dropped record says how many; those still on disk are shipped. With
// the collector down and the exporter retrying, it has counted every file and the number is
// exact; with no exporter running while whole files come and go, it says "at least".
func TestRotatedAwayIsCounted(t *testing.T) {
	col := upCollector(t)
	home := t.TempDir()
	small := &jsonl.Log{Dir: filepath.Join(home, "log"), Name: "small.jsonl", MaxBytes: 2000, Keep: 2}
	written := 0
	write := func(n int, every time.Duration) {
		for range n {
			line := fmt.Sprintf(`{"id":"r%04d","time":%q,"event":"tool","verdict":"allow","command":"%s"}`, written, time.Now().UTC().Format(time.RFC3339Nano), strings.Repeat("y", 60))
			if err := small.Append([]byte(line)); err != nil {
				t.Fatal(err)
			}
			written++
			time.Sleep(every)
		}
	}
	exporter := func(giveUp time.Duration) *Exporter {
		e, err := New(Options{Home: home, Telemetry: config.TelemetryConfig{Endpoint: "http://" + col.HTTP}, Idle: 300 * time.Millisecond,
			GiveUp: giveUp, MaxBackoff: 500 * time.Millisecond})
		if err != nil {
			t.Fatal(err)
		}
		e.sources = []source{{"decisions", small}}
		return e
	}
	dropped := func() []otelcoltest.Record {
		var out []otelcoltest.Record
		for _, r := range col.Records() {
			if r.EventName == "hookctl.export.dropped" {
				out = append(out, r)
			}
		}
		return out
	}
	// lost checks that whatever is not at the collector is not on disk either, and says how many.
	lost := func() int {
		present := map[string]bool{}
		small.Read(func(r jsonl.Record) error { present[string(r.Data[7:12])] = true; return nil })
		shipped := map[string]bool{}
		for _, r := range col.Records() {
			if id, ok := r.Attributes["hookctl.decision.id"].(string); ok {
				shipped[id] = true
			}
		}
		n := 0
		for i := range written {
			id := fmt.Sprintf("r%04d", i)
			if !shipped[id] {
				n++
				if present[id] {
					t.Errorf("%s is on disk and was not shipped", id)
				}
			}
		}
		return n
	}
	write(30, 0) // about 3 files of 13 records
	if err := exporter(time.Minute).Run(context.Background()); err != nil {
		t.Fatal(err)
	}
	if len(dropped()) != 0 || lost() != 0 {
		t.Fatal("control: a loss with nothing lost")
	}

	// The collector down, the exporter retrying, the log rotating past what it has shipped.
	col.Stop()
	done := make(chan error, 1)
	go func() { done <- exporter(time.Minute).Run(context.Background()) }()
	time.Sleep(300 * time.Millisecond)
	write(60, 30*time.Millisecond)
	col.Start()
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	// One dropped record per loss found (each pass that found files gone): their sum is exact.
	d := dropped()
	exact := lost()
	if exact == 0 || len(d) == 0 {
		t.Fatalf("%d lost, %d dropped records", exact, len(d))
	}
	var n int64
	var bodies []string
	for _, r := range d {
		k, _ := r.Attributes["hookctl.export.dropped.records"].(int64)
		n += k
		bodies = append(bodies, r.Body)
		if r.Attributes["hookctl.export.dropped.at_least"] != false || r.Severity != "ERROR" {
			t.Errorf("dropped record %v", r.Attributes)
		}
	}
	if int(n) != exact {
		t.Errorf("the dropped records say %d, %d were lost", n, exact)
	}
	t.Logf("while the exporter retried: %d records rotated away; %d dropped records say %d in all: %q", exact, len(d), n, bodies)
	before := len(d)

	// No exporter running while whole files come and go: a lower bound.
	write(100, 0)
	if err := exporter(time.Minute).Run(context.Background()); err != nil {
		t.Fatal(err)
	}
	d = dropped()
	all := lost()
	if len(d) != before+1 {
		t.Fatalf("%d dropped records, %d before", len(d), before)
	}
	last := d[len(d)-1]
	n2, _ := last.Attributes["hookctl.export.dropped.records"].(int64)
	if last.Attributes["hookctl.export.dropped.at_least"] != true || int(n2) > all-exact {
		t.Errorf("the last dropped record says %d, %d were lost: %v", n2, all-exact, last.Attributes)
	}
	t.Logf("with no exporter running: %d rotated away, the dropped record says %q", all-exact, last.Body)
}

// TestFleetDocFollowed follows docs/fleet.md's export section as an administrator would: its
// [telemetry] section (in the user's file here: the managed file's place is fixed, and this
// machine's is not the test's to write) and its collector configuration, then one session. Every
// kind of record the page's table names for a session arrives under that name, with the
// resource the page lists.
func TestFleetDocFollowed(t *testing.T) {
	doc, err := os.ReadFile("../docs/fleet.md")
	if err != nil {
		t.Fatal(err)
	}
	_, section, ok := strings.Cut(string(doc), "## Every record to your OpenTelemetry Collector")
	if !ok {
		t.Fatal("docs/fleet.md has no export section")
	}
	block := func(lang string) string {
		_, rest, ok := strings.Cut(section, "```"+lang+"\n")
		body, _, ok2 := strings.Cut(rest, "```")
		if !ok || !ok2 {
			t.Fatalf("no %s block in the export section", lang)
		}
		return body
	}
	col := otelcoltest.New(t)
	yaml := block("yaml")
	for old, new := range map[string]string{"0.0.0.0:4318": col.HTTP, "0.0.0.0:4317": col.GRPC, "/var/log/hookctl/records.jsonl": col.OutPath(),
		// Not the page's: the collector's own metrics port (8888) is not the test's to take.
		"service:\n": "service:\n  telemetry:\n    metrics:\n      level: none\n"} {
		if !strings.Contains(yaml, old) {
			t.Fatalf("the page's collector configuration has no %q:\n%s", old, yaml)
		}
		yaml = strings.Replace(yaml, old, new, 1)
	}
	col.StartConfig(yaml)
	toml := block("toml")
	if !strings.Contains(toml, "http://collector.example.internal:4318") {
		t.Fatalf("the page's [telemetry] section: %s", toml)
	}
	m := newBox(t, "", "")
	if err := os.WriteFile(filepath.Join(m.home, "config.toml"), []byte(strings.Replace(toml, "collector.example.internal:4318", col.HTTP, 1)), 0o600); err != nil {
		t.Fatal(err)
	}
	if out := m.run("", "doctor"); !strings.Contains(out, "telemetry: every record goes to http://"+col.HTTP+" over OTLP (http/protobuf), as your config sets") {
		t.Errorf("doctor does not say where the records go:\n%s", out)
	}
	s := "doc-session"
	m.hook(s, "SessionStart", `,"source":"startup"`)
	m.bash(s, "git log --oneline -3", 1)
	m.bash(s, "rm -rf /", 2)
	m.run("", "readonly", "off", "--session", s)
	m.hook(s, "SessionEnd", `,"reason":"other"`)
	n := len(m.decisions())
	recs := col.Wait(60*time.Second, func(r []otelcoltest.Record) bool { got, _ := byDecision(r); return len(got) >= n })
	names := map[string]bool{}
	for _, r := range recs {
		names[r.EventName] = true
		for _, k := range []string{"service.name", "service.version", "host.name", "user.name", "user.id"} {
			if r.Resource[k] == nil || !strings.Contains(section, "`"+k+"`") {
				t.Errorf("resource %s: %v (and the page lists it: %v)", k, r.Resource[k], strings.Contains(section, "`"+k+"`"))
			}
		}
	}
	for _, want := range []string{"hookctl.session.start", "hookctl.decision", "hookctl.mode_change", "hookctl.session.end"} {
		if !names[want] || !strings.Contains(section, "| `"+want+"`") {
			t.Errorf("%s: arrived %v, in the page's table %v", want, names[want], strings.Contains(section, "| `"+want+"`"))
		}
	}
	// Every event the exporter names is in the page's table.
	for _, name := range eventNames {
		if !strings.Contains(section, "`"+name+"`") {
			t.Errorf("the page's table does not name %s", name)
		}
	}
}

// TestRealClaudeCode: real Claude Code (against a fake model on loopback) runs a session with
// hookctl's hooks, a [telemetry] config and the collector up: the session's start, each tool
// call's decision (an admitted read, an admitted shell command, a refused Write) and its end
// arrive, each once, under the session id the client reports.
func TestRealClaudeCode(t *testing.T) {
	ct.Binary(t)
	col := upCollector(t)
	m := newBox(t, "http://"+col.HTTP, "")
	s := ct.NewSession(t)
	s.InitGitRepo("first")
	s.Env = append(s.Env, "HOOKCTL_HOME="+m.home)
	for _, ev := range []string{"PreToolUse", "UserPromptSubmit", "SessionStart", "SessionEnd"} {
		s.Hooks = append(s.Hooks, ct.Hook{Event: ev, Command: m.bin, Args: []string{"hook"}})
	}
	f := filepath.Join(s.Project, "f")
	s.Script.Main = []ct.Call{
		{Name: "Read", Input: map[string]any{"file_path": f}},
		ct.Bash("git log --oneline"),
		{Name: "Write", Input: map[string]any{"file_path": f, "content": "changed\n"}},
	}
	r := s.Run("Look at f and the history, then change f.")
	if tr, _ := s.API.ResultFor(ct.Main, 2); !tr.IsError {
		r.Fatalf(t, "the Write ran in a read-only session: %q", tr.Text)
	}
	want := m.decisions()
	recs := col.Wait(60*time.Second, func(r []otelcoltest.Record) bool { got, _ := byDecision(r); return len(got) >= len(want) })
	got, copies := byDecision(recs)
	seen := map[string]int{}
	for _, e := range want {
		rec := got[e.ID]
		if copies[e.ID] != 1 || rec.Attributes["session.id"] != r.Output.SessionID {
			t.Errorf("%s %s: %d copies, session %v (the client's: %s)", e.Event, e.Tool, copies[e.ID], rec.Attributes["session.id"], r.Output.SessionID)
		}
		seen[rec.EventName+" "+e.Tool+" "+e.Verdict]++
	}
	for _, k := range []string{"hookctl.session.start  pass", "hookctl.decision Read pass", "hookctl.decision Bash allow", "hookctl.decision Write deny", "hookctl.session.end  pass"} {
		if seen[k] == 0 {
			t.Errorf("no %q arrived: %v", k, seen)
		}
	}
	// The heartbeat names the client's version, learned from the process that ran the hook.
	for _, e := range want {
		if e.Event == "session_start" && (e.ClientVersion != ct.Version || got[e.ID].Attributes["hookctl.client.version"] != ct.Version) {
			t.Errorf("session start: client version %q, exported %v; the client is Claude Code %s", e.ClientVersion, got[e.ID].Attributes["hookctl.client.version"], ct.Version)
		}
	}
	// Each tool decision carries the id Claude Code gave the call, which its own telemetry and
	// the model's conversation name it by.
	for i, tool := range []string{"Read", "Bash", "Write"} {
		tr, ok := s.API.ResultFor(ct.Main, i)
		n := 0
		for _, e := range want {
			if e.Event == "tool" && e.Tool == tool {
				n++
				if !ok || e.ToolUseID != tr.ToolUseID || got[e.ID].Attributes["gen_ai.tool.call.id"] != tr.ToolUseID {
					t.Errorf("%s: tool_use_id %q, exported %v; the client's call was %q", tool, e.ToolUseID, got[e.ID].Attributes["gen_ai.tool.call.id"], tr.ToolUseID)
				}
			}
		}
		if n != 1 {
			t.Errorf("%d decisions of %s", n, tool)
		}
	}
	links := checkChains(t, recs)
	t.Logf("real Claude Code session %s: %d records arrived: %v; %d chain links checked at the collector", r.Output.SessionID, len(want), seen, links)
}

// TestUnreadableLineIsSentNotStuck: a line that is not JSON (nor UTF-8) in a log is sent as it
// is, flagged, and the records after it follow: one bad line must not stop the export for good.
// Control: the same bytes as a string attribute, unmended, fail the SDK's encoding.
func TestUnreadableLineIsSentNotStuck(t *testing.T) {
	col := upCollector(t)
	home := t.TempDir()
	lg := &jsonl.Log{Dir: filepath.Join(home, "log"), Name: "d.jsonl"}
	lg.Append([]byte("\xff\xfe not a record"))
	lg.Append([]byte(`{"id":"after","time":"2026-12-01T00:00:00Z","event":"tool","verdict":"deny"}`))
	e, err := New(Options{Home: home, Telemetry: config.TelemetryConfig{Endpoint: "http://" + col.HTTP}, Idle: 300 * time.Millisecond, GiveUp: 5 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	e.sources = []source{{"decisions", lg}}
	if err := e.Run(context.Background()); err != nil {
		t.Fatal(err)
	}
	recs := col.Wait(10*time.Second, func(r []otelcoltest.Record) bool { return len(r) == 2 })
	if recs[0].EventName != "hookctl.unreadable" || !strings.Contains(recs[0].Body, "not a record") || recs[1].Attributes["hookctl.decision.id"] != "after" {
		t.Errorf("received %+v", recs)
	}
	// Control: unmended, the same line fails the batch; mended, the same batch goes.
	for _, mend := range []bool{false, true} {
		s, err := newSender(config.TelemetryConfig{Endpoint: "http://" + col.HTTP})
		if err != nil {
			t.Fatal(err)
		}
		bad := item{log: "decisions", data: []byte("\xff\xfe not a record")}
		r := toRecord(&bad, time.Now())
		if !mend {
			r.SetBody(attribute.StringValue(string(bad.data)))
		}
		s.logger.Emit(context.Background(), r)
		err = s.exporter.Export(context.Background(), s.held.records)
		s.shutdown()
		if (err == nil) != mend {
			t.Errorf("mended %v: %v", mend, err)
		}
	}
}

// TestMergeOrder: a batch takes the lanes' records oldest first, each lane in its own order (so
// that its cursor is a prefix), and stops where a lane read only in part runs out, as that
// lane's next record may be older than the others'.
func TestMergeOrder(t *testing.T) {
	at := func(s int) time.Time { return time.Unix(1700000000+int64(s), 0) }
	mk := func(log string, truncated bool, secs ...int) *lane {
		l := &lane{log: log, truncated: truncated}
		for _, s := range secs {
			l.items = append(l.items, &item{id: fmt.Sprintf("%s%d", log, s), time: at(s)})
		}
		return l
	}
	ids := func(items []*item) string {
		var out []string
		for _, it := range items {
			out = append(out, it.id)
		}
		return strings.Join(out, " ")
	}
	if got := ids(merge([]*lane{mk("a", false, 1, 4, 5), mk("b", false, 2, 3, 6), mk("audit", false, 0, 7)}, 100)); got != "audit0 a1 b2 b3 a4 a5 b6 audit7" {
		t.Errorf("merged %s", got)
	}
	// Lane a was read only up to 4: nothing after it goes in this batch.
	if got := ids(merge([]*lane{mk("a", true, 1, 4), mk("b", false, 2, 3, 6)}, 100)); got != "a1 b2 b3 a4" {
		t.Errorf("merged past a truncated lane: %s", got)
	}
	// A lane out of time order keeps its own order.
	if got := ids(merge([]*lane{mk("a", false, 5, 1), mk("b", false, 3)}, 100)); got != "b3 a5 a1" {
		t.Errorf("merged %s", got)
	}
	if got := ids(merge([]*lane{mk("a", false, 1, 2, 3)}, 2)); got != "a1 a2" {
		t.Errorf("batch of 2: %s", got)
	}
}

// TestDamagedCursorStartsOver: a cursor that does not parse, or is past its cap, is not the
// end of the export: every record is sent again (the ids de-duplicate them). Control: with the
// cursor intact, a second run sends nothing.
func TestDamagedCursorStartsOver(t *testing.T) {
	col := upCollector(t)
	home := t.TempDir()
	lg := &jsonl.Log{Dir: filepath.Join(home, "log"), Name: "d.jsonl"}
	for i := range 3 {
		lg.Append(fmt.Appendf(nil, `{"id":"r%d","time":"2026-12-01T00:00:0%dZ","event":"tool","verdict":"allow"}`, i, i))
	}
	run := func() {
		e, err := New(Options{Home: home, Telemetry: config.TelemetryConfig{Endpoint: "http://" + col.HTTP}, Idle: 200 * time.Millisecond, GiveUp: 5 * time.Second})
		if err != nil {
			t.Fatal(err)
		}
		e.sources = []source{{"decisions", lg}}
		if err := e.Run(context.Background()); err != nil {
			t.Fatal(err)
		}
	}
	cursor := filepath.Join(home, launch.CursorFile)
	want := 3
	for _, damage := range []string{"", "" /* the control: intact, nothing again */, "{not json", strings.Repeat("x", maxCursor+1)} {
		if damage != "" {
			if err := os.WriteFile(cursor, []byte(damage), 0o600); err != nil {
				t.Fatal(err)
			}
			want += 3
		}
		run()
		col.Wait(10*time.Second, func(r []otelcoltest.Record) bool { return len(r) >= want })
		time.Sleep(300 * time.Millisecond) // past the file exporter's flush: a resend would show
		if n := len(col.Records()); n != want {
			t.Errorf("cursor %.20q: %d records at the collector, want %d", damage, n, want)
		}
	}
}

// TestRunRecordsArrive (issue 27): hookctl run's records reach the collector as the hook's do:
// a run that starts and ends (run_start, then run_end with its state and exit status) and a run
// the preflight refuses (run_start, deny, saying why), each once, with the run's id, in the
// same chained decision log. A --dry-run records nothing: only the three records arrive.
func TestRunRecordsArrive(t *testing.T) {
	col := upCollector(t)
	m := newBox(t, "http://"+col.HTTP, "")
	// Not under the tester's TMPDIR, which may be private (issue 30).
	root, err := os.MkdirTemp("/var/lib", "hookctl-export-run-")
	if err != nil {
		t.Skipf("no place outside the temporary directories: %v", err)
	}
	t.Cleanup(func() { os.RemoveAll(root) })
	repo := filepath.Join(root, "repo")
	os.MkdirAll(repo, 0o755)
	os.WriteFile(filepath.Join(repo, "a.txt"), []byte("a\n"), 0o644)
	git := exec.Command("bash", "-c", "git init -q && git add -A && git -c user.email=t@t -c user.name=t commit -qm init")
	git.Dir = repo
	if out, err := git.CombinedOutput(); err != nil {
		t.Fatalf("git: %v %s", err, out)
	}
	run := func(out string, args ...string) string {
		cmd := exec.Command(m.bin, append([]string{"run", "--profile", "secure-read-only", "--repo", repo, "--out", filepath.Join(root, out)}, args...)...)
		cmd.Env = append(os.Environ(), "HOOKCTL_HOME="+m.home)
		cmd.Dir = repo
		b, _ := cmd.CombinedOutput()
		return string(b)
	}
	if out := run("out0", "--dry-run", "--", "true"); !strings.Contains(out, "the run starts under this policy") || strings.Contains(out, "hookctl run: finished") {
		t.Fatalf("the dry run ran: %s", out)
	}
	if out := run("out1", "--", "bash", "-c", "cat a.txt > $HOOKCTL_RUN_OUT/copy.txt; exit 3"); !strings.Contains(out, "hookctl run: finished, exit 3") {
		t.Fatalf("the run: %s", out)
	}
	os.WriteFile(filepath.Join(repo, ".env"), []byte("TOKEN=x\n"), 0o644)
	if out := run("out2", "--", "true"); !strings.Contains(out, ".env") {
		t.Fatalf("the refused run: %s", out)
	}
	want := m.decisions()
	recs := col.Wait(60*time.Second, func(r []otelcoltest.Record) bool { got, _ := byDecision(r); return len(got) >= len(want) })
	got, copies := byDecision(recs)
	var seen []string
	runs := map[string]bool{}
	for _, e := range want {
		r := got[e.ID]
		if copies[e.ID] != 1 {
			t.Errorf("%s %s arrived %d times", e.Event, e.ID, copies[e.ID])
		}
		id, _ := r.Attributes["hookctl.run.id"].(string)
		runs[id] = true
		line := fmt.Sprintf("%s %v %v %v", r.EventName, r.Attributes["hookctl.verdict"], r.Attributes["hookctl.run.state"], r.Attributes["process.exit.code"])
		seen = append(seen, line)
		if id == "" || id != e.Run || r.Attributes["hookctl.rule"] != "hookctl run --profile secure-read-only" ||
			!strings.Contains(fmt.Sprint(r.Attributes["hookctl.isolation"]), "secure-read-only: ") || r.Attributes["hookctl.cwd"] != repo {
			t.Errorf("%s: %v", line, r.Attributes)
		}
	}
	wantSeen := []string{"hookctl.run.start allow <nil> <nil>", "hookctl.run.end allow finished 3", "hookctl.run.start deny <nil> <nil>"}
	if !slices.Equal(seen, wantSeen) || len(runs) != 2 {
		t.Errorf("arrived %q (%d runs), want %q (2 runs)", seen, len(runs), wantSeen)
	}
	if r := got[want[2].ID]; !strings.Contains(fmt.Sprint(r.Attributes["hookctl.reason"]), ".env") {
		t.Errorf("the refusal does not say why: %v", r.Attributes["hookctl.reason"])
	}
	links := checkChains(t, recs)
	t.Logf("%d run records arrived, each once: %q; %d chain links checked", len(want), seen, links)
}

// TestEmptyFileIsNoLoss: a writer creates a log's file, then writes its first line; an
// exporter that looked in between saw a file with no record. That file's first record written
// later is not a file come and gone unseen, so no loss is reported to the organisation (a CI run
// once sent a false hookctl.export.dropped this way). Control: a file with records, replaced
// by another before the next look, is reported.
func TestEmptyFileIsNoLoss(t *testing.T) {
	home := t.TempDir()
	lg := &jsonl.Log{Dir: filepath.Join(home, "log"), Name: "d.jsonl"}
	if err := os.MkdirAll(lg.Dir, 0o700); err != nil {
		t.Fatal(err)
	}
	e := &Exporter{sources: []source{{"decisions", lg}}}
	c := &cursor{Logs: map[string][]*laneCursor{}}
	look := func() []drop {
		t.Helper()
		_, lost, err := e.read(c)
		if err != nil {
			t.Fatal(err)
		}
		return lost
	}
	// The writer's open, before its write.
	if err := os.WriteFile(lg.LanePath(0), nil, 0o600); err != nil {
		t.Fatal(err)
	}
	if lost := look(); len(lost) != 0 {
		t.Fatalf("an empty file: lost %+v", lost)
	}
	lg.Append([]byte(`{"id":"r0","time":"2026-12-01T00:00:00Z","event":"tool","verdict":"allow"}`))
	if lost := look(); len(lost) != 0 {
		t.Errorf("the empty file's first record: lost %+v", lost)
	}
	// Control: the file, with its record, replaced unseen by another.
	os.Remove(lg.LanePath(0))
	lg.Append([]byte(`{"id":"r1","time":"2026-12-01T00:00:01Z","event":"tool","verdict":"allow"}`))
	if lost := look(); len(lost) != 1 || lost[0].Records != 1 || !lost[0].AtLeast {
		t.Errorf("control: a file replaced unseen: lost %+v", lost)
	}
}
