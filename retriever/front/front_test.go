package front

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/hookctl/hookctl/hook"
	"github.com/hookctl/hookctl/internal/fsutil"
	"github.com/hookctl/hookctl/retriever"
	"github.com/hookctl/hookctl/retriever/settings"
)

// TestWorkerPath: the worker is looked for beside hookctl's own executable and nowhere else;
// without an absolute path for hookctl there is no worker to run.
func TestWorkerPath(t *testing.T) {
	for bin, want := range map[string]string{
		"/usr/local/bin/hookctl": "/usr/local/bin/hookctl-retrieve-worker",
		"/opt/h/hookctl":         "/opt/h/hookctl-retrieve-worker",
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
	notExec := filepath.Join(dir, "hookctl-retrieve-worker")
	os.WriteFile(notExec, []byte("#!/bin/sh\n"), 0o644)
	for worker, want := range map[string]string{
		filepath.Join(t.TempDir(), "hookctl-retrieve-worker"): "is missing",
		notExec: "is not an executable file",
		"":      "cannot find its own executable",
	} {
		f := &Front{Worker: worker, Config: settings.Config{Distiller: "extract"}, Audit: &Audit{Dir: t.TempDir()}}
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
// auditLockWait, saying why, instead of stalling the agent's tool call for ever; so does a
// direct_fetch call, which is refused.
func TestRetrieveAuditLockBounded(t *testing.T) {
	dir := t.TempDir()
	unlock, err := fsutil.Lock(filepath.Join(dir, auditLock), 0)
	if err != nil {
		t.Fatal(err)
	}
	defer unlock()
	f := &Front{Config: settings.Config{Distiller: "extract"}, Audit: &Audit{Dir: dir}}
	within := func(what string, do func() string) string {
		start := time.Now()
		done := make(chan string, 1)
		go func() { done <- do() }()
		select {
		case text := <-done:
			if d := time.Since(start); d < auditLockWait-100*time.Millisecond || d > auditLockWait+2*time.Second {
				t.Errorf("%s: returned after %v, want about %v", what, d, auditLockWait)
			}
			return text
		case <-time.After(auditLockWait + 10*time.Second):
			t.Fatalf("%s: still waiting for the audit lock after %v", what, time.Since(start))
		}
		return ""
	}
	text := within("retrieve", func() string {
		return f.Retrieve(context.Background(), &retriever.Request{Kind: retriever.KindFetch, URL: "https://example.com/", Need: "x"}).Text
	})
	if !strings.Contains(text, "could not record the retrieval in its audit log") || !strings.Contains(text, "so its result is withheld") ||
		!strings.Contains(text, "held it too long") {
		t.Errorf("retrieve: %q", text)
	}
	f.DirectFetch = true
	d := hook.Decision{}
	within("direct fetch", func() string {
		d = f.AnswerWebTool(context.Background(), &hook.Call{Tool: "WebFetch", Web: &hook.WebRequest{URL: "https://example.com/"}})
		return d.Reason
	})
	if d.Verdict != hook.Deny || !strings.Contains(d.Reason, "could not audit this direct fetch") {
		t.Errorf("direct fetch: %+v", d)
	}
}
