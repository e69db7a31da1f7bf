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

// TestRetrieveFlagsReadOnce: `hookctl retrieve github|repo`'s flags are read by its command line
// once, and the operation is made of them and the operands (retriever.GitHubOpOf), not of the
// flags printed back into argv for ParseGitHubArgs to read again. Control: a file whose name
// starts with `-`, given after `--`, is an operand to the command line, and the argv printed
// again would have been read as an unknown flag.
func TestRetrieveFlagsReadOnce(t *testing.T) {
	read := func(args ...string) (*retriever.Request, error) {
		var got *retriever.Request
		cmd := retrieveCmd(func(req *retriever.Request) error { got = req; return nil })
		cmd.SetArgs(append([]string{"--need", "n"}, args...))
		cmd.SetOut(&bytes.Buffer{})
		cmd.SetErr(&bytes.Buffer{})
		return got, cmd.Execute()
	}
	for _, c := range []struct {
		args []string
		want string // the operation's JSON form, or a part of the error
	}{
		{[]string{"github", "file", "o/r", "README.md", "--ref", "trunk"}, `{"op":"file","owner":"o","repo":"r","path":"README.md","ref":"trunk"}`},
		{[]string{"github", "pr-list", "o/r", "--label", "a", "--label=b c", "--state", "open", "--limit", "5"}, `{"op":"pr-list","owner":"o","repo":"r","state":"open","labels":["a","b c"],"limit":5}`},
		{[]string{"github", "api-get", "o/r", "pulls", "--query", "state=open", "--query", "per_page=5", "--pages", "2"}, `{"op":"api-get","owner":"o","repo":"r","path":"pulls","query":["state=open","per_page=5"],"pages":2}`},
		{[]string{"repo", "o/r", "--ref", "v1"}, `{"op":"snapshot","owner":"o","repo":"r","ref":"v1"}`},
		{[]string{"github", "pr", "o/r", "1", "--host", "ghe.example.com"}, `{"op":"pr","host":"ghe.example.com","owner":"o","repo":"r","number":1}`},
		{[]string{"github", "file", "o/r", "--", "-x.md"}, `{"op":"file","owner":"o","repo":"r","path":"-x.md"}`},
		{[]string{"github", "pr-diff", "o/r", "1", "--ref", "main"}, "--ref applies to file and snapshot only"},
		{[]string{"github", "issue", "o/r", "1", "--state", "open"}, "--state does not apply to issue"},
		{[]string{"github", "pr-list", "o/r", "--limit", "0"}, "--limit \"0\": give 1 to 100"},
		{[]string{"fetch", "https://e.com/", "--state", "open"}, "--state goes with github and repo only"},
		{[]string{"github", "--op", `{"op":"pr","owner":"o","repo":"r","number":1}`, "--ref", "x"}, "--ref goes with github and repo without --op"},
	} {
		got, err := read(c.args...)
		switch {
		case strings.HasPrefix(c.want, "{"):
			if err != nil || got.GitHub == nil || retriever.EncodeGitHubOp(got.GitHub) != c.want {
				t.Errorf("%q: %v %v, want %s", c.args, got, err, c.want)
			}
		case err == nil || !strings.Contains(err.Error(), c.want):
			t.Errorf("%q: %v, want an error containing %q", c.args, err, c.want)
		}
	}
	// Control: the same words printed back into argv, as retrieve once did, read differently.
	if op, err := retriever.ParseGitHubArgs([]string{"file", "o/r", "-x.md"}); err == nil {
		t.Errorf("a second parse of the printed argv read %+v; the control shows nothing", op)
	}
}
