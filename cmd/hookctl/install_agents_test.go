package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/tidwall/gjson"
)

// TestAgentInstallRoundTrip: for each client, install registers hookctl in the client's own
// file, a second install changes nothing, doctor finds it, and uninstall puts back exactly the
// bytes that were there (or removes the file install created); a file the user changed after
// install keeps the change, losing only hookctl's entry.
func TestAgentInstallRoundTrip(t *testing.T) {
	for _, tc := range []struct {
		agent, rel, before string
	}{
		{"qwen", ".qwen/settings.json", "{\n  \"security\": {\"auth\": {\"selectedType\": \"openai\"}},\n  \"hooks\": {\"PreToolUse\": [{\"matcher\": \"write_file\", \"hooks\": [{\"type\": \"command\", \"command\": \"check.sh\"}]}]}\n}\n"},
		{"qwen", ".qwen/settings.json", ""},
		{"gemini", ".gemini/settings.json", `{"security":{"auth":{"selectedType":"gemini-api-key"}}}`},
		{"cursor", ".cursor/hooks.json", ""},
		{"cursor", ".cursor/hooks.json", `{"version":1,"hooks":{"afterFileEdit":[{"command":"fmt.sh"}]}}`},
		{"copilot", ".copilot/hooks/hookctl.json", ""},
	} {
		t.Run(tc.agent, func(t *testing.T) {
			userHome, home := t.TempDir(), t.TempDir()
			t.Setenv("HOME", userHome)
			file := filepath.Join(userHome, tc.rel)
			if tc.before != "" {
				os.MkdirAll(filepath.Dir(file), 0o755)
				if err := os.WriteFile(file, []byte(tc.before), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			if code, out, errOut := runCLI(t, home, "", "install", "--agent", tc.agent); code != 0 {
				t.Fatalf("install: %d %s %s", code, out, errOut)
			}
			installed, err := os.ReadFile(file)
			if err != nil || !strings.Contains(string(installed), "hook --agent "+tc.agent) {
				t.Fatalf("install wrote %q (%v)", installed, err)
			}
			if tc.agent == "cursor" && !gjson.GetBytes(installed, "hooks.preToolUse.0.failClosed").Bool() {
				t.Errorf("Cursor's hook is not failClosed: %s", installed)
			}
			if code, out, _ := runCLI(t, home, "", "install", "--agent", tc.agent); code != 0 || !strings.Contains(out, "already registers hookctl") {
				t.Errorf("second install: %d %s", code, out)
			}
			if again, _ := os.ReadFile(file); string(again) != string(installed) {
				t.Errorf("second install changed the file")
			}
			code, out, _ := runCLI(t, home, "", "doctor", "--agent", tc.agent)
			if code != 0 || !strings.Contains(out, "registers hookctl") {
				t.Errorf("doctor: %d %s", code, out)
			}
			// Where the client's shell commands run is said: never silently on the policy alone.
			if asWritten := strings.Contains(out, "runs shell commands as it sent them"); asWritten != (tc.agent == "qwen") ||
				!asWritten && !strings.Contains(out, "hookctl's OS sandbox") && !strings.Contains(out, "no OS sandbox") {
				t.Errorf("doctor does not say where %s's shell commands run: %s", tc.agent, out)
			}
			if tc.agent == "copilot" && !strings.Contains(out, "disableAllHooks") {
				t.Errorf("doctor does not warn of disableAllHooks for a user-scope Copilot hook: %s", out)
			}
			if code, out, errOut := runCLI(t, home, "", "uninstall", "--agent", tc.agent); code != 0 {
				t.Fatalf("uninstall: %d %s %s", code, out, errOut)
			}
			after, err := os.ReadFile(file)
			switch {
			case tc.before == "" && err == nil:
				t.Errorf("uninstall left the file install created: %q", after)
			case tc.before != "" && string(after) != tc.before:
				t.Errorf("uninstall did not restore the file:\n got %q\nwant %q", after, tc.before)
			}
			if code, out, _ := runCLI(t, home, "", "doctor", "--agent", tc.agent); code == 0 {
				t.Errorf("doctor after uninstall passed: %s", out)
			}
		})
	}
}

// TestAgentUninstallKeepsLaterEdits: a file changed after install loses only hookctl's group.
func TestAgentUninstallKeepsLaterEdits(t *testing.T) {
	userHome, home := t.TempDir(), t.TempDir()
	t.Setenv("HOME", userHome)
	file := filepath.Join(userHome, ".gemini", "settings.json")
	os.MkdirAll(filepath.Dir(file), 0o755)
	os.WriteFile(file, []byte(`{"hooks":{"BeforeTool":[]}}`), 0o644)
	if code, _, errOut := runCLI(t, home, "", "install", "--agent", "gemini"); code != 0 {
		t.Fatal(errOut)
	}
	b, _ := os.ReadFile(file)
	edited := strings.Replace(string(b), `{"hooks":`, `{"ui":{"theme":"x"},"hooks":`, 1)
	os.WriteFile(file, []byte(edited), 0o644)
	if code, _, errOut := runCLI(t, home, "", "uninstall", "--agent", "gemini"); code != 0 {
		t.Fatal(errOut)
	}
	if after, _ := os.ReadFile(file); string(after) != `{"ui":{"theme":"x"},"hooks":{"BeforeTool":[]}}` {
		t.Errorf("got %s", after)
	}
}

// TestAgentInstallRefusesWhatItCannotEdit: a file with comments or a key twice is refused and
// left as it was.
func TestAgentInstallRefusesWhatItCannotEdit(t *testing.T) {
	userHome, home := t.TempDir(), t.TempDir()
	t.Setenv("HOME", userHome)
	file := filepath.Join(userHome, ".qwen", "settings.json")
	os.MkdirAll(filepath.Dir(file), 0o755)
	for _, bad := range []string{"{ // mine\n}", `{"hooks":{},"hooks":{}}`} {
		os.WriteFile(file, []byte(bad), 0o644)
		if code, _, _ := runCLI(t, home, "", "install", "--agent", "qwen"); code == 0 {
			t.Errorf("%q: installed", bad)
		}
		if b, _ := os.ReadFile(file); string(b) != bad {
			t.Errorf("%q was rewritten: %q", bad, b)
		}
	}
	if code, _, errOut := runCLI(t, home, "", "install", "--agent", "qwen", "--scope", "project"); code == 0 || !strings.Contains(errOut, "takes --scope user") {
		t.Errorf("a scope Qwen's install does not take: %d %s", code, errOut)
	}
}

// TestCodexInstallWithoutCodex: without codex on the PATH, install --agent codex cannot make Codex
// trust the hook, so it changes nothing at all (it used to write the hooks file, then fail,
// leaving half an install that Codex silently skips).
func TestCodexInstallWithoutCodex(t *testing.T) {
	userHome, home := t.TempDir(), t.TempDir()
	t.Setenv("HOME", userHome)
	t.Setenv("PATH", t.TempDir())
	code, out, errOut := runCLI(t, home, "", "install", "--agent", "codex")
	if code == exitOK || !strings.Contains(errOut, "codex is not on your PATH") || !strings.Contains(errOut, "nothing was changed") {
		t.Errorf("exit %d %q %q", code, out, errOut)
	}
	for _, dir := range []string{userHome, home} {
		filepath.WalkDir(dir, func(p string, d os.DirEntry, err error) error {
			if err == nil && !d.IsDir() {
				t.Errorf("install wrote %s", p)
			}
			return nil
		})
	}
}
