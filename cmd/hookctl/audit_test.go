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
	if code, out, _ := runCLI(t, home, "", "audit", "show", "3"); code != exitOK || !strings.Contains(out, "https://e.com/3") {
		t.Errorf("audit show: exit %d\n%s", code, out)
	}
}
