package claude

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/hookctl/hookctl/config"
	"github.com/hookctl/hookctl/gate"
	"github.com/hookctl/hookctl/hook"
	"github.com/hookctl/hookctl/internal/shellglob"
	"github.com/hookctl/hookctl/policy"
	"github.com/hookctl/hookctl/session"
)

// output is Claude Code's hook output, as far as the tests read it.
type output struct {
	Decision           string `json:"decision"`
	Reason             string `json:"reason"`
	HookSpecificOutput *struct {
		HookEventName            string          `json:"hookEventName"`
		PermissionDecision       string          `json:"permissionDecision"`
		PermissionDecisionReason string          `json:"permissionDecisionReason"`
		UpdatedInput             json.RawMessage `json:"updatedInput"`
	} `json:"hookSpecificOutput"`
}

// verdict reads the decision Claude Code would take from the output: deny, allow or pass.
func (o output) verdict() string {
	if o.HookSpecificOutput != nil && o.HookSpecificOutput.PermissionDecision != "" {
		return o.HookSpecificOutput.PermissionDecision
	}
	if o.Decision == "block" {
		return "deny"
	}
	return "pass"
}

type runResult struct {
	code   int
	out    output
	raw    string
	stderr string
}

// runHook runs the hook the way `hookctl hook` does, in memory.
func runHook(t *testing.T, stdin io.Reader, cfg func() (*config.Config, error), modes session.Modes, deadline time.Duration) runResult {
	t.Helper()
	var stdout, stderr bytes.Buffer
	if cfg == nil {
		cfg = func() (*config.Config, error) { return &config.Config{}, nil }
	}
	if modes == nil {
		modes = session.FixedMode(hook.ModeEdit)
	}
	// The deadline path ends the process; here it ends the run instead, leaving the blocked
	// reader behind.
	exited := make(chan int, 1)
	r := &hook.Runner{Stdin: stdin, Stdout: &lockedBuffer{b: &stdout}, Stderr: &lockedBuffer{b: &stderr}, Adapter: Adapter{},
		Deadline: deadline, Exit: func(code int) { exited <- code; runtime.Goexit() }}
	g := &gate.Gate{Client: Client, LoadConfig: func(string) (*config.Config, error) { return cfg() }, Modes: modes}
	go func() { exited <- r.Run(g) }()
	code := <-exited
	res := runResult{code: code, raw: stdout.String(), stderr: stderr.String()}
	// The one rule Claude Code imposes on stdout: exactly one JSON object.
	dec := json.NewDecoder(strings.NewReader(res.raw))
	if err := dec.Decode(&res.out); err != nil {
		t.Fatalf("stdout is not JSON: %q (%v)", res.raw, err)
	}
	if dec.More() {
		t.Fatalf("stdout holds more than one JSON value: %q", res.raw)
	}
	return res
}

// TestRecordedFixtures runs every payload recorded from Claude Code 2.1.328 through the hook and
// compares the decision with fixtures/claude/decisions.txt.
func TestRecordedFixtures(t *testing.T) {
	dir := filepath.Join("..", "..", "fixtures", "claude")
	f, err := os.Open(filepath.Join(dir, "decisions.txt"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	listed := map[string]bool{}
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		fields := strings.Fields(sc.Text())
		if len(fields) != 2 {
			continue
		}
		name, want := fields[0], fields[1]
		listed[name] = true
		payload, err := os.ReadFile(filepath.Join(dir, name))
		if err != nil {
			t.Error(err)
			continue
		}
		res := runHook(t, bytes.NewReader(payload), nil, nil, 0)
		if got := res.out.verdict(); got != want || res.code != hook.ExitDecided {
			t.Errorf("%s: %s (exit %d), want %s: %s", name, got, res.code, want, res.raw)
		}
	}
	files, _ := filepath.Glob(filepath.Join(dir, "*.json"))
	for _, p := range files {
		if !listed[filepath.Base(p)] {
			t.Errorf("%s has no expected decision in decisions.txt", filepath.Base(p))
		}
	}
	if len(files) < 20 {
		t.Errorf("only %d recorded payloads", len(files))
	}
}

// TestAllowRewritesOnlyTheCommand: an allowed Bash call is answered with updatedInput holding
// every input field, the command replaced by its canonical form.
func TestAllowRewritesOnlyTheCommand(t *testing.T) {
	payload := `{"session_id":"s","cwd":"/p","hook_event_name":"PreToolUse","agent_type":"Explore","agent_id":"a",
		"tool_name":"Bash","tool_input":{"command":"git log   --oneline","description":"log","timeout":5000,"run_in_background":false}}`
	res := runHook(t, strings.NewReader(payload), nil, nil, 0)
	if res.out.verdict() != "allow" {
		t.Fatalf("verdict %s: %s", res.out.verdict(), res.raw)
	}
	var in map[string]any
	if err := json.Unmarshal(res.out.HookSpecificOutput.UpdatedInput, &in); err != nil {
		t.Fatal(err)
	}
	cmd, _ := in["command"].(string)
	if !strings.HasPrefix(cmd, "GIT_CONFIG_NOSYSTEM=1 GIT_ALLOW_PROTOCOL= GIT_NO_LAZY_FETCH=1 git --no-pager") || !strings.HasSuffix(cmd, " log --no-ext-diff --no-textconv --oneline") {
		t.Errorf("command = %q", cmd)
	}
	if in["description"] != "log" || in["timeout"] != float64(5000) || in["run_in_background"] != false || len(in) != 4 {
		t.Errorf("other fields changed: %v", in)
	}
}

// TestFailClosed: every way a payload can be wrong yields a deny on stdout (and exit 2), never
// a crash, a hang, an empty answer or an allow.
func TestFailClosed(t *testing.T) {
	bash := func(extra string) string {
		return `{"session_id":"s","hook_event_name":"PreToolUse","agent_type":"Explore","tool_name":"Bash","tool_input":{"command":"ls"}` + extra + `}`
	}
	for _, c := range []struct {
		name, payload, want string
	}{
		{"empty", "", "not valid JSON"},
		{"not JSON", "ls -la", "not valid JSON"},
		{"truncated", bash("")[:40], "not valid JSON"},
		{"array", `[1,2]`, "not a JSON object"},
		{"two objects", bash("") + bash(""), "not valid JSON"},
		{"no event", `{"session_id":"s","tool_name":"Bash","tool_input":{"command":"ls"}}`, "hook_event_name is missing"},
		{"event not a string", `{"hook_event_name":7}`, "hook_event_name is not a string"},
		{"unknown event", `{"hook_event_name":"PreToolUseX","session_id":"s"}`, "unknown hook event"},
		{"no session", `{"hook_event_name":"PreToolUse","tool_name":"Bash","tool_input":{"command":"ls"}}`, "session_id is missing"},
		{"no tool", `{"hook_event_name":"PreToolUse","session_id":"s","tool_input":{}}`, "tool_name is missing"},
		{"tool not a string", `{"hook_event_name":"PreToolUse","session_id":"s","tool_name":["Bash"],"tool_input":{}}`, "tool_name is not a string"},
		{"input not an object", `{"hook_event_name":"PreToolUse","session_id":"s","tool_name":"Bash","tool_input":"ls"}`, "tool_input is missing or not an object"},
		{"command missing", `{"hook_event_name":"PreToolUse","session_id":"s","tool_name":"Bash","tool_input":{}}`, "command is missing"},
		{"command not a string", `{"hook_event_name":"PreToolUse","session_id":"s","tool_name":"Bash","tool_input":{"command":["rm","-rf","/"]}}`, "command is not a string"},
		{"agent_type mistyped", `{"hook_event_name":"PreToolUse","session_id":"s","agent_type":{"x":1},"tool_name":"Bash","tool_input":{"command":"ls"}}`, "agent_type is not a string"},
		{"oversized", bash(`,"pad":"` + strings.Repeat("a", hook.MaxPayload) + `"`), "over 1048576 bytes"},
	} {
		res := runHook(t, strings.NewReader(c.payload), nil, nil, 0)
		if res.out.verdict() != "deny" || res.code != hook.ExitFailed || !strings.Contains(res.raw, c.want) {
			t.Errorf("%s: exit %d %s, want a deny containing %q", c.name, res.code, res.raw, c.want)
		}
	}
}

// TestDuplicateKeysAreRefused is a hole of issue 7: a payload that names a deciding field twice
// was decided on the first value (gjson) while the client acts on the last, so
// `"tool_name":"Read","tool_name":"Write"` was judged as a Read. Any duplicate key is refused.
func TestDuplicateKeysAreRefused(t *testing.T) {
	for _, payload := range []string{
		`{"session_id":"s","hook_event_name":"PreToolUse","tool_name":"Read","tool_name":"Write","tool_input":{"file_path":"/p/x","content":"x"}}`,
		`{"session_id":"s","hook_event_name":"PreToolUse","agent_type":"Explore","tool_name":"Bash","tool_input":{"command":"ls","command":"rm -rf /"}}`,
		`{"session_id":"s","hook_event_name":"PreToolUse","tool_name":"Bash","tool_input":{"command":"ls"},"tool_input":{"command":"rm -rf /"}}`,
		`{"session_id":"s","session_id":"t","hook_event_name":"PreToolUse","tool_name":"Read","tool_input":{"file_path":"/p/x"}}`,
		`{"session_id":"s","hook_event_name":"SessionStart","hook_event_name":"PreToolUse","tool_name":"Bash","tool_input":{"command":"ls"}}`,
		`{"session_id":"s","hook_event_name":"PreToolUse","tool_name":"Edit","tool_input":{"file_path":"/p/x","edits":[{"old":"a","old":"b"}]}}`,
	} {
		res := runHook(t, strings.NewReader(payload), nil, nil, 0)
		if v := res.out.verdict(); v != "deny" || res.code != hook.ExitFailed || !strings.Contains(res.out.Reason, "appears twice") {
			t.Errorf("%s: verdict %s, exit %d: %s", payload, v, res.code, res.raw)
		}
	}
}

// lockedBuffer lets the test read what the run wrote while a blocked reader is left behind.
type lockedBuffer struct {
	mu sync.Mutex
	b  *bytes.Buffer
}

func (l *lockedBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *lockedBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}

type blockingReader struct{}

func (blockingReader) Read([]byte) (int, error) { select {} }

// TestDeadline: a payload that never finishes arriving is refused when the deadline passes.
func TestDeadline(t *testing.T) {
	start := time.Now()
	res := runHook(t, blockingReader{}, nil, nil, 50*time.Millisecond)
	if res.out.verdict() != "deny" || res.code != hook.ExitFailed || !strings.Contains(res.raw, "did not decide within") {
		t.Errorf("exit %d %s", res.code, res.raw)
	}
	if d := time.Since(start); d > time.Second {
		t.Errorf("took %v", d)
	}
}

type panicModes struct{}

func (panicModes) ModeFor(string, string, hook.Mode) (hook.Mode, error) { panic("state exploded") }

// TestPanicIsADeny: a panic anywhere in deciding prints a deny.
func TestPanicIsADeny(t *testing.T) {
	payload := `{"session_id":"s","hook_event_name":"PreToolUse","tool_name":"Write","tool_input":{"file_path":"/x","content":""}}`
	res := runHook(t, strings.NewReader(payload), nil, panicModes{}, 0)
	if res.out.verdict() != "deny" || res.code != hook.ExitFailed || !strings.Contains(res.raw, "internal error: state exploded") {
		t.Errorf("exit %d %s", res.code, res.raw)
	}
}

type errReader struct{}

func (errReader) Read([]byte) (int, error) { return 0, errors.New("broken pipe") }

func TestReadErrorIsADeny(t *testing.T) {
	res := runHook(t, errReader{}, nil, nil, 0)
	if res.out.verdict() != "deny" || !strings.Contains(res.raw, "broken pipe") {
		t.Errorf("%s", res.raw)
	}
}

// TestBrokenConfigDeniesEverything: even a tool read-only mode would pass is refused, with the
// config error (file and line) in the reason.
func TestBrokenConfigDeniesEverything(t *testing.T) {
	home := t.TempDir()
	if err := os.WriteFile(filepath.Join(home, "config.toml"), []byte("read_only_agents = [\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	cfg := func() (*config.Config, error) { return gate.LoadConfig(home) }
	payload := `{"session_id":"s","hook_event_name":"PreToolUse","tool_name":"Read","tool_input":{"file_path":"/x"}}`
	res := runHook(t, strings.NewReader(payload), cfg, nil, 0)
	if res.out.verdict() != "deny" || !strings.Contains(res.raw, "config.toml:") {
		t.Errorf("%s", res.raw)
	}
	if res.code != hook.ExitDecided {
		t.Errorf("exit %d: a config error is a decision, not a crash", res.code)
	}
}

// TestRefuseOutputsAreHonoured checks the shapes of Refuse's output for each event family.
func TestRefuseOutputs(t *testing.T) {
	var o output
	json.Unmarshal(Adapter{}.Refuse([]byte(`{"hook_event_name":"UserPromptSubmit"}`), "r"), &o)
	if o.Decision != "block" || o.HookSpecificOutput != nil {
		t.Errorf("prompt refusal: %+v", o)
	}
	o = output{}
	json.Unmarshal(Adapter{}.Refuse([]byte(`garbage`), "r"), &o)
	if o.Decision != "block" || o.HookSpecificOutput == nil || o.HookSpecificOutput.PermissionDecision != "deny" ||
		o.HookSpecificOutput.HookEventName != "PreToolUse" {
		t.Errorf("unknown payload refusal: %+v", o)
	}
}

// TestToolKinds: the tools read-only mode refuses and lets through, as the issue lists them.
func TestToolKinds(t *testing.T) {
	for _, name := range []string{"Write", "Edit", "NotebookEdit", "MultiEdit", "PowerShell", "Monitor", "Workflow",
		"CronCreate", "EnterWorktree", "ExitWorktree", "Artifact", "Projects", "SendFile", "SendUserFile",
		"RemoteTrigger", "mcp__github__create_issue", "mcp__x__read", "SomeFutureTool", ""} {
		if d := readOnly(name); d.Verdict != hook.Deny {
			t.Errorf("%q (%v): %s in read-only, want it refused", name, KindOf(name), d.Verdict)
		}
	}
	for _, name := range []string{"Read", "Grep", "Glob", "ToolSearch", "ListAgents", "TodoWrite"} {
		if d := readOnly(name); d.Verdict != hook.Pass {
			t.Errorf("%q (%v): %s in read-only, want it passed", name, KindOf(name), d.Verdict)
		}
	}
	for _, name := range []string{"WebFetch", "WebSearch"} {
		if KindOf(name) != hook.KindWeb {
			t.Errorf("%q is not KindWeb", name)
		}
	}
}

// readOnly is the policy's decision on a call of tool, with no input, in a read-only session.
func readOnly(tool string) hook.Decision {
	p := &policy.Policy{World: shellglob.World{}, Config: &config.Config{}, Client: Client}
	return p.Decide(&hook.ToolCall{Tool: tool, Kind: KindOf(tool)}, policy.SessionState{Mode: hook.ModeReadOnly})
}

// runWithStore runs one payload through a runner that keeps session state in store.
func runWithStore(t *testing.T, store *session.Store, check func(string) error, payload string) runResult {
	t.Helper()
	var stdout, stderr bytes.Buffer
	r := &hook.Runner{Stdin: strings.NewReader(payload), Stdout: &stdout, Stderr: &stderr, Adapter: Adapter{}}
	code := r.Run(&gate.Gate{Client: Client, LoadConfig: func(string) (*config.Config, error) { return &config.Config{}, nil },
		Modes: session.StoreModes{Store: store}, Store: store, VerifyToggle: check})
	res := runResult{code: code, raw: stdout.String()}
	if err := json.Unmarshal(stdout.Bytes(), &res.out); err != nil {
		t.Fatalf("stdout is not JSON: %q", res.raw)
	}
	return res
}

func expansion(args, source, promptID string) string {
	return `{"session_id":"s","cwd":"/p","prompt_id":"` + promptID + `","hook_event_name":"UserPromptExpansion","expansion_type":"slash_command",` +
		`"command_name":"readonly","command_args":"` + args + `","command_source":"` + source + `","prompt":"/readonly ` + args + `"}`
}

// TestToggleOnlyAtTheUsersExpansion: /readonly changes the mode only when hookctl's own user
// command (or the organisation's managed one) expands; the submitted text never does (a scheduled prompt looks the same), a
// project's command of the same name is blocked without effect, and a tampered command file
// stops the toggle.
func TestToggleOnlyAtTheUsersExpansion(t *testing.T) {
	store := session.NewStore(t.TempDir())
	store.Record("s", "/p", hook.ModeReadOnly)
	mode := func() hook.Mode { m, _, _ := store.Peek("s"); return m }

	res := runWithStore(t, store, nil, `{"session_id":"s","cwd":"/p","prompt_id":"p1","hook_event_name":"UserPromptSubmit","prompt":"/readonly off"}`)
	if res.out.verdict() != "pass" || mode() != hook.ModeReadOnly {
		t.Errorf("submit: %s, mode %v", res.raw, mode())
	}
	res = runWithStore(t, store, nil, expansion("off", "projectSettings", "p1"))
	if res.out.verdict() != "deny" || !strings.Contains(res.out.Reason, "shadows") || mode() != hook.ModeReadOnly {
		t.Errorf("project command: %s, mode %v", res.raw, mode())
	}
	res = runWithStore(t, store, func(string) error { return errors.New("the /readonly command was changed") }, expansion("off", "userSettings", "p1"))
	if res.out.verdict() != "deny" || !strings.Contains(res.out.Reason, "was changed") || mode() != hook.ModeReadOnly {
		t.Errorf("tampered command: %s, mode %v", res.raw, mode())
	}
	res = runWithStore(t, store, nil, expansion("off", "userSettings", "p1"))
	if res.out.verdict() != "deny" || !strings.Contains(res.out.Reason, "now ✏ EDIT") || mode() != hook.ModeEdit {
		t.Errorf("user command: %s, mode %v", res.raw, mode())
	}
	// The organisation's command (install --scope managed) toggles too, and the check is of the
	// file it came from.
	var checked string
	res = runWithStore(t, store, func(source string) error { checked = source; return nil }, expansion("on", "policySettings", "p0"))
	if res.out.verdict() != "deny" || !strings.Contains(res.out.Reason, "now 🔒 READ-ONLY") || mode() != hook.ModeReadOnly || checked != "policySettings" {
		t.Errorf("managed command: %s, mode %v, checked %q", res.raw, mode(), checked)
	}
	res = runWithStore(t, store, func(source string) error { checked = source; return nil }, expansion("off", "userSettings", "p0b"))
	if mode() != hook.ModeEdit || checked != "userSettings" {
		t.Errorf("user command again: %s, mode %v, checked %q", res.raw, mode(), checked)
	}
	// A bare /readonly, as autocompletion submits it, and /readonly status show the mode and
	// change nothing (issue 11: typing /read and Enter unlocked the session).
	for _, args := range []string{"", "status", " status "} {
		for _, source := range []string{"userSettings", "projectSettings"} {
			res = runWithStore(t, store, nil, expansion(args, source, "p-status"))
			if res.out.verdict() != "deny" || !strings.Contains(res.out.Reason, "this session is ✏ EDIT. Nothing changed") || mode() != hook.ModeEdit {
				t.Errorf("/readonly %q from %s: %s, mode %v", args, source, res.raw, mode())
			}
		}
	}
	// One /readonly on seen twice switches once.
	runWithStore(t, store, nil, expansion("on", "userSettings", "p2"))
	res = runWithStore(t, store, nil, expansion("on", "userSettings", "p2"))
	if mode() != hook.ModeReadOnly || !strings.Contains(res.out.Reason, "already") {
		t.Errorf("one /readonly on seen twice: %v %s", mode(), res.raw)
	}
	res = runWithStore(t, store, nil, expansion("sideways", "userSettings", "p3"))
	if res.out.verdict() != "deny" || mode() != hook.ModeReadOnly {
		t.Errorf("bad argument: %s", res.raw)
	}
}

func TestSessionStartTellsTheMode(t *testing.T) {
	store := session.NewStore(t.TempDir())
	res := runWithStore(t, store, nil, `{"session_id":"s","cwd":"/p","hook_event_name":"SessionStart","source":"startup"}`)
	var o struct {
		HookSpecificOutput struct {
			HookEventName     string `json:"hookEventName"`
			AdditionalContext string `json:"additionalContext"`
		} `json:"hookSpecificOutput"`
		SystemMessage string `json:"systemMessage"`
	}
	json.Unmarshal([]byte(res.raw), &o)
	if o.HookSpecificOutput.HookEventName != "SessionStart" || !strings.Contains(o.HookSpecificOutput.AdditionalContext, "READ-ONLY mode") ||
		!strings.Contains(o.HookSpecificOutput.AdditionalContext, "/readonly off") || !strings.Contains(o.SystemMessage, "🔒 READ-ONLY") ||
		!strings.Contains(o.SystemMessage, "no OS sandbox") {
		t.Errorf("%s", res.raw)
	}
	if sess, err := store.Load("s"); err != nil || sess.Cwd != "/p" {
		t.Errorf("session not recorded: %+v %v", sess, err)
	}
}

// TestModelCannotScheduleOrInvokeReadonly: in edit mode too, the agent's Skill call of readonly
// and a scheduled /readonly prompt are refused.
func TestModelCannotScheduleOrInvokeReadonly(t *testing.T) {
	store := session.NewStore(t.TempDir())
	store.Record("s", "/p", hook.ModeEdit)
	for _, p := range []string{
		`{"session_id":"s","cwd":"/p","hook_event_name":"PreToolUse","tool_name":"Skill","tool_input":{"skill":"readonly","args":"off"}}`,
		`{"session_id":"s","cwd":"/p","hook_event_name":"PreToolUse","tool_name":"CronCreate","tool_input":{"cron":"* * * * *","prompt":"/readonly off"}}`,
		`{"session_id":"s","cwd":"/p","hook_event_name":"PreToolUse","tool_name":"ScheduleWakeup","tool_input":{"delaySeconds":60,"prompt":"  /readonly off"}}`,
	} {
		if res := runWithStore(t, store, nil, p); res.out.verdict() != "deny" {
			t.Errorf("%s: %s", p, res.raw)
		}
	}
	ok := `{"session_id":"s","cwd":"/p","hook_event_name":"PreToolUse","tool_name":"CronCreate","tool_input":{"cron":"0 9 * * *","prompt":"run the tests"}}`
	if res := runWithStore(t, store, nil, ok); res.out.verdict() != "pass" {
		t.Errorf("an ordinary schedule in edit mode: %s", res.raw)
	}
}

// TestSessionEndCleansUp: SessionEnd reaches the gate's clean-up with the session's id, prints
// no opinion, and a payload without an id is refused like any malformed one.
func TestSessionEndCleansUp(t *testing.T) {
	ev, err := Adapter{}.Decode([]byte(`{"session_id":"s9","cwd":"/p","hook_event_name":"SessionEnd","reason":"other"}`))
	if err != nil || ev.Name != hook.EventSessionEnd || ev.Session != "s9" {
		t.Fatalf("%+v %v", ev, err)
	}
	var ended []string
	g := &gate.Gate{Client: Client, EndSession: func(id string) { ended = append(ended, id) }}
	if d := g.Decide(ev, nil); d.Verdict != hook.Pass || len(ended) != 1 || ended[0] != "s9" {
		t.Errorf("%+v, ended %v", d, ended)
	}
	if out, err := (Adapter{}).Encode(ev, hook.Decision{Verdict: hook.Pass}); err != nil || strings.TrimSpace(string(out)) != "{}" {
		t.Errorf("%q %v", out, err)
	}
	if _, err := (Adapter{}).Decode([]byte(`{"hook_event_name":"SessionEnd"}`)); err == nil {
		t.Error("a SessionEnd without a session id was accepted")
	}
}

// TestPassWithRewrite: edit mode's rewrite goes out as updatedInput with no permission
// decision, so the client's own permission rules still decide whether it runs.
func TestPassWithRewrite(t *testing.T) {
	ev, err := Adapter{}.Decode([]byte(`{"session_id":"s","cwd":"/p","hook_event_name":"PreToolUse","tool_name":"Bash","tool_input":{"command":"make","description":"build","timeout":5000}}`))
	if err != nil {
		t.Fatal(err)
	}
	out, err := Adapter{}.Encode(ev, hook.Decision{Verdict: hook.Pass, Command: "/bin/hookctl sandbox -- bash -c make"})
	if err != nil {
		t.Fatal(err)
	}
	want := `{"hookSpecificOutput":{"hookEventName":"PreToolUse","updatedInput":{"command":"/bin/hookctl sandbox -- bash -c make","description":"build","timeout":5000}}}`
	if strings.TrimSpace(string(out)) != want {
		t.Errorf("got  %s\nwant %s", out, want)
	}
}

// TestAskCarriesTheRewrite: an ask is permissionDecision "ask" with the reason and, for a shell
// call, updatedInput holding the command the user is shown and that runs if they approve (the
// client applies updatedInput to an ask: live, TestRealClientReviewPublishAsks), every other
// input field as sent.
func TestAskCarriesTheRewrite(t *testing.T) {
	ev, err := Adapter{}.Decode([]byte(`{"session_id":"s","cwd":"/p","hook_event_name":"PreToolUse","tool_name":"Bash",` +
		`"tool_input":{"command":"gh pr comment 7 -b x","description":"post","timeout":5000}}`))
	if err != nil {
		t.Fatal(err)
	}
	out, err := Adapter{}.Encode(ev, hook.Decision{Verdict: hook.Ask, Reason: "publish? #7", Command: "GH_PAGER=cat /usr/bin/gh pr comment 7 --body x"})
	if err != nil {
		t.Fatal(err)
	}
	want := `{"hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecision":"ask","permissionDecisionReason":"publish? #7",` +
		`"updatedInput":{"command":"GH_PAGER=cat /usr/bin/gh pr comment 7 --body x","description":"post","timeout":5000}}}` + "\n"
	if string(out) != want {
		t.Errorf("got  %s\nwant %s", out, want)
	}
	// A review toggle comes only from the user's own command; the model's Skill call of it is
	// refused like any other mode change.
	store := session.NewStore(t.TempDir())
	store.Record("s", "/p", hook.ModeReadOnly)
	mode := func() hook.Mode { m, _, _ := store.Peek("s"); return m }
	if res := runWithStore(t, store, nil, expansion("review", "projectSettings", "r1")); res.out.verdict() != "deny" || mode() != hook.ModeReadOnly {
		t.Errorf("project /readonly review: %s, mode %v", res.raw, mode())
	}
	if res := runWithStore(t, store, nil, `{"session_id":"s","cwd":"/p","hook_event_name":"PreToolUse","tool_name":"Skill","tool_input":{"skill":"readonly","args":"review"}}`); res.out.verdict() != "deny" || mode() != hook.ModeReadOnly {
		t.Errorf("Skill readonly review: %s", res.raw)
	}
	if res := runWithStore(t, store, nil, expansion("review", "userSettings", "r2")); !strings.Contains(res.out.Reason, "now 👁 REVIEW") || mode() != hook.ModeReview {
		t.Errorf("user /readonly review: %s, mode %v", res.raw, mode())
	}
}

// TestReadToolPaths: Read's file and Grep's directory reach the policy as the paths read, for
// the sensitive-file rule; Grep without a path names none (the working directory), and Glob,
// which lists names only, none.
func TestReadToolPaths(t *testing.T) {
	for _, c := range []struct{ tool, input, want string }{
		{"Read", `{"file_path":"/home/u/.aws/credentials"}`, "/home/u/.aws/credentials"},
		{"Grep", `{"pattern":"x","path":"/home/u/.ssh"}`, "/home/u/.ssh"},
		{"Glob", `{"pattern":"*","path":"/home/u/.ssh"}`, ""},
		{"Grep", `{"pattern":"x"}`, ""},
	} {
		ev, err := Adapter{}.Decode([]byte(`{"session_id":"s","cwd":"/p","hook_event_name":"PreToolUse","tool_name":"` + c.tool + `","tool_input":` + c.input + `}`))
		if err != nil {
			t.Fatalf("%s: %v", c.tool, err)
		}
		if got := strings.Join(ev.Call.ReadPaths, " "); got != c.want {
			t.Errorf("%s %s: read paths %q, want %q", c.tool, c.input, got, c.want)
		}
	}
	if _, err := (Adapter{}).Decode([]byte(`{"session_id":"s","cwd":"/p","hook_event_name":"PreToolUse","tool_name":"Read","tool_input":{}}`)); err == nil {
		t.Error("a Read without file_path was accepted")
	}
}

type slowModes struct{ d time.Duration }

func (m slowModes) ModeFor(string, string, hook.Mode) (hook.Mode, error) {
	time.Sleep(m.d)
	return hook.ModeEdit, nil
}

// TestEveryAnswerIsRecorded (issue 31, item 3): a payload refused before any decision, and a
// call refused at the deadline, left no record, and three calls refused at the deadline were
// recorded as pass (the decision, logged before the deadline's refusal won). Every answer is now
// recorded once it is given, as what was given, with why.
func TestEveryAnswerIsRecorded(t *testing.T) {
	write := `{"session_id":"s1","cwd":"/p","hook_event_name":"PreToolUse","tool_name":"Write","tool_input":{"file_path":"/p/f","content":"x"}}`
	for _, c := range []struct {
		name     string
		stdin    io.Reader
		modes    session.Modes
		deadline time.Duration
		verdict  string
		rule     string
		reason   string
	}{
		{"cut short", strings.NewReader(`{"x":`), nil, 0, "deny", "hookctl: the payload", "could not read the hook payload"},
		{"not JSON", strings.NewReader("hello"), nil, 0, "deny", "hookctl: the payload", "could not read the hook payload"},
		{"over the cap", strings.NewReader(`{"a":"` + strings.Repeat("a", hook.MaxPayload) + `"}`), nil, 0, "deny", "hookctl: the payload", "over"},
		{"unreadable", errReader{}, nil, 0, "deny", "hookctl: the payload", "broken pipe"},
		{"internal error", strings.NewReader(write), panicModes{}, 0, "deny", "hookctl: an internal error", "state exploded"},
		{"never arrives", blockingReader{}, nil, 50 * time.Millisecond, "deny", "hookctl: the hook's deadline", "did not decide within"},
		// Decided as pass, too late: the deadline's refusal is what the client got.
		{"decided too late", strings.NewReader(write), slowModes{300 * time.Millisecond}, 50 * time.Millisecond, "deny", "hookctl: the hook's deadline", "did not decide within"},
		{"decided", strings.NewReader(write), nil, 0, "pass", "", ""},
	} {
		t.Run(c.name, func(t *testing.T) {
			var stdout, stderr bytes.Buffer
			out := &lockedBuffer{b: &stdout}
			var records []hook.LogEntry
			var answeredFirst []bool
			var mu sync.Mutex
			exited := make(chan int, 1)
			modes := c.modes
			if modes == nil {
				modes = session.FixedMode(hook.ModeEdit)
			}
			r := &hook.Runner{Stdin: c.stdin, Stdout: out, Stderr: &lockedBuffer{b: &stderr}, Adapter: Adapter{}, Agent: Client.Name,
				Deadline: c.deadline, Exit: func(code int) { exited <- code; runtime.Goexit() },
				Log: func(e *hook.LogEntry) {
					mu.Lock()
					defer mu.Unlock()
					records = append(records, *e)
					answeredFirst = append(answeredFirst, out.String() != "")
				}}
			g := &gate.Gate{Client: Client, LoadConfig: func(string) (*config.Config, error) { return &config.Config{}, nil }, Modes: modes}
			go func() { exited <- r.Run(g) }()
			<-exited
			time.Sleep(400 * time.Millisecond) // a decision that lost to the deadline would record now
			mu.Lock()
			defer mu.Unlock()
			if len(records) != 1 {
				t.Fatalf("%d records: %+v (answer %s)", len(records), records, out.String())
			}
			e := records[0]
			if e.Verdict != c.verdict || e.Rule != c.rule && c.rule != "" || !strings.Contains(e.Reason, c.reason) || e.ID == "" || e.Agent != Client.Name {
				t.Errorf("record %+v", e)
			}
			if !answeredFirst[0] {
				t.Errorf("recorded before the answer was given")
			}
			if strings.Contains(c.name, "too late") || c.name == "internal error" {
				if e.Session != "s1" || e.Tool != "Write" || e.Event != "tool" {
					t.Errorf("the record does not name the call: %+v", e)
				}
			}
		})
	}
}
