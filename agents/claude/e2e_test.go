package claude_test

import (
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	ct "github.com/hookctl/hookctl/agents/claude/claudetest"
	"github.com/hookctl/hookctl/internal/testbin"
)

// exploreMarker is in the prompt the main thread gives the subagent, and nowhere else, so the fake
// API can tell the subagent's requests from the main thread's.
const exploreMarker = "SUBAGENT-MARKER-e2e-9d4b"

const commitSubject = "initial commit of the e2e project"

// TestRealClientExploreStaysReadOnly runs the real Claude Code client with hookctl registered as
// its PreToolUse hook. The main thread spawns an Explore subagent that tries to change a file in
// every way it can; the file must survive and git log must still run.
//
// Two Explore agents are covered. Claude Code's built-in Explore is not offered Write or Edit, so
// the client itself refuses those calls before any hook runs; only its Bash writes reach hookctl.
// A project may define its own agent named Explore (.claude/agents/*.md) with every tool; its
// calls carry the same agent_type, so hookctl must refuse its Write and Edit as well.
func TestRealClientExploreStaysReadOnly(t *testing.T) {
	ct.Binary(t) // skip before building anything when there is no client
	hookctl := buildHookctl(t)

	for _, tc := range []struct {
		name      string
		agentFile string // written to .claude/agents/explore.md when set
		// hookSeesWrites says whether Write and Edit reach the hook; when not, the client refuses
		// them itself and the test only checks that they failed.
		hookSeesWrites bool
	}{
		{name: "built-in Explore"},
		{
			name:           "project Explore with every tool",
			agentFile:      "---\nname: Explore\ndescription: Explores the project.\n---\nYou explore the project.\n",
			hookSeesWrites: true,
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := ct.NewSession(t)
			s.InitGitRepo(commitSubject)
			if tc.agentFile != "" {
				s.WriteFile(".claude/agents/explore.md", tc.agentFile)
			}
			f := filepath.Join(s.Project, "f")
			s.Script = ct.Script{
				Marker: exploreMarker,
				Main: []ct.Call{{Name: "Agent", Input: map[string]any{
					"description":       "Explore the project",
					"prompt":            exploreMarker + ": find out what this project holds.",
					"subagent_type":     "Explore",
					"run_in_background": false,
				}}},
				Sub: []ct.Call{
					{Name: "Read", Input: map[string]any{"file_path": f}}, // Write and Edit need a prior Read
					{Name: "Write", Input: map[string]any{"file_path": f, "content": "x\n"}},
					{Name: "Edit", Input: map[string]any{"file_path": f, "old_string": "a", "new_string": "b"}},
					ct.Bash("sed -i s/a/b/ f"),
					ct.Bash("echo x > f"),
					ct.Bash("git log --oneline -3"),
				},
			}
			const ( // indexes into Script.Sub
				read = iota
				write
				edit
				sed
				redirect
				gitLog
			)
			s.Hooks = []ct.Hook{{Command: hookctl, Args: []string{"hook"}}}
			s.Env = append(s.Env, "HOOKCTL_HOME="+t.TempDir())
			s.WriteSettings()
			before := listFiles(t, s.Project)

			r := s.Run("Explore this project with a subagent.")

			var miss []string
			missf := func(format string, args ...any) { miss = append(miss, fmt.Sprintf(format, args...)) }
			result := func(thread ct.Thread, i int) ct.ToolResult {
				tr, ok := s.API.ResultFor(thread, i)
				if !ok {
					missf("the model never saw a result for %s call %d", thread, i)
				}
				return tr
			}
			denied := map[string]bool{}
			for _, d := range r.Output.PermissionDenials {
				denied[d.ToolUseID] = true
			}
			deniedByHook := func(i int) {
				tr := result(ct.Sub, i)
				want := "PreToolUse:" + s.Script.Sub[i].Name + " hook error:"
				if !tr.IsError || !strings.Contains(tr.Text, want) {
					missf("Explore call %d (%s): want an error result containing %q, got is_error=%v %q",
						i, s.Script.Sub[i].Name, want, tr.IsError, tr.Text)
				}
				if !denied[tr.ToolUseID] {
					missf("Explore call %d (%s): %s missing from permission_denials", i, s.Script.Sub[i].Name, tr.ToolUseID)
				}
			}

			if b, err := os.ReadFile(f); err != nil || string(b) != "a\n" {
				missf("f changed: %q, %v", b, err)
			}
			if after := listFiles(t, s.Project); !slices.Equal(before, after) {
				missf("project files changed:\n before %v\n after  %v", before, after)
			}
			if tr := result(ct.Main, 0); tr.IsError {
				missf("the Agent call failed: %q", tr.Text)
			}
			if tr := result(ct.Sub, read); tr.IsError {
				missf("Read failed: %q", tr.Text)
			}
			deniedByHook(sed)
			deniedByHook(redirect)
			if tc.hookSeesWrites {
				deniedByHook(write)
				deniedByHook(edit)
			} else {
				for _, i := range []int{write, edit} {
					if tr := result(ct.Sub, i); !tr.IsError {
						missf("Explore call %d (%s) succeeded: %q", i, s.Script.Sub[i].Name, tr.Text)
					}
				}
			}
			if tr := result(ct.Sub, gitLog); tr.IsError || !strings.Contains(tr.Text, commitSubject) {
				missf("git log: want the commit subject %q, got is_error=%v %q", commitSubject, tr.IsError, tr.Text)
			}
			if len(miss) > 0 {
				r.Fatalf(t, "%d problems:\n- %s", len(miss), strings.Join(miss, "\n- "))
			}
			t.Logf("claude run took %v", r.Duration)
		})
	}
}

// buildHookctl builds ./cmd/hookctl into a temporary directory and returns its path.
// HOOKCTL_E2E_HOOK names a ready-made executable to test instead, such as a release build.
func buildHookctl(t *testing.T) string {
	t.Helper()
	if p := os.Getenv("HOOKCTL_E2E_HOOK"); p != "" {
		return p
	}
	return testbin.Hookctl(t) // as released: the retriever's Landlock needs it without cgo
}

// newSession is a session of the real client (skipped where it is not installed), the hookctl
// under test, and the session's own HOOKCTL_HOME.
func newSession(t *testing.T) (s *ct.Session, hookctl, home string) {
	ct.Binary(t)
	hookctl = buildHookctl(t)
	s = ct.NewSession(t)
	home = t.TempDir()
	s.Env = append(s.Env, "HOOKCTL_HOME="+home)
	return s, hookctl, home
}

// modeEvents are the events hookctl's hook answers for a session's modes: tool calls, the
// user's /readonly (a prompt or its expansion), and the session's start.
var modeEvents = []string{"PreToolUse", "UserPromptSubmit", "UserPromptExpansion", "SessionStart"}

// hookOn registers hookctl's hook for events.
func hookOn(s *ct.Session, hookctl string, events ...string) {
	for _, ev := range events {
		s.Hooks = append(s.Hooks, ct.Hook{Event: ev, Command: hookctl, Args: []string{"hook"}})
	}
}

// install runs `hookctl install` in the session's project, as the README says.
func install(t *testing.T, s *ct.Session, hookctl string) {
	t.Helper()
	cmd := exec.Command(hookctl, "install")
	cmd.Env = s.Environ()
	cmd.Dir = s.Project
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("hookctl install: %v\n%s", err, out)
	}
}

// TestMain removes the hookctl the tests built.
func TestMain(m *testing.M) {
	code := m.Run()
	testbin.Cleanup()
	os.Exit(code)
}

// listFiles lists the files under dir outside .git, as slash paths, sorted.
func listFiles(t *testing.T, dir string) []string {
	t.Helper()
	var out []string
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && d.Name() == ".git" {
			return filepath.SkipDir
		}
		if !d.IsDir() {
			rel, _ := filepath.Rel(dir, p)
			out = append(out, filepath.ToSlash(rel))
		}
		return nil
	})
	if err != nil {
		t.Fatalf("failed to list %s: %v", dir, err)
	}
	slices.Sort(out)
	return out
}
