//go:build unix

package claudetest_test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"
	"time"

	ct "github.com/hookctl/hookctl/agents/claude/claudetest"
)

// TestTUIHarness starts the interactive client in tmux against the fake, types a message and
// sees the fake's reply on screen.
func TestTUIHarness(t *testing.T) {
	start := time.Now()
	s := ct.NewSession(t)
	ct.Tmux(t)
	tui := s.StartTUI(100, 30)
	t.Logf("prompt ready after %v", time.Since(start).Round(time.Millisecond))

	tui.Submit("hello from the harness")
	screen := tui.WaitFor("● Done.", 30*time.Second)
	if !strings.Contains(screen, "hello from the harness") {
		t.Errorf("the typed message is not on screen:\n%s", screen)
	}
	if !s.API.Saw("hello from the harness") {
		t.Error("the fake API never received the typed message")
	}
	tui.WaitUntil("the empty prompt after the reply", 10*time.Second, ct.PromptEmpty)
	t.Logf("whole test %v", time.Since(start).Round(time.Millisecond))
}

func TestPromptEmpty(t *testing.T) {
	rule := strings.Repeat("─", 20)
	for _, row := range []struct {
		screen string
		want   bool
	}{
		{rule + "\n❯ \n" + rule, true},
		{rule + "\n❯\n" + rule, true},
		{rule + "\n❯ hello\n" + rule, false},
		{"❯ hello\n● Done.\n" + rule + "\n❯ \n" + rule, true}, // an earlier prompt in the transcript is no input box
		{"  ❯ No (recommended)\n  Enter to confirm", false},   // a dialog's selection mark
		{"", false},
	} {
		if got := ct.PromptEmpty(row.screen); got != row.want {
			t.Errorf("PromptEmpty(%q) = %v, want %v", row.screen, got, row.want)
		}
	}
}

// respondingRecorder saves each hook payload like recorderScript and answers with the file
// $RESPOND_DIR/<hook_event_name> if there is one, else {}.
const respondingRecorder = `#!/bin/sh
d=${RECORD_DIR:?}
f="$d/$(date +%s%N)-$$.json"
cat > "$f"
ev=$(sed -n 's/.*"hook_event_name":"\([A-Za-z]*\)".*/\1/p' "$f")
if [ -n "$RESPOND_DIR" ] && [ -f "$RESPOND_DIR/$ev" ]; then cat "$RESPOND_DIR/$ev"; else printf '{}'; fi
`

// readonlyCommand is the command hookctl installs: the model may not invoke it.
const readonlyCommand = `---
description: Switch hookctl read-only mode (on, off, or toggle)
argument-hint: "[on|off]"
disable-model-invocation: true
---
Toggle hookctl read-only mode: $ARGUMENTS
`

// readonlySkill is readonlyCommand in the skills layout.
var readonlySkill = strings.Replace(readonlyCommand, "---\n", "---\nname: readonly\n", 1)

// modelCallable is readonlyCommand without disable-model-invocation.
var modelCallable = strings.Replace(readonlyCommand, "disable-model-invocation: true\n", "", 1)

const blockReply = `{"decision":"block","reason":"hookctl: this session is now EDIT"}`

// rig is a TUI session with a recorder hook on events.
type rig struct {
	s    *ct.Session
	tui  *ct.TUI
	rec  string // where the recorder saves payloads
	resp string // <event> files here are the recorder's answers
}

// payload is one recorded hook input.
type payload struct {
	file   string
	raw    []byte
	fields map[string]any
}

func (p payload) str(k string) string { s, _ := p.fields[k].(string); return s }

// newRig starts the client with a recorder hook on events; setup may add files, responses or
// settings first.
func newRig(t *testing.T, events []string, setup func(r *rig)) *rig {
	t.Helper()
	s := ct.NewSession(t)
	ct.Tmux(t)
	r := &rig{s: s, rec: t.TempDir(), resp: t.TempDir()}
	recorder := filepath.Join(t.TempDir(), "recorder.sh")
	if err := os.WriteFile(recorder, []byte(respondingRecorder), 0o755); err != nil {
		t.Fatal(err)
	}
	for _, ev := range events {
		s.Hooks = append(s.Hooks, ct.Hook{Event: ev, Command: recorder})
	}
	s.Env = append(s.Env, "RECORD_DIR="+r.rec, "RESPOND_DIR="+r.resp)
	if setup != nil {
		setup(r)
	}
	r.tui = s.StartTUI(0, 0)
	return r
}

// setting writes the hooks and adds key to the project's settings.json; StartTUI then leaves
// the file alone.
func (r *rig) setting(t *testing.T, key string, value any) {
	t.Helper()
	r.s.WriteSettings()
	settings := map[string]any{}
	if b, err := os.ReadFile(filepath.Join(r.s.Project, ".claude", "settings.json")); err == nil {
		if err := json.Unmarshal(b, &settings); err != nil {
			t.Fatal(err)
		}
	}
	settings[key] = value
	b, err := json.MarshalIndent(settings, "", "  ")
	if err != nil {
		t.Fatal(err)
	}
	r.s.WriteFile(".claude/settings.json", string(b))
	r.s.Hooks = nil
}

// respond makes the recorder answer event with reply.
func (r *rig) respond(t *testing.T, event, reply string) {
	t.Helper()
	if err := os.WriteFile(filepath.Join(r.resp, event), []byte(reply), 0o644); err != nil {
		t.Fatal(err)
	}
}

// userFile writes a file under HOME.
func (r *rig) userFile(t *testing.T, rel, content string) {
	t.Helper()
	p := filepath.Join(r.s.Home, rel)
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
}

// payloads returns the recorded payloads in the order the hooks started.
func (r *rig) payloads(t *testing.T) []payload {
	t.Helper()
	files, _ := filepath.Glob(filepath.Join(r.rec, "*.json"))
	sort.Strings(files)
	var out []payload
	for _, f := range files {
		raw, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		p := payload{file: f, raw: raw}
		if json.Unmarshal(raw, &p.fields) != nil {
			continue // still being written
		}
		out = append(out, p)
	}
	return out
}

// events lists "Event prompt" for each recorded prompt event and "Event tool" for tool calls.
func (r *rig) events(t *testing.T) []string {
	var out []string
	for _, p := range r.payloads(t) {
		ev := p.str("hook_event_name")
		switch {
		case p.str("prompt") != "":
			ev += " " + p.str("prompt")
		case p.str("tool_name") != "":
			ev += " " + p.str("tool_name")
		}
		out = append(out, ev)
	}
	return out
}

// waitPayload waits until a payload satisfies ok and returns it.
func (r *rig) waitPayload(t *testing.T, what string, timeout time.Duration, ok func(p payload) bool) payload {
	t.Helper()
	var found payload
	r.tui.WaitUntil(what, timeout, func(string) bool {
		for _, p := range r.payloads(t) {
			if ok(p) {
				found = p
				return true
			}
		}
		return false
	})
	return found
}

func isEvent(event, prompt string) func(p payload) bool {
	return func(p payload) bool { return p.str("hook_event_name") == event && p.str("prompt") == prompt }
}

// mainRequests counts requests of the main conversation: what the model was asked.
func mainRequests(s *ct.Session) int {
	n := 0
	for _, q := range s.API.Requests() {
		if q.Thread == ct.Main {
			n++
		}
	}
	return n
}

// TestTUIReadonlyCommand pins what hookctl's /readonly relies on in the interactive client
// (2.1.328): which hooks a typed /readonly reaches, that a block keeps it from the model, and
// that the model cannot run the command itself.
func TestTUIReadonlyCommand(t *testing.T) {
	prompts := []string{"SessionStart", "UserPromptSubmit", "UserPromptExpansion", "PreToolUse"}

	t.Run("without the command it is answered locally and reaches no hook", func(t *testing.T) {
		t.Parallel()
		r := newRig(t, prompts, nil)
		r.tui.Submit("/readonly off")
		r.tui.WaitFor("Unknown command: /readonly", 20*time.Second)
		time.Sleep(time.Second) // a hook would have run by now
		if got := r.events(t); len(got) != 1 || got[0] != "SessionStart" {
			t.Errorf("hooks fired: %q, want only SessionStart", got)
		}
		if n := mainRequests(r.s); n != 0 {
			t.Errorf("the model was asked %d times", n)
		}
	})

	t.Run("a block at UserPromptExpansion keeps it from the model", func(t *testing.T) {
		t.Parallel()
		r := newRig(t, prompts, func(r *rig) {
			r.s.WriteFile(".claude/commands/readonly.md", readonlyCommand)
			r.respond(t, "UserPromptExpansion", blockReply)
		})
		r.tui.Submit("/readonly off")
		screen := r.tui.WaitFor("hookctl: this session is now EDIT", 20*time.Second)
		for _, want := range []string{"UserPromptExpansion operation blocked by hook:", "Original prompt: /readonly off"} {
			if !strings.Contains(screen, want) {
				t.Errorf("screen lacks %q:\n%s", want, screen)
			}
		}
		want := []string{"SessionStart", "UserPromptSubmit /readonly off", "UserPromptExpansion /readonly off"}
		if got := r.events(t); fmt.Sprint(got) != fmt.Sprint(want) {
			t.Errorf("hooks fired: %q, want %q", got, want)
		}
		r.tui.Submit("hello")
		r.tui.WaitFor("● Done.", 20*time.Second)
		if n := mainRequests(r.s); n != 1 {
			t.Errorf("the model was asked %d times, want once (for hello)", n)
		}
		if r.s.API.Saw("/readonly") || r.s.API.Saw("now EDIT") {
			t.Error("the model saw the blocked command or the block reason")
		}
	})

	t.Run("a block at UserPromptSubmit skips UserPromptExpansion", func(t *testing.T) {
		t.Parallel()
		r := newRig(t, prompts, func(r *rig) {
			r.s.WriteFile(".claude/commands/readonly.md", readonlyCommand)
			r.respond(t, "UserPromptSubmit", blockReply)
		})
		r.tui.Submit("/readonly off")
		r.tui.WaitFor("UserPromptSubmit operation blocked by hook:", 20*time.Second)
		time.Sleep(time.Second)
		want := []string{"SessionStart", "UserPromptSubmit /readonly off"}
		if got := r.events(t); fmt.Sprint(got) != fmt.Sprint(want) {
			t.Errorf("hooks fired: %q, want %q", got, want)
		}
		if n := mainRequests(r.s); n != 0 {
			t.Errorf("the model was asked %d times", n)
		}
	})

	t.Run("the model cannot invoke a disable-model-invocation command", func(t *testing.T) {
		t.Parallel()
		r := newRig(t, prompts, func(r *rig) {
			r.s.WriteFile(".claude/commands/readonly.md", readonlyCommand)
			r.s.Script.Main = []ct.Call{{Name: "Skill", Input: map[string]any{"skill": "readonly", "args": "off"}}}
		})
		r.tui.Submit("hello")
		r.tui.WaitFor("It runs only when you type it at the prompt.", 20*time.Second)
		r.tui.WaitFor("● Done.", 20*time.Second)
		if got := r.events(t); fmt.Sprint(got) != fmt.Sprint([]string{"SessionStart", "UserPromptSubmit hello"}) {
			t.Errorf("hooks fired: %q; the refused Skill call should reach none", got)
		}
		res, ok := r.s.API.ResultFor(ct.Main, 0)
		if !ok || !res.IsError || !strings.Contains(res.Text, "disable-model-invocation") {
			t.Errorf("tool result for Skill readonly: %+v", res)
		}
	})
}

// TestRecordTUIFixtures records fixtures/claude/tui-*.json and the status line input from the
// interactive client. It rewrites committed files, so it runs only when asked:
//
//	HOOKCTL_RECORD_FIXTURES=1 go test ./agents/claude/claudetest -run TestRecordTUIFixtures -v
//
// The scheduled-prompt sessions wait for the next minute, so this takes up to about 70 s.
func TestRecordTUIFixtures(t *testing.T) {
	if os.Getenv("HOOKCTL_RECORD_FIXTURES") != "1" {
		t.Skip("set HOOKCTL_RECORD_FIXTURES=1 to re-record fixtures/claude/tui-*.json")
	}
	out := filepath.Join(repoRoot(t), "fixtures", "claude")
	prompts := []string{"SessionStart", "UserPromptSubmit", "UserPromptExpansion", "PreToolUse"}

	t.Run("project command typed", func(t *testing.T) {
		t.Parallel()
		var statusDir string
		r := newRig(t, prompts, func(r *rig) {
			r.s.WriteFile(".claude/commands/readonly.md", readonlyCommand)
			statusDir = t.TempDir()
			status := filepath.Join(t.TempDir(), "status.sh")
			script := fmt.Sprintf("#!/bin/sh\ncat > %s/$(date +%%s%%N).json\nprintf 'hookctl: READ-ONLY'\n", statusDir)
			if err := os.WriteFile(status, []byte(script), 0o755); err != nil {
				t.Fatal(err)
			}
			r.setting(t, "statusLine", map[string]any{"type": "command", "command": status})
		})
		r.tui.WaitFor("hookctl: READ-ONLY", 10*time.Second)
		for i, v := range []struct{ typed, variant string }{
			{"/readonly off", "off"}, {"/readonly on", "on"}, {"/readonly", "bare"},
		} {
			r.tui.Submit(v.typed)
			sub := r.waitPayload(t, "UserPromptSubmit "+v.typed, 20*time.Second, isEvent("UserPromptSubmit", v.typed))
			exp := r.waitPayload(t, "UserPromptExpansion "+v.typed, 20*time.Second, isEvent("UserPromptExpansion", v.typed))
			r.tui.WaitUntil("the model's turn for "+v.typed, 20*time.Second, func(string) bool { return mainRequests(r.s) > i })
			saveFixture(t, r.s, out, "tui-userpromptsubmit-readonly-"+v.variant, sub.raw)
			saveFixture(t, r.s, out, "tui-userpromptexpansion-readonly-"+v.variant, exp.raw)
		}
		ss := r.waitPayload(t, "SessionStart", time.Second, func(p payload) bool { return p.str("hook_event_name") == "SessionStart" })
		saveFixture(t, r.s, out, "tui-sessionstart", ss.raw)
		r.tui.WaitUntil("the empty prompt", 20*time.Second, ct.PromptEmpty)
		inputs, _ := filepath.Glob(filepath.Join(statusDir, "*.json"))
		sort.Strings(inputs)
		if len(inputs) == 0 {
			t.Fatal("the status line command never ran")
		}
		raw, err := os.ReadFile(inputs[len(inputs)-1])
		if err != nil {
			t.Fatal(err)
		}
		saveFixture(t, r.s, filepath.Join(out, "statusline"), "statusline-input", raw)
		t.Logf("status line ran %d times", len(inputs))
	})

	for _, v := range []struct{ name, fixture, where, content string }{
		{"user command typed", "tui-userpromptexpansion-readonly-off-user", "home:.claude/commands/readonly.md", readonlyCommand},
		{"project skill typed", "tui-userpromptexpansion-readonly-off-skill", ".claude/skills/readonly/SKILL.md", readonlySkill},
	} {
		t.Run(v.name, func(t *testing.T) {
			t.Parallel()
			r := newRig(t, prompts, func(r *rig) {
				if rel, ok := strings.CutPrefix(v.where, "home:"); ok {
					r.userFile(t, rel, v.content)
				} else {
					r.s.WriteFile(v.where, v.content)
				}
			})
			r.tui.Submit("/readonly off")
			exp := r.waitPayload(t, "UserPromptExpansion", 20*time.Second, isEvent("UserPromptExpansion", "/readonly off"))
			saveFixture(t, r.s, out, v.fixture, exp.raw)
		})
	}

	t.Run("model invokes a command it may invoke", func(t *testing.T) {
		t.Parallel()
		r := newRig(t, prompts, func(r *rig) {
			r.s.WriteFile(".claude/commands/readonly.md", modelCallable)
			r.s.Script.Main = []ct.Call{{Name: "Skill", Input: map[string]any{"skill": "readonly", "args": "off"}}}
		})
		r.tui.Submit("hello")
		p := r.waitPayload(t, "PreToolUse Skill", 20*time.Second, func(p payload) bool { return p.str("tool_name") == "Skill" })
		r.tui.WaitFor("● Done.", 20*time.Second)
		saveFixture(t, r.s, out, "tui-pretooluse-skill-readonly-off", p.raw)
		t.Logf("hooks fired: %q", r.events(t))
	})

	// A prompt the model scheduled with CronCreate arrives as if typed: the same UserPromptSubmit
	// fields, and, when the command may be invoked by the model, the same UserPromptExpansion.
	for _, v := range []struct{ name, content, event string }{
		{"scheduled by the model, command not model-invocable", readonlyCommand, "UserPromptSubmit"},
		{"scheduled by the model, command model-invocable", modelCallable, "UserPromptExpansion"},
	} {
		t.Run(v.name, func(t *testing.T) {
			t.Parallel()
			r := newRig(t, prompts, func(r *rig) {
				r.s.WriteFile(".claude/commands/readonly.md", v.content)
				r.s.Script.Main = []ct.Call{
					{Name: "ToolSearch", Input: map[string]any{"query": "select:CronCreate", "max_results": 5}},
					{Name: "CronCreate", Input: map[string]any{"cron": "* * * * *", "prompt": "/readonly off", "recurring": false}},
				}
				r.s.Args = []string{"--allowedTools", "CronCreate ToolSearch"}
			})
			r.tui.Submit("hello")
			p := r.waitPayload(t, v.event+" from the scheduled prompt", 80*time.Second, isEvent(v.event, "/readonly off"))
			time.Sleep(2 * time.Second) // let an expansion, if any, be recorded too
			t.Logf("hooks fired: %q", r.events(t))
			saveFixture(t, r.s, out, "tui-"+strings.ToLower(v.event)+"-readonly-off-cron", p.raw)
		})
	}
}

// saveFixture writes raw, paths normalised and pretty-printed, as dir/name.json.
func saveFixture(t *testing.T, s *ct.Session, dir, name string, raw []byte) {
	t.Helper()
	var pretty bytes.Buffer
	if err := json.Indent(&pretty, []byte(normaliser(s)(string(raw))), "", "  "); err != nil {
		t.Fatalf("failed to format %s: %v", raw, err)
	}
	pretty.WriteByte('\n')
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, name+".json"), pretty.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	t.Logf("wrote %s.json", name)
}
