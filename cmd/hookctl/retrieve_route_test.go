package main

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/hookctl/hookctl/config"
	"github.com/hookctl/hookctl/hook"
	"github.com/hookctl/hookctl/internal/shellglob"
	"github.com/hookctl/hookctl/internal/testclient"
	"github.com/hookctl/hookctl/lexer"
	"github.com/hookctl/hookctl/policy"
	"github.com/hookctl/hookctl/retriever"
	"github.com/hookctl/hookctl/route"
)

// TestRoutedReadReachesRetrieveAsJudged: what `hookctl retrieve` runs for a routed shell read is
// the operation the router made, parsed once. Each command is judged by the policy, its rewrite
// is run by bash (hookctl's path there is a program that prints its arguments), and those
// arguments are read by hookctl retrieve's own command line into the request it would run:
// the URL, or the GitHub operation, must be the router's, byte for byte, with the agent's
// description as the need. Control: the same check, given a rewrite whose operation was
// changed on the way, sees the change.
func TestRoutedReadReachesRetrieveAsJudged(t *testing.T) {
	dir := t.TempDir()
	argv := filepath.Join(dir, "hookctl")
	if err := os.WriteFile(argv, []byte("#!/bin/sh\nprintf '%s\\0' \"$@\"\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	p := &policy.Policy{World: shellglob.World{}, Client: testclient.Claude, Config: &config.Config{}, Binary: argv}
	const need = `what it says; "all" of it, $(not run)`

	// reaches returns the request hookctl retrieve reads from a rewrite, as bash passes it.
	reaches := func(t *testing.T, rewrite string) *retriever.Request {
		t.Helper()
		out, err := exec.Command("bash", "-c", rewrite).Output()
		if err != nil {
			t.Fatalf("bash -c %q: %v", rewrite, err)
		}
		args := strings.Split(strings.TrimSuffix(string(out), "\x00"), "\x00")
		if len(args) < 2 || args[0] != "retrieve" {
			t.Fatalf("the rewrite %q runs hookctl with %q", rewrite, args)
		}
		var got *retriever.Request
		cmd := retrieveCmd(func(req *retriever.Request) error { got = req; return nil })
		cmd.SetArgs(args[1:])
		cmd.SetOut(&bytes.Buffer{})
		cmd.SetErr(&bytes.Buffer{})
		if err := cmd.Execute(); err != nil || got == nil {
			t.Fatalf("hookctl retrieve %q: %v", args[1:], err)
		}
		return got
	}
	// same reports whether req runs the route's operation.
	same := func(r *route.Route, req *retriever.Request) bool {
		if r.Fetch != nil {
			return req.Kind == retriever.KindFetch && req.URL == r.Fetch.URL && req.GitHub == nil
		}
		return string(req.Kind) == r.Kind && req.URL == "" && reflect.DeepEqual(req.GitHub, r.GitHub)
	}

	var routes []*route.Route
	var rewrites []string
	for _, cmd := range []string{
		`curl -sSL 'https://example.com/a?b=c&d=it'"'"'s'`,
		`curl --url "https://example.com/p;q=\$HOME"`,
		`wget -qO- 'https://example.com/a b'`,
		`http example.com/api`, // httpie's default scheme, as the router reads it
		`gh pr diff 3 -R cli/cli`,
		`gh pr list -R o/r --search 'is:open "a; b" $(x)' --label a,b --limit 5`,
		`gh api 'repos/o/r/issues?state=open&per_page=5' -X GET -f labels=bug,wontfix`,
		`gh issue view https://github.com/o/r/issues/7 --comments`,
		`git ls-remote --tags https://github.com/o/r`,
		`git clone --depth 1 -b v1.2 https://github.com/o/r`,
	} {
		r, ref := route.RouteNetwork(lexer.NewCommandLine(cmd))
		if r == nil || ref != nil || r.RepoMissing || r.CurrentBranch {
			t.Fatalf("%s: not a read that names what it reads: %+v %v", cmd, r, ref)
		}
		d := p.Decide(&hook.ToolCall{Tool: "Bash", Kind: hook.KindShell, Session: "s1", Command: cmd, Description: need},
			policy.SessionState{Mode: hook.ModeReadOnly})
		if d.Verdict != hook.Allow || !strings.HasPrefix(d.Command, lexer.Quote(argv)+" retrieve ") {
			t.Fatalf("%s: %s %q %s", cmd, d.Verdict, d.Command, d.Reason)
		}
		got := reaches(t, d.Command)
		if !same(r, got) {
			t.Errorf("%s: the router made %+v %+v; hookctl retrieve runs %s %q %+v", cmd, r.Fetch, r.GitHub, got.Kind, got.URL, got.GitHub)
		}
		if !strings.HasPrefix(got.Need, need) || got.Session != "s1" || got.Tool != "Bash" {
			t.Errorf("%s: need %q, session %q, tool %q", cmd, got.Need, got.Session, got.Tool)
		}
		routes, rewrites = append(routes, r), append(rewrites, d.Command)
	}

	// Control: an operation changed between the judge and retrieve is seen.
	changed := strings.Replace(rewrites[0], "https://example.com/a?b=c", "https://example.com/other?b=c", 1)
	if changed == rewrites[0] {
		t.Fatal("the control changed nothing")
	}
	if got := reaches(t, changed); same(routes[0], got) || got.URL != "https://example.com/other?b=c&d=it's" {
		t.Errorf("the changed rewrite reached retrieve as %q, which the check does not tell from the judged", got.URL)
	}
	changed = strings.Replace(rewrites[4], `"number":3`, `"number":4`, 1)
	if got := reaches(t, changed); changed == rewrites[4] || same(routes[4], got) || got.GitHub.Number != 4 {
		t.Errorf("a changed GitHub operation reached retrieve as %+v, which the check does not tell from the judged", got.GitHub)
	}
}
