package claude_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/hookctl/hookctl/agents/claude"
	ct "github.com/hookctl/hookctl/agents/claude/claudetest"
	"github.com/hookctl/hookctl/hook"
	"github.com/hookctl/hookctl/session"
)

// TestRealClientSessionModes drives one session of the real client through its modes, one
// claude -p turn at a time (--resume): a new session is read-only; the user's /readonly off
// switches it without reaching the model; the agent can then write, but cannot switch the mode
// itself, edit Claude Code's settings, or make an Explore subagent write; /readonly on restores
// read-only.
func TestRealClientSessionModes(t *testing.T) {
	s, hookctl, home := newSession(t)
	s.InitGitRepo(commitSubject)
	hookOn(s, hookctl, modeEvents...)
	cmd := claude.ReadonlyCommandPath(s.Home)
	os.MkdirAll(filepath.Dir(cmd), 0o755)
	os.WriteFile(cmd, claude.ReadonlyCommand, 0o644)
	// A project agent named Explore with every tool, so that its Write reaches the hook.
	s.WriteFile(".claude/agents/explore.md", "---\nname: Explore\ndescription: Explores the project.\n---\nYou explore the project.\n")

	f := filepath.Join(s.Project, "f")
	settings := filepath.Join(s.Project, ".claude", "settings.json")
	const marker = "SUBAGENT-MARKER-modes-51c2"
	main := []ct.Call{
		{Name: "Write", Input: map[string]any{"file_path": f, "content": "first\n"}},                                                            // 0: read-only: denied
		{Name: "Write", Input: map[string]any{"file_path": f, "content": "second\n"}},                                                           // 1: edit: runs
		ct.Bash("hookctl readonly off"),                                                                                                         // 2: the agent cannot change the mode
		{Name: "Read", Input: map[string]any{"file_path": settings}},                                                                            // 3: the client wants a Read before an Edit
		{Name: "Edit", Input: map[string]any{"file_path": settings, "old_string": `"hooks": {`, "new_string": `"env": {"X": "1"}, "hooks": {`}}, // 4: nor the settings (a valid edit: the client checks)
		{Name: "Agent", Input: map[string]any{"description": "Explore", "prompt": marker + ": look around.", "subagent_type": "Explore"}},       // 5
		{Name: "Write", Input: map[string]any{"file_path": f, "content": "third\n"}},                                                            // 6: read-only again: denied
	}
	s.Script = ct.Script{Main: main[:1], Marker: marker,
		Sub: []ct.Call{{Name: "Write", Input: map[string]any{"file_path": filepath.Join(s.Project, "g"), "content": "g\n"}}}}
	store := session.NewStore(home)
	mode := func(id string) hook.Mode {
		sess, err := store.Load(id)
		if err != nil {
			t.Fatalf("state of %s: %v", id, err)
		}
		return sess.Mode
	}
	content := func() string { b, _ := os.ReadFile(f); return string(b) }

	// 1. A new session is read-only.
	r := s.Run("Please change f.")
	id := r.Output.SessionID
	if id == "" {
		r.Fatalf(t, "no session id")
	}
	if tr, _ := s.API.ResultFor(ct.Main, 0); !tr.IsError || !strings.Contains(tr.Text, "read-only") || content() != "a\n" {
		r.Fatalf(t, "Write in a new session: is_error=%v %q; f=%q", tr.IsError, tr.Text, content())
	}
	if mode(id) != hook.ModeReadOnly {
		t.Fatalf("new session mode %v", mode(id))
	}
	s.Args = []string{"--resume", id}

	// 2. The user's /readonly off switches it, and the model never sees the command.
	before := len(s.API.Requests())
	r = s.Run("/readonly off")
	if mode(id) != hook.ModeEdit {
		r.Fatalf(t, "after /readonly off: %v", mode(id))
	}
	for _, q := range s.API.Requests()[before:] {
		if strings.Contains(string(q.Body), "/readonly") || strings.Contains(string(q.Body), "readonly off") {
			r.Fatalf(t, "the model was sent the /readonly command: %s", q.Path)
		}
	}

	// 3. In edit mode the agent writes, but cannot leave the mode to itself or touch settings,
	// and an Explore subagent stays read-only.
	s.Script.Main = main[:6]
	settingsBefore, _ := os.ReadFile(settings)
	r = s.Run("Now change f.")
	if content() != "second\n" {
		r.Fatalf(t, "Write in edit mode: f=%q", content())
	}
	if tr, _ := s.API.ResultFor(ct.Main, 2); !tr.IsError || !strings.Contains(tr.Text, "only the user may") {
		r.Errorf(t, "the agent's `hookctl readonly off`: is_error=%v %q", tr.IsError, tr.Text)
	}
	if mode(id) != hook.ModeEdit {
		t.Errorf("mode changed to %v", mode(id))
	}
	if tr, _ := s.API.ResultFor(ct.Main, 4); !tr.IsError || !strings.Contains(tr.Text, "only the user may change") {
		r.Errorf(t, "the agent's Edit of .claude/settings.json: is_error=%v %q", tr.IsError, tr.Text)
	}
	if b, _ := os.ReadFile(settings); string(b) != string(settingsBefore) {
		t.Errorf(".claude/settings.json changed")
	}
	if tr, _ := s.API.ResultFor(ct.Sub, 0); !tr.IsError || !strings.Contains(tr.Text, "This agent type is read-only") {
		r.Errorf(t, "Explore's Write in edit mode: is_error=%v %q", tr.IsError, tr.Text)
	}
	if _, err := os.Stat(filepath.Join(s.Project, "g")); err == nil {
		t.Errorf("the Explore subagent wrote g")
	}

	// 4. /readonly on restores read-only.
	r = s.Run("/readonly on")
	if mode(id) != hook.ModeReadOnly {
		r.Fatalf(t, "after /readonly on: %v", mode(id))
	}
	s.Script.Main = main
	r = s.Run("Change f once more.")
	if tr, _ := s.API.ResultFor(ct.Main, 6); !tr.IsError || content() != "second\n" {
		r.Fatalf(t, "Write after /readonly on: is_error=%v %q; f=%q", tr.IsError, tr.Text, content())
	}
	sess, _ := store.Load(id)
	var hows []string
	for _, c := range sess.History {
		hows = append(hows, c.How+":"+c.To.String())
	}
	if got := strings.Join(hows, " "); got != "new:read-only prompt:edit prompt:read-only" {
		t.Errorf("history %s", got)
	}
}
