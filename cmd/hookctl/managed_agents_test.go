package main

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/hookctl/hookctl/agents/agenttest"
)

// managedClients are the clients whose install takes --scope managed and which run here: the
// variable that points each at its system file, and what a repository's own settings file says
// to switch hooks off.
var managedClients = []struct {
	client       *agenttest.Client
	settingsDir  string
	systemEnv    string
	repoSettings []string
}{
	{agenttest.Gemini, ".gemini", "GEMINI_CLI_SYSTEM_SETTINGS_PATH", []string{`{"hooksConfig":{"enabled":false}}`, `{"hooksConfig":{"disabled":["hookctl"]}}`}},
	{agenttest.Qwen, ".qwen", "QWEN_CODE_SYSTEM_SETTINGS_PATH", []string{`{"disableAllHooks":true}`}},
	// Codex reads /etc/codex whatever its environment says: it runs in the mount namespace.
	{agenttest.Codex, ".codex", "", []string{"[features]\nhooks = false\n", "[features]\ncodex_hooks = false\n"}},
}

// TestRealClientsManagedHookHoldsAgainstTheRepository: a repository's own settings file can
// switch off the hook a user installed (Gemini CLI: hooksConfig.enabled false, or hookctl's
// name in hooksConfig.disabled; Qwen Code: disableAllHooks) — the control, where the model's
// touch then makes a file, and doctor names the file that did it. `hookctl install --agent NAME
// --scope managed` writes the machine's settings file, which the client reads last: the same
// repository no longer switches hookctl off, and the touch is refused.
func TestRealClientsManagedHookHoldsAgainstTheRepository(t *testing.T) {
	requireTool(t, "unshare")
	if os.Geteuid() != 0 {
		t.Skip("install --scope managed writes a root-owned file: the test runs as root")
	}
	for _, mc := range managedClients {
		c := mc.client
		t.Run(c.Agent, func(t *testing.T) {
			system := filepath.Dir(installs[c.Agent].ManagedFile)
			for i, repo := range mc.repoSettings {
				for _, scope := range []string{"user", "managed"} {
					s := c.NewSession(t, func(*agenttest.Project) []agenttest.Step {
						return []agenttest.Step{agenttest.Shell("touch made-by-the-model")}
					})
					env, args := s.Env(), []string(nil)
					if c == agenttest.Codex {
						// The repository's config counts once the user trusts the project, as one does
						// a repository one works in; install asks codex for the hook's trust.
						writeFile(t, filepath.Join(s.Dir, mc.settingsDir, "config.toml"), repo)
						config := filepath.Join(agenttest.CodexHome(s.Project), "config.toml")
						b, _ := os.ReadFile(config)
						writeFile(t, config, string(b)+"\n[projects."+strconvQuote(s.Dir)+"]\ntrust_level = \"trusted\"\n")
						env, args = agenttest.PrependPath(env, filepath.Dir(s.Bin)), []string{"exec", "--skip-git-repo-check", "-s", "danger-full-access"}
					} else {
						writeFile(t, filepath.Join(s.Dir, mc.settingsDir, "settings.json"), repo)
					}
					// In a mount namespace of its own, the machine's file is at its real place; the
					// clients, like hookctl, refuse one in a directory others may write.
					inPlace := func(argv ...string) []string { return argv }
					if scope == "managed" {
						machine := machineDir(t, "hookctl-managed-client-")
						inPlace = func(argv ...string) []string {
							return agenttest.InPlace(t, machine, system, argv...)
						}
						if mc.systemEnv != "" {
							env = append(env, mc.systemEnv+"="+filepath.Join(machine, filepath.Base(installs[c.Agent].ManagedFile)))
						} else {
							// The client itself runs where the machine's file is in place.
							wrapper := agenttest.InPlaceWrapper(t, machine, system, s.Bin)
							s.Bin = wrapper
						}
					}
					run := func(argv ...string) string {
						argv = inPlace(argv...)
						cmd := exec.Command(argv[0], argv[1:]...)
						cmd.Dir, cmd.Env = s.Dir, env
						out, _ := cmd.CombinedOutput()
						return string(out)
					}
					if out := run(s.Hookctl, "install", "--agent", c.Agent, "--scope", scope); !strings.Contains(out, "registered hookctl in") {
						t.Fatalf("install --scope %s:\n%s", scope, out)
					}
					// Doctor, in the project, names the repository's file where it switches hookctl off.
					said := run(s.Hookctl, "doctor", "--agent", c.Agent)
					if warned := strings.Contains(said, "switches hooks off"); warned != (scope == "user") || scope == "managed" && !strings.Contains(said, "✓ "+installs[c.Agent].ManagedFile+" registers hookctl") {
						t.Errorf("%s %d: doctor:\n%s", scope, i, said)
					}
					s.RunEnv(t, env, "Try to change the project.", args...)
					_, err := os.Stat(filepath.Join(s.Dir, "made-by-the-model"))
					made, refused := err == nil, s.API.Saw("hookctl read-only: ")
					switch {
					case scope == "user" && (!made || refused):
						t.Errorf("control %d: the repository's %s did not switch off the user's hook (the file made %v, refused %v): the row proves nothing", i, repo, made, refused)
					case scope == "managed" && (made || !refused):
						t.Errorf("%d: the repository's %s switched off the managed hook (the file made %v, refused %v)", i, repo, made, refused)
					}
				}
			}
		})
	}
}

func strconvQuote(s string) string { b, _ := json.Marshal(s); return string(b) }

func writeFile(t *testing.T, path, text string) {
	t.Helper()
	os.MkdirAll(filepath.Dir(path), 0o755)
	if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
}

// TestManagedCursorInstall: Cursor runs no headless client here, so what holds is the file:
// `hookctl install --agent cursor --scope managed` writes Cursor's enterprise hooks file
// (/etc/cursor/hooks.json, at its real place in a mount namespace of its own) in the shape
// Cursor documents, failing closed; a second install changes nothing; doctor names it; a
// project's own .cursor/hooks.json, which Cursor runs beside the enterprise file (its documented
// order: enterprise, team, project, user; every matching hook runs), is not where it lives, so
// no repository can take it out; uninstall removes the file install created.
func TestManagedCursorInstall(t *testing.T) {
	requireTool(t, "unshare")
	if os.Geteuid() != 0 {
		t.Skip("install --scope managed writes a root-owned file: the test runs as root")
	}
	system := filepath.Dir(installs["cursor"].ManagedFile)
	machine := machineDir(t, "hookctl-managed-cursor-")
	home, project := t.TempDir(), t.TempDir()
	bin := hookctlBinary(t)
	// The project tries to own Cursor's hooks: an empty hooks file of its own.
	writeFile(t, filepath.Join(project, ".cursor", "hooks.json"), `{"version":1,"hooks":{}}`)
	run := func(args ...string) string {
		argv := agenttest.InPlace(t, machine, system, append([]string{bin}, args...)...)
		cmd := exec.Command(argv[0], argv[1:]...)
		cmd.Dir, cmd.Env = project, []string{"HOME=" + home, "HOOKCTL_HOME=" + filepath.Join(home, "hookctl"), "PATH=" + os.Getenv("PATH"), "LANG=C.UTF-8"}
		out, _ := cmd.CombinedOutput()
		return string(out)
	}
	if out := run("install", "--agent", "cursor", "--scope", "managed"); !strings.Contains(out, "registered hookctl in "+installs["cursor"].ManagedFile) {
		t.Fatalf("install:\n%s", out)
	}
	b, err := os.ReadFile(filepath.Join(machine, "hooks.json"))
	if err != nil {
		t.Fatal(err)
	}
	var file struct {
		Version int `json:"version"`
		Hooks   map[string][]struct {
			Command    string `json:"command"`
			Timeout    int    `json:"timeout"`
			FailClosed bool   `json:"failClosed"`
		} `json:"hooks"`
	}
	if err := json.Unmarshal(b, &file); err != nil {
		t.Fatalf("%v:\n%s", err, b)
	}
	pre := file.Hooks["preToolUse"]
	if file.Version != 1 || len(file.Hooks) != 1 || len(pre) != 1 || pre[0].Command != bin+" hook --agent cursor" || !pre[0].FailClosed || pre[0].Timeout != 30 {
		t.Errorf("the enterprise file is not Cursor's shape with hookctl failing closed:\n%s", b)
	}
	if out := run("install", "--agent", "cursor", "--scope", "managed"); !strings.Contains(out, "already registers hookctl") {
		t.Errorf("a second install:\n%s", out)
	}
	if out := run("doctor", "--agent", "cursor"); !strings.Contains(out, "✓ "+installs["cursor"].ManagedFile+" registers hookctl") {
		t.Errorf("doctor:\n%s", out)
	}
	if out := run("uninstall", "--agent", "cursor", "--scope", "managed"); !strings.Contains(out, "removed hookctl from") {
		t.Errorf("uninstall:\n%s", out)
	}
	if _, err := os.Stat(filepath.Join(machine, "hooks.json")); err == nil {
		t.Errorf("uninstall left the file install created")
	}
}
