package session

import (
	"bytes"
	"encoding/json"
	"fmt"
	"hash/crc32"
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

	"github.com/hookctl/hookctl/hook"
	"github.com/hookctl/hookctl/internal/fsutil"
	"github.com/hookctl/hookctl/internal/testbin"
)

func TestValidSessionID(t *testing.T) {
	for _, id := range []string{"ee10aba3-6a9e-4c0b-8d1e-1f2b3c4d5e6f", "a", "A_b.c-1"} {
		if err := ValidSessionID(id); err != nil {
			t.Errorf("%q: %v", id, err)
		}
	}
	for _, id := range []string{"", ".", "..", "../x", "a/b", `a\b`, ".hidden", "a b", "a\x00", strings.Repeat("a", 129), "é"} {
		if ValidSessionID(id) == nil {
			t.Errorf("%q accepted", id)
		}
	}
}

func TestStoreNewSessionsStartInTheDefault(t *testing.T) {
	s := NewStore(t.TempDir())
	m := StoreModes{Store: s}
	mode, err := m.ModeFor("s1", "/p", hook.ModeReadOnly)
	if err != nil || mode != hook.ModeReadOnly {
		t.Fatalf("new session: %v %v", mode, err)
	}
	mode, _ = m.ModeFor("s2", "/p", hook.ModeEdit)
	if mode != hook.ModeEdit {
		t.Errorf("default_mode=edit: %v", mode)
	}
	sess, err := s.Load("s1")
	if err != nil || sess.Cwd != "/p" || len(sess.History) != 1 || sess.History[0].How != "new" {
		t.Fatalf("recorded: %+v %v", sess, err)
	}
	// A known session keeps its mode whatever the default.
	if mode, _ := m.ModeFor("s1", "/p", hook.ModeEdit); mode != hook.ModeReadOnly {
		t.Errorf("known session took the default: %v", mode)
	}
	// The hook never rewrites a session it has seen: only the human's toggles do, so nothing the
	// hook does can race a toggle and put an old mode back.
	before, _ := os.ReadFile(s.path("s1"))
	m.ModeFor("s1", "/p/sub", hook.ModeEdit)
	if after, _ := os.ReadFile(s.path("s1")); string(after) != string(before) {
		t.Errorf("the hook rewrote a known session:\n%s\n%s", before, after)
	}
}

// TestDamagedStateIsReadOnly: a torn, invalid or foreign state file makes the session
// read-only with a reason, and the hook leaves the file for the human; setting the mode repairs
// it.
func TestDamagedStateIsReadOnly(t *testing.T) {
	for name, content := range map[string]string{
		"torn":         `{"id":"s","mode":"ed`,
		"not json":     "\x00\x01",
		"unknown mode": `{"id":"s","mode":"yolo"}`,
		"empty mode":   `{"id":"s","mode":""}`,
		"other id":     `{"id":"t","mode":"edit"}`,
		"array":        `["edit"]`,
		// Issue 7: the hook read the first of two keys (gjson), the status line and the toggles the
		// last (encoding/json), so display and enforcement disagreed.
		"edit then read-only": `{"id":"s","mode":"edit","mode":"read-only"}`,
		"read-only then edit": `{"id":"s","mode":"read-only","mode":"edit"}`,
		"two ids":             `{"id":"t","id":"s","mode":"edit"}`,
		"nested duplicate":    `{"id":"s","mode":"edit","history":[{"time":"2026-01-01T00:00:00Z","from":"edit","from":"edit","to":"edit","how":"new"}]}`,
		// Issue 7: a file with no mode displayed as EDIT (the zero value of Mode was edit).
		"no mode":           `{"id":"s"}`,
		"mode not a string": `{"id":"s","mode":1}`,
		"unknown key":       `{"id":"s","mode":"edit","mode_override":"edit"}`,
		"bad history mode":  `{"id":"s","mode":"edit","history":[{"time":"2026-01-01T00:00:00Z","from":"x","to":"edit","how":"new"}]}`,
		"bad started":       `{"id":"s","mode":"edit","started":"yesterday"}`,
		"history not list":  `{"id":"s","mode":"edit","history":{}}`,
	} {
		home := t.TempDir()
		s := NewStore(home)
		os.MkdirAll(s.Dir, 0o700)
		p := filepath.Join(s.Dir, "s.json")
		os.WriteFile(p, []byte(content), 0o600)
		mode, err := StoreModes{Store: s}.ModeFor("s", "/p", hook.ModeEdit)
		if err == nil || mode != hook.ModeReadOnly {
			t.Errorf("%s: mode %v, error %v", name, mode, err)
		}
		// One reader: what the status line and `readonly status` read (Load) is refused too.
		if sess, err := s.Load("s"); err == nil {
			t.Errorf("%s: Load accepted it: %+v", name, sess)
		}
		if b, _ := os.ReadFile(p); string(b) != content {
			t.Errorf("%s: the hook rewrote a damaged state file", name)
		}
		from, to, err := ToggleOff.Apply(s, "s", "cli", "/p", hook.ModeEdit, nil)
		if err != nil || from != hook.ModeReadOnly || to != hook.ModeEdit {
			t.Errorf("%s: repair: %v→%v %v", name, from, to, err)
		}
		if sess, err := s.Load("s"); err != nil || sess.Mode != hook.ModeEdit {
			t.Errorf("%s: after repair: %+v %v", name, sess, err)
		}
	}
}

// TestHostileStateFiles: a state file swapped for a symbolic link to an edit-mode file, or for a
// FIFO that no one writes, is read-only at once (no hang), and a toggle replaces it.
func TestHostileStateFiles(t *testing.T) {
	for _, plant := range []struct {
		name string
		make func(p string) error
	}{
		{"symlink", func(p string) error {
			target := p + ".elsewhere"
			os.WriteFile(target, []byte(`{"id":"s","mode":"edit"}`), 0o600)
			return os.Symlink(target, p)
		}},
		{"fifo", func(p string) error { return syscall.Mkfifo(p, 0o600) }},
		{"directory", func(p string) error { return os.Mkdir(p, 0o700) }},
		{"directory with files", func(p string) error {
			os.Mkdir(p, 0o700)
			os.Mkdir(filepath.Join(p, "sub"), 0o700)
			return os.WriteFile(filepath.Join(p, "f"), nil, 0o600)
		}},
	} {
		s := NewStore(t.TempDir())
		os.MkdirAll(s.Dir, 0o700)
		if err := plant.make(s.path("s")); err != nil {
			t.Fatal(err)
		}
		done := make(chan struct{})
		go func() {
			defer close(done)
			mode, err := StoreModes{Store: s}.ModeFor("s", "/p", hook.ModeEdit)
			if err == nil || mode != hook.ModeReadOnly {
				t.Errorf("%s: mode %v, error %v", plant.name, mode, err)
			}
			if _, err := s.Load("s"); err == nil {
				t.Errorf("%s: Load accepted it", plant.name)
			}
		}()
		select {
		case <-done:
		case <-time.After(2 * time.Second):
			t.Fatalf("%s: reading the state hung", plant.name)
		}
		if _, to, err := ToggleOn.Apply(s, "s", "cli", "/p", hook.ModeEdit, nil); err != nil || to != hook.ModeReadOnly {
			t.Errorf("%s: repair: %v %v", plant.name, to, err)
		}
		if fi, err := os.Lstat(s.path("s")); err != nil || !fi.Mode().IsRegular() {
			t.Errorf("%s: after repair the state is not a regular file: %v", plant.name, err)
		}
		// What the repair moved aside is gone too, and the link's target is untouched.
		if left, _ := filepath.Glob(filepath.Join(s.Dir, ".s.json.*")); len(left) > 0 {
			t.Errorf("%s: left after the repair: %v", plant.name, left)
		}
		if b, err := os.ReadFile(s.path("s") + ".elsewhere"); err == nil && !strings.Contains(string(b), `"edit"`) {
			t.Errorf("%s: the repair wrote through the link: %s", plant.name, b)
		}
	}
}

// TestToggleLandsWhileTheLockIsHeld is the edit-mode hole of issue 7: `flock S.lock sleep 3600`
// made /readonly on fail ("another hookctl held it too long"). A real flock(1) holds the lock in
// another process; the human's toggle must still land within a second.
func TestToggleLandsWhileTheLockIsHeld(t *testing.T) {
	flock, err := exec.LookPath("flock")
	if err != nil {
		testbin.RequireTool(t, "flock")
	}
	s := NewStore(t.TempDir())
	s.Record("s", "/p", hook.ModeEdit)
	holder := exec.Command(flock, s.lockPath("s"), "sleep", "30")
	if err := holder.Start(); err != nil {
		t.Fatal(err)
	}
	defer holder.Process.Kill()
	// Wait until the holder really holds it.
	for i := 0; ; i++ {
		if unlock, err := fsutil.Lock(s.lockPath("s"), 10*time.Millisecond); err != nil {
			break
		} else {
			unlock()
		}
		if i > 200 {
			t.Fatal("flock(1) never took the lock")
		}
		time.Sleep(10 * time.Millisecond)
	}
	start := time.Now()
	from, to, err := ToggleOn.Apply(s, "s", "cli", "/p", hook.ModeEdit, nil)
	took := time.Since(start)
	if err != nil || from != hook.ModeEdit || to != hook.ModeReadOnly {
		t.Fatalf("toggle under a held lock: %v→%v %v", from, to, err)
	}
	if took > time.Second {
		t.Errorf("the toggle took %v", took)
	}
	if m, _, _ := s.Peek("s"); m != hook.ModeReadOnly {
		t.Errorf("mode after the toggle: %v", m)
	}
}

// TestKilledWritesLeaveNoTemporaryFiles (issue 31, item 8): writes killed between creating their
// temporary file and renaming it left 179-269 files a run, still there a minute after the next
// toggle. The next toggle removes every one whose writer is gone, of any session and of the
// clients' notes, even a toggle that changes nothing; a temporary file whose writer is alive
// (it holds its lock) stays.
func TestKilledWritesLeaveNoTemporaryFiles(t *testing.T) {
	s := NewStore(t.TempDir())
	s.Record("s", "/p", hook.ModeReadOnly)
	os.MkdirAll(s.clientsDir(), 0o700)
	var strays []string
	for i, name := range []string{".s.json.123456.tmp", ".other.json.1.tmp", ".other.told.2.tmp", ".x.json.aside"} {
		p := filepath.Join(s.Dir, name)
		os.WriteFile(p, []byte("{"), 0o600)
		if i == 0 {
			os.Chtimes(p, time.Now().Add(-time.Hour), time.Now().Add(-time.Hour))
		}
		strays = append(strays, p)
	}
	client := filepath.Join(s.clientsDir(), ".123-456.789.tmp")
	os.WriteFile(client, nil, 0o600)
	strays = append(strays, client)
	live := filepath.Join(s.Dir, ".s.json.999999.tmp")
	os.WriteFile(live, []byte("{"), 0o600)
	f, err := os.Open(live)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	syscall.Flock(int(f.Fd()), syscall.LOCK_EX) // its writer, alive
	os.Chtimes(live, time.Now().Add(-time.Hour), time.Now().Add(-time.Hour))
	notHookctls := filepath.Join(s.Dir, "notes.tmp") // not a hidden temporary file: not ours
	os.WriteFile(notHookctls, nil, 0o600)

	if _, to, err := ToggleOn.Apply(s, "s", "cli", "/p", hook.ModeReadOnly, nil); err != nil || to != hook.ModeReadOnly {
		t.Fatalf("toggle: %v %v", to, err) // read-only already: writes nothing, still cleans
	}
	for _, p := range strays {
		if _, err := os.Lstat(p); err == nil {
			t.Errorf("%s was left", filepath.Base(p))
		}
	}
	for _, p := range []string{live, notHookctls} {
		if _, err := os.Lstat(p); err != nil {
			t.Errorf("%s was removed", filepath.Base(p))
		}
	}
}

// TestStrayRemovalIsBounded: a directory someone filled with stray files delays a toggle by a
// bounded amount; each toggle removes at most maxStrays and the next goes on.
func TestStrayRemovalIsBounded(t *testing.T) {
	s := NewStore(t.TempDir())
	s.Record("s", "/p", hook.ModeReadOnly)
	const n = maxStrays + 500
	for i := range n {
		os.WriteFile(filepath.Join(s.Dir, fmt.Sprintf(".s.json.%d.tmp", i)), nil, 0o600)
	}
	count := func() int { m, _ := filepath.Glob(filepath.Join(s.Dir, ".*.tmp")); return len(m) }
	ToggleOff.Apply(s, "s", "cli", "/p", hook.ModeReadOnly, nil)
	if left := count(); left < n-2*maxStrays || left >= n {
		t.Errorf("after one toggle %d of %d left", left, n)
	}
	ToggleOn.Apply(s, "s", "cli", "/p", hook.ModeReadOnly, nil)
	ToggleOff.Apply(s, "s", "cli", "/p", hook.ModeReadOnly, nil)
	if left := count(); left != 0 {
		t.Errorf("after three toggles %d left", left)
	}
}

func TestUnreadableStateDirIsAnError(t *testing.T) {
	home := t.TempDir()
	os.WriteFile(filepath.Join(home, "sessions"), []byte("a file, not a directory"), 0o600)
	mode, err := StoreModes{Store: NewStore(home)}.ModeFor("s", "/p", hook.ModeEdit)
	if err == nil || mode != hook.ModeReadOnly {
		t.Errorf("mode %v err %v", mode, err)
	}
}

func TestParseToggle(t *testing.T) {
	for in, want := range map[string]Toggle{"": ToggleStatus, " ": ToggleStatus, "status": ToggleStatus, " status\n": ToggleStatus, "Status": NoToggle, "toggle": NoToggle, "on": ToggleOn, " off ": ToggleOff, "off\n": ToggleOff, "review": ToggleReview, " review\n": ToggleReview, "Review": NoToggle, "review on": NoToggle, "off now": NoToggle, "of": NoToggle,
		"OFF": NoToggle, "off please": NoToggle, "o ff": NoToggle, "<task-notification>off</task-notification>": NoToggle} {
		if got := ParseToggleArgs(in); got != want {
			t.Errorf("ParseToggleArgs(%q) = %v, want %v", in, got, want)
		}
	}
}

// TestPromptTogglesOnce: one prompt seen by two hook events (its id the same) flips once.
func TestPromptTogglesOnce(t *testing.T) {
	s := NewStore(t.TempDir())
	s.Record("s", "/p", hook.ModeReadOnly)
	from, to, err := s.ApplyPrompt(ToggleFlip, "s", "prompt-1", "/p", hook.ModeReadOnly)
	if err != nil || from != hook.ModeReadOnly || to != hook.ModeEdit {
		t.Fatalf("first: %v→%v %v", from, to, err)
	}
	from, to, _ = s.ApplyPrompt(ToggleFlip, "s", "prompt-1", "/p", hook.ModeReadOnly)
	if from != hook.ModeEdit || to != hook.ModeEdit {
		t.Errorf("the same prompt flipped again: %v→%v", from, to)
	}
	_, to, _ = s.ApplyPrompt(ToggleFlip, "s", "prompt-2", "/p", hook.ModeReadOnly)
	if to != hook.ModeReadOnly {
		t.Errorf("a new prompt did not flip: %v", to)
	}
	sess, _ := s.Load("s")
	if len(sess.History) != 3 { // new, two flips
		t.Errorf("history: %+v", sess.History)
	}
}

// TestStoreConcurrentWriters: many goroutines changing one session under the lock lose no
// history entry, and readers never see a torn file.
func TestStoreConcurrentWriters(t *testing.T) {
	s := NewStore(t.TempDir())
	s.Record("s", "/p", hook.ModeReadOnly)
	const writers, each = 4, 10 // queued well inside ToggleLockWait, even with slow fsyncs
	var wg sync.WaitGroup
	stop := make(chan struct{})
	var torn error
	var readerWG sync.WaitGroup
	readerWG.Add(1)
	go func() {
		defer readerWG.Done()
		for {
			select {
			case <-stop:
				return
			default:
			}
			if _, err := s.Load("s"); err != nil && torn == nil {
				torn = err
			}
		}
	}()
	for w := 0; w < writers; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := 0; i < each; i++ {
				if _, _, err := ToggleFlip.Apply(s, "s", "cli", "", hook.ModeReadOnly, nil); err != nil {
					t.Error(err)
				}
			}
		}()
	}
	wg.Wait()
	close(stop)
	readerWG.Wait()
	if torn != nil {
		t.Errorf("a reader saw: %v", torn)
	}
	sess, err := s.Load("s")
	if err != nil {
		t.Fatal(err)
	}
	if got := len(sess.History); got != 1+writers*each {
		t.Errorf("history has %d entries, want %d", got, 1+writers*each)
	}
	// writers*each flips from read-only: an even count ends read-only.
	if sess.Mode != hook.ModeReadOnly {
		t.Errorf("mode %v after an even number of flips", sess.Mode)
	}
	for i := 1; i < len(sess.History); i++ {
		if sess.History[i].From != sess.History[i-1].To {
			t.Fatalf("history entry %d starts from %v, the one before ended at %v", i, sess.History[i].From, sess.History[i-1].To)
		}
	}
	leftovers, _ := filepath.Glob(filepath.Join(s.Dir, "*.tmp"))
	if len(leftovers) > 0 {
		t.Errorf("temporary files left: %v", leftovers)
	}
}

func mustStat(t *testing.T, p string) os.FileInfo {
	t.Helper()
	fi, err := os.Stat(p)
	if err != nil {
		t.Fatal(err)
	}
	return fi
}

func TestModeJSON(t *testing.T) {
	b, _ := json.Marshal(Session{ID: "s", Mode: hook.ModeEdit})
	if !strings.Contains(string(b), `"mode":"edit"`) {
		t.Errorf("%s", b)
	}
	var m hook.Mode
	if err := json.Unmarshal([]byte(`"review"`), &m); err != nil || m != hook.ModeReview {
		t.Errorf("review: %v %v", m, err)
	}
	if err := json.Unmarshal([]byte(`"edit "`), &m); err == nil {
		t.Error("a near miss decoded")
	}
}

// BenchmarkModeFor is the hook's state lookup on every call: read the session's file, check it,
// mark it used.
func BenchmarkModeFor(b *testing.B) {
	s := NewStore(b.TempDir())
	s.Record("s", "/p", hook.ModeReadOnly)
	m := StoreModes{Store: s}
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if _, err := m.ModeFor("s", "/p", hook.ModeReadOnly); err != nil {
			b.Fatal(err)
		}
	}
}

// TestStateFileKeepsRoom: a state file is its JSON with a check, padded with spaces to whole
// blocks with room to spare; one written before the check (no check, no padding) is still
// read; one padded without a check, or whose check fails, is damaged.
func TestStateFileKeepsRoom(t *testing.T) {
	s := NewStore(t.TempDir())
	if _, err := s.Record("s", "/p", hook.ModeEdit); err != nil {
		t.Fatal(err)
	}
	b, _ := os.ReadFile(s.path("s"))
	content := len(strings.TrimRight(string(b), " \n"))
	if len(b)%stateBlock != 0 || len(b)-content < stateSlack || !strings.HasPrefix(string(b), "{\n  \"check\": \"crc32c:") {
		t.Errorf("%d bytes, %d of content: %.60q", len(b), content, b)
	}
	if m, _, err := s.Peek("s"); err != nil || m != hook.ModeEdit {
		t.Fatalf("read back: %v %v", m, err)
	}
	legacy := `{"id":"s","mode":"edit","cwd":"/p","history":[]}` + "\n"
	os.WriteFile(s.path("s"), []byte(legacy), 0o600)
	if m, _, err := s.Peek("s"); err != nil || m != hook.ModeEdit {
		t.Errorf("a file from before the check: %v %v", m, err)
	}
	os.WriteFile(s.path("s"), []byte(legacy+strings.Repeat(" ", 100)), 0o600)
	if _, _, err := s.Peek("s"); err == nil || !strings.Contains(err.Error(), "without a check") {
		t.Errorf("padded without a check: %v", err)
	}
	// One character changed, the JSON still valid: the check fails.
	edited := strings.Replace(string(b), `"cwd": "/p"`, `"cwd": "/q"`, 1)
	os.WriteFile(s.path("s"), []byte(edited), 0o600)
	if _, _, err := s.Peek("s"); err == nil || !strings.Contains(err.Error(), "fails its check") {
		t.Errorf("edited: %v", err)
	}
}

// TestTornStateWriteIsReadOnly (issue 31, item 1): a write in place that a crash cuts at any
// byte, or of which the disk kept any sectors but not others, reads as the old file, the new
// one, or damaged (read-only): never as a mode no write set. The old file is edit mode, the new
// read-only; both sealed, and the old also as a file from before the check.
func TestTornStateWriteIsReadOnly(t *testing.T) {
	s := NewStore(t.TempDir())
	os.MkdirAll(s.Dir, 0o700)
	now := time.Date(2026, 12, 1, 10, 0, 0, 0, time.UTC)
	edit := &Session{ID: "s", Mode: hook.ModeEdit, Cwd: "/p", Started: now, History: []Change{{now, hook.ModeReadOnly, hook.ModeReadOnly, "new"}, {now, hook.ModeReadOnly, hook.ModeEdit, "cli"}}}
	ro := &Session{ID: "s", Mode: hook.ModeReadOnly, Cwd: "/p", Started: now, History: append(append([]Change{}, edit.History...), Change{now, hook.ModeEdit, hook.ModeReadOnly, "cli"})}
	jEdit, _ := encodeState(edit)
	jRO, _ := encodeState(ro)
	sealedEdit := sealState(jEdit, stateBlock)
	sealedRO := sealState(jRO, stateBlock)
	legacyEdit := append([]byte{}, jEdit...)
	read := func(b []byte) string {
		root, err := parseState("s", s.path("s"), b) // the one reader's checks
		if err != nil {
			return "damaged"
		}
		return root.Get("mode").Str
	}
	// The JSON of a file: its padding, which the check does not cover, aside.
	content := func(b []byte) string { return string(b[:bytes.LastIndexByte(b, '}')+1]) }
	check := func(name string, old, new []byte, splice []byte) {
		t.Helper()
		got := read(splice)
		switch {
		case got == "damaged" || got == "read-only":
		case content(splice) == content(old): // only padding torn: the old file, whole
		default:
			t.Fatalf("%s: a torn write reads as %s", name, got)
		}
	}
	for _, old := range [][]byte{sealedEdit, legacyEdit} {
		n := max(len(old), len(sealedRO))
		for cut := 0; cut <= n; cut++ {
			// The new file's first cut bytes over the old one, and the old one's over the new.
			a := append([]byte{}, old...)
			if len(a) < n {
				a = append(a, make([]byte, n-len(a))...)
			}
			copy(a, sealedRO[:min(cut, len(sealedRO))])
			check(fmt.Sprintf("new up to %d", cut), old, sealedRO, a[:max(len(old), min(cut, len(sealedRO)))])
			b := append([]byte{}, sealedRO...)
			copy(b, old[:min(cut, len(old))])
			check(fmt.Sprintf("old up to %d", cut), old, sealedRO, b)
		}
		// Sectors: any of the eight 512-byte sectors new, the rest old.
		for mask := 0; mask < 256; mask++ {
			a := append([]byte{}, old...)
			if len(a) < len(sealedRO) {
				a = append(a, make([]byte, len(sealedRO)-len(a))...)
			}
			for sec := range 8 {
				if mask&(1<<sec) != 0 {
					copy(a[sec*512:], sealedRO[sec*512:min((sec+1)*512, len(sealedRO))])
				}
			}
			check(fmt.Sprintf("sectors %08b", mask), old, sealedRO, a)
		}
	}
}

// TestStateCheckIsCRC32C: the check's own CRC-32C agrees with the standard library's, so that a
// state file written by a build that used hash/crc32 passes its check, and one written now passes
// an older build's; a flipped bit anywhere fails it.
func TestStateCheckIsCRC32C(t *testing.T) {
	tab := crc32.MakeTable(crc32.Castagnoli)
	if got := crc32c([]byte("123456789")); got != 0xe3069283 {
		t.Fatalf("crc32c(123456789) = %08x, want e3069283 (the standard check value)", got)
	}
	b := make([]byte, 5000)
	for i := range b {
		b[i] = byte(i*7 + i>>8)
	}
	for n := 0; n <= len(b); n += 1 + n/3 {
		if got, want := crc32c(b[:n]), crc32.Checksum(b[:n], tab); got != want {
			t.Fatalf("%d bytes: crc32c %08x, hash/crc32 %08x", n, got, want)
		}
	}
	now := time.Date(2026, 12, 1, 10, 0, 0, 0, time.UTC)
	j, _ := encodeState(&Session{ID: "s", Mode: hook.ModeEdit, Cwd: "/p", Started: now})
	sealed := sealState(j, 0)
	end := bytes.LastIndexByte(sealed, '}') + 1
	at := bytes.Index(sealed, []byte(checkAlgo)) + len(checkAlgo)
	zeroed := append([]byte{}, sealed[:end]...)
	copy(zeroed[at:], "00000000")
	if want := fmt.Sprintf("%08x", crc32.Checksum(zeroed, tab)); string(sealed[at:at+8]) != want {
		t.Fatalf("the sealed file's check is %s, hash/crc32 says %s", sealed[at:at+8], want)
	}
	if root, err := parseState("s", "s.json", sealed); err != nil || root.Get("mode").Str != "edit" {
		t.Fatalf("a sealed file does not read back: %v", err)
	}
	for i := 0; i < end; i++ {
		if i >= at && i < at+8 {
			continue // the check's own digits
		}
		flipped := append([]byte{}, sealed...)
		flipped[i] ^= 0x20
		if _, err := parseState("s", "s.json", flipped); err == nil {
			t.Fatalf("a bit flipped at %d (%q) reads as a good file", i, sealed[i])
		}
	}
}

// TestToldNoteInPlace: the note of what the model was told is ten bytes rewritten in place
// (after a toggle every hook of the session writes it at once); a note from before, of another
// length, is read and replaced.
func TestToldNoteInPlace(t *testing.T) {
	s := NewStore(t.TempDir())
	os.MkdirAll(s.Dir, 0o700)
	os.WriteFile(s.toldPath("s"), []byte("review\n"), 0o600)
	if m, ok := s.Told("s"); !ok || m != hook.ModeReview {
		t.Fatalf("a note from before: %v %v", m, ok)
	}
	before := mustStat(t, s.toldPath("s"))
	for _, m := range []hook.Mode{hook.ModeReadOnly, hook.ModeEdit, hook.ModeReview, hook.ModeEdit} {
		s.SetTold("s", m)
		if got, ok := s.Told("s"); !ok || got != m {
			t.Errorf("told %v, read %v %v", m, got, ok)
		}
	}
	after := mustStat(t, s.toldPath("s"))
	if !os.SameFile(before, after) || after.Size() != toldLen {
		t.Errorf("the note was replaced, or is %d bytes", after.Size())
	}
	if left, _ := filepath.Glob(filepath.Join(s.Dir, ".*")); len(left) > 0 {
		t.Errorf("left: %v", left)
	}
}

// TestClaimsSpread: a call is claimed once, whichever shard directory its id falls in, and the
// session's end removes every claim.
func TestClaimsSpread(t *testing.T) {
	s := NewStore(t.TempDir())
	for i := range 100 {
		id := fmt.Sprintf("toolu_%03d", i)
		if !s.Claim("s", "gate", id) || s.Claim("s", "gate", id) {
			t.Fatalf("call %s claimed twice or never", id)
		}
	}
	entries, _ := os.ReadDir(s.callsDir("s"))
	dirs := 0
	for _, e := range entries {
		if e.IsDir() {
			dirs++
		}
	}
	if dirs != claimShards {
		t.Errorf("%d shard directories, want %d", dirs, claimShards)
	}
	s.ForgetCalls("s")
	if _, err := os.Stat(s.callsDir("s")); !os.IsNotExist(err) {
		t.Errorf("claims outlive the session: %v", err)
	}
}

// TestClaimsAreLinks: a claim is a link to the session's anchor, which allocates no inode, and
// the claim still holds where no link can be made (the anchor gone, or not a file a link can
// name): once, by whichever process comes first, among many at once.
func TestClaimsAreLinks(t *testing.T) {
	s := NewStore(t.TempDir())
	if !s.Claim("s", "gate", "toolu_1") {
		t.Fatal("the first claim failed")
	}
	anchor := mustStat(t, s.claimAnchor("s"))
	claims, _ := filepath.Glob(filepath.Join(s.callsDir("s"), "*", "gate-toolu_1"))
	if len(claims) != 1 || !os.SameFile(anchor, mustStat(t, claims[0])) {
		t.Fatalf("the claim %v is not a link to the anchor", claims)
	}
	// The anchor removed: made again. A directory in its place, which no link can name: a
	// claim of its own.
	for name, spoil := range map[string]func(){
		"removed":   func() { os.Remove(s.claimAnchor("s")) },
		"directory": func() { os.Remove(s.claimAnchor("s")); os.Mkdir(s.claimAnchor("s"), 0o700) },
	} {
		spoil()
		var wins atomic.Int32
		var wg sync.WaitGroup
		for range 16 {
			wg.Add(1)
			go func() {
				defer wg.Done()
				if s.Claim("s", "gate", "toolu_"+name) {
					wins.Add(1)
				}
			}()
		}
		wg.Wait()
		if wins.Load() != 1 {
			t.Errorf("anchor %s: %d of 16 claimed the call, want 1", name, wins.Load())
		}
	}
	// Many processes at once, claiming the same calls: each call once.
	const procs, calls = 6, 40
	s2 := NewStore(t.TempDir())
	var out [procs][]byte
	var wg sync.WaitGroup
	for p := range procs {
		wg.Add(1)
		go func() {
			defer wg.Done()
			cmd := exec.Command(os.Args[0], "-test.run=^TestClaimHelper$")
			cmd.Env = append(os.Environ(), "HOOKCTL_CLAIM_DIR="+s2.Dir, fmt.Sprintf("HOOKCTL_CLAIM_N=%d", calls))
			out[p], _ = cmd.Output()
		}()
	}
	wg.Wait()
	won := 0
	for p := range procs {
		won += strings.Count(string(out[p]), "won ")
	}
	if won != calls {
		t.Errorf("%d processes claimed %d calls %d times in all, want each once", procs, calls, won)
	}
}

// TestClaimHelper is a process of TestClaimsAreLinks.
func TestClaimHelper(t *testing.T) {
	dir := os.Getenv("HOOKCTL_CLAIM_DIR")
	if dir == "" {
		t.Skip("a helper of TestClaimsAreLinks")
	}
	s := &Store{Dir: dir}
	n, _ := strconv.Atoi(os.Getenv("HOOKCTL_CLAIM_N"))
	for i := range n {
		if s.Claim("s", "gate", fmt.Sprintf("toolu_%d", i)) {
			fmt.Printf("won %d\n", i)
		}
	}
}
