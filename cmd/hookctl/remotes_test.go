package main

import (
	"os"
	"os/exec"
	"strings"
	"testing"

	"github.com/hookctl/hookctl/session"
)

// TestRemotesAddIsTheHumans: `hookctl remotes add` run where the environment claims a Claude
// Code session its processes do not confirm (an agent's command that set the variable, or a
// shell hookctl cannot place) changes nothing, as `hookctl readonly` refuses there; from a
// terminal it adds the host, and `hookctl remotes` lists it.
func TestRemotesAddIsTheHumans(t *testing.T) {
	home, project := t.TempDir(), t.TempDir()
	run := func(env []string, args ...string) (string, error) {
		cmd := exec.Command(hookctlBinary(t), args...)
		cmd.Env = append(append(os.Environ(), "HOOKCTL_HOME="+home), env...)
		cmd.Dir = project
		out, err := cmd.CombinedOutput()
		return string(out), err
	}
	out, err := run([]string{envSessionVar + "=0f7c2a11-claimed"}, "remotes", "add", "evil.example")
	if err == nil || !strings.Contains(out, "cannot confirm") {
		t.Errorf("inside a session hookctl cannot confirm: %v %s", err, out)
	}
	if _, err := session.NewProjects(home).Load(project); err != session.ErrNoProject {
		t.Errorf("a record was made: %v", err)
	}
	if out, err := run(nil, "remotes", "add", "git.corp.example:8443"); err != nil || !strings.Contains(out, "git.corp.example:8443") {
		t.Fatalf("from a terminal: %v %s", err, out)
	}
	if out, _ := run(nil, "remotes"); !strings.Contains(out, "git.corp.example:8443 (added ") {
		t.Errorf("remotes: %s", out)
	}
	if out, err := run(nil, "remotes", "add", "http://x"); err == nil {
		t.Errorf("a URL was added as a host: %s", out)
	}
}
