package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/tidwall/gjson"

	"github.com/hookctl/hookctl/hook"
)

// agentOutput says where each client's answer holds the decision and the rewritten command.
var agentOutput = map[string]struct{ verdict, deny, command string }{
	"codex":   {"hookSpecificOutput.permissionDecision", "deny", "hookSpecificOutput.updatedInput.command"},
	"qwen":    {"hookSpecificOutput.permissionDecision", "deny", ""},
	"gemini":  {"decision", "deny", "hookSpecificOutput.tool_input.command"},
	"copilot": {"permissionDecision", "deny", "modifiedArgs.command"},
	"cursor":  {"permission", "deny", "updated_input.command"},
}

// TestAgentsAnswerRecordedPayloads runs `hookctl hook --agent NAME` on every payload in
// fixtures/NAME (recorded from the real clients; Cursor's built from its documentation), in a
// new, read-only session: the writes are refused in the client's own deny, the reads are not,
// and an admitted command comes back rewritten where the client takes a rewrite.
func TestAgentsAnswerRecordedPayloads(t *testing.T) {
	t.Setenv("HOOKCTL_HOME", t.TempDir())
	for name, want := range agentOutput {
		a, err := agentNamed(name)
		if err != nil {
			t.Fatal(err)
		}
		files, _ := filepath.Glob(filepath.Join("..", "..", "fixtures", name, "*.json"))
		if len(files) < 5 {
			t.Fatalf("%s: %d fixtures", name, len(files))
		}
		for _, f := range files {
			payload, err := os.ReadFile(f)
			if err != nil {
				t.Fatal(err)
			}
			var out, errOut bytes.Buffer
			code := runHook(&streams{in: bytes.NewReader(payload), out: &out, err: &errOut}, false, a, false)
			base := filepath.Base(f)
			if code != 0 || !gjson.Valid(out.String()) {
				t.Errorf("%s/%s: exit %d, output %q, stderr %s", name, base, code, out.String(), errOut.String())
				continue
			}
			res := gjson.Parse(out.String())
			denied := res.Get(want.verdict).Str == want.deny
			write := false
			for _, w := range []string{"-sed", "-echo", "write", "create", "apply_patch", "delete", "mcp"} {
				write = write || strings.Contains(base, w)
			}
			// A client that takes no rewrite runs git as written, without hookctl's pins, which
			// the judge refuses (issue 23, item 8).
			asWritten := name == "qwen" && strings.Contains(base, "-git")
			if denied != (write || asWritten) {
				t.Errorf("%s/%s: denied %v, want %v: %s", name, base, denied, write || asWritten, out.String())
			}
			if cmd := res.Get(want.command); !write && want.command != "" && cmd.Exists() && !strings.Contains(cmd.Str, " sandbox --session ") {
				t.Errorf("%s/%s: rewritten to %q, not into the sandbox", name, base, cmd.Str)
			}
			if want.command == "" && strings.Contains(out.String(), "sandbox --session") {
				t.Errorf("%s/%s: a rewrite for a client that takes none: %s", name, base, out.String())
			}
		}
	}
}

// TestAgentWebToolsPointAtTheRetriever: a client without hookctl's retrieval hook has its web
// tools refused with the retriever's shell command as the way, in every mode; a shell web read
// is rewritten into the retriever where the client takes a rewrite.
func TestAgentWebToolsPointAtTheRetriever(t *testing.T) {
	t.Setenv("HOOKCTL_HOME", t.TempDir())
	for _, tc := range []struct{ agent, payload, want string }{
		{"gemini", `{"session_id":"s1","cwd":"/tmp","hook_event_name":"BeforeTool","tool_name":"google_web_search","tool_input":{"query":"x"}}`, "run hookctl retrieve fetch URL"},
		{"qwen", `{"session_id":"s1","cwd":"/tmp","hook_event_name":"PreToolUse","tool_name":"web_fetch","tool_input":{"url":"https://example.com","prompt":"p"}}`, "run hookctl retrieve fetch URL"},
		{"copilot", `{"sessionId":"s1","cwd":"/tmp","toolName":"web_fetch","toolArgs":{"url":"https://example.com"}}`, "run hookctl retrieve fetch URL"},
		{"codex", `{"session_id":"s1","cwd":"/tmp","hook_event_name":"PreToolUse","tool_name":"Bash","tool_input":{"command":"curl -s https://example.com"},"tool_use_id":"c"}`, ` retrieve fetch --op '{\"url\":\"https://example.com\"}' `},
	} {
		a, _ := agentNamed(tc.agent)
		var out bytes.Buffer
		runHook(&streams{in: strings.NewReader(tc.payload), out: &out, err: &bytes.Buffer{}}, false, a, false)
		if !strings.Contains(out.String(), tc.want) {
			t.Errorf("%s: %s", tc.agent, out.String())
		}
	}
}

// TestAgentFailuresAreEachClientsDeny: the runner's failures (a panic in deciding, the deadline,
// an oversized or broken payload) come out, for every client, as that client's own deny with a
// reason, and exit 2 with the reason on stderr, which each client also reads as a block.
func TestAgentFailuresAreEachClientsDeny(t *testing.T) {
	payload := map[string]string{
		"codex":   `{"session_id":"s","hook_event_name":"PreToolUse","tool_name":"Bash","tool_input":{"command":"ls"}}`,
		"qwen":    `{"session_id":"s","hook_event_name":"PreToolUse","tool_name":"run_shell_command","tool_input":{"command":"ls"}}`,
		"gemini":  `{"session_id":"s","hook_event_name":"BeforeTool","tool_name":"run_shell_command","tool_input":{"command":"ls"}}`,
		"copilot": `{"sessionId":"s","toolName":"bash","toolArgs":{"command":"ls"}}`,
		"cursor":  `{"conversation_id":"s","hook_event_name":"preToolUse","tool_name":"Shell","tool_input":{"command":"ls"}}`,
	}
	block := make(chan struct{})
	defer close(block)
	for name, want := range agentOutput {
		a, _ := agentNamed(name)
		for _, tc := range []struct {
			what    string
			in      string
			decider hook.Decider
		}{
			{"panic", payload[name], hook.DeciderFunc(func(*hook.Event, *hook.Run) hook.Decision { panic("boom") })},
			{"oversized", strings.Repeat(" ", hook.MaxPayload+1), hook.RefuseTools},
			{"broken", `{"tool_name":`, hook.RefuseTools},
			{"deadline", payload[name], hook.DeciderFunc(func(*hook.Event, *hook.Run) hook.Decision { <-block; return hook.Decision{} })},
		} {
			var out, errOut bytes.Buffer
			exited := make(chan int, 1)
			// Only the deadline case waits for the deadline: under load another case could pass
			// a short one, and a Run whose deadline fired first blocks for good (the process is
			// exiting), which would hang the test.
			deadline := hook.Deadline
			if tc.what == "deadline" {
				deadline = 100 * time.Millisecond
			}
			r := &hook.Runner{Stdin: strings.NewReader(tc.in), Stdout: &out, Stderr: &errOut, Adapter: a.Adapter,
				Deadline: deadline, Exit: func(code int) { exited <- code }}
			code := -1
			if tc.what == "deadline" {
				go r.Run(tc.decider)
				code = <-exited
			} else {
				code = r.Run(tc.decider)
			}
			res := gjson.Parse(out.String())
			if code != hook.ExitFailed || res.Get(want.verdict).Str != want.deny || strings.TrimSpace(errOut.String()) == "" {
				t.Errorf("%s, %s: exit %d, stdout %s, stderr %q", name, tc.what, code, out.String(), errOut.String())
			}
		}
	}
}

// TestHookThatCannotStartExits2: a hook command hookctl cannot run (an agent it does not know,
// a flag it does not take) exits 2 with the reason on stderr, which every client reads as a
// block; exit 1 or 3 would let Codex and Qwen Code (and, for 1, Gemini CLI) run the call.
func TestHookThatCannotStartExits2(t *testing.T) {
	for _, args := range [][]string{{"hook", "--agent", "nope"}, {"hook", "--agnet", "codex"}, {"hook", "--agent=nope"}} {
		if code := run(args); code != hook.ExitFailed {
			t.Errorf("%v: exit %d", args, code)
		}
	}
}
