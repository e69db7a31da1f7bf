package main

import (
	"context"
	"encoding/json"
	"errors"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/hookctl/hookctl/agents/agenttest"
	"github.com/hookctl/hookctl/internal/testbin"
)

// managedClient is a client whose install takes --scope managed, driven for real.
type managedClient struct {
	name, dir, bin, pkg string
	settingsDir         string            // the client's directory in a home or a project (.gemini)
	systemEnv           string            // the variable that points the client at its system file
	auth                map[string]any    // the user settings the fake API needs
	repoSettings        []json.RawMessage // what a repository's settings file says to switch hooks off
	api                 func(t *testing.T, steps []agenttest.Step) (url string, saw func(string) bool, requests func() []string)
	env                 func(url string) []string
}

var managedClients = []managedClient{
	{name: "gemini", dir: "gemini-cli", bin: "gemini", pkg: "@google/gemini-cli@0.61.0", settingsDir: ".gemini", systemEnv: "GEMINI_CLI_SYSTEM_SETTINGS_PATH",
		auth:         map[string]any{"security": map[string]any{"auth": map[string]any{"selectedType": "gemini-api-key"}}},
		repoSettings: []json.RawMessage{json.RawMessage(`{"hooksConfig":{"enabled":false}}`), json.RawMessage(`{"hooksConfig":{"disabled":["hookctl"]}}`)},
		api: func(t *testing.T, steps []agenttest.Step) (string, func(string) bool, func() []string) {
			a := agenttest.NewGemini(t, steps)
			return a.URL(), a.Saw, a.Requests
		},
		env: func(url string) []string {
			return []string{"GEMINI_API_KEY=x", "GOOGLE_GEMINI_BASE_URL=" + url, "GEMINI_CLI_TRUST_WORKSPACE=true"}
		}},
	{name: "qwen", dir: "qwen-code", bin: "qwen", pkg: "@qwen-code/qwen-code@0.24.4", settingsDir: ".qwen", systemEnv: "QWEN_CODE_SYSTEM_SETTINGS_PATH",
		auth:         map[string]any{"security": map[string]any{"auth": map[string]any{"selectedType": "openai"}}},
		repoSettings: []json.RawMessage{json.RawMessage(`{"disableAllHooks":true}`)},
		api: func(t *testing.T, steps []agenttest.Step) (string, func(string) bool, func() []string) {
			a := agenttest.NewChat(t, steps)
			return a.URL(), a.Saw, a.Requests
		},
		env: func(url string) []string {
			return []string{"OPENAI_BASE_URL=" + url, "OPENAI_API_KEY=x", "OPENAI_MODEL=gpt-4.1"}
		}},
}

// TestRealClientsManagedHookHoldsAgainstTheRepository: a repository's own settings file can
// switch off the hook a user installed (Gemini CLI: hooksConfig.enabled false, or hookctl's
// name in hooksConfig.disabled; Qwen Code: disableAllHooks) — the control, where the model's
// touch then makes a file. `hookctl install --agent NAME --scope managed` writes the
// machine's settings file, which the client reads last: the same repository no longer switches
// hookctl off, and the touch is refused.
func TestRealClientsManagedHookHoldsAgainstTheRepository(t *testing.T) {
	requireTool(t, "unshare")
	if os.Geteuid() != 0 {
		t.Skip("install --scope managed writes a root-owned file: the test runs as root")
	}
	hookctl := testbin.Hookctl(t)
	for _, c := range managedClients {
		t.Run(c.name, func(t *testing.T) {
			bin := agenttest.Binary(t, c.dir, c.bin, c.pkg)
			system := filepath.Dir(managedFiles[c.name])
			if _, err := os.Lstat(system); errors.Is(err, fs.ErrNotExist) {
				if os.Mkdir(system, 0o755) == nil {
					t.Cleanup(func() { os.Remove(system) })
				}
			}
			for i, repo := range c.repoSettings {
				for _, scope := range []string{"user", "managed"} {
					p := agenttest.NewProject(t)
					url, saw, requests := c.api(t, []agenttest.Step{agenttest.Shell("touch made-by-the-model")})
					env := append([]string{"HOME=" + p.Home, "PATH=" + os.Getenv("PATH"), "HOOKCTL_HOME=" + filepath.Join(p.Base, "hookctl"), "LANG=C.UTF-8"}, c.env(url)...)
					writeJSON(t, filepath.Join(p.Home, c.settingsDir, "settings.json"), c.auth)
					writeJSON(t, filepath.Join(p.Dir, c.settingsDir, "settings.json"), repo)
					// Not under the temporary directory: the clients, like hookctl, refuse a system
					// file in a directory others may write.
					machine, err := os.MkdirTemp("/var/lib", "hookctl-managed-client-")
					if err != nil {
						t.Fatal(err)
					}
					t.Cleanup(func() { os.RemoveAll(machine) })
					os.Chmod(machine, 0o755)
					install := []string{hookctl, "install", "--agent", c.name, "--scope", scope}
					if scope == "managed" {
						// The machine's file, at its real place in a mount namespace of install's own.
						install = append([]string{"unshare", "--mount", "--propagation", "private", "--", "sh", "-c", `mount --bind "$0" "$1" && shift && exec "$@"`, machine, system}, install...)
						env = append(env, c.systemEnv+"="+filepath.Join(machine, filepath.Base(managedFiles[c.name])))
					}
					cmd := exec.Command(install[0], install[1:]...)
					cmd.Dir, cmd.Env = p.Dir, env
					if out, err := cmd.CombinedOutput(); err != nil {
						t.Fatalf("%v: %v\n%s", install, err, out)
					}
					// Doctor, in the project, says the repository switches hookctl off where it can.
					doctor := exec.Command(hookctl, "doctor", "--agent", c.name)
					if scope == "managed" {
						doctor = exec.Command("unshare", "--mount", "--propagation", "private", "--", "sh", "-c", `mount --bind "$0" "$1" && shift && exec "$@"`, machine, system, hookctl, "doctor", "--agent", c.name)
					}
					doctor.Dir, doctor.Env = p.Dir, env
					said, _ := doctor.CombinedOutput()
					if warned := strings.Contains(string(said), "switches hooks off"); warned != (scope == "user") || scope == "managed" && !strings.Contains(string(said), "✓ "+managedFiles[c.name]+" registers hookctl") {
						t.Errorf("%s %d: doctor:\n%s", scope, i, said)
					}
					ctx, cancel := context.WithTimeout(context.Background(), 180*time.Second)
					run := exec.CommandContext(ctx, bin, "--approval-mode", "yolo", "-p", "Try to change the project.")
					run.Dir, run.Env = p.Dir, env
					out, err := run.CombinedOutput()
					cancel()
					if err != nil {
						t.Fatalf("%s: %v\n%s", c.bin, err, out)
					}
					_, err = os.Stat(filepath.Join(p.Dir, "made-by-the-model"))
					made, refused := err == nil, saw("hookctl read-only: ")
					if reqs := requests(); len(reqs) > 0 && testing.Verbose() {
						var req struct{ Messages []json.RawMessage }
						json.Unmarshal([]byte(reqs[len(reqs)-1]), &req)
						t.Logf("%s %d: %d requests; the model last saw: %s", scope, i, len(reqs), req.Messages[len(req.Messages)-1])
					}
					switch {
					case scope == "user" && (!made || refused):
						t.Errorf("control %d: the repository's %s did not switch off the user's hook (the file made %v, refused %v): the row proves nothing\n%s", i, repo, made, refused, out)
					case scope == "managed" && (made || !refused):
						t.Errorf("%d: the repository's %s switched off the managed hook (the file made %v, refused %v)\n%s", i, repo, made, refused, out)
					}
				}
			}
		})
	}
}

func writeJSON(t *testing.T, path string, v any) {
	t.Helper()
	b, _ := json.Marshal(v)
	os.MkdirAll(filepath.Dir(path), 0o755)
	if err := os.WriteFile(path, b, 0o644); err != nil {
		t.Fatal(err)
	}
}

// TestManagedAgentInstallIsIdempotent: the managed Gemini CLI hook keeps its random name when
// installed again, and the pinned switch is set once.
func TestManagedAgentInstallIsIdempotent(t *testing.T) {
	text := []byte(`{"hooksConfig":{"enabled":false,"disabled":["x"]}}`)
	r, err := agentRegistration("gemini", "managed", "/home/u", "/usr/local/bin/hookctl")
	if err != nil {
		t.Fatal(err)
	}
	name := geminiHookName(text, r.Keys, oursFor("gemini"))
	if !strings.HasPrefix(name, "hookctl-") || len(name) != len("hookctl-")+16 || name == geminiHookName(text, r.Keys, oursFor("gemini")) {
		t.Fatalf("a new name is random: %q", name)
	}
	r.Group = strings.Replace(r.Group, `"name":"hookctl"`, `"name":"`+name+`"`, 1)
	out, changed, err := r.addAll(text, oursFor("gemini"))
	if err != nil || !changed {
		t.Fatal(err)
	}
	if got := geminiHookName(out, r.Keys, oursFor("gemini")); got != name {
		t.Errorf("installed again, the name is %q, not %q", got, name)
	}
	if again, changed, _ := r.addAll(out, oursFor("gemini")); changed || string(again) != string(out) {
		t.Errorf("a second install changed the file:\n%s", again)
	}
	if !strings.Contains(string(out), `"enabled": true`) && !strings.Contains(string(out), `"enabled":true`) {
		t.Errorf("hooks are not switched on:\n%s", out)
	}
}
