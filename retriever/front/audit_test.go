package front

import (
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/hookctl/hookctl/retriever"
)

func TestAuditAppendAndRead(t *testing.T) {
	a := &Audit{Dir: t.TempDir()}
	now := time.Now().UTC()
	e := &AuditEntry{ID: NewID(now), Time: now, Session: "s", Kind: retriever.KindFetch, URL: "https://example.com/a?b=c",
		Host: "example.com", IP: "93.184.215.14", Status: 200, Bytes: 1234, Distiller: "anthropic", Scrub: "clean",
		Isolation: "landlock ABI 7", Outcome: "answered", Injection: []string{"ignore previous instructions"}}
	if err := a.Append(e); err != nil {
		t.Fatal(err)
	}
	got, err := a.Entries()
	if err != nil || len(got) != 1 {
		t.Fatalf("%v %v", got, err)
	}
	g := got[0]
	if g.ID != e.ID || g.URL != e.URL || g.IP != e.IP || g.Status != 200 || g.Bytes != 1234 || len(g.Injection) != 1 ||
		g.Isolation != e.Isolation || g.Scrub != "clean" || !g.Time.Equal(e.Time.Truncate(time.Second)) && !g.Time.Equal(e.Time) {
		t.Errorf("read back %+v", g)
	}
	if err := a.SaveTranscript(&Transcript{ID: e.ID, Need: "n", Answer: "a"}); err != nil {
		t.Fatal(err)
	}
	tr, err := a.Transcript(e.ID)
	if err != nil || tr.Answer != "a" {
		t.Errorf("%+v %v", tr, err)
	}
	if _, err := a.Transcript("../x"); err == nil {
		t.Error("a path in the id was accepted")
	}
}

func TestAuditRotates(t *testing.T) {
	a := &Audit{Dir: t.TempDir(), MaxBytes: 2000, Keep: 2}
	for i := 0; i < 40; i++ {
		now := time.Now()
		if err := a.Append(&AuditEntry{ID: NewID(now), Time: now, Kind: retriever.KindFetch, URL: fmt.Sprintf("https://e.com/%d", i), Scrub: "clean", Outcome: "answered"}); err != nil {
			t.Fatal(err)
		}
	}
	files, _ := filepath.Glob(filepath.Join(a.Dir, "audit.jsonl*"))
	if len(files) != 3 {
		t.Errorf("files %v", files)
	}
	for _, f := range files {
		if fi, _ := os.Stat(f); fi.Size() > 2000 {
			t.Errorf("%s is %d bytes", f, fi.Size())
		}
	}
	got, _ := a.Entries()
	if len(got) == 0 || got[len(got)-1].URL != "https://e.com/39" {
		t.Errorf("newest entry missing: %d entries", len(got))
	}
}

// TestAuditConcurrentProcesses: many processes appending at once lose no entry and interleave
// no line. The test binary re-runs itself as the appending processes.
func TestAuditConcurrentProcesses(t *testing.T) {
	if dir := os.Getenv("HOOKCTL_AUDIT_CHILD"); dir != "" {
		a := &Audit{Dir: dir}
		for i := 0; i < 50; i++ {
			now := time.Now()
			e := &AuditEntry{ID: NewID(now), Time: now, Kind: retriever.KindSearch, Query: strings.Repeat("q", 3000) + fmt.Sprint(i),
				Scrub: "clean", Outcome: "answered"}
			if err := a.Append(e); err != nil {
				fmt.Fprintln(os.Stderr, err)
				os.Exit(1)
			}
		}
		os.Exit(0)
	}
	dir := t.TempDir()
	const procs = 16
	var wg sync.WaitGroup
	for i := 0; i < procs; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			cmd := exec.Command(os.Args[0], "-test.run=^TestAuditConcurrentProcesses$")
			cmd.Env = append(os.Environ(), "HOOKCTL_AUDIT_CHILD="+dir)
			if out, err := cmd.CombinedOutput(); err != nil {
				t.Errorf("child: %v %s", err, out)
			}
		}()
	}
	wg.Wait()
	b, err := os.ReadFile(filepath.Join(dir, auditFile))
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSuffix(string(b), "\n"), "\n")
	if len(lines) != procs*50 {
		t.Errorf("%d lines, want %d", len(lines), procs*50)
	}
	for i, l := range lines {
		var e AuditEntry
		if err := json.Unmarshal([]byte(l), &e); err != nil {
			t.Fatalf("line %d is not one entry: %v", i, err)
		}
	}
}

// BenchmarkAuditAppend measures appends per second to one log (each locked and synced).
func BenchmarkAuditAppend(b *testing.B) {
	a := &Audit{Dir: b.TempDir()}
	now := time.Now()
	e := &AuditEntry{ID: NewID(now), Time: now, Kind: retriever.KindFetch, URL: "https://example.com/some/page?x=1", Host: "example.com",
		IP: "93.184.215.14", Status: 200, Bytes: 48113, Distiller: "anthropic:claude-haiku-4-5", Scrub: "clean",
		Isolation: "landlock ABI 7", Outcome: "answered"}
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if err := a.Append(e); err != nil {
			b.Fatal(err)
		}
	}
}
