package claudetest_test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"sort"
	"strings"
	"testing"

	ct "github.com/hookctl/hookctl/agents/claude/claudetest"
)

// exploreMarker tells the fake which requests are the Explore subagent's.
const exploreMarker = "SUBAGENT-MARKER-explore-5c1e"

// named is a scripted call and the fixture its PreToolUse payload is saved as ("" saves none).
type named struct {
	fixture string
	call    ct.Call
}

func call(name string, input map[string]any) ct.Call { return ct.Call{Name: name, Input: input} }

// recorderScript saves each hook payload from stdin as $RECORD_DIR/<nanoseconds>-<pid>.json and
// prints {}, the answer that expresses no opinion.
const recorderScript = `#!/bin/sh
d=${RECORD_DIR:?}
cat > "$d/$(date +%s%N)-$$.json"
printf '{}'
`

// TestRecordFixtures re-records fixtures/claude from the real client. It rewrites committed files,
// so it runs only when asked: HOOKCTL_RECORD_FIXTURES=1 go test ./agents/claude/claudetest -run TestRecordFixtures
//
// Two sessions are recorded. In the first, the main thread and then Claude Code's built-in Explore
// subagent call every tool they are offered (and a few they are not, to show that those never
// reach a hook). The built-in Explore is not offered Write, Edit or NotebookEdit, so the second
// session defines a project agent named Explore with every tool and records those calls from it.
func TestRecordFixtures(t *testing.T) {
	if os.Getenv("HOOKCTL_RECORD_FIXTURES") != "1" {
		t.Skip("set HOOKCTL_RECORD_FIXTURES=1 to re-record fixtures/claude")
	}
	out := filepath.Join(repoRoot(t), "fixtures", "claude")
	t.Run("built-in Explore", func(t *testing.T) {
		s := ct.NewSession(t)
		p := func(rel string) string { return filepath.Join(s.Project, rel) }
		deferred := "select:NotebookEdit,WebFetch,WebSearch,Monitor,CronCreate,CronList,CronDelete,TaskStop,SendMessage,EnterWorktree,ExitWorktree"
		mainCalls := []named{
			{"main-bash-ls", ct.Bash("ls -la")},
			{"main-read", call("Read", map[string]any{"file_path": p("f")})},
			{"main-edit", call("Edit", map[string]any{"file_path": p("f"), "old_string": "a", "new_string": "b"})},
			{"main-write", call("Write", map[string]any{"file_path": p("new.txt"), "content": "x\n"})},
			{"main-grep", call("Grep", map[string]any{"pattern": "a", "output_mode": "content"})},
			{"main-glob", call("Glob", map[string]any{"pattern": "**/*"})},
			{"main-toolsearch", call("ToolSearch", map[string]any{"query": deferred, "max_results": 20})},
			{"", call("Read", map[string]any{"file_path": p("nb.ipynb")})},
			{"main-notebookedit", call("NotebookEdit", map[string]any{"notebook_path": p("nb.ipynb"), "cell_id": "c1", "new_source": "print(2)"})},
			{"main-webfetch", call("WebFetch", map[string]any{"url": "https://example.com/", "prompt": "summarise"})},
			{"main-websearch", call("WebSearch", map[string]any{"query": "hookctl"})},
			{"main-todowrite", call("TodoWrite", map[string]any{"todos": []any{map[string]any{"content": "x", "status": "pending", "activeForm": "doing x"}}})},
			{"main-listagents", call("ListAgents", map[string]any{})},
			{"main-skill", call("Skill", map[string]any{"skill": "greet"})},
			{"main-reportfindings", call("ReportFindings", map[string]any{"findings": []any{}})},
			{"main-monitor", call("Monitor", map[string]any{"description": "watch", "timeout_ms": 2000, "command": "echo tick"})},
			{"main-croncreate", call("CronCreate", map[string]any{"cron": "0 0 1 1 *", "prompt": "hello", "recurring": false})},
			{"main-cronlist", call("CronList", map[string]any{})},
			{"main-crondelete", call("CronDelete", map[string]any{"id": "no-such-job"})},
			{"main-taskstop", call("TaskStop", map[string]any{"task_id": "no-such-task"})},
			{"main-sendmessage", call("SendMessage", map[string]any{"to": "nobody", "message": "hello"})},
			{"main-schedulewakeup", call("ScheduleWakeup", map[string]any{"stop": true})},
			{"main-workflow", call("Workflow", map[string]any{"name": "no-such-workflow"})},
			{"main-bash-sed-i", ct.Bash("sed -i s/a/b/ f")},
			{"main-bash-echo-redirect", ct.Bash("echo x > f")},
			{"main-bash-git-log", ct.Bash("git log --oneline -3")},
			{"main-agent", agentCall("look around this project")},
		}
		subCalls := []named{
			{"explore-bash-ls", ct.Bash("ls -la")},
			{"explore-read", call("Read", map[string]any{"file_path": p("f")})},
			{"explore-grep", call("Grep", map[string]any{"pattern": "a", "output_mode": "content"})},
			{"explore-glob", call("Glob", map[string]any{"pattern": "**/*"})},
			{"explore-listagents", call("ListAgents", map[string]any{})},
			{"explore-skill", call("Skill", map[string]any{"skill": "greet"})},
			{"explore-reportfindings", call("ReportFindings", map[string]any{"findings": []any{}})},
			{"explore-toolsearch", call("ToolSearch", map[string]any{"query": deferred, "max_results": 20})},
			{"explore-webfetch", call("WebFetch", map[string]any{"url": "https://example.com/", "prompt": "summarise"})},
			{"explore-websearch", call("WebSearch", map[string]any{"query": "hookctl"})},
			{"explore-monitor-echo-redirect", call("Monitor", map[string]any{"description": "watch", "timeout_ms": 2000, "command": "echo x > m"})},
			{"explore-croncreate", call("CronCreate", map[string]any{"cron": "0 0 1 1 *", "prompt": "hello", "recurring": false})},
			{"explore-cronlist", call("CronList", map[string]any{})},
			{"explore-crondelete", call("CronDelete", map[string]any{"id": "no-such-job"})},
			{"explore-taskstop", call("TaskStop", map[string]any{"task_id": "no-such-task"})},
			{"explore-sendmessage", call("SendMessage", map[string]any{"to": "main", "message": "hello"})},
			{"explore-bash-sed-i", ct.Bash("sed -i s/a/b/ f")},
			{"explore-bash-echo-redirect", ct.Bash("echo x > f")},
			{"explore-bash-git-log", ct.Bash("git log --oneline -3")},
			{"explore-write", call("Write", map[string]any{"file_path": p("new2.txt"), "content": "x\n"})},
			{"explore-edit", call("Edit", map[string]any{"file_path": p("f"), "old_string": "a", "new_string": "b"})},
			{"explore-notebookedit", call("NotebookEdit", map[string]any{"notebook_path": p("nb.ipynb"), "cell_id": "c1", "new_source": "print(3)"})},
			{"explore-todowrite", call("TodoWrite", map[string]any{"todos": []any{map[string]any{"content": "x", "status": "pending", "activeForm": "doing x"}}})},
			// Last: entering a worktree moves the agent's working directory.
			{"explore-enterworktree", call("EnterWorktree", map[string]any{"name": "wt"})},
			{"explore-exitworktree", call("ExitWorktree", map[string]any{"action": "remove", "discard_changes": true})},
		}
		record(t, s, out, mainCalls, subCalls, []string{"PreToolUse", "SessionStart", "UserPromptSubmit", "SubagentStart"})
	})
	t.Run("project Explore with every tool", func(t *testing.T) {
		s := ct.NewSession(t)
		p := func(rel string) string { return filepath.Join(s.Project, rel) }
		s.WriteFile(".claude/agents/explore.md", "---\nname: Explore\ndescription: Explores the project.\n---\nYou explore the project.\n")
		mainCalls := []named{{"", agentCall("look around this project")}}
		subCalls := []named{
			{"", call("Read", map[string]any{"file_path": p("f")})},
			{"explore-write-project-agent", call("Write", map[string]any{"file_path": p("f"), "content": "x\n"})},
			{"explore-edit-project-agent", call("Edit", map[string]any{"file_path": p("f"), "old_string": "x", "new_string": "y"})},
			{"", call("ToolSearch", map[string]any{"query": "select:NotebookEdit", "max_results": 5})},
			{"", call("Read", map[string]any{"file_path": p("nb.ipynb")})},
			{"explore-notebookedit-project-agent", call("NotebookEdit", map[string]any{"notebook_path": p("nb.ipynb"), "cell_id": "c1", "new_source": "print(3)"})},
		}
		record(t, s, out, mainCalls, subCalls, []string{"PreToolUse"})
	})
}

func agentCall(task string) ct.Call {
	return call("Agent", map[string]any{"description": "Explore the project",
		"prompt": exploreMarker + ": " + task, "subagent_type": "Explore", "run_in_background": false})
}

// record plays the calls in s with a recorder hook on events and saves each payload of a named
// call (and of SessionStart, UserPromptSubmit, SubagentStart) as out/<name>.json.
func record(t *testing.T, s *ct.Session, out string, mainCalls, subCalls []named, events []string) {
	s.Script.Marker = exploreMarker
	for _, c := range mainCalls {
		s.Script.Main = append(s.Script.Main, c.call)
	}
	for _, c := range subCalls {
		s.Script.Sub = append(s.Script.Sub, c.call)
	}
	s.InitGitRepo(commitSubject)
	s.WriteFile(".claude/skills/greet/SKILL.md", "---\nname: greet\ndescription: Say hello.\n---\nSay hello.\n")
	s.WriteFile("nb.ipynb", notebook)

	rec := t.TempDir()
	recorder := filepath.Join(t.TempDir(), "recorder.sh")
	if err := os.WriteFile(recorder, []byte(recorderScript), 0o755); err != nil {
		t.Fatal(err)
	}
	for _, ev := range events {
		s.Hooks = append(s.Hooks, ct.Hook{Event: ev, Command: recorder})
	}
	s.Env = append(s.Env, "RECORD_DIR="+rec)
	res := s.Run("Look around this project.")

	t.Logf("client %s run took %v", ct.Version, res.Duration)
	t.Logf("main thread tools: %v", s.API.Tools(ct.Main))
	t.Logf("Explore tools: %v", s.API.Tools(ct.Sub))
	for _, tr := range s.API.ToolResults() {
		t.Logf("%s %s %s is_error=%v: %.200q", tr.Thread, tr.ToolUseID, tr.Tool, tr.IsError, tr.Text)
	}
	for _, d := range res.Output.PermissionDenials {
		t.Logf("permission_denials: %s %s", d.ToolUseID, d.ToolName)
	}

	byID := map[string]string{}
	for i, c := range mainCalls {
		byID[fmt.Sprintf("toolu_main_%02d", i)] = c.fixture
	}
	for i, c := range subCalls {
		byID[fmt.Sprintf("toolu_sub_%02d", i)] = c.fixture
	}
	files, _ := filepath.Glob(filepath.Join(rec, "*.json"))
	sort.Strings(files)
	norm := normaliser(s)
	var written []string
	for _, f := range files {
		raw, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		var payload struct {
			Event     string `json:"hook_event_name"`
			ToolUseID string `json:"tool_use_id"`
		}
		if err := json.Unmarshal(raw, &payload); err != nil {
			t.Fatalf("failed to parse recorded payload %s: %v", raw, err)
		}
		name := byID[payload.ToolUseID]
		switch payload.Event {
		case "SessionStart", "UserPromptSubmit":
			name = "main-" + strings.ToLower(payload.Event)
		case "SubagentStart":
			name = "explore-subagentstart"
		}
		if name == "" || slices.Contains(written, name) {
			continue
		}
		var pretty bytes.Buffer
		if err := json.Indent(&pretty, []byte(norm(string(raw))), "", "  "); err != nil {
			t.Fatal(err)
		}
		pretty.WriteByte('\n')
		if err := os.WriteFile(filepath.Join(out, name+".json"), pretty.Bytes(), 0o644); err != nil {
			t.Fatal(err)
		}
		written = append(written, name)
	}
	var missing []string
	for _, c := range append(mainCalls, subCalls...) {
		if c.fixture != "" && !slices.Contains(written, c.fixture) {
			missing = append(missing, c.fixture)
		}
	}
	t.Logf("wrote %d fixtures; no PreToolUse payload for: %v", len(written), missing)
}

// normaliser rewrites the temporary paths of s to /home/user and /home/user/proj, including the
// client's per-project folder name under ~/.claude/projects.
func normaliser(s *ct.Session) func(string) string {
	slug := regexp.MustCompile(`[^A-Za-z0-9]`)
	r := strings.NewReplacer(
		slug.ReplaceAllString(s.Project, "-"), "-home-user-proj",
		s.Project, "/home/user/proj",
		s.Home, "/home/user",
	)
	return r.Replace
}

const commitSubject = "initial commit of the fixture project"

const notebook = `{"cells":[{"cell_type":"code","id":"c1","metadata":{},"source":["print(1)"],"outputs":[],"execution_count":null}],
"metadata":{},"nbformat":4,"nbformat_minor":5}
`

func repoRoot(t *testing.T) string {
	t.Helper()
	out, err := exec.Command("go", "env", "GOMOD").Output()
	if err != nil || len(bytes.TrimSpace(out)) == 0 {
		t.Fatalf("failed to find the module root: %v", err)
	}
	return filepath.Dir(string(bytes.TrimSpace(out)))
}
