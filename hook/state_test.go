package hook

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/hookctl/hookctl/internal/fsutil"
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
	mode, err := m.ModeFor("s1", "/p", ModeReadOnly)
	if err != nil || mode != ModeReadOnly {
		t.Fatalf("new session: %v %v", mode, err)
	}
	mode, _ = m.ModeFor("s2", "/p", ModeEdit)
	if mode != ModeEdit {
		t.Errorf("default_mode=edit: %v", mode)
	}
	sess, err := s.Load("s1")
	if err != nil || sess.Cwd != "/p" || len(sess.History) != 1 || sess.History[0].How != "new" {
		t.Fatalf("recorded: %+v %v", sess, err)
	}
	// A known session keeps its mode whatever the default.
	if mode, _ := m.ModeFor("s1", "/p", ModeEdit); mode != ModeReadOnly {
		t.Errorf("known session took the default: %v", mode)
	}
	// The hook never rewrites a session it has seen: only the human's toggles do, so nothing the
	// hook does can race a toggle and put an old mode back.
	before, _ := os.ReadFile(s.path("s1"))
	m.ModeFor("s1", "/p/sub", ModeEdit)
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
		mode, err := StoreModes{Store: s}.ModeFor("s", "/p", ModeEdit)
		if err == nil || mode != ModeReadOnly {
			t.Errorf("%s: mode %v, error %v", name, mode, err)
		}
		// One reader: what the status line and `readonly status` read (Load) is refused too.
		if sess, err := s.Load("s"); err == nil {
			t.Errorf("%s: Load accepted it: %+v", name, sess)
		}
		if b, _ := os.ReadFile(p); string(b) != content {
			t.Errorf("%s: the hook rewrote a damaged state file", name)
		}
		from, to, err := ToggleOff.Apply(s, "s", "cli", "/p", ModeEdit, nil)
		if err != nil || from != ModeReadOnly || to != ModeEdit {
			t.Errorf("%s: repair: %v→%v %v", name, from, to, err)
		}
		if sess, err := s.Load("s"); err != nil || sess.Mode != ModeEdit {
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
	} {
		s := NewStore(t.TempDir())
		os.MkdirAll(s.Dir, 0o700)
		if err := plant.make(s.path("s")); err != nil {
			t.Fatal(err)
		}
		done := make(chan struct{})
		go func() {
			defer close(done)
			mode, err := StoreModes{Store: s}.ModeFor("s", "/p", ModeEdit)
			if err == nil || mode != ModeReadOnly {
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
		if plant.name == "directory" {
			continue // a toggle cannot rename over a directory; the error says so
		}
		if _, to, err := ToggleOn.Apply(s, "s", "cli", "/p", ModeEdit, nil); err != nil || to != ModeReadOnly {
			t.Errorf("%s: repair: %v %v", plant.name, to, err)
		}
		if fi, err := os.Lstat(s.path("s")); err != nil || !fi.Mode().IsRegular() {
			t.Errorf("%s: after repair the state is not a regular file: %v", plant.name, err)
		}
	}
}

// TestToggleLandsWhileTheLockIsHeld is the edit-mode hole of issue 7: `flock S.lock sleep 3600`
// made /readonly on fail ("another hookctl held it too long"). A real flock(1) holds the lock in
// another process; the human's toggle must still land within a second.
func TestToggleLandsWhileTheLockIsHeld(t *testing.T) {
	flock, err := exec.LookPath("flock")
	if err != nil {
		requireTool(t, "flock")
	}
	s := NewStore(t.TempDir())
	s.Record("s", "/p", ModeEdit)
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
	from, to, err := ToggleOn.Apply(s, "s", "cli", "/p", ModeEdit, nil)
	took := time.Since(start)
	if err != nil || from != ModeEdit || to != ModeReadOnly {
		t.Fatalf("toggle under a held lock: %v→%v %v", from, to, err)
	}
	if took > time.Second {
		t.Errorf("the toggle took %v", took)
	}
	if m, _, _ := s.Peek("s"); m != ModeReadOnly {
		t.Errorf("mode after the toggle: %v", m)
	}
}

// TestKilledWritesLeaveNoTemporaryFiles: a write killed between creating its temporary file and
// renaming it leaves the file behind; the next write of the same file removes it once stale.
func TestKilledWritesLeaveNoTemporaryFiles(t *testing.T) {
	s := NewStore(t.TempDir())
	s.Record("s", "/p", ModeReadOnly)
	stale := filepath.Join(s.Dir, ".s.json.123456.tmp")
	fresh := filepath.Join(s.Dir, ".s.json.654321.tmp")
	os.WriteFile(stale, []byte("{"), 0o600)
	os.WriteFile(fresh, []byte("{"), 0o600)
	old := time.Now().Add(-2 * time.Minute)
	os.Chtimes(stale, old, old)
	ToggleOff.Apply(s, "s", "cli", "/p", ModeReadOnly, nil)
	if _, err := os.Stat(stale); err == nil {
		t.Error("a stale temporary file was left")
	}
	if _, err := os.Stat(fresh); err != nil {
		t.Error("a fresh temporary file (a write in progress) was removed")
	}
}

// TestModeZeroIsReadOnly: a Mode nobody set means read-only.
func TestModeZeroIsReadOnly(t *testing.T) {
	var m Mode
	var st SessionState
	if m != ModeReadOnly || st.Mode != ModeReadOnly {
		t.Errorf("zero Mode is %v", m)
	}
}

func TestUnreadableStateDirIsAnError(t *testing.T) {
	home := t.TempDir()
	os.WriteFile(filepath.Join(home, "sessions"), []byte("a file, not a directory"), 0o600)
	mode, err := StoreModes{Store: NewStore(home)}.ModeFor("s", "/p", ModeEdit)
	if err == nil || mode != ModeReadOnly {
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
	s.Record("s", "/p", ModeReadOnly)
	from, to, err := s.ApplyPrompt(ToggleFlip, "s", "prompt-1", "/p", ModeReadOnly)
	if err != nil || from != ModeReadOnly || to != ModeEdit {
		t.Fatalf("first: %v→%v %v", from, to, err)
	}
	from, to, _ = s.ApplyPrompt(ToggleFlip, "s", "prompt-1", "/p", ModeReadOnly)
	if from != ModeEdit || to != ModeEdit {
		t.Errorf("the same prompt flipped again: %v→%v", from, to)
	}
	_, to, _ = s.ApplyPrompt(ToggleFlip, "s", "prompt-2", "/p", ModeReadOnly)
	if to != ModeReadOnly {
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
	s.Record("s", "/p", ModeReadOnly)
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
				if _, _, err := ToggleFlip.Apply(s, "s", "cli", "", ModeReadOnly, nil); err != nil {
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
	if sess.Mode != ModeReadOnly {
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
	b, _ := json.Marshal(Session{ID: "s", Mode: ModeEdit})
	if !strings.Contains(string(b), `"mode":"edit"`) {
		t.Errorf("%s", b)
	}
	var m Mode
	if err := json.Unmarshal([]byte(`"review"`), &m); err != nil || m != ModeReview {
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
	s.Record("s", "/p", ModeReadOnly)
	m := StoreModes{Store: s}
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if _, err := m.ModeFor("s", "/p", ModeReadOnly); err != nil {
			b.Fatal(err)
		}
	}
}
