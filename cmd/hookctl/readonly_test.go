package main

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/hookctl/hookctl/hook"
	"github.com/hookctl/hookctl/session"
)

// Issue 11, item 2: `! hookctl readonly on` typed in session A locked session B (the most
// recent in the directory). These tests play the client with this test's parent process: the
// hook notes its parent as the client (Store.NoteClient), and the CLI, run here, finds that
// parent among its ancestors, as `! hookctl …` finds the Claude Code process it runs under.

const (
	sessA = "aaaa1111-0000-4000-8000-00000000000a"
	sessB = "bbbb2222-0000-4000-8000-00000000000b"
)

func twoSessions(t *testing.T) (*session.Store, string, string) {
	t.Helper()
	_, hh := userEnv(t)
	proj, _ := os.Getwd()
	store := session.NewStore(hh)
	store.Record(sessA, proj, hook.ModeReadOnly)
	store.Record(sessB, proj, hook.ModeReadOnly)
	return store, hh, proj
}

func modeOf(t *testing.T, store *session.Store, id string) hook.Mode {
	t.Helper()
	m, _, err := store.Peek(id)
	if err != nil {
		t.Fatal(err)
	}
	return m
}

func needProc(t *testing.T) {
	if _, ok := session.ReadProc(os.Getpid()); !ok {
		t.Skip("no /proc: clients are not noted on this system")
	}
}

// TestReadonlyActsOnTheSessionItRunsIn: inside a client in session A, readonly acts on A, and B
// is untouched; when the client moves to B (after /resume or /clear), on B.
func TestReadonlyActsOnTheSessionItRunsIn(t *testing.T) {
	needProc(t)
	store, hh, _ := twoSessions(t)
	store.NoteClient(sessA, nil)
	if code, out, errOut := runCLI(t, hh, "", "readonly", "off"); code != exitOK || !strings.Contains(out, "session aaaa1111: 🔒 READ-ONLY → ✏ EDIT") {
		t.Fatalf("off in A: exit %d %q %q", code, out, errOut)
	}
	if modeOf(t, store, sessA) != hook.ModeEdit || modeOf(t, store, sessB) != hook.ModeReadOnly {
		t.Errorf("A %v, B %v", modeOf(t, store, sessA), modeOf(t, store, sessB))
	}
	store.NoteClient(sessB, nil)
	if code, out, _ := runCLI(t, hh, "", "readonly"); code != exitOK || !strings.Contains(out, "session bbbb2222") || !strings.Contains(out, "🔒 READ-ONLY") {
		t.Errorf("bare readonly in B: exit %d %q", code, out)
	}
	// The environment agreeing changes nothing; disagreeing refuses, whatever it names.
	t.Setenv(envSessionVar, sessB)
	if code, out, _ := runCLI(t, hh, "", "readonly", "review"); code != exitOK || !strings.Contains(out, "session bbbb2222: 🔒 READ-ONLY → 👁 REVIEW") {
		t.Errorf("review in B: exit %d %q", code, out)
	}
	t.Setenv(envSessionVar, sessA)
	if code, _, errOut := runCLI(t, hh, "", "readonly", "on"); code != exitError || !strings.Contains(errOut, "but CLAUDE_CODE_SESSION_ID says aaaa1111") {
		t.Errorf("a disagreeing environment: exit %d %q", code, errOut)
	}
	if modeOf(t, store, sessA) != hook.ModeEdit || modeOf(t, store, sessB) != hook.ModeReview {
		t.Errorf("after the refusal: A %v, B %v", modeOf(t, store, sessA), modeOf(t, store, sessB))
	}
}

// TestReadonlyNeverUnlocksAnotherSessionFromInside: the agent's commands run inside its own
// session, so from inside a session --session may lock another, but never widen it; and the
// environment variable the agent can set for a command picks nothing.
func TestReadonlyNeverUnlocksAnotherSessionFromInside(t *testing.T) {
	needProc(t)
	store, hh, _ := twoSessions(t)
	store.NoteClient(sessA, nil)
	for _, verb := range []string{"off", "review", "toggle"} {
		if code, _, errOut := runCLI(t, hh, "", "readonly", verb, "--session", "bbbb"); code != exitError || !strings.Contains(errOut, "does not take another session") {
			t.Errorf("%s --session B from inside A: exit %d %q", verb, code, errOut)
		}
	}
	t.Setenv(envSessionVar, sessB) // what `CLAUDE_CODE_SESSION_ID=B hookctl readonly off` would do
	if code, _, errOut := runCLI(t, hh, "", "readonly", "off"); code != exitError || !strings.Contains(errOut, "nothing changed") {
		t.Errorf("env names B from inside A: exit %d %q", code, errOut)
	}
	t.Setenv(envSessionVar, "")
	if modeOf(t, store, sessB) != hook.ModeReadOnly || modeOf(t, store, sessA) != hook.ModeReadOnly {
		t.Fatalf("a session was unlocked: A %v, B %v", modeOf(t, store, sessA), modeOf(t, store, sessB))
	}
	// Narrowing another session is fine: review → read-only.
	session.ToggleReview.Apply(store, sessB, "cli", "", hook.ModeReadOnly, nil)
	if code, out, errOut := runCLI(t, hh, "", "readonly", "on", "--session", "bbbb2222"); code != exitOK || !strings.Contains(out, "👁 REVIEW → 🔒 READ-ONLY") {
		t.Errorf("on --session B from inside A: exit %d %q %q", code, out, errOut)
	}
}

// TestReadonlyOutsideAnySession: in a terminal outside Claude Code, the session of the project
// the directory is in — from a subdirectory too — when there is one; with two, a refusal that
// lists both with what tells them apart; an environment claiming a session that no process
// confirms is refused; --session nonexist is refused and creates nothing.
func TestReadonlyOutsideAnySession(t *testing.T) {
	_, hh := userEnv(t)
	proj, _ := os.Getwd()
	store := session.NewStore(hh)
	store.Record(sessA, proj, hook.ModeReadOnly)
	sub := filepath.Join(proj, "sub", "deeper")
	os.MkdirAll(sub, 0o755)
	t.Chdir(sub)
	if code, out, errOut := runCLI(t, hh, "", "readonly", "on"); code != exitOK || !strings.Contains(out, "session aaaa1111: already 🔒 READ-ONLY") {
		t.Errorf("from a subdirectory: exit %d %q %q", code, out, errOut)
	}
	store.Record(sessB, proj, hook.ModeEdit)
	code, _, errOut := runCLI(t, hh, "", "readonly", "off")
	if code != exitError || !strings.Contains(errOut, "2 sessions have their project at or above "+sub) {
		t.Errorf("two sessions: exit %d %q", code, errOut)
	}
	for _, want := range []string{"aaaa1111", "bbbb2222", "STARTED", "LAST ACTIVE", "ended", proj, "--session"} {
		if !strings.Contains(errOut, want) {
			t.Errorf("the refusal does not show %q:\n%s", want, errOut)
		}
	}
	if code, out, _ := runCLI(t, hh, "", "readonly", "off", "--session", "aaaa1111…"); code != exitOK || !strings.Contains(out, "→ ✏ EDIT") {
		t.Errorf("the short form shown, pasted: exit %d %q", code, out)
	}
	t.Setenv(envSessionVar, sessA)
	if code, _, errOut := runCLI(t, hh, "", "readonly", "on"); code != exitError || !strings.Contains(errOut, "cannot confirm") {
		t.Errorf("an unconfirmed environment: exit %d %q", code, errOut)
	}
	t.Setenv(envSessionVar, "")
	for _, verb := range []string{"off", "status"} {
		if code, _, errOut := runCLI(t, hh, "", "readonly", verb, "--session", "nonexist"); code != exitError || !strings.Contains(errOut, "no such session") {
			t.Errorf("%s --session nonexist: exit %d %q", verb, code, errOut)
		}
	}
	if _, err := store.Load("nonexist"); err == nil {
		t.Error("--session nonexist created a session")
	}
	code, out, _ := runCLI(t, hh, "", "readonly", "status", "--all")
	if code != exitOK || !strings.Contains(out, "aaaa1111") || !strings.Contains(out, "bbbb2222") || strings.Count(out, "ended") != 2 {
		t.Errorf("status --all: %q", out)
	}
}

// TestReadonlyPrefersTheRunningSession: in a terminal, of two sessions in the project, the one a
// Claude Code process still runs is meant; with none running (or two), the refusal lists them.
func TestReadonlyPrefersTheRunningSession(t *testing.T) {
	needProc(t)
	store, hh, _ := twoSessions(t)
	client := exec.Command("sleep", "30") // plays a Claude Code process in session B, not above this one
	if err := client.Start(); err != nil {
		t.Fatal(err)
	}
	defer client.Process.Kill()
	p, ok := session.ReadProc(client.Process.Pid)
	if !ok {
		t.Fatal("cannot read the child's process")
	}
	dir := filepath.Join(hh, "sessions", "clients")
	os.MkdirAll(dir, 0o700)
	os.WriteFile(filepath.Join(dir, fmt.Sprintf("%d-%d", p.PID, p.Start)), []byte(sessB+"\n"), 0o600)
	code, out, errOut := runCLI(t, hh, "", "readonly", "off")
	if code != exitOK || !strings.Contains(out, "session bbbb2222: 🔒 READ-ONLY → ✏ EDIT") {
		t.Errorf("the running session: exit %d %q %q", code, out, errOut)
	}
	if strings.Contains(out, "switched this session") {
		t.Errorf("told a model from outside its session: %q", out)
	}
	if _, out, _ := runCLI(t, hh, "", "readonly", "status", "--all"); !strings.Contains(out, "running") || !strings.Contains(out, "ended") {
		t.Errorf("status --all: %q", out)
	}
	client.Process.Kill()
	client.Wait()
	if code, _, errOut := runCLI(t, hh, "", "readonly", "on"); code != exitError || !strings.Contains(errOut, "2 sessions") {
		t.Errorf("no session running: exit %d %q", code, errOut)
	}
	if modeOf(t, store, sessA) != hook.ModeReadOnly {
		t.Errorf("A changed: %v", modeOf(t, store, sessA))
	}
}
