package jsonl

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"
)

// raw reads a file's bytes and counts its lines as a reader that knows nothing of this package
// would: records (a line that is a JSON object), blank lines, torn lines (anything else) and an
// unterminated tail.
func raw(t *testing.T, path string) (records, blank, torn, tail int) {
	t.Helper()
	b, err := os.ReadFile(path)
	if errors.Is(err, os.ErrNotExist) {
		return
	}
	if err != nil {
		t.Fatal(err)
	}
	for len(b) > 0 {
		i := bytes.IndexByte(b, '\n')
		if i < 0 {
			if len(bytes.TrimSpace(b)) > 0 {
				tail++
			}
			break
		}
		line := b[:i]
		b = b[i+1:]
		var v map[string]any
		switch {
		case len(bytes.TrimSpace(line)) == 0:
			blank++
		case json.Unmarshal(line, &v) != nil:
			torn++
		default:
			records++
		}
	}
	return
}

// readAll reads the log and fails on any damage.
func readAll(t *testing.T, l *Log) []string {
	t.Helper()
	var got []string
	damage, err := l.Read(func(r Record) error {
		var v struct{ ID string }
		if err := json.Unmarshal(r.Data, &v); err != nil {
			return err
		}
		got = append(got, v.ID)
		return nil
	})
	if err != nil || len(damage) > 0 {
		t.Fatalf("read: %v %v", damage, err)
	}
	return got
}

func rec(id string, pad int) []byte {
	return []byte(fmt.Sprintf(`{"id":%q,"pad":%q}`, id, strings.Repeat("p", pad)))
}

func TestAppendRead(t *testing.T) {
	l := &Log{Dir: filepath.Join(t.TempDir(), "log"), Name: "x.jsonl"}
	for i := range 10 {
		if err := l.Append(rec(strconv.Itoa(i), i*100)); err != nil {
			t.Fatal(err)
		}
	}
	if got := readAll(t, l); strings.Join(got, ",") != "0,1,2,3,4,5,6,7,8,9" {
		t.Fatalf("read %v", got)
	}
	if fi, err := os.Stat(l.LanePath(0)); err != nil || fi.Mode().Perm() != 0o600 {
		t.Fatalf("the log's mode: %v %v", fi, err)
	}
}

// TestRecordCap: a record of MaxRecord bytes is appended, in a chained log too (the chain's
// fields come on top of the cap, or a record the producer clipped to fit would be lost); one
// byte more, or one holding a newline, is refused and leaves nothing.
func TestRecordCap(t *testing.T) {
	for _, chain := range []bool{false, true} {
		t.Run(fmt.Sprintf("chain=%v", chain), func(t *testing.T) {
			l := &Log{Dir: t.TempDir(), Name: "x.jsonl", MaxRecord: 100, Chain: chain}
			at := []byte(`{"id":"` + strings.Repeat("a", 100-9) + `"}`)
			if len(at) != 100 {
				t.Fatalf("record of %d bytes", len(at))
			}
			for range 2 {
				if err := l.Append(at); err != nil {
					t.Fatalf("at the cap: %v", err)
				}
			}
			over := []byte(`{"id":"b` + strings.Repeat("a", 100-9) + `"}`)
			if err := l.Append(over); !errors.Is(err, ErrRecord) {
				t.Fatalf("one past the cap: %v", err)
			}
			if err := l.Append([]byte("{\"id\":\"c\n\"}")); !errors.Is(err, ErrRecord) {
				t.Fatalf("a newline inside: %v", err)
			}
			if n, _, _, _ := raw(t, l.LanePath(0)); n != 2 {
				t.Fatalf("%d records, want the two at the cap", n)
			}
			if chain {
				if r, err := l.Verify(); err != nil || !r.OK() {
					t.Fatalf("verify: %+v %v", r, err)
				}
			}
			// A reader takes a line at the cap and reports one past it.
			f, _ := os.OpenFile(l.LanePath(0), os.O_WRONLY|os.O_APPEND, 0)
			f.Write(append(bytes.Repeat([]byte("x"), l.MaxLine()), '\n'))
			f.Close()
			var got int
			damage, err := l.Read(func(Record) error { got++; return nil })
			if err != nil || got != 2 || len(damage) != 1 || !strings.Contains(damage[0].Why, "cap") {
				t.Fatalf("read %d records, damage %v, %v", got, damage, err)
			}
		})
	}
}

// TestTornTailCutOff: a line a killed writer left without its newline is cut off by the next
// append, and a reader never takes it for a record.
func TestTornTailCutOff(t *testing.T) {
	l := &Log{Dir: t.TempDir(), Name: "x.jsonl"}
	l.Append(rec("a", 10))
	f, _ := os.OpenFile(l.LanePath(0), os.O_WRONLY|os.O_APPEND, 0)
	f.WriteString(`{"id":"torn","pad":"ppp`)
	f.Close()
	var got []string
	damage, _ := l.Read(func(r Record) error { got = append(got, string(r.Data)); return nil })
	if len(got) != 1 || len(damage) != 1 || !strings.Contains(damage[0].Why, "no newline") {
		t.Fatalf("read %v, damage %v, before the next append", got, damage)
	}
	l.Append(rec("b", 10))
	if n, blank, torn, tail := raw(t, l.LanePath(0)); n != 2 || blank+torn+tail != 0 {
		t.Fatalf("raw: %d records, %d blank, %d torn, %d tail", n, blank, torn, tail)
	}
	// A tail longer than any record is not one of ours: left, and the next line starts on its own.
	f, _ = os.OpenFile(l.LanePath(0), os.O_WRONLY|os.O_APPEND, 0)
	f.WriteString(strings.Repeat("z", l.MaxLine()+10))
	f.Close()
	l.Append(rec("c", 10))
	got = []string{}
	damage, _ = l.Read(func(r Record) error {
		var v struct{ ID string }
		if json.Unmarshal(r.Data, &v) != nil {
			return errors.New("not a record")
		}
		got = append(got, v.ID)
		return nil
	})
	if strings.Join(got, ",") != "a,b,c" || len(damage) != 1 {
		t.Fatalf("read %v, damage %v", got, damage)
	}
}

// TestParallelAppendsAndKills: writer processes append at once and are SIGKILLed at random
// points; every line left is a whole record, and every append a writer saw succeed is read.
func TestParallelAppendsAndKills(t *testing.T) {
	if os.Getenv("JSONL_WRITER") != "" {
		return
	}
	dir := t.TempDir()
	const writers = 24
	var cmds []*exec.Cmd
	for w := range writers {
		cmd := exec.Command(os.Args[0], "-test.run=^TestWriterProcess$")
		cmd.Env = append(os.Environ(), "JSONL_WRITER="+strconv.Itoa(w), "JSONL_DIR="+dir)
		var out bytes.Buffer
		cmd.Stdout = &out
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		cmds = append(cmds, cmd)
	}
	time.Sleep(300 * time.Millisecond)
	for i, cmd := range cmds {
		if i%2 == 0 {
			time.Sleep(time.Duration(i) * time.Millisecond)
			cmd.Process.Signal(syscall.SIGKILL)
		}
	}
	for _, cmd := range cmds {
		cmd.Wait()
	}
	l := writerLog(dir)
	l.Append(rec("last", 1)) // cuts off a tail a killed writer left in lane 0
	var acked []string
	for _, cmd := range cmds {
		for _, id := range strings.Fields(cmd.Stdout.(*bytes.Buffer).String()) {
			if strings.Contains(id, "-") {
				acked = append(acked, id)
			}
		}
	}
	got := map[string]int{}
	damage, err := l.Read(func(r Record) error {
		var v struct{ ID string }
		if err := json.Unmarshal(r.Data, &v); err != nil {
			return err
		}
		got[v.ID]++
		return nil
	})
	for _, d := range damage {
		// A lane no append followed since a writer was killed in its write still ends in what it
		// wrote; nothing else is damage.
		if !strings.Contains(d.Why, "no newline") {
			t.Errorf("damage: %v", d)
		}
	}
	if err != nil {
		t.Fatal(err)
	}
	for _, id := range acked {
		if got[id] != 1 {
			t.Errorf("record %s, acknowledged, read %d times", id, got[id])
		}
	}
	for k := range l.lanes() {
		_, blank, torn, _ := raw(t, l.LanePath(k))
		if blank+torn > 0 {
			t.Errorf("lane %d: %d blank, %d torn lines", k, blank, torn)
		}
	}
	t.Logf("%d records acknowledged, %d read", len(acked), len(got))
	// Each lane's chain holds through the kills: a killed writer's tail is cut off, and the
	// record after it names the last whole line.
	mustVerify(t, l, len(got))
}

func writerLog(dir string) *Log {
	return &Log{Dir: dir, Name: "w.jsonl", Lanes: 4, MaxBytes: 256 << 10, Keep: 1000, Chain: true}
}

// TestWriterProcess is a writer of TestParallelAppendsAndKills: it appends until killed or 600
// records, printing each id once its append returned.
func TestWriterProcess(t *testing.T) {
	w := os.Getenv("JSONL_WRITER")
	if w == "" {
		t.Skip("a helper process")
	}
	l := writerLog(os.Getenv("JSONL_DIR"))
	for i := range 600 {
		id := w + "-" + strconv.Itoa(i)
		if err := l.Append(rec(id, (i*97)%6000)); err == nil {
			fmt.Println(id)
		}
	}
}

// TestLanes: a writer that finds lane 0 held appends to another lane at once instead of
// waiting; a reader reads every lane.
func TestLanes(t *testing.T) {
	l := &Log{Dir: t.TempDir(), Name: "x.jsonl", Lanes: 3}
	l.Append(rec("first", 1))
	f, err := os.OpenFile(l.LanePath(0), os.O_RDWR, 0)
	if err != nil {
		t.Fatal(err)
	}
	syscall.Flock(int(f.Fd()), syscall.LOCK_EX)
	start := time.Now()
	if err := l.Append(rec("second", 1)); err != nil {
		t.Fatal(err)
	}
	if took := time.Since(start); took > 100*time.Millisecond {
		t.Errorf("the append waited %s for a held lane", took)
	}
	if n, _, _, _ := raw(t, l.LanePath(0)); n != 1 {
		t.Errorf("lane 0 holds %d records, want 1", n)
	}
	// Every lane held: the append waits a bounded time, then fails, writing nothing.
	var held []*os.File
	for k := 1; k < 3; k++ {
		g, _ := os.OpenFile(l.LanePath(k), os.O_RDWR|os.O_CREATE, 0o600)
		syscall.Flock(int(g.Fd()), syscall.LOCK_EX)
		held = append(held, g)
	}
	start = time.Now()
	if err := l.Append(rec("third", 1)); err == nil {
		t.Fatal("appended with every lane held")
	}
	if took := time.Since(start); took < LaneWait || took > LaneWait+LockWait+time.Second {
		t.Errorf("with every lane held the append took %s", took)
	}
	f.Close()
	for _, g := range held {
		g.Close()
	}
	if err := l.Append(rec("fourth", 1)); err != nil {
		t.Fatal(err)
	}
	got := readAll(t, l)
	if strings.Join(got, ",") != "first,fourth,second" && len(got) != 3 {
		t.Fatalf("read %v", got)
	}
}

// TestNotRegular: a FIFO, a link to /dev/full, a directory or a socket where a log file is:
// readers never block or read without end, and a writer moves the lane's file aside and
// appends.
func TestNotRegular(t *testing.T) {
	kinds := map[string]func(string) error{
		"fifo":     func(p string) error { return syscall.Mkfifo(p, 0o600) },
		"devfull":  func(p string) error { return os.Symlink("/dev/full", p) },
		"devzero":  func(p string) error { return os.Symlink("/dev/zero", p) },
		"dir":      func(p string) error { return os.Mkdir(p, 0o700) },
		"socket":   mkSocket,
		"dangling": func(p string) error { return os.Symlink("/nonexistent/x", p) },
	}
	for name, mk := range kinds {
		for _, which := range []string{"", ".1", ".lane1"} {
			t.Run(name+which, func(t *testing.T) {
				l := &Log{Dir: t.TempDir(), Name: "x.jsonl", Lanes: 2}
				if err := l.Append(rec("before", 1)); err != nil {
					t.Fatal(err)
				}
				path := l.LanePath(0) + which
				if which == ".lane1" {
					path = l.LanePath(1)
				}
				os.Remove(path)
				if err := mk(path); err != nil {
					t.Fatal(err)
				}
				done := make(chan struct{})
				var damage []Damage
				go func() {
					defer close(done)
					damage, _ = l.Read(func(Record) error { return nil })
				}()
				select {
				case <-done:
				case <-time.After(5 * time.Second):
					t.Fatal("the reader hung")
				}
				if which != "" || name != "dangling" {
					if len(damage) == 0 && which == ".1" {
						t.Errorf("no damage reported for %s at %s", name, path)
					}
				}
				if err := l.Append(rec("after", 1)); err != nil {
					t.Fatalf("append: %v", err)
				}
				got := map[string]bool{}
				l.Read(func(r Record) error {
					var v struct{ ID string }
					json.Unmarshal(r.Data, &v)
					got[v.ID] = true
					return nil
				})
				if !got["after"] {
					t.Errorf("the append after %s at %s is not read: %v", name, path, got)
				}
			})
		}
	}
}

func mkSocket(p string) error {
	fd, err := syscall.Socket(syscall.AF_UNIX, syscall.SOCK_STREAM, 0)
	if err != nil {
		return err
	}
	defer syscall.Close(fd)
	return syscall.Bind(fd, &syscall.SockaddrUnix{Name: p})
}

// TestHugeSparseFile: a reader reads a bounded part of a file far larger than the log grows.
func TestHugeSparseFile(t *testing.T) {
	l := &Log{Dir: t.TempDir(), Name: "x.jsonl", MaxBytes: 1 << 20}
	l.Append(rec("a", 1))
	if err := os.Truncate(l.LanePath(0)+".1", 0); err == nil {
		t.Fatal("unexpected .1")
	}
	f, _ := os.Create(l.LanePath(0) + ".1")
	f.Truncate(1 << 40)
	f.Close()
	start := time.Now()
	damage, err := l.Read(func(Record) error { return nil })
	if took := time.Since(start); took > 5*time.Second || err != nil || len(damage) == 0 {
		t.Fatalf("read a 1 TiB sparse file in %s: %v %v", took, damage, err)
	}
}

// TestReadsDuringRotation: readers running while writers rotate the log again and again see
// every record appended before the read began exactly once.
func TestReadsDuringRotation(t *testing.T) {
	l := &Log{Dir: t.TempDir(), Name: "x.jsonl", Lanes: 2, MaxBytes: 16 << 10, Keep: 1000, Chain: true}
	const writers, each = 4, 1500
	var done [writers]atomic.Int64 // records each writer has appended
	var wg sync.WaitGroup
	stop := make(chan struct{})
	for w := range writers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range each {
				if err := l.Append(rec(fmt.Sprintf("w%d-%06d", w, i), 200)); err != nil {
					t.Error(err)
				}
				done[w].Store(int64(i + 1))
			}
		}()
	}
	var rwg sync.WaitGroup
	var reads, bad atomic.Int64
	for range 3 {
		rwg.Add(1)
		go func() {
			defer rwg.Done()
			for {
				select {
				case <-stop:
					return
				default:
				}
				var before [writers]int64
				for w := range before {
					before[w] = done[w].Load()
				}
				seen := map[string]int{}
				l.Read(func(r Record) error {
					var v struct{ ID string }
					json.Unmarshal(r.Data, &v)
					seen[v.ID]++
					return nil
				})
				var problems []string
				for id, n := range seen {
					if n > 1 {
						problems = append(problems, fmt.Sprintf("%s read %d times", id, n))
					}
				}
				for w := range before {
					missing := 0
					for i := range before[w] {
						if seen[fmt.Sprintf("w%d-%06d", w, i)] == 0 {
							missing++
						}
					}
					if missing > 0 {
						problems = append(problems, fmt.Sprintf("w%d: %d of the %d records appended before the read missing", w, missing, before[w]))
					}
				}
				reads.Add(1)
				if len(problems) > 0 {
					bad.Add(1)
					t.Errorf("read: %s", strings.Join(problems, "; "))
				}
			}
		}()
	}
	wg.Wait()
	close(stop)
	rwg.Wait()
	rotated, _ := filepath.Glob(filepath.Join(l.Dir, "*.jsonl.*"))
	t.Logf("%d reads, %d bad, %d rotated files", reads.Load(), bad.Load(), len(rotated))
	if len(rotated) < 10 || reads.Load() < 5 {
		t.Fatalf("%d rotated files and %d reads: the test did not exercise rotation", len(rotated), reads.Load())
	}
	// Rotations under parallel writers never fork a lane's chain: every new file's first
	// record names the last line of the one rotated away, written or not yet when it opened.
	mustVerify(t, l, writers*each)
}

// TestAppendWith: a record built from the last one of its lane, under the lane's lock, sees
// that record and no other comes between them: a chain whose every link names the one before
// holds under parallel writers.
func TestAppendWith(t *testing.T) {
	l := &Log{Dir: t.TempDir(), Name: "x.jsonl", Lanes: 2, MaxBytes: 64 << 10, Keep: 1000}
	var wg sync.WaitGroup
	for w := range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range 200 {
				err := l.AppendWith(func(last []byte) ([]byte, error) {
					var prev struct{ ID string }
					json.Unmarshal(last, &prev)
					return []byte(fmt.Sprintf(`{"id":"w%d-%d","prev":%q}`, w, i, prev.ID)), nil
				})
				if err != nil {
					t.Error(err)
				}
			}
		}()
	}
	wg.Wait()
	for k := range 2 {
		lane := &Log{Dir: l.Dir, Name: filepath.Base(l.LanePath(k)), Keep: 1000}
		prev := ""
		n := 0
		lane.Read(func(r Record) error {
			var v struct{ ID, Prev string }
			json.Unmarshal(r.Data, &v)
			// A rotation starts a new file, whose first record names none.
			if v.Prev != prev && !(v.Prev == "" && r.Line == 1) {
				t.Errorf("lane %d %s:%d: %s names %q, the record before is %q", k, r.File, r.Line, v.ID, v.Prev, prev)
			}
			prev = v.ID
			n++
			return nil
		})
		t.Logf("lane %d: %d records", k, n)
	}
}
