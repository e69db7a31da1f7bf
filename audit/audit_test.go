package audit

import (
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"syscall"
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
	got, damaged, err := a.Entries()
	if err != nil || len(got) != 1 || len(damaged) != 0 {
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
	got, _, _ := a.Entries()
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
	b, err := os.ReadFile(filepath.Join(dir, AuditFile))
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

// TestAuditSkipsDamagedLines: a line cut short in the middle of the log or at its end (a crash,
// a full disk), or one past the cap, is skipped and reported by file and line, and the next
// append cuts off the one at the end; every other entry is read. (Entries once refused the whole
// log for one bad line, and hookctl audit with it.)
func TestAuditSkipsDamagedLines(t *testing.T) {
	a := &Audit{Dir: t.TempDir()}
	line := func(url string) string {
		now := time.Now()
		b, err := encodeEntry(&AuditEntry{ID: NewID(now), Time: now, Kind: retriever.KindFetch, URL: url, Scrub: "clean", Outcome: "answered"})
		if err != nil {
			t.Fatal(err)
		}
		return string(b)
	}
	cut := line("https://e.com/cut")
	log := line("https://e.com/1") + cut[:len(cut)/2] + "\n" + line("https://e.com/3") +
		`{"id":"x","url":"` + strings.Repeat("a", a.log().MaxLine()) + "\"}\n" + line("https://e.com/5") + cut[:len(cut)-9]
	os.MkdirAll(a.Dir, 0o700)
	if err := os.WriteFile(filepath.Join(a.Dir, AuditFile), []byte(log), 0o600); err != nil {
		t.Fatal(err)
	}
	got, damaged, err := a.Entries()
	if err != nil {
		t.Fatal(err)
	}
	var urls []string
	for _, e := range got {
		urls = append(urls, e.URL)
	}
	if fmt.Sprint(urls) != "[https://e.com/1 https://e.com/3 https://e.com/5]" {
		t.Errorf("entries %q", urls)
	}
	var where []string
	for _, d := range damaged {
		where = append(where, fmt.Sprintf("%s:%d", filepath.Base(d.File), d.Line))
	}
	if fmt.Sprint(where) != "[audit.jsonl:2 audit.jsonl:4 audit.jsonl:6]" || !strings.Contains(damaged[1].Why, "cap") ||
		!strings.HasPrefix(damaged[0].String(), filepath.Join(a.Dir, AuditFile)+":2: ") {
		t.Errorf("damaged %v", damaged)
	}
	// The next append starts a line of its own, even after a last line without its newline.
	if err := a.Append(&AuditEntry{ID: NewID(time.Now()), Time: time.Now(), Kind: retriever.KindFetch, URL: "https://e.com/7"}); err != nil {
		t.Fatal(err)
	}
	if got, damaged, _ := a.Entries(); len(got) != 4 || len(damaged) != 2 {
		t.Errorf("after an append: %d entries, %v", len(got), damaged)
	}
	if b, _ := os.ReadFile(filepath.Join(a.Dir, AuditFile)); strings.Contains(string(b), cut[:len(cut)-9]) {
		t.Errorf("the last line cut short is still in the log")
	}
}

// TestAuditAppendCutsBackAShortWrite: an append that can write only part of its line (here a
// file size limit, as a full disk does) fails and leaves the log as it was, so the next reader
// and the next append see whole lines only. The test binary re-runs itself under the limit.
func TestAuditAppendCutsBackAShortWrite(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("RLIMIT_FSIZE behaves so on Linux")
	}
	if dir := os.Getenv("HOOKCTL_AUDIT_FSIZE_CHILD"); dir != "" {
		a := &Audit{Dir: dir}
		fi, err := os.Stat(filepath.Join(dir, AuditFile))
		if err != nil {
			fmt.Println(err)
			os.Exit(1)
		}
		var rl syscall.Rlimit
		syscall.Getrlimit(syscall.RLIMIT_FSIZE, &rl)
		if err := syscall.Setrlimit(syscall.RLIMIT_FSIZE, &syscall.Rlimit{Cur: uint64(fi.Size()) + 100, Max: rl.Max}); err != nil {
			fmt.Println(err)
			os.Exit(1)
		}
		now := time.Now()
		err = a.Append(&AuditEntry{ID: NewID(now), Time: now, Kind: retriever.KindSearch, Query: strings.Repeat("q", 3000)})
		fmt.Print(err)
		os.Exit(0)
	}
	a := &Audit{Dir: t.TempDir()}
	now := time.Now()
	if err := a.Append(&AuditEntry{ID: NewID(now), Time: now, Kind: retriever.KindFetch, URL: "https://e.com/1"}); err != nil {
		t.Fatal(err)
	}
	before, _ := os.ReadFile(filepath.Join(a.Dir, AuditFile))
	cmd := exec.Command(os.Args[0], "-test.run=^TestAuditAppendCutsBackAShortWrite$")
	cmd.Env = append(os.Environ(), "HOOKCTL_AUDIT_FSIZE_CHILD="+a.Dir)
	out, err := cmd.Output()
	if err != nil || !strings.Contains(string(out), "failed to write the audit log") || !strings.Contains(string(out), "file too large") {
		t.Fatalf("child: %v %s", err, out)
	}
	if after, _ := os.ReadFile(filepath.Join(a.Dir, AuditFile)); string(after) != string(before) {
		t.Errorf("the log changed: %d bytes before, %d after", len(before), len(after))
	}
	if got, damaged, err := a.Entries(); len(got) != 1 || len(damaged) != 0 || err != nil {
		t.Errorf("%d entries, damaged %v, %v", len(got), damaged, err)
	}
}

// TestAuditNonPositiveMaxBytes: a zero or negative max_bytes (which the config should refuse)
// means the default, not a rotation on every append.
func TestAuditNonPositiveMaxBytes(t *testing.T) {
	for _, max := range []int64{0, -1, -1 << 40} {
		a := &Audit{Dir: t.TempDir(), MaxBytes: max}
		for i := 0; i < 3; i++ {
			now := time.Now()
			if err := a.Append(&AuditEntry{ID: NewID(now), Time: now, Kind: retriever.KindFetch, URL: "https://e.com/"}); err != nil {
				t.Fatal(err)
			}
		}
		if files, _ := filepath.Glob(filepath.Join(a.Dir, "audit.jsonl*")); len(files) != 1 {
			t.Errorf("max_bytes %d: files %v", max, files)
		}
	}
}
