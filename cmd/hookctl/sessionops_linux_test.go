package main

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/hookctl/hookctl/internal/testbin"
)

// TestOneSessionReadAndWritePerCall: a Bash call reads its session once and writes what it
// leaves once. The hook runs for real under strace, after a toggle, so that the call must read
// the mode, tell the model of the change and note that it did: every file of the session store
// is opened for reading at most once and for writing at most once, the state exactly once. (The
// gate once asked the store six times per call, and read what the model was told twice.)
func TestOneSessionReadAndWritePerCall(t *testing.T) {
	strace, err := exec.LookPath("strace")
	if err != nil {
		testbin.RequireTool(t, "strace")
	}
	bin := buildBinary(t)
	home := t.TempDir()
	const sid = "5e551011-0ne-read"
	env := append(os.Environ(), "HOOKCTL_HOME="+filepath.Join(home, "h"), "HOME="+filepath.Join(home, "home"))
	os.MkdirAll(filepath.Join(home, "home"), 0o700)
	call := func(useID string, wrap ...string) string {
		payload := fmt.Sprintf(`{"session_id":%q,"cwd":%q,"hook_event_name":"PreToolUse","tool_name":"Bash","tool_input":{"command":"ls -la"},"tool_use_id":%q}`,
			sid, home, useID)
		argv := append(wrap, bin, "hook")
		cmd := exec.Command(argv[0], argv[1:]...)
		cmd.Env, cmd.Stdin = env, strings.NewReader(payload)
		out, err := cmd.Output()
		if err != nil {
			t.Fatalf("%v: %v\n%s", argv, err, out)
		}
		return string(out)
	}
	call("toolu_1") // records the session, and what the model was told
	toggle := exec.Command(bin, "readonly", "toggle", "--session", sid)
	toggle.Env = env
	if out, err := toggle.CombinedOutput(); err != nil {
		t.Fatalf("toggle: %v\n%s", err, out)
	}
	trace := filepath.Join(home, "trace")
	out := call("toolu_2", strace, "-f", "-qq", "-e", "trace=openat,open", "-o", trace)
	if !strings.Contains(out, "switched this session") {
		t.Fatalf("the call after the toggle was not told of it: %s", out)
	}
	b, err := os.ReadFile(trace)
	if err != nil {
		t.Fatal(err)
	}
	open := regexp.MustCompile(`open(?:at)?\((?:AT_FDCWD, )?"([^"]+)", ([A-Z_|]+)`)
	dir := filepath.Join(home, "h", "sessions") + "/"
	reads, writes := map[string]int{}, map[string]int{}
	for _, m := range open.FindAllStringSubmatch(string(b), -1) {
		path, ok := strings.CutPrefix(m[1], dir)
		if !ok {
			continue
		}
		if strings.Contains(m[2], "O_WRONLY") || strings.Contains(m[2], "O_RDWR") {
			writes[path]++
		} else {
			reads[path]++
		}
	}
	for path, n := range reads {
		if n > 1 {
			t.Errorf("%s read %d times in one call", path, n)
		}
	}
	for path, n := range writes {
		if n > 1 {
			t.Errorf("%s written %d times in one call", path, n)
		}
	}
	// The trace sees the store where it is: the state read, the notice noted.
	if reads[sid+".json"] != 1 || reads[sid+".told"] != 1 || writes[sid+".told"] != 1 {
		t.Errorf("reads %v, writes %v: want the state and the note read once, and the note written once", reads, writes)
	}
}
