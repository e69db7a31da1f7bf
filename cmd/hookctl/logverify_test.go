package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/hookctl/hookctl/audit"
	"github.com/hookctl/hookctl/config"

	"github.com/hookctl/hookctl/hook"
	"github.com/hookctl/hookctl/retriever"
	"github.com/hookctl/hookctl/securerun"
)

// TestLogVerify (issue 27): 50 hook processes at once, each a real Claude Code PreToolUse
// payload, on top of a decision log rotated across files and an audit: hookctl log verify
// finds every chain whole (the control). Then an edited, a deleted and a swapped record, in
// turn, each make it exit 1 naming the file, line and record; put back, the log verifies again.
// An audit record edited is found by hookctl audit verify too, and records an older hookctl
// wrote before the chain are reported as such, not as tampering.
func TestLogVerify(t *testing.T) {
	bin := hookctlBinary(t)
	home := t.TempDir()
	logDir := filepath.Join(home, "log")
	verify := func(args ...string) (string, int) {
		t.Helper()
		out, code, _ := runBin(t, home, "", args...)
		return out, code
	}

	// Records an older hookctl wrote: the chain begins after them.
	if err := os.MkdirAll(logDir, 0o700); err != nil {
		t.Fatal(err)
	}
	older := `{"id":"20261101T000000.000Z-0000000a","time":"2026-11-01T00:00:00Z","event":"tool","verdict":"allow"}` + "\n" +
		`{"id":"20261101T000000.000Z-0000000b","time":"2026-11-01T00:00:01Z","event":"tool","verdict":"deny"}` + "\n"
	if err := os.WriteFile(filepath.Join(logDir, "decisions.jsonl"), []byte(older), 0o600); err != nil {
		t.Fatal(err)
	}
	// A log rotated across files, as a long-running machine has (written small to rotate).
	small := &audit.DecisionLog{Dir: logDir, MaxBytes: 6 << 10}
	for i := range 60 {
		now := time.Now()
		if err := small.Append(&hook.LogEntry{ID: hook.NewLogID(now), Time: now, Session: "s-rotated", Event: "tool", Tool: "Bash",
			Verdict: "allow", Command: fmt.Sprintf("ls %d", i), ToolUseID: fmt.Sprintf("toolu_r%03d", i)}); err != nil {
			t.Fatal(err)
		}
	}
	trail := audit.AuditAt(home)
	for i := range 3 {
		now := time.Now()
		if err := trail.Append(&audit.AuditEntry{ID: audit.NewID(now), Time: now, Session: "s-rotated", Tool: "WebFetch", Kind: retriever.KindFetch,
			URL: fmt.Sprintf("https://example.com/%d", i), Scrub: "clean", Outcome: "answered"}); err != nil {
			t.Fatal(err)
		}
	}

	// 50 hooks at once, as parallel subagents make them.
	cwd := t.TempDir()
	var wg sync.WaitGroup
	errs := make(chan string, 50)
	start := make(chan struct{})
	for i := range 50 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			<-start
			payload := fmt.Sprintf(`{"session_id":"5e55e55e-0000-4000-8000-%012d","transcript_path":"/dev/null","cwd":%q,"prompt_id":"p%d",`+
				`"permission_mode":"default","hook_event_name":"PreToolUse","tool_name":"Bash","tool_input":{"command":"ls -la %d","description":"list"},`+
				`"tool_use_id":"toolu_par%02d"}`, i%5, cwd, i, i, i)
			cmd := exec.Command(bin, "hook")
			cmd.Env = append(os.Environ(), "HOOKCTL_HOME="+home)
			cmd.Stdin = strings.NewReader(payload)
			if out, err := cmd.CombinedOutput(); err != nil || !bytes.Contains(out, []byte(`"permissionDecision"`)) {
				errs <- fmt.Sprintf("hook %d: %v %s", i, err, out)
			}
		}()
	}
	close(start)
	wg.Wait()
	close(errs)
	for e := range errs {
		t.Error(e)
	}
	entries, _, err := audit.DecisionLogAt(home).Entries()
	if err != nil {
		t.Fatal(err)
	}
	useIDs := 0
	for _, e := range entries {
		if strings.HasPrefix(e.ToolUseID, "toolu_par") {
			useIDs++
		}
	}
	if useIDs != 50 {
		t.Errorf("%d of the 50 parallel decisions carry the client's tool_use_id", useIDs)
	}
	rotated, _ := filepath.Glob(filepath.Join(logDir, "decisions*.jsonl*"))
	out, code := verify("log", "verify")
	t.Logf("%d files; hookctl log verify:\n%s", len(rotated), out)
	if code != 0 || !strings.Contains(out, "112 records in") || !strings.Contains(out, "110 chained: the chain holds") ||
		!strings.Contains(out, "2 record(s) written before the chain began") || !strings.Contains(out, "audit (") || strings.Contains(out, "break") {
		t.Fatalf("the untouched log: exit %d\n%s", code, out)
	}
	if len(rotated) < 3 {
		t.Fatalf("%d files: the log did not rotate", len(rotated))
	}

	// Tampering, one kind at a time, on the file rotated last (every lane 0 record of it is
	// chained) and on the audit.
	target := filepath.Join(logDir, "decisions.jsonl.1")
	orig, err := os.ReadFile(target)
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.SplitAfter(string(orig), "\n")
	id := func(line string) string { return regexp.MustCompile(`"id":"([^"]+)"`).FindStringSubmatch(line)[1] }
	for _, c := range []struct {
		name, file string
		tamper     func(ls []string) []string
		want       string
	}{
		{"edited", target, func(ls []string) []string {
			ls[2] = strings.Replace(ls[2], `"verdict":"allow"`, `"verdict":"deny"`, 1)
			return ls
		}, "decisions.jsonl.1:3 (record " + id(lines[2]) + "): changed"},
		{"deleted", target, func(ls []string) []string { return append(ls[:2:2], ls[3:]...) },
			"decisions.jsonl.1:3 (record " + id(lines[3]) + "): 1 record(s) removed"},
		{"swapped", target, func(ls []string) []string {
			ls[2], ls[3] = ls[3], ls[2]
			return ls
		}, "decisions.jsonl.1:3 (record " + id(lines[3]) + "): out of order"},
	} {
		ls := append([]string(nil), lines...)
		if err := os.WriteFile(c.file, []byte(strings.Join(c.tamper(ls), "")), 0o600); err != nil {
			t.Fatal(err)
		}
		out, code := verify("log", "verify")
		if code != exitBroken || !strings.Contains(out, "decision log (") || !strings.Contains(out, "BROKEN") || !strings.Contains(out, c.want) {
			t.Errorf("%s: exit %d, want %d naming %q:\n%s", c.name, code, exitBroken, c.want, out)
		}
		t.Logf("%s: exit %d\n%s", c.name, code, out)
		if err := os.WriteFile(c.file, orig, 0o600); err != nil {
			t.Fatal(err)
		}
		if out, code := verify("log", "verify"); code != 0 {
			t.Fatalf("%s, put back: exit %d\n%s", c.name, code, out)
		}
	}

	auditFile := filepath.Join(home, "audit", "audit.jsonl")
	a, _ := os.ReadFile(auditFile)
	edited := bytes.Replace(a, []byte("https://example.com/0"), []byte("https://example.com/X"), 1)
	if bytes.Equal(a, edited) {
		t.Fatal("the audit holds no record to edit")
	}
	os.WriteFile(auditFile, edited, 0o600)
	for _, args := range [][]string{{"audit", "verify"}, {"log", "verify"}} {
		out, code := verify(args...)
		if code != exitBroken || !strings.Contains(out, "audit.jsonl:1 (record ") || !strings.Contains(out, "changed") {
			t.Errorf("hookctl %s with an audit record edited: exit %d\n%s", strings.Join(args, " "), code, out)
		}
	}
	os.WriteFile(auditFile, a, 0o600)
	if out, code := verify("audit", "verify"); code != 0 {
		t.Errorf("the audit put back: exit %d\n%s", code, out)
	}
}

// TestToolUseIDFromRecordedPayloads (issue 27): through the binary, every tool call the real
// clients sent (fixtures/*: recorded live, Cursor's from its schema) leaves a decision record
// that keeps the client's own id of the call, where the client sends one (tool_use_id: Claude
// Code, Codex, Qwen Code), and none where it sends none (Gemini CLI, Copilot CLI, Cursor).
func TestToolUseIDFromRecordedPayloads(t *testing.T) {
	bin := hookctlBinary(t)
	counts := map[string][2]int{} // client → with an id, recorded
	for _, client := range []string{"claude", "codex", "qwen", "gemini", "copilot", "cursor"} {
		files, _ := filepath.Glob(filepath.Join("..", "..", "fixtures", client, "*.json"))
		for _, f := range files {
			payload, err := os.ReadFile(f)
			if err != nil {
				t.Fatal(err)
			}
			var p struct {
				Event     string `json:"hook_event_name"`
				ToolUseID string `json:"tool_use_id"`
				Tool      string `json:"tool_name"`
				CamelTool string `json:"toolName"`
			}
			json.Unmarshal(payload, &p)
			if p.Tool == "" && p.CamelTool == "" {
				continue // not a tool call
			}
			home := t.TempDir()
			cmd := exec.Command(bin, "hook", "--agent", client)
			cmd.Env = append(os.Environ(), "HOOKCTL_HOME="+home)
			cmd.Stdin = bytes.NewReader(payload)
			cmd.Run()
			entries, _, err := audit.DecisionLogAt(home).Entries()
			if err != nil {
				t.Fatal(err)
			}
			var got []string
			for _, e := range entries {
				if e.Event == "tool" {
					got = append(got, e.ToolUseID)
				}
			}
			c := counts[client]
			switch {
			case len(got) != 1:
				t.Errorf("%s: %d tool decisions recorded: %q", f, len(got), got)
			case got[0] != p.ToolUseID:
				t.Errorf("%s: recorded tool_use_id %q, the payload's %q", f, got[0], p.ToolUseID)
			case p.ToolUseID != "":
				c[0]++
			}
			c[1]++
			counts[client] = c
		}
	}
	for _, client := range []string{"claude", "codex", "qwen"} {
		if counts[client][0] == 0 || counts[client][0] != counts[client][1] {
			t.Errorf("%s: %d of %d recorded calls carry the client's id", client, counts[client][0], counts[client][1])
		}
	}
	t.Logf("recorded calls with the client's id / all: %v", counts)
}

// TestRunCopyIsCapped: a run that filled its own decision log (which it can write) gets 2 MiB of
// it copied into the user's log, not all of it, and the run's end says how many were left: the
// user's own records are not rotated away. Control: the run's log holds more than the cap.
func TestRunCopyIsCapped(t *testing.T) {
	home, runHome := t.TempDir(), t.TempDir()
	runLog := &audit.DecisionLog{Dir: filepath.Join(runHome, "log"), MaxBytes: 64 << 20}
	pad := strings.Repeat("x", 3000)
	for i := range 1500 {
		now := time.Now()
		runLog.Append(&hook.LogEntry{ID: hook.NewLogID(now), Time: now, Event: "tool", Tool: "Bash", Verdict: "deny", Command: fmt.Sprintf("forged %d %s", i, pad)})
	}
	var size int64
	for _, f := range runLog.JSONL().Files() {
		fi, _ := os.Stat(f)
		size += fi.Size()
	}
	if size <= maxRunBytes {
		t.Fatalf("the run's log is %d bytes, under the cap: the test proves nothing", size)
	}
	mine := audit.DecisionLogAt(home)
	now := time.Now()
	mine.Append(&hook.LogEntry{ID: hook.NewLogID(now), Time: now, Event: "tool", Tool: "Read", Verdict: "pass", Command: "the user's own"})
	p := &securerun.Preflight{Command: []string{"agent"}, Repository: securerun.Repository{Root: "/repo"}, Agent: &securerun.AgentRun{HookctlHome: runHome}}
	var errb bytes.Buffer
	recordRunEnd(&streams{out: io.Discard, err: &errb}, environment{home: home}, &config.Config{}, p, "run-1", nil, 0, nil)
	entries, _, err := mine.Entries()
	if err != nil {
		t.Fatal(err)
	}
	copied, own, end := 0, 0, hook.LogEntry{}
	for _, e := range entries {
		switch {
		case e.Command == "the user's own":
			own++
		case e.Event == "run_end":
			end = e
		case e.Run == "run-1":
			copied++
		}
	}
	if own != 1 || copied == 0 || copied >= 1500 || !strings.Contains(end.Reason, fmt.Sprintf("the last %d were not copied", 1500-copied)) {
		t.Errorf("the user's own record %d times, %d of 1500 copied, the end says %q", own, copied, end.Reason)
	}
	t.Logf("run's log %d bytes: %d of 1500 records copied; the end says %q", size, copied, end.Reason)
}

// TestDoctorChecksTheLogChains: hookctl doctor verifies both logs' hash chains, so that a record
// changed after hookctl wrote it shows where the user already looks (never silent). Records from
// real hook calls through the binary, and an audit record: doctor finds both chains whole (the
// control: no problem, the counts said); a decision's verdict edited, and then an audit record's
// URL, each make doctor exit 1 naming the log and its verify command; put back, doctor is clean
// again.
func TestDoctorChecksTheLogChains(t *testing.T) {
	_, hh := userEnv(t)
	t.Setenv("PATH", "") // no claude to ask for its version
	if code, out, _ := runCLI(t, hh, "", "install"); code != exitOK {
		t.Fatalf("install: exit %d\n%s", code, out)
	}
	code, out, _ := runCLI(t, hh, "", "doctor")
	if code != exitOK || !strings.Contains(out, "• the decision log has no records yet") {
		t.Fatalf("before any call: exit %d\n%s", code, out)
	}
	cwd := t.TempDir()
	for i, command := range []string{"ls -la", "sed -i s/a/b/ f", "git log --oneline -3"} {
		payload := fmt.Sprintf(`{"session_id":"d0c70000-0000-4000-8000-000000000001","transcript_path":"/dev/null","cwd":%q,`+
			`"hook_event_name":"PreToolUse","tool_name":"Bash","tool_input":{"command":%q},"tool_use_id":"toolu_doc%d"}`, cwd, command, i)
		if out, _, _ := runBin(t, hh, payload, "hook"); !strings.Contains(out, `"permissionDecision"`) {
			t.Fatalf("hook call %d: %s", i, out)
		}
	}
	now := time.Now()
	if err := audit.AuditAt(hh).Append(&audit.AuditEntry{ID: audit.NewID(now), Time: now, Session: "s", Tool: "WebFetch",
		Kind: retriever.KindFetch, URL: "https://example.com/doc", Scrub: "clean", Outcome: "answered"}); err != nil {
		t.Fatal(err)
	}
	code, out, _ = runCLI(t, hh, "", "doctor")
	if code != exitOK || !strings.Contains(out, "✓ the decision log's hash chain holds (3 records)") ||
		!strings.Contains(out, "✓ the audit's hash chain holds (1 records)") {
		t.Fatalf("the untouched logs: exit %d\n%s", code, out)
	}

	for _, c := range []struct {
		file, from, to, name, verify string
	}{
		{filepath.Join(hh, "log", "decisions.jsonl"), `"verdict":"deny"`, `"verdict":"allow"`, "the decision log's", "`hookctl log verify`"},
		{filepath.Join(hh, "audit", "audit.jsonl"), "https://example.com/doc", "https://example.com/elsewhere", "the audit's", "`hookctl audit verify`"},
	} {
		orig, err := os.ReadFile(c.file)
		if err != nil {
			t.Fatal(err)
		}
		edited := bytes.Replace(orig, []byte(c.from), []byte(c.to), 1)
		if bytes.Equal(edited, orig) {
			t.Fatalf("%s holds no %s to edit", c.file, c.from)
		}
		if c.name == "the audit's" {
			// The audit's only record is its last: a record after it is what names its bytes.
			if err := audit.AuditAt(hh).Append(&audit.AuditEntry{ID: audit.NewID(now), Time: now, Session: "s", Tool: "WebFetch",
				Kind: retriever.KindFetch, URL: "https://example.com/next", Scrub: "clean", Outcome: "answered"}); err != nil {
				t.Fatal(err)
			}
			if orig, err = os.ReadFile(c.file); err != nil {
				t.Fatal(err)
			}
			edited = bytes.Replace(orig, []byte(c.from), []byte(c.to), 1)
		}
		if err := os.WriteFile(c.file, edited, 0o600); err != nil {
			t.Fatal(err)
		}
		code, out, _ := runCLI(t, hh, "", "doctor")
		if code != exitDenied || !strings.Contains(out, "✗ "+c.name+" hash chain does not hold at 1 place(s)") || !strings.Contains(out, c.verify) {
			t.Errorf("%s edited: exit %d\n%s", c.file, code, out)
		}
		if err := os.WriteFile(c.file, orig, 0o600); err != nil {
			t.Fatal(err)
		}
		if code, out, _ := runCLI(t, hh, "", "doctor"); code != exitOK {
			t.Errorf("%s put back: exit %d\n%s", c.file, code, out)
		}
	}
}
