// Package agenttest drives the real clients in end-to-end tests, through one harness: each
// client's driver (clients.go: where its pinned release is under .cache, which make e2e-deps
// installs; how a hook is registered for it; how it runs headless; what it shows the model of a
// refusal), and a scripted model behind the fake API each client speaks (responses.go: OpenAI
// Responses for Codex; chat.go: OpenAI Chat Completions for Qwen Code and Copilot CLI;
// generatecontent.go: the Gemini API; Claude Code's Messages API is claudetest's).
//
// A script is a list of Steps, each one tool call the model makes, in order, one per turn: the
// fake answers each request with the step after the tool results already in the conversation,
// and with plain text once the script is done. Every request is kept, so a test can read what
// the client told the model of each call (a hook's refusal reaches the model as the tool's
// result).
package agenttest

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/hookctl/hookctl/internal/testbin"
)

// Step is one tool call the model makes: a shell command, or a whole-file write with the
// client's own write tool.
type Step struct {
	Shell   string // the command, when the step runs one
	Write   string // the file written (absolute), when the step writes one
	Content string
}

// Shell is a step that runs command.
func Shell(command string) Step { return Step{Shell: command} }

// WriteFile is a step that writes content to path with the client's write tool.
func WriteFile(path, content string) Step { return Step{Write: path, Content: content} }

// Done is the model's last answer, once the script has run.
const Done = "All done."

// Binary returns the client's executable under <repo root>/.cache/<dir>/node_modules/.bin/<name>,
// skipping the test when it is not installed, or failing under HOOKCTL_REQUIRE_E2E=1 (CI).
func Binary(t testing.TB, dir, name, pkg string) string {
	t.Helper()
	root, err := testbin.RepoRoot()
	if err == nil {
		p := filepath.Join(root, ".cache", dir, "node_modules", ".bin", name)
		if fi, err := os.Stat(p); err == nil && !fi.IsDir() && fi.Mode()&0o111 != 0 {
			return p
		}
		err = fmt.Errorf("%s not found: install it with `make e2e-deps` (npm install --prefix .cache/%s %s)", p, dir, pkg)
	}
	if os.Getenv("HOOKCTL_REQUIRE_E2E") == "1" {
		t.Fatal(err.Error() + " (HOOKCTL_REQUIRE_E2E=1)")
	}
	t.Skip(err.Error())
	return ""
}

// RepoRoot is the directory holding go.mod, above the test's working directory.
func RepoRoot(t testing.TB) string {
	t.Helper()
	root, err := testbin.RepoRoot()
	if err != nil {
		t.Fatal(err)
	}
	return root
}

// fake is what every fake API holds: the requests it received (log), its server on loopback,
// and the model's script.
type fake struct {
	log
	srv    *httptest.Server
	script []Step
}

// start serves answer on loopback until the test ends, each request's body logged first.
func (f *fake) start(t testing.TB, script []Step, answer func(w http.ResponseWriter, req *http.Request, body []byte)) {
	f.script = script
	f.srv = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
		body, _ := io.ReadAll(req.Body)
		f.add(string(body))
		answer(w, req, body)
	}))
	t.Cleanup(f.srv.Close)
}

// request is what a fake reads of a request in its API's JSON: how many tool results the
// conversation holds (the steps of the script done), and the names of the tools offered.
type request interface {
	results() int
	names() []string
}

// decode reads a request's body as R; a body that is not R reads as no results and no tools.
func decode[R any, P interface {
	*R
	request
}](body []byte) P {
	var r R
	json.Unmarshal(body, &r)
	return &r
}

// toolNames are the tools the first request that offered any offered: every fake's ToolNames.
func toolNames[R any, P interface {
	*R
	request
}](f *fake) []string {
	for _, body := range f.Requests() {
		var r R
		if json.Unmarshal([]byte(body), &r) == nil {
			if out := P(&r).names(); len(out) > 0 {
				return out
			}
		}
	}
	return nil
}

// log keeps the requests a fake API received.
type log struct {
	mu   sync.Mutex
	reqs []string
}

func (l *log) add(body string) {
	l.mu.Lock()
	l.reqs = append(l.reqs, body)
	l.mu.Unlock()
}

// Requests are the bodies of the requests received, in order.
func (l *log) Requests() []string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return append([]string(nil), l.reqs...)
}

// Saw reports whether any request held s (in its JSON text, so quotes are escaped as \").
func (l *log) Saw(s string) bool {
	for _, r := range l.Requests() {
		if strings.Contains(r, s) {
			return true
		}
	}
	return false
}

// RecordingHook writes a shell script at dir/name that keeps each payload it is given under
// dir/payloads/ and then runs hookctl with args on it: a real hook that also records what the
// client sent, for the fixtures and for the tests' own checks.
func RecordingHook(t testing.TB, dir, hookctl string, args ...string) string {
	t.Helper()
	rec := filepath.Join(dir, "payloads")
	if err := os.MkdirAll(rec, 0o755); err != nil {
		t.Fatal(err)
	}
	q := func(s string) string { return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'" }
	words := []string{q(hookctl)}
	for _, a := range args {
		words = append(words, q(a))
	}
	script := "#!/bin/sh\nf=$(mktemp " + q(rec) + "/p.XXXXXXXX) || exit 2\ncat > \"$f\"\nexec " + strings.Join(words, " ") + " < \"$f\"\n"
	p := filepath.Join(dir, "hook.sh")
	if err := os.WriteFile(p, []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	return p
}

// Payloads are the payloads a RecordingHook in dir kept, oldest first.
func Payloads(t testing.TB, dir string) [][]byte {
	t.Helper()
	entries, err := os.ReadDir(filepath.Join(dir, "payloads"))
	if err != nil {
		t.Fatal(err)
	}
	type rec struct {
		b   []byte
		mod int64
	}
	var recs []rec
	for _, e := range entries {
		b, err := os.ReadFile(filepath.Join(dir, "payloads", e.Name()))
		if err != nil {
			t.Fatal(err)
		}
		info, _ := e.Info()
		recs = append(recs, rec{b, info.ModTime().UnixNano()})
	}
	for i := 1; i < len(recs); i++ {
		for j := i; j > 0 && recs[j].mod < recs[j-1].mod; j-- {
			recs[j], recs[j-1] = recs[j-1], recs[j]
		}
	}
	out := make([][]byte, len(recs))
	for i, r := range recs {
		out[i] = r.b
	}
	return out
}

// Record writes payloads to fixtures/<client>/, each named after its event and tool and the
// first word of its command, with the temporary paths in them replaced as replace says, so
// that the adapters' tests can read what the real client sent.
func Record(t testing.TB, client string, payloads [][]byte, replace map[string]string) {
	t.Helper()
	dir := filepath.Join(RepoRoot(t), "fixtures", client)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	// Longest first, so that a path is replaced before any prefix of it.
	var olds []string
	for k := range replace {
		olds = append(olds, k)
	}
	for i := 1; i < len(olds); i++ {
		for j := i; j > 0 && len(olds[j]) > len(olds[j-1]); j-- {
			olds[j], olds[j-1] = olds[j-1], olds[j]
		}
	}
	seen := map[string]int{}
	for _, p := range payloads {
		var m map[string]any
		if err := json.Unmarshal(p, &m); err != nil {
			t.Fatalf("a recorded payload is not JSON: %v", err)
		}
		text := string(p)
		for _, o := range olds {
			text = strings.ReplaceAll(text, o, replace[o])
		}
		name := fixtureName(m)
		seen[name]++
		if seen[name] > 1 {
			name = fmt.Sprintf("%s-%d", name, seen[name])
		}
		if err := os.WriteFile(filepath.Join(dir, name+".json"), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

func fixtureName(m map[string]any) string {
	str := func(keys ...string) string {
		for _, k := range keys {
			if s, ok := m[k].(string); ok && s != "" {
				return s
			}
		}
		return ""
	}
	name := strings.ToLower(str("hook_event_name", "hookEventName"))
	if name == "" {
		name = "pretooluse"
	}
	if tool := str("tool_name", "toolName"); tool != "" {
		name += "-" + strings.ToLower(tool)
		in, _ := m["tool_input"].(map[string]any)
		if in == nil {
			in, _ = m["toolArgs"].(map[string]any)
		}
		if cmd, _ := in["command"].(string); cmd != "" {
			word := strings.Fields(cmd)[0]
			clean := strings.Map(func(r rune) rune {
				if r >= 'a' && r <= 'z' || r >= '0' && r <= '9' || r == '-' || r == '_' {
					return r
				}
				return -1
			}, word)
			if clean != "" {
				name += "-" + clean
			}
		}
	}
	return name
}
