package jsonl

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/hookctl/hookctl/internal/fsutil"
)

// mustVerify fails unless the log's chain holds and holds want records.
func mustVerify(t *testing.T, l *Log, want int) *VerifyReport {
	t.Helper()
	rep, err := l.Verify()
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for _, lr := range rep.Lanes {
		n += lr.Chained
		for _, b := range lr.Breaks {
			t.Errorf("lane %d: %s", lr.Lane, b)
		}
		for _, note := range lr.Notes {
			t.Logf("lane %d: %s", lr.Lane, note)
		}
	}
	for _, b := range rep.Unread {
		t.Errorf("unread: %s", b)
	}
	if n != want {
		t.Errorf("%d chained records verified, want %d", n, want)
	}
	return rep
}

// chainedLog is a chained log of n records over several rotated files of one lane.
func chainedLog(t *testing.T, n int) *Log {
	t.Helper()
	l := &Log{Dir: t.TempDir(), Name: "x.jsonl", MaxBytes: 2 << 10, Keep: 100, Chain: true}
	for i := range n {
		if err := l.Append(rec(fmt.Sprintf("r%03d", i), 40)); err != nil {
			t.Fatal(err)
		}
	}
	return l
}

// lines reads a file's lines, newline off.
func lines(t *testing.T, path string) [][]byte {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return bytes.Split(bytes.TrimSuffix(b, []byte("\n")), []byte("\n"))
}

func writeLines(t *testing.T, path string, ls [][]byte) {
	t.Helper()
	if err := os.WriteFile(path, append(bytes.Join(ls, []byte("\n")), '\n'), 0o600); err != nil {
		t.Fatal(err)
	}
}

// TestChainFields: every record ends in its lane's count and the SHA-256 of the exact line
// before it, across a rotation; the first names no line.
func TestChainFields(t *testing.T) {
	l := chainedLog(t, 60)
	rotated := lines(t, l.LanePath(0)+".1")
	current := lines(t, l.LanePath(0))
	if _, err := os.Stat(l.LanePath(0) + ".2"); err != nil {
		t.Fatalf("the test wants at least three files: %v", err)
	}
	seq, prev, ok := ChainFields(current[0])
	if !ok || prev != LineHash(rotated[len(rotated)-1]) {
		t.Errorf("the first record of the new file names %q, the last line of the file rotated away hashes to %q", prev, LineHash(rotated[len(rotated)-1]))
	}
	if s, _, _ := ChainFields(rotated[len(rotated)-1]); seq != s+1 {
		t.Errorf("seq %d after %d", seq, s)
	}
	last := current[len(current)-1]
	if s, _, _ := ChainFields(last); s != 60 || !bytes.HasPrefix(last, []byte(`{"id":"r059","pad":`)) {
		t.Errorf("last record: %s", last)
	}
	oldest, _ := filepath.Glob(l.LanePath(0) + ".*")
	first := lines(t, l.LanePath(0)+fmt.Sprintf(".%d", len(oldest)))[0]
	if s, p, _ := ChainFields(first); s != 1 || p != GenesisHash {
		t.Errorf("first record: seq %d, prev %s", s, p)
	}
	mustVerify(t, l, 60)
	for _, bad := range []string{`{"id":"x"}`, `{"id":"x","seq":1,"prev_hash":"` + strings.Repeat("g", 64) + `"}`, `{"seq":0,"prev_hash":"` + GenesisHash + `"}`} {
		if _, _, ok := ChainFields([]byte(bad)); ok {
			t.Errorf("%s read as chained", bad)
		}
	}
	y := &Log{Dir: t.TempDir(), Name: "y.jsonl", Chain: true}
	if err := y.Append([]byte(`["not an object"]`)); err == nil {
		t.Error("a record that is not a JSON object was chained")
	}
	y.Append([]byte(`{}`))
	y.Append([]byte(` {"id":"z"} `))
	mustVerify(t, y, 2)
}

// TestVerifyCatchesTampering: an edited, a deleted and a swapped record are each found, and
// named by file, line and id; the untouched log verifies (the control), and so does the same
// edit made to a log's copy that is then put back.
func TestVerifyCatchesTampering(t *testing.T) {
	const n = 60
	cases := []struct {
		name   string
		file   string // "" the current file, ".1" the one rotated before it
		tamper func(ls [][]byte) [][]byte
		want   []string // substrings of the breaks, in order
	}{
		{"untouched", "", func(ls [][]byte) [][]byte { return ls }, nil},
		{"edited", "", func(ls [][]byte) [][]byte {
			ls[3] = bytes.Replace(ls[3], []byte(`"pad":"p`), []byte(`"pad":"q`), 1)
			return ls
		}, []string{"x.jsonl:4 (record %s): changed: x.jsonl:5"}},
		{"edited, spaces only", "", func(ls [][]byte) [][]byte {
			ls[3] = append(ls[3], ' ')
			return ls
		}, []string{"x.jsonl:4 (record %s): changed"}},
		{"deleted", "", func(ls [][]byte) [][]byte { return append(ls[:3:3], ls[4:]...) }, []string{"x.jsonl:4 (record %s): 1 record(s) removed between x.jsonl:3"}},
		{"swapped", "", func(ls [][]byte) [][]byte {
			ls[3], ls[4] = ls[4], ls[3]
			return ls
		}, []string{"x.jsonl:4 (record %s): out of order: it follows x.jsonl:5", "x.jsonl:5 (record %s): out of order", "x.jsonl:6 (record %s): out of order"}},
		{"last of the rotated file edited", ".1", func(ls [][]byte) [][]byte {
			ls[len(ls)-1] = bytes.Replace(ls[len(ls)-1], []byte(`"pad":"p`), []byte(`"pad":"q`), 1)
			return ls
		}, []string{"x.jsonl.1:%d (record %s): changed: x.jsonl:1"}},
		{"unchained record inserted", "", func(ls [][]byte) [][]byte {
			return append(ls[:2:2], append([][]byte{[]byte(`{"id":"forged"}`)}, ls[2:]...)...)
		}, []string{"x.jsonl:3 (record forged): no chain fields", "x.jsonl:4 (record %s): out of order"}},
		{"blank line inserted", "", func(ls [][]byte) [][]byte {
			return append(ls[:2:2], append([][]byte{nil}, ls[2:]...)...)
		}, []string{"x.jsonl:4 (record %s): bytes"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			l := chainedLog(t, n)
			path := l.LanePath(0) + c.file
			orig := lines(t, path)
			ids := func(i int) string {
				var v struct{ ID string }
				fmt.Sscanf(string(orig[i]), `{"id":%q`, &v.ID)
				return strings.Trim(v.ID, `"`)
			}
			writeLines(t, path, c.tamper(append([][]byte(nil), orig...)))
			rep, err := l.Verify()
			if err != nil {
				t.Fatal(err)
			}
			var got []string
			for _, lr := range rep.Lanes {
				for _, b := range lr.Breaks {
					got = append(got, b.String())
				}
			}
			if rep.OK() != (len(c.want) == 0) {
				t.Fatalf("OK() = %v with breaks %q", rep.OK(), got)
			}
			if len(got) != len(c.want) {
				t.Fatalf("breaks %q, want %d", got, len(c.want))
			}
			for i, w := range c.want {
				// The ids the breaks name are the records at those lines in the tampered file.
				tampered := lines(t, path)
				var args []any
				switch c.name {
				case "last of the rotated file edited":
					args = []any{len(orig), ids(len(orig) - 1)}
				default:
					line := 0
					fmt.Sscanf(w, "x.jsonl:%d", &line)
					var v struct{ ID string }
					fmt.Sscanf(string(tampered[line-1]), `{"id":%q`, &v.ID)
					args = []any{v.ID}
				}
				want := w
				if strings.Contains(w, "%") {
					want = fmt.Sprintf(w, args...)
				}
				if !strings.HasPrefix(got[i], want) {
					t.Errorf("break %d: %q, want it to begin %q", i, got[i], want)
				}
			}
			t.Logf("%s: %q", c.name, got)
			// Put back, it verifies again: the breaks were the tampering's, not the log's.
			writeLines(t, path, orig)
			mustVerify(t, l, n)
		})
	}
}

// TestVerifyOlderRecords: records written before the log was chained (an older hookctl) are
// counted as such, not as breaks; the chain begins at the first chained record, which names
// the last of them.
func TestVerifyOlderRecords(t *testing.T) {
	dir := t.TempDir()
	old := &Log{Dir: dir, Name: "x.jsonl"}
	for i := range 5 {
		old.Append(rec(fmt.Sprintf("old%d", i), 10))
	}
	l := &Log{Dir: dir, Name: "x.jsonl", Chain: true}
	for i := range 5 {
		l.Append(rec(fmt.Sprintf("new%d", i), 10))
	}
	rep := mustVerify(t, l, 5)
	if u := rep.Lanes[0].Unchained; u != 5 {
		t.Errorf("%d unchained records, want 5", u)
	}
	// The control: the last of the older records changed is a break, as the chain names it.
	ls := lines(t, l.LanePath(0))
	ls[4] = bytes.Replace(ls[4], []byte("old4"), []byte("old9"), 1)
	writeLines(t, l.LanePath(0), ls)
	if rep, _ := l.Verify(); rep.OK() {
		t.Error("the record the chain begins after was changed, and the log verified")
	}
}

// TestVerifyRotatedAway: a lane whose oldest files rotated away begins its chain mid-count:
// a note, not a break.
func TestVerifyRotatedAway(t *testing.T) {
	l := &Log{Dir: t.TempDir(), Name: "x.jsonl", MaxBytes: 1 << 10, Keep: 2, Chain: true}
	for i := range 50 {
		l.Append(rec(fmt.Sprintf("r%02d", i), 40))
	}
	rep, err := l.Verify()
	if err != nil {
		t.Fatal(err)
	}
	if !rep.OK() || len(rep.Lanes) != 1 || len(rep.Lanes[0].Notes) != 1 || !strings.Contains(rep.Lanes[0].Notes[0], "rotated away") {
		t.Errorf("%+v", rep)
	}
}

// TestVerifyTornTail: a last line a killed writer left is a note; the next append cuts it off
// and the chain runs on.
func TestVerifyTornTail(t *testing.T) {
	l := chainedLog(t, 10)
	f, _ := os.OpenFile(l.LanePath(0), os.O_WRONLY|os.O_APPEND, 0)
	f.WriteString(`{"id":"torn","pad":"pp`)
	f.Close()
	rep, _ := l.Verify()
	if !rep.OK() || len(rep.Lanes[0].Notes) != 1 {
		t.Errorf("%+v", rep.Lanes)
	}
	l.Append(rec("after", 1))
	mustVerify(t, l, 11)
}

// TestChainTornRotatedTail: a writer killed in its write just before its file was rotated away
// leaves the torn tail in the rotated file; the writer that starts the new file cuts it off and
// names the last whole line, so the chain holds.
func TestChainTornRotatedTail(t *testing.T) {
	l := chainedLog(t, 30)
	f, _ := os.OpenFile(l.LanePath(0), os.O_WRONLY|os.O_APPEND, 0)
	f.WriteString(`{"id":"torn","pad":"pp`)
	f.Close()
	fsutil.Rotate(l.LanePath(0), l.keep())
	if b, _ := os.ReadFile(l.LanePath(0) + ".1"); !bytes.HasSuffix(b, []byte(`"pad":"pp`)) {
		t.Fatal("the rotated file does not end in the torn tail: the fault did not happen")
	}
	if err := l.Append(rec("after", 1)); err != nil {
		t.Fatal(err)
	}
	if b, _ := os.ReadFile(l.LanePath(0) + ".1"); !bytes.HasSuffix(b, []byte("\"}\n")) {
		t.Errorf("the rotated file still ends in %q", b[len(b)-20:])
	}
	mustVerify(t, l, 31)
}

// BenchmarkAppend: what the chain adds to an append (reading the lane's last line, hashing it)
// on a log of a few hundred records, the hook's common case.
func BenchmarkAppend(b *testing.B) {
	for _, chain := range []bool{false, true} {
		b.Run(fmt.Sprintf("chain=%v", chain), func(b *testing.B) {
			l := &Log{Dir: b.TempDir(), Name: "x.jsonl", Chain: chain}
			for i := range 300 {
				l.Append(rec(fmt.Sprint(i), 400))
			}
			b.ResetTimer()
			for i := range b.N {
				if err := l.Append(rec(fmt.Sprint(i), 400)); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
