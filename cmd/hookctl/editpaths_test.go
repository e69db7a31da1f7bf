package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// TestHookResolvesFileToolTargets (issue 9): the installed hook, in an edit-mode session,
// refuses a Write through a symbolic link or a hard link to a protected file, and lets a Write
// to the project's own file through: the gate's resolver is wired in.
func TestHookResolvesFileToolTargets(t *testing.T) {
	root, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	home := filepath.Join(root, "home")
	proj := filepath.Join(home, "proj")
	hk := filepath.Join(home, ".config", "hookctl")
	for _, d := range []string{proj, hk} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.WriteFile(filepath.Join(home, ".bashrc"), []byte("x"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink("../.bashrc", filepath.Join(proj, "rc")); err != nil {
		t.Fatal(err)
	}
	hard := filepath.Join(proj, "rc-hard")
	if err := os.Link(filepath.Join(home, ".bashrc"), hard); err != nil {
		hard = ""
	}
	run := func(stdin string, args ...string) string {
		t.Helper()
		cmd := exec.Command(hookctlBinary(t), args...)
		cmd.Env = append(os.Environ(), "HOME="+home, "HOOKCTL_HOME="+hk)
		cmd.Dir = proj
		cmd.Stdin = strings.NewReader(stdin)
		b, _ := cmd.CombinedOutput()
		return string(b)
	}
	write := func(path string) string {
		return run(`{"session_id":"s","cwd":"`+proj+`","hook_event_name":"PreToolUse","tool_name":"Write","tool_input":{"file_path":"`+
			path+`","content":"x"}}`, "hook")
	}
	write(filepath.Join(proj, "first")) // the hook sees the session first: a toggle names only a session it has seen
	if out := run("", "readonly", "off", "--session", "s"); !strings.Contains(out, "→ ✏ EDIT") {
		t.Fatalf("readonly off: %s", out)
	}
	for p, why := range map[string]string{filepath.Join(proj, "rc"): "through a link", hard: "a hard link"} {
		if p == "" {
			continue
		}
		if out := write(p); !strings.Contains(out, `"permissionDecision":"deny"`) || !strings.Contains(out, why) {
			t.Errorf("Write %s: %s, want a deny saying %q", p, out, why)
		}
	}
	if out := write(filepath.Join(proj, "main.go")); strings.Contains(out, `"permissionDecision":"deny"`) {
		t.Errorf("Write main.go in an edit-mode session: %s", out)
	}
}
