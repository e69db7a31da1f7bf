package audit

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/hookctl/hookctl/hook"
)

func TestDecisionLogRoundTrip(t *testing.T) {
	l := &DecisionLog{Dir: t.TempDir()}
	awkward := "echo \"a\\b\" 'c'\n\t\r\x00\x1b[31m \u2028\u2029 é 😀 \xff\xfe end"
	e := &hook.LogEntry{ID: "id-1", Time: time.Date(2026, 12, 1, 10, 0, 0, 123e6, time.UTC), Session: "s1", Agent: "Claude Code",
		Event: "tool", Tool: "Bash", Mode: "read-only", Verdict: "deny", Rule: "read-only rules", Reason: awkward,
		Command: awkward, Rewrite: true, Isolation: "policy only: none", Cwd: "/p"}
	if err := l.Append(e); err != nil {
		t.Fatal(err)
	}
	got, damaged, err := l.Entries()
	if err != nil || damaged != 0 || len(got) != 1 {
		t.Fatalf("%+v %d %v", got, damaged, err)
	}
	want := *e
	want.Reason = strings.ToValidUTF8(awkward, "\ufffd\ufffd") // each invalid byte, as encoding/json does
	want.Command = want.Reason
	if !got[0].Time.Equal(want.Time) {
		t.Errorf("time %v, want %v", got[0].Time, want.Time)
	}
	got[0].Time = want.Time
	if got[0] != want {
		t.Errorf("read back %+v\nwant %+v", got[0], want)
	}
}

// FuzzLogString: the hand-written encoder writes what encoding/json reads back as the string
// encoding/json itself would have written.
func FuzzLogString(f *testing.F) {
	for _, s := range []string{"", "plain", "\"\\", "\x00\x1f\x7f", "\u2028", "\xff", "é😀", "</script>&"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		var mine, theirs string
		if err := json.Unmarshal(hook.AppendJSONString(nil, s), &mine); err != nil {
			t.Fatalf("%q encoded as %q: %v", s, hook.AppendJSONString(nil, s), err)
		}
		b, _ := json.Marshal(s)
		json.Unmarshal(b, &theirs)
		if mine != theirs {
			t.Fatalf("%q: read back %q, encoding/json's %q", s, mine, theirs)
		}
	})
}

// TestDecisionLogParallelAppends: many writers at once (each opening the file, as separate hook
// processes do) lose no line and tear none.
func TestDecisionLogParallelAppends(t *testing.T) {
	l := &DecisionLog{Dir: t.TempDir()}
	const writers, each = 8, 150
	var wg sync.WaitGroup
	for w := range writers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range each {
				e := &hook.LogEntry{ID: fmt.Sprintf("w%d-%d", w, i), Time: time.Now(), Event: "tool", Verdict: "allow",
					Command: strings.Repeat(fmt.Sprint(w), 200+i)}
				if err := l.Append(e); err != nil {
					t.Error(err)
				}
			}
		}()
	}
	wg.Wait()
	got, damaged, err := l.Entries()
	if err != nil || damaged != 0 || len(got) != writers*each {
		t.Fatalf("%d entries, %d damaged, %v; want %d", len(got), damaged, err, writers*each)
	}
	for _, e := range got {
		var w, i int
		fmt.Sscanf(e.ID, "w%d-%d", &w, &i)
		if e.Command != strings.Repeat(fmt.Sprint(w), 200+i) {
			t.Fatalf("entry %s holds another writer's text", e.ID)
		}
	}
}

// TestDecisionLogRotates: past MaxBytes the log rotates, keeping Keep files, oldest dropped, and
// a reader sees the kept entries in order.
func TestDecisionLogRotates(t *testing.T) {
	l := &DecisionLog{Dir: t.TempDir(), MaxBytes: 2000, Keep: 2}
	for i := range 100 {
		if err := l.Append(&hook.LogEntry{ID: fmt.Sprintf("e%03d", i), Time: time.Now(), Event: "tool", Verdict: "allow"}); err != nil {
			t.Fatal(err)
		}
	}
	got, _, err := l.Entries()
	if err != nil || len(got) == 0 || len(got) >= 100 || got[len(got)-1].ID != "e099" {
		t.Fatalf("%d entries, last %+v, %v", len(got), got[len(got)-1], err)
	}
	for i := 1; i < len(got); i++ {
		if got[i].ID <= got[i-1].ID {
			t.Fatalf("out of order: %s after %s", got[i].ID, got[i-1].ID)
		}
	}
	files, _ := filepath.Glob(filepath.Join(l.Dir, decisionFile+"*"))
	if len(files) != 3 {
		t.Errorf("files %q: want the log and 2 rotated", files)
	}
	for _, f := range files {
		if fi, _ := os.Stat(f); fi.Size() > 2000 {
			t.Errorf("%s is %d bytes, over the cap", f, fi.Size())
		}
	}
}

// TestDecisionLogSurvivesDamage: a garbage line and an over-long line are skipped and counted;
// a line cut short by a crash is cut off by the next append; the entries around them, and that
// append, are read.
func TestDecisionLogSurvivesDamage(t *testing.T) {
	l := &DecisionLog{Dir: t.TempDir()}
	l.Append(&hook.LogEntry{ID: "before", Time: time.Now(), Event: "tool", Verdict: "deny"})
	f, _ := os.OpenFile(filepath.Join(l.Dir, decisionFile), os.O_APPEND|os.O_WRONLY, 0)
	f.WriteString("not json\n" + strings.Repeat("x", 100<<10) + "\n" + `{"id":"cut","time":"2026-`)
	f.Close()
	l.Append(&hook.LogEntry{ID: "after", Time: time.Now(), Event: "tool", Verdict: "allow"})
	got, damaged, err := l.Entries()
	if err != nil || damaged != 2 || len(got) != 2 || got[0].ID != "before" || got[1].ID != "after" {
		t.Fatalf("%+v, %d damaged, %v", got, damaged, err)
	}
	if b, _ := os.ReadFile(filepath.Join(l.Dir, decisionFile)); strings.Contains(string(b), `"cut"`) {
		t.Errorf("the line cut short is still there")
	}
}

func TestRedactCommand(t *testing.T) {
	env := []string{"GITHUB_TOKEN=s3cretvalue123", "NPM_AUTH=abc", "HOME=/home/u", "SHORT_TOKEN=x"}
	for _, row := range []struct{ in, want string }{
		{"git log --oneline", "git log --oneline"},
		{"curl -H 'Authorization: token s3cretvalue123' https://api.github.com", "curl -H 'Authorization: [withheld]' https://api.github.com"},
		{"echo s3cretvalue123 | base64", "echo [withheld] | base64"},
		{"gh auth login --with-token ghp_0123456789abcdefghij", "gh auth login --with-token [withheld]"},
		{"OPENAI_API_KEY=sk-proj-0123456789abcdef python x.py", "OPENAI_API_KEY=[withheld] python x.py"},
		{"DB_PASSWORD=hunter2 ./run", "DB_PASSWORD=[withheld] ./run"},
		{"curl -u admin:hunter2 https://x", "curl -u [withheld] https://x"},
		{"curl -H \"Authorization: Bearer eyJhbGciOi\" x", "curl -H \"Authorization: [withheld]\" x"},
		{"cat ~/.aws/credentials", "cat ~/.aws/credentials"},
		{"grep -r TOKEN src", "grep -r TOKEN src"},
		{"echo abc", "echo abc"}, // a secret-named variable's short value is not searched for
		{"aws s3 ls --access-key AKIAIOSFODNN7EXAMPLE", "aws s3 ls --access-key [withheld]"},
	} {
		if got := RedactCommand(row.in, env); got != row.want {
			t.Errorf("RedactCommand(%q) = %q, want %q", row.in, got, row.want)
		}
	}
}

func BenchmarkDecisionLogAppend(b *testing.B) {
	l := &DecisionLog{Dir: b.TempDir()}
	e := &hook.LogEntry{Time: time.Now(), Session: "0f7c2a11-3b4d-4e5f-8a9b-0c1d2e3f4a5b", Agent: "Claude Code", Event: "tool", Tool: "Bash",
		Mode: "read-only", Verdict: "allow", Rule: "read-only rules", Reason: "", Command: "git log --oneline -10 && rg -n TODO src/",
		Rewrite: true, Isolation: "landlock ABI 7, seccomp", Cwd: "/home/u/src/project"}
	for b.Loop() {
		e.ID = hook.NewLogID(time.Now())
		if err := l.Append(e); err != nil {
			b.Fatal(err)
		}
	}
}

// TestWhyRejudgesShellCallsOfEveryClient: log why decides a logged command again for any
// client's shell tool (the entry's kind, not Claude Code's tool name), and never a command a
// tool of another kind carried (Claude Code's Monitor, which takes no rewrite). An entry
// written before entries carried a kind is re-judged as then: Bash's, and no other tool's.
func TestWhyRejudgesShellCallsOfEveryClient(t *testing.T) {
	var judged []string
	now := func(e hook.LogEntry, m hook.Mode) hook.Decision {
		judged = append(judged, e.Tool)
		return hook.Decision{Verdict: hook.Deny, Reason: "still no"}
	}
	for _, e := range []hook.LogEntry{
		{Event: "tool", Tool: "Bash", Kind: hook.KindShell.String(), Mode: "read-only", Verdict: "deny", Command: "sed -i s/a/b/ f"},
		{Event: "tool", Tool: "run_shell_command", Kind: hook.KindShell.String(), Mode: "read-only", Verdict: "deny", Command: "sed -i s/a/b/ f"},
		{Event: "tool", Tool: "Monitor", Kind: hook.KindOther.String(), Mode: "read-only", Verdict: "deny", Command: "tail -f log"},
		{Event: "tool", Tool: "Bash", Mode: "read-only", Verdict: "deny", Command: "sed -i s/a/b/ old"},
		{Event: "tool", Tool: "Monitor", Mode: "read-only", Verdict: "deny", Command: "tail -f old"},
	} {
		steps := WhySteps(e, now)
		shell := e.Kind == "shell" || e.Kind == "" && e.Tool == "Bash"
		if last := steps[len(steps)-1]; shell != strings.HasPrefix(last, "today the same command") {
			t.Errorf("%s (%s): last step %q", e.Tool, e.Kind, last)
		}
	}
	if strings.Join(judged, ",") != "Bash,run_shell_command,Bash" {
		t.Errorf("judged again: %v", judged)
	}
}
