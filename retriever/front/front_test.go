package front

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

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
