package agenttest

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	ct "github.com/hookctl/hookctl/agents/claude/claudetest"
)

// The clients, as the end-to-end tests drive them. Each one's facts are recorded from the live
// client at its Version.

// Clients are every client hookctl has an adapter for, in the order the tests report them.
var Clients = []*Client{Claude, Codex, Gemini, Copilot, Qwen, Cursor}

// Claude is Claude Code (`claude -p`) against the fake Messages API (claudetest), hookctl
// registered in the project's .claude/settings.json. It writes a file only after reading it, so
// the fake model reads a file before each write.
var Claude = &Client{
	Name: "Claude Code", Agent: "claude", Version: ct.Version, Find: ct.Binary,
	NewAPI: func(t testing.TB, script []Step) API {
		var calls []ct.Call
		for _, s := range script {
			if s.Write != "" {
				calls = append(calls, ct.Call{Name: "Read", Input: map[string]any{"file_path": s.Write}},
					ct.Call{Name: "Write", Input: map[string]any{"file_path": s.Write, "content": s.Content}})
				continue
			}
			calls = append(calls, ct.Bash(s.Shell))
		}
		return claudeAPI{ct.NewAPI(t, ct.Script{Main: calls})}
	},
	Configure: func(t testing.TB, p *Project, _ API, hook string) {
		if hook == "" {
			return
		}
		writeBytes(t, filepath.Join(p.Dir, ".claude", "settings.json"),
			ct.Settings([]ct.Hook{{Command: hook}, {Event: "SessionStart", Command: hook}}))
	},
	Env: func(p *Project, api API) []string {
		return append(ct.Environ(p.Home, api.URL()), "HOOKCTL_HOME="+filepath.Join(p.Base, "hookctl"))
	},
	Args:    []string{"--output-format", "json", "--allowedTools", ct.AllowedTools, "-p"},
	Timeout: 60 * time.Second,
	Refused: "", WriteTool: "Write", ShellTool: "Bash", TellsMode: true,
	SessionID: func(out string) string {
		var r struct {
			SessionID string `json:"session_id"`
		}
		lines := strings.Split(strings.TrimSpace(out), "\n")
		json.Unmarshal([]byte(lines[len(lines)-1]), &r) // the result is the last line
		return r.SessionID
	},
}

// claudeAPI is claudetest's fake as an API.
type claudeAPI struct{ *ct.API }

func (a claudeAPI) Requests() []string {
	var out []string
	for _, r := range a.API.Requests() {
		out = append(out, string(r.Body))
	}
	return out
}

func (a claudeAPI) ToolNames() []string { return a.Tools(ct.Main) }

// Codex is `codex exec` against the fake Responses API, its features that reach out at start-up
// off, with hookctl in $CODEX_HOME/hooks.json for PreToolUse and SessionStart. A hook it has not
// been told to trust runs only under --dangerously-bypass-hook-trust (install writes the trust).
var Codex = &Client{
	Name: "Codex", Agent: "codex", Version: "0.169.0", Cache: "codex", Bin: "codex", Pkg: "@openai/codex",
	NewAPI: func(t testing.TB, script []Step) API { return NewResponses(t, script) },
	Configure: func(t testing.TB, p *Project, api API, hook string) {
		home := CodexHome(p)
		writeFile(t, filepath.Join(home, "config.toml"), CodexConfig(api.URL()))
		if hook != "" {
			group := []any{map[string]any{"hooks": []any{map[string]any{"type": "command", "command": hook, "timeout": 30}}}}
			b, _ := json.Marshal(map[string]any{"hooks": map[string]any{"PreToolUse": group, "SessionStart": group}})
			writeBytes(t, filepath.Join(home, "hooks.json"), b)
		}
	},
	Env: func(p *Project, api API) []string {
		return []string{"HOME=" + p.Home, "CODEX_HOME=" + CodexHome(p), "HOOKCTL_FAKE_KEY=x", "HOOKCTL_HOME=" + filepath.Join(p.Base, "hookctl"),
			"PATH=" + os.Getenv("PATH"), "LANG=C.UTF-8"}
	},
	Args:    []string{"exec", "--skip-git-repo-check", "-s", "danger-full-access", "--dangerously-bypass-hook-trust"},
	Timeout: 90 * time.Second,
	Refused: "Command blocked by PreToolUse hook: ", WriteTool: "apply_patch", ShellTool: "Bash", TellsMode: true,
	SessionID: func(out string) string {
		if _, id, ok := strings.Cut(out, "session id: "); ok && len(strings.Fields(id)) > 0 {
			return strings.Fields(id)[0]
		}
		return ""
	},
	Fixtures: "codex",
}

// CodexHome is $CODEX_HOME in p.
func CodexHome(p *Project) string { return filepath.Join(p.Home, ".codex") }

// CodexConfig is the config.toml of a Codex that talks only to the fake at url: the features
// that reach out at start-up are off.
func CodexConfig(url string) string {
	return `model = "gpt-5.5"
model_provider = "fake"

[model_providers.fake]
name = "fake"
base_url = "` + url + `"
wire_api = "responses"
env_key = "HOOKCTL_FAKE_KEY"

[features]
plugins = false
remote_plugin = false
apps = false
in_app_updates = false
`
}

// Gemini is Gemini CLI (-p, yolo) against the fake Gemini API, with hookctl in
// ~/.gemini/settings.json as its BeforeTool hook.
var Gemini = &Client{
	Name: "Gemini CLI", Agent: "gemini", Version: "0.61.0", Cache: "gemini-cli", Bin: "gemini", Pkg: "@google/gemini-cli",
	NewAPI: func(t testing.TB, script []Step) API { return NewGenerateContent(t, script) },
	Configure: func(t testing.TB, p *Project, _ API, hook string) {
		geminiSettings(t, filepath.Join(p.Home, ".gemini", "settings.json"), "gemini-api-key", "BeforeTool", ".*",
			map[string]any{"type": "command", "name": "hookctl", "command": hook, "timeout": 30000})
	},
	Env: func(p *Project, api API) []string {
		return []string{"HOME=" + p.Home, "PATH=" + os.Getenv("PATH"), "GEMINI_API_KEY=x", "GOOGLE_GEMINI_BASE_URL=" + api.URL(),
			"GEMINI_CLI_TRUST_WORKSPACE=true", "HOOKCTL_HOME=" + filepath.Join(p.Base, "hookctl"), "LANG=C.UTF-8"}
	},
	Args:    []string{"--approval-mode", "yolo", "-p"},
	Timeout: 120 * time.Second,
	Refused: "Tool execution blocked: ", WriteTool: "write_file", ShellTool: "run_shell_command",
	Fixtures: "gemini",
}

// Copilot is Copilot CLI (-p, every tool allowed, offline, no GitHub login) against the fake
// Chat Completions API, with hookctl in ~/.copilot/hooks as its camelCase preToolUse hook.
// Copilot unpacks about 235 MB into ~/.cache/copilot/pkg on its first run; the Project's HOME
// links that directory to .cache/copilot-pkg, so the unpacking happens once per checkout.
var Copilot = &Client{
	Name: "Copilot CLI", Agent: "copilot", Version: "1.0.102", Cache: "copilot", Bin: "copilot", Pkg: "@github/copilot",
	NewAPI: func(t testing.TB, script []Step) API { return NewChat(t, script) },
	Configure: func(t testing.TB, p *Project, _ API, hook string) {
		link := filepath.Join(p.Home, ".cache", "copilot")
		if _, err := os.Lstat(link); err != nil {
			pkg := filepath.Join(RepoRoot(t), ".cache", "copilot-pkg")
			if err := os.MkdirAll(pkg, 0o755); err != nil {
				t.Fatal(err)
			}
			if err := os.MkdirAll(filepath.Dir(link), 0o755); err != nil {
				t.Fatal(err)
			}
			if err := os.Symlink(pkg, link); err != nil {
				t.Fatal(err)
			}
		}
		if hook != "" {
			b, _ := json.Marshal(map[string]any{"version": 1, "hooks": map[string]any{"preToolUse": []any{
				map[string]any{"type": "command", "bash": hook, "timeoutSec": 30}}}})
			writeBytes(t, filepath.Join(p.Home, ".copilot", "hooks", "recording.json"), b)
		}
	},
	Env: func(p *Project, api API) []string {
		return []string{"HOME=" + p.Home, "PATH=" + os.Getenv("PATH"), "COPILOT_OFFLINE=true", "COPILOT_AUTO_UPDATE=false",
			"COPILOT_PROVIDER_BASE_URL=" + api.URL(), "COPILOT_PROVIDER_API_KEY=x", "COPILOT_MODEL=gpt-4.1",
			"HOOKCTL_HOME=" + filepath.Join(p.Base, "hookctl"), "LANG=C.UTF-8"}
	},
	Args:    []string{"--allow-all-tools", "-p"},
	Timeout: 240 * time.Second,
	Refused: "Denied by preToolUse hook: ", WriteTool: "create", ShellTool: "bash",
	Fixtures: "copilot",
}

// Qwen is Qwen Code (-p, yolo) against the fake Chat Completions API, with hookctl in
// ~/.qwen/settings.json as its PreToolUse hook. It takes no rewritten input.
var Qwen = &Client{
	Name: "Qwen Code", Agent: "qwen", Version: "0.24.4", Cache: "qwen-code", Bin: "qwen", Pkg: "@qwen-code/qwen-code",
	NewAPI: func(t testing.TB, script []Step) API {
		c := NewChat(t, script)
		c.asksAgain = true // it drops a command's output now and then (LostOutput)
		return c
	},
	Configure: func(t testing.TB, p *Project, _ API, hook string) {
		geminiSettings(t, filepath.Join(p.Home, ".qwen", "settings.json"), "openai", "PreToolUse", "*",
			map[string]any{"type": "command", "command": hook, "timeout": 30000})
	},
	Env: func(p *Project, api API) []string {
		return []string{"HOME=" + p.Home, "PATH=" + os.Getenv("PATH"), "OPENAI_BASE_URL=" + api.URL(), "OPENAI_API_KEY=x",
			"OPENAI_MODEL=gpt-4.1", "HOOKCTL_HOME=" + filepath.Join(p.Base, "hookctl"), "LANG=C.UTF-8"}
	},
	Args:    []string{"--approval-mode", "yolo", "-p"},
	Timeout: 120 * time.Second,
	Refused: "", WriteTool: "write_file", ShellTool: "run_shell_command", AsWritten: true,
	Fixtures: "qwen",
}

// Cursor has an adapter built from its documentation alone.
var Cursor = &Client{
	Name: "Cursor", Agent: "cursor",
	Absent: "no Cursor client runs here: it is a desktop application with no offline, scriptable mode " +
		"(agents/cursor is built from its documentation, fixtures/cursor written by hand)",
}

// geminiSettings writes a settings.json of Gemini CLI's shape (Qwen Code's is a fork of it): the
// auth type and, where entry has a command, the hook entry for event under matcher.
func geminiSettings(t testing.TB, path, auth, event, matcher string, entry map[string]any) {
	settings := map[string]any{"security": map[string]any{"auth": map[string]any{"selectedType": auth}}}
	if entry["command"] != "" {
		settings["hooks"] = map[string]any{event: []any{map[string]any{"matcher": matcher, "hooks": []any{entry}}}}
	}
	b, _ := json.MarshalIndent(settings, "", "  ")
	writeBytes(t, path, b)
}

func writeFile(t testing.TB, path, content string) { writeBytes(t, path, []byte(content)) }

// writeBytes writes b to path, making its directory.
func writeBytes(t testing.TB, path string, b []byte) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, b, 0o644); err != nil {
		t.Fatal(err)
	}
}
