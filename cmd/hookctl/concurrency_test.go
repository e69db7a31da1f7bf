package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/hookctl/hookctl/audit"
	"github.com/hookctl/hookctl/hook"
	"github.com/hookctl/hookctl/session"
)

func buildBinary(t *testing.T) string {
	t.Helper()
	bin := filepath.Join(t.TempDir(), "hookctl")
	if out, err := exec.Command("go", "build", "-o", bin, ".").CombinedOutput(); err != nil {
		t.Fatalf("build: %v\n%s", err, out)
	}
	return bin
}

// TestConcurrentHooksWhileToggling runs 200 hook processes at once on one session while the
// user toggles its mode again and again. Every process must answer with one well-formed decision
// that matches the mode at some moment while it ran (before or after a toggle, never a torn
// state), and the session's history must hold every toggle.
func TestConcurrentHooksWhileToggling(t *testing.T) {
	if testing.Short() {
		t.Skip("runs hundreds of processes")
	}
	bin := buildBinary(t)
	home := t.TempDir()
	env := append(os.Environ(), "HOOKCTL_HOME="+home)
	const sid, hooks, toggles = "0d9f5e8a-concurrency", 200, 30
	store := session.NewStore(home)
	if _, err := store.Record(sid, "/p", hook.ModeReadOnly); err != nil {
		t.Fatal(err)
	}
	payload := fmt.Sprintf(`{"session_id":%q,"cwd":"/p","hook_event_name":"PreToolUse","tool_name":"Write","tool_input":{"file_path":"/p/f","content":"x"}}`, sid)

	type run struct {
		start, end time.Time
		verdict    string
		err        error
	}
	runs := make([]run, hooks)
	var wg sync.WaitGroup
	startGate := make(chan struct{})
	sem := make(chan struct{}, 32) // processes in flight at once
	for i := range runs {
		wg.Add(1)
		go func() {
			defer wg.Done()
			<-startGate
			sem <- struct{}{}
			defer func() { <-sem }()
			cmd := exec.Command(bin, "hook")
			cmd.Env = env
			cmd.Stdin = strings.NewReader(payload)
			var out bytes.Buffer
			cmd.Stdout = &out
			runs[i].start = time.Now()
			err := cmd.Run()
			runs[i].end = time.Now()
			var o struct {
				HookSpecificOutput *struct {
					PermissionDecision string `json:"permissionDecision"`
				} `json:"hookSpecificOutput"`
			}
			switch {
			case err != nil:
				runs[i].err = fmt.Errorf("%v: %s", err, out.String())
			case json.Unmarshal(out.Bytes(), &o) != nil:
				runs[i].err = fmt.Errorf("not JSON: %q", out.String())
			case o.HookSpecificOutput == nil || o.HookSpecificOutput.PermissionDecision == "":
				runs[i].verdict = "pass" // no decision; perhaps a notice of the mode change for the model
			default:
				runs[i].verdict = o.HookSpecificOutput.PermissionDecision
			}
		}()
	}
	// Each toggle's change becomes visible at some moment while its process runs.
	var toggleErrs []error
	toggleStart := make([]time.Time, toggles)
	toggleEnd := make([]time.Time, toggles)
	wg.Add(1)
	go func() {
		defer wg.Done()
		<-startGate
		for i := 0; i < toggles; i++ {
			cmd := exec.Command(bin, "readonly", "toggle", "--session", sid)
			cmd.Env = env
			toggleStart[i] = time.Now()
			out, err := cmd.CombinedOutput()
			toggleEnd[i] = time.Now()
			if err != nil {
				toggleErrs = append(toggleErrs, fmt.Errorf("%v: %s", err, out))
			}
		}
	}()
	close(startGate)
	wg.Wait()
	for _, err := range toggleErrs {
		t.Error(err)
	}

	sess, err := store.Load(sid)
	if err != nil {
		t.Fatal(err)
	}
	if got := len(sess.History); got != 1+toggles {
		t.Errorf("history holds %d entries, want %d", got, 1+toggles)
	}
	// modes[k] is the mode after k toggles. A hook that ran from start to end saw the mode after
	// at least the toggles that had finished before it started and at most those that had
	// begun before it ended.
	modes := make([]hook.Mode, 0, toggles+1)
	for _, c := range sess.History {
		modes = append(modes, c.To)
	}
	counts := map[string]int{}
	for i, r := range runs {
		if r.err != nil {
			t.Errorf("hook %d: %v", i, r.err)
			continue
		}
		counts[r.verdict]++
		lo, hi := 0, 0
		for k := 0; k < toggles; k++ {
			if toggleEnd[k].Before(r.start) {
				lo = k + 1
			}
			if toggleStart[k].Before(r.end) {
				hi = k + 1
			}
		}
		ok := false
		for k := lo; k <= hi && k < len(modes); k++ {
			ok = ok || verdictFor(modes[k]) == r.verdict
		}
		if !ok {
			t.Errorf("hook %d answered %s, but after %d to %d toggles the mode was %v", i, r.verdict, lo, hi, modes[lo])
		}
	}
	t.Logf("%d hooks: %v; %d toggles", hooks, counts, toggles)
	if counts["deny"] == 0 || counts["pass"] == 0 {
		t.Logf("note: every hook saw one mode; the runs did not overlap the toggles")
	}
}

func verdictFor(m hook.Mode) string {
	if m == hook.ModeReadOnly {
		return "deny"
	}
	return "pass"
}

// TestTwoRegistrationsOneCall (issue 11, item 6): a user's install and a project's committed
// registration make the client start two hookctl processes for every tool call, at once, on the
// same payload. Both must give the same answer, and the call must leave one decision-log line
// and spend the mode-change notice once, whichever process is first.
func TestTwoRegistrationsOneCall(t *testing.T) {
	bin := buildBinary(t)
	home := t.TempDir()
	env := append(os.Environ(), "HOOKCTL_HOME="+home)
	const sid, calls = "5b1e0c47-two-registrations", 40
	store := session.NewStore(home)
	if _, err := store.Record(sid, "/p", hook.ModeReadOnly); err != nil {
		t.Fatal(err)
	}
	store.SetTold(sid, hook.ModeReadOnly)
	session.ToggleOff.Apply(store, sid, "cli", "", hook.ModeReadOnly, nil) // the model has not been told yet
	run := func(payload string) (string, error) {
		cmd := exec.Command(bin, "hook")
		cmd.Env = env
		cmd.Stdin = strings.NewReader(payload)
		out, err := cmd.Output()
		return string(out), err
	}
	notices := 0
	for i := range calls {
		tool := []string{`"tool_name":"Bash","tool_input":{"command":"git log --oneline -1","description":"d"}`,
			`"tool_name":"Write","tool_input":{"file_path":"/p/f","content":"x"}`}[i%2]
		payload := fmt.Sprintf(`{"session_id":%q,"cwd":"/p","hook_event_name":"PreToolUse",%s,"tool_use_id":"toolu_%02d"}`, sid, tool, i)
		var outs [2]string
		var errs [2]error
		var wg sync.WaitGroup
		for k := range outs {
			wg.Add(1)
			go func() { defer wg.Done(); outs[k], errs[k] = run(payload) }()
		}
		wg.Wait()
		if errs[0] != nil || errs[1] != nil {
			t.Fatalf("call %d: %v %v", i, errs[0], errs[1])
		}
		// The answers are the same but for the notice, which only the first carries.
		strip := func(s string) string {
			var o map[string]map[string]any
			if json.Unmarshal([]byte(s), &o) != nil {
				return "not a decision: " + s
			}
			if o["hookSpecificOutput"] == nil {
				return s // no opinion
			}
			if _, ok := o["hookSpecificOutput"]["additionalContext"]; ok {
				notices++
				delete(o["hookSpecificOutput"], "additionalContext")
			}
			b, _ := json.Marshal(o)
			return string(b)
		}
		if a, b := strip(outs[0]), strip(outs[1]); a != b || strings.HasPrefix(a, "not a decision") {
			t.Errorf("call %d: the two processes answered differently:\n%s\n%s", i, outs[0], outs[1])
		}
	}
	if notices != 1 {
		t.Errorf("the mode-change notice was given %d times, want once", notices)
	}
	entries, _, err := audit.DecisionLogAt(home).Entries()
	if err != nil || len(entries) != calls {
		t.Errorf("decision log: %d entries (%v), want %d, one a call", len(entries), err, calls)
	}
	// The session ends: its claims go with it.
	if out, err := run(fmt.Sprintf(`{"session_id":%q,"cwd":"/p","hook_event_name":"SessionEnd","reason":"other"}`, sid)); err != nil {
		t.Fatalf("SessionEnd: %v %s", err, out)
	}
	if _, err := os.Stat(filepath.Join(home, "sessions", sid+".calls")); !os.IsNotExist(err) {
		t.Errorf("the session's claims outlive it: %v", err)
	}
}
