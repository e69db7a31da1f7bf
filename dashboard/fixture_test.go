package dashboard

import (
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/hookctl/hookctl/audit"
	"github.com/hookctl/hookctl/hook"
	"github.com/hookctl/hookctl/retriever"
	"github.com/hookctl/hookctl/securerun"
	"github.com/hookctl/hookctl/session"
)

// The fixture's sessions: one read-only, one in review mode.
const (
	sessionA = "a1b2c3d4-0000-4000-8000-00000000000a"
	sessionB = "b5e6f7a8-0000-4000-8000-00000000000b"
	auditID  = "20261201T101500.123Z-8f2a9c1d"
	runID    = "20261201T101600Z-0a1b2c3d"
)

// hostile is planted in every field the agent or the web can write: markup, a script, an
// event handler, a javascript: URL, a bidi override and zero-width characters, and a
// terminal escape.
const hostile = `<script>alert(1)</script><img src=x onerror=alert(2)>"'><a href="javascript:alert(3)">x</a>` +
	"javascript:alert(4) \u202Eevil\u202C \u2066iso\u2069 zero\u200Bwidth\u200D\uFEFF esc\x1b[31m"

// plant writes a hookctl home with the two sessions, decisions, a retrieval with its
// transcript (raw content kept) and a secure run, each text field holding extra.
func plant(t testing.TB, home, extra string) {
	t.Helper()
	project := filepath.Join(home, "project "+extra)
	store := session.NewStore(home)
	if _, err := store.Record(sessionA, project, hook.ModeReadOnly); err != nil {
		t.Fatal(err)
	}
	if _, err := store.Record(sessionB, project+"-b", hook.ModeReview); err != nil {
		t.Fatal(err)
	}
	now := time.Now().UTC()
	log := audit.DecisionLogAt(home)
	for i, e := range []hook.LogEntry{
		{Session: sessionA, Event: "tool", Tool: "Bash", Mode: "read-only", Verdict: "allow", Rule: "read-only judge", Reason: "read-only command " + extra,
			Command: "ls -la " + extra, Rewrite: true, Isolation: "landlock " + extra, Cwd: project},
		{Session: sessionA, Event: "tool", Tool: "Bash", Mode: "read-only", Verdict: "deny", Rule: "read-only judge: redirection " + extra,
			Reason: "writes are refused " + extra, Command: "echo x > out " + extra, Cwd: project, AgentType: "Explore " + extra},
		{Session: sessionB, Event: "tool", Tool: "Write " + extra, Mode: "review", Verdict: "deny", Rule: "review", Reason: "no writes", Cwd: project},
	} {
		e.ID = hook.NewLogID(now.Add(time.Duration(i) * time.Second))
		e.Time = now.Add(time.Duration(i) * time.Second)
		e.Agent = "Claude Code " + extra
		if err := log.Append(&e); err != nil {
			t.Fatal(err)
		}
	}
	a := audit.AuditAt(home)
	if err := a.Append(&audit.AuditEntry{ID: auditID, Time: now, Session: sessionA, Tool: "WebFetch", Kind: retriever.KindFetch,
		URL: "https://example.com/" + extra, Host: "example.com", Status: 200, Bytes: 1234, Distiller: "haiku " + extra,
		Injection: []string{"instruction-override " + extra}, Scrub: "clean", Isolation: "worker: landlock " + extra, Outcome: "answered",
		Error: extra}); err != nil {
		t.Fatal(err)
	}
	if err := a.SaveTranscript(&audit.Transcript{ID: auditID, Need: "the install steps " + extra, Answer: "run make install " + extra,
		Injection: []string{"ignore previous instructions " + extra},
		Documents: []retriever.Document{{URL: "https://example.com/" + extra, Bytes: 99, Text: "raw page text " + extra}}}); err != nil {
		t.Fatal(err)
	}
	dir := filepath.Join(securerun.RunsDir(home), runID)
	os.MkdirAll(dir, 0o700)
	meta := securerun.NewRunMeta(runID, now, &securerun.Preflight{Profile: "secure-read-only", Command: []string{"/usr/bin/make", "test " + extra},
		Warnings: []string{"warning " + extra}, Failures: []string{"failure " + extra}})
	meta.State = securerun.StateFinished
	meta.Exit = &securerun.Exit{Code: 2}
	b, _ := json.MarshalIndent(meta, "", "  ")
	if err := os.WriteFile(filepath.Join(dir, securerun.MetaName), b, 0o600); err != nil {
		t.Fatal(err)
	}
}

// testServer is a dashboard of a planted home, served by httptest at a fixed port's address.
type testServer struct {
	*Server
	h    http.Handler
	home string
}

const testPort = 18999

func newTestServer(t testing.TB, extra string) *testServer {
	t.Helper()
	home := t.TempDir()
	plant(t, home, extra)
	s, err := New(home, "", testPort)
	if err != nil {
		t.Fatal(err)
	}
	return &testServer{Server: s, h: s.Handler(), home: home}
}

// req is one request to the handler: method, path, and options.
type req struct {
	method, path string
	host         string // default 127.0.0.1:testPort
	cookie       string // the cookie's value; "" none
	origin       string
	form         url.Values
	raw          bool // path as it is, not under the dashboard's base path
}

func (ts *testServer) do(r req) *httptest.ResponseRecorder {
	var body *strings.Reader
	if r.form != nil {
		body = strings.NewReader(r.form.Encode())
	} else {
		body = strings.NewReader("")
	}
	if r.method == "" {
		r.method = http.MethodGet
	}
	if !r.raw {
		r.path = ts.base + strings.TrimPrefix(r.path, "/")
	}
	hr := httptest.NewRequest(r.method, "http://127.0.0.1:"+strconv.Itoa(testPort)+r.path, body)
	hr.Host = "127.0.0.1:" + strconv.Itoa(testPort)
	if r.host != "" {
		hr.Host = r.host
	}
	if r.form != nil {
		hr.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	}
	if r.cookie != "" {
		hr.AddCookie(&http.Cookie{Name: CookieName, Value: r.cookie})
	}
	if r.origin != "" {
		hr.Header.Set("Origin", r.origin)
	}
	w := httptest.NewRecorder()
	ts.h.ServeHTTP(w, hr)
	return w
}

// get is an authenticated GET.
func (ts *testServer) get(path string) *httptest.ResponseRecorder {
	return ts.do(req{path: path, cookie: ts.token})
}

var selfOrigin = "http://127.0.0.1:" + strconv.Itoa(testPort)
