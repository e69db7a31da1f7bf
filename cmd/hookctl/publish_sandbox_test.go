//go:build linux

package main

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/hookctl/hookctl/audit"
	"github.com/hookctl/hookctl/internal/fakegithub"
)

// TestPublishSandbox runs an approved publish as review mode's rewrite has it, for real, as root
// and as an unprivileged user: the publish reaches the GitHub API (here a fake one, through the
// test's proxy, as through a user's corporate proxy) exactly once with the text, gets the gh
// token and the pins and nothing else of the environment, cannot write the project, and
// cannot reach any other host; the connection is in the audit.
func TestPublishSandbox(t *testing.T) {
	requireTool(t, "python3")
	forEditWorlds(t, publishSandbox)
}

func publishSandbox(t *testing.T, w *editWorld) {
	dir := filepath.Join(filepath.Dir(w.home), "gh")
	os.MkdirAll(dir, 0o755)
	gh := filepath.Join(dir, "gh")
	os.WriteFile(gh, []byte(fakegithub.GH), 0o755)
	api := fakegithub.New(t, dir)

	cmd := exec.Command(w.bin, "sandbox", "--profile", "publish", "--session", w.session, "--",
		gh, "pr", "review", "7", "--comment", "--body", "Looks good; one nit.")
	cmd.Dir = w.project
	cmd.Env = append(append(w.env, api.Env()...), "GH_TOKEN=gho_publishToken", "HOOKCTL_TEST_SECRET=s3cret", "GH_PAGER=less", "GH_HOST=evil.example")
	cmd.SysProcAttr = &syscall.SysProcAttr{Credential: w.user}
	timer := time.AfterFunc(20*time.Second, func() { cmd.Process.Kill() })
	out, err := cmd.Output()
	timer.Stop()
	if err != nil {
		t.Fatalf("the publish: %v\n%s", err, out)
	}
	var report struct {
		Env               []string
		Pins              map[string]string
		Post, Write, Evil string
	}
	if err := json.Unmarshal(out, &report); err != nil {
		t.Fatalf("the fake gh's report: %v\n%s", err, out)
	}
	t.Logf("the fake gh saw: %s", out)
	posts := api.Posts()
	if len(posts) != 1 || posts[0].Path != "/repos/o/r/pulls/7/reviews" || posts[0].Auth != "token gho_publishToken" ||
		!strings.Contains(posts[0].Body, `"Looks good; one nit."`) {
		t.Errorf("the API received %+v (gh: %q)", posts, report.Post)
	}
	if tunnels := api.Tunnels(); !slices.Equal(tunnels, []string{"api.github.com:443"}) {
		t.Errorf("tunnels through the user's proxy: %q, want only the API", tunnels)
	}
	if report.Write == "written" || report.Write == "" {
		t.Errorf("the publish wrote to the project: %q", report.Write)
	}
	if _, err := os.Stat(filepath.Join(w.project, "written-by-publish")); err == nil {
		t.Error("the publish's file is in the project")
	}
	if !strings.Contains(report.Evil, "403") {
		t.Errorf("another host: %q", report.Evil)
	}
	if slices.Contains(report.Env, "HOOKCTL_TEST_SECRET") || slices.Contains(report.Env, "HOOKCTL_HOME") || !slices.Contains(report.Env, "GH_TOKEN") {
		t.Errorf("the publish's environment: %q", report.Env)
	}
	if report.Pins["GH_PAGER"] != "cat" || report.Pins["GH_HOST"] != "github.com" || report.Pins["GH_PROMPT_DISABLED"] != "1" {
		t.Errorf("pins %v: the profile's pins win over the caller's", report.Pins)
	}
	entries, _, err := audit.AuditAt(w.hh).Entries()
	if err != nil {
		t.Fatal(err)
	}
	var audited bool
	for _, e := range entries {
		audited = audited || e.Kind == audit.KindEgress && e.Host == "api.github.com:443" && e.Outcome == "allowed" &&
			e.Isolation == "publish sandbox, egress proxy" && e.Session == w.session
	}
	if !audited {
		t.Errorf("no audit entry for the publish's connection: %+v", entries)
	}
}
