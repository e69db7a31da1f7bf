package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestAuditListsPastDamagedLines: hookctl audit lists every readable entry of a log with a line
// cut short in the middle and one at the end, and warns on stderr of each by file and line,
// --json included. (It used to refuse the whole log.)
func TestAuditListsPastDamagedLines(t *testing.T) {
	home := t.TempDir()
	dir := filepath.Join(home, "audit")
	os.MkdirAll(dir, 0o700)
	entry := func(id, url string) string {
		return `{"id":"` + id + `","time":"2026-11-30T10:15:00Z","tool":"WebFetch","kind":"fetch","url":"` + url + `","scrub":"clean","outcome":"answered"}` + "\n"
	}
	whole := entry("3", "https://e.com/3")
	log := entry("1", "https://e.com/1") + whole[:40] + "\n" + whole + whole[:len(whole)-10]
	if err := os.WriteFile(filepath.Join(dir, "audit.jsonl"), []byte(log), 0o600); err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(dir, "audit.jsonl")
	for _, args := range [][]string{{"audit"}, {"audit", "--json"}} {
		code, out, errOut := runCLI(t, home, "", args...)
		if code != exitOK || !strings.Contains(out, "https://e.com/1") || !strings.Contains(out, "https://e.com/3") {
			t.Errorf("%q: exit %d\n%s", args, code, out)
		}
		if !strings.Contains(errOut, "warning: skipped a damaged line, "+path+":2: ") ||
			!strings.Contains(errOut, "warning: skipped a damaged line, "+path+":4: ") || strings.Count(errOut, "\n") != 2 {
			t.Errorf("%q: stderr %q", args, errOut)
		}
	}
	if code, out, _ := runCLI(t, home, "", "audit", "show", "3"); code != exitOK || !strings.Contains(out, "url           https://e.com/3\n") ||
		!strings.Contains(out, "outcome       answered\n") || strings.Contains(out, "{") {
		t.Errorf("audit show: exit %d\n%s", code, out)
	}
	if code, out, _ := runCLI(t, home, "", "audit", "show", "3", "--json"); code != exitOK || !strings.HasPrefix(out, `{"id":"3",`) {
		t.Errorf("audit show --json: exit %d\n%s", code, out)
	}
}

// TestAuditAndLogShowControlCharacters: what a page or the model wrote reaches the terminal with
// its escape sequences and bidi controls shown, never sent (an OSC 52 sequence in a logged
// command would write the user's clipboard).
func TestAuditAndLogShowControlCharacters(t *testing.T) {
	home := t.TempDir()
	dir := filepath.Join(home, "audit")
	os.MkdirAll(dir, 0o700)
	line := `{"id":"9","time":"2026-11-30T10:15:00Z","tool":"WebFetch","kind":"fetch","url":"https://e.com/\u001b]52;c;aGk=\u0007\u202e","scrub":"clean","outcome":"answered"}` + "\n"
	os.WriteFile(filepath.Join(dir, "audit.jsonl"), []byte(line), 0o600)
	payload := `{"session_id":"cccc3333-x","cwd":"/tmp","hook_event_name":"PreToolUse","tool_name":"Bash","tool_input":{"command":"echo \u001b]0;PWNED\u0007"}}`
	if code, out, errOut := runCLI(t, home, payload, "hook"); code != 0 {
		t.Fatalf("hook: %d %s %s", code, out, errOut)
	}
	for _, args := range [][]string{{"audit"}, {"audit", "show", "9"}, {"log"}} {
		_, out, _ := runCLI(t, home, "", args...)
		if strings.ContainsAny(out, "\x1b\x07\u202e") || !strings.Contains(out, "⟨U+001B⟩") {
			t.Errorf("%q sends control characters to the terminal:\n%q", args, out)
		}
	}
}
