package policy

import (
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/hookctl/hookctl/config"
	"github.com/hookctl/hookctl/hook"
	"github.com/hookctl/hookctl/internal/corpus"
	"github.com/hookctl/hookctl/internal/shellglob"
	"github.com/hookctl/hookctl/lexer"
	"github.com/hookctl/hookctl/retriever"

	"mvdan.cc/sh/v3/syntax"
)

// githubPolicy is a read-only policy whose project has the remotes origin (o/r) and upstream
// (up/r), as ProjectGitHubRepo would find them.
func githubPolicy() *Policy {
	return &Policy{World: shellglob.World{}, Config: &config.Config{}, Client: testClient, Binary: "/bin/hookctl",
		GitHubRepo: func(remote string) string {
			switch remote {
			case "", "origin":
				return "o/r"
			case "upstream":
				return "up/r"
			}
			return ""
		},
		GitBranch: func() string { return "feature/x" },
		GitHubRepoAt: func(dir, remote string) string {
			if filepath.Base(dir) == "other" {
				return "other/x"
			}
			return "o/r"
		},
		GitBranchAt: func(dir string) string { return "other-branch" }}
}

// githubRead reports whether the policy rewrites cmd, in read-only mode, into a typed
// `hookctl retrieve github --op JSON` (or repo) read whose operation the retriever accepts, and
// returns the rewritten command's words, the operation's JSON replaced by its arguments.
func githubRead(p *Policy, cmd, description string) ([]string, hook.Decision, bool) {
	d := p.Decide(&hook.ToolCall{Session: "s1", Tool: "Bash", Kind: hook.KindShell, Command: cmd, Description: description}, SessionState{Mode: hook.ModeReadOnly})
	if d.Verdict != hook.Allow {
		return nil, d, false
	}
	f, err := lexer.NewCommandLine(d.Command).Tree()
	if err != nil || len(f.Stmts) != 1 {
		return nil, d, false
	}
	call, ok := f.Stmts[0].Cmd.(*syntax.CallExpr)
	if !ok {
		return nil, d, false
	}
	var words []string
	for _, w := range call.Args {
		v, _, ok := lexer.Text(w)
		if !ok {
			return nil, d, false
		}
		words = append(words, v)
	}
	if len(words) < 6 || words[0] != "/bin/hookctl" || words[1] != "retrieve" || words[2] != "github" && words[2] != "repo" ||
		words[3] != "--op" || words[5] != "--need" {
		return nil, d, false
	}
	op, err := retriever.DecodeGitHubOp(words[4])
	if err != nil {
		return nil, d, false
	}
	args := op.Args()
	if i := slices.Index(args, "--"); i >= 0 { // flags after the operands, as the rows below read
		args = append(append(append([]string{}, args[0]), args[i+1:]...), args[1:i]...)
	}
	return append(append(words[:3:3], args...), words[5:]...), d, true
}

// TestCorpusGitHubReads: every row of allow/github.txt becomes a typed GitHub read; every gh
// and git ls-remote row of deny/ is refused outright, never rewritten.
func TestCorpusGitHubReads(t *testing.T) {
	allow, err := corpus.Load("allow")
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for _, r := range allow {
		if r.File != "github.txt" {
			continue
		}
		n++
		if _, d, ok := githubRead(githubPolicy(), r.Command, "what changed"); !ok {
			t.Errorf("%s: not a typed GitHub read: %v %q %s", r, d.Verdict, d.Command, d.Reason)
		}
	}
	if n < 40 {
		t.Errorf("only %d GitHub reads in allow/github.txt", n)
	}
	deny, err := corpus.Load("deny")
	if err != nil {
		t.Fatal(err)
	}
	n = 0
	for _, r := range deny {
		first := r.Command
		for strings.HasPrefix(first, "GH_") { // skip NAME=value prefixes
			_, first, _ = strings.Cut(first, " ")
		}
		if !strings.HasPrefix(first, "gh ") && !strings.HasPrefix(first, "/usr/bin/gh ") && !strings.HasPrefix(first, "git ls-remote") {
			continue
		}
		n++
		d := githubPolicy().Decide(&hook.ToolCall{Session: "s1", Tool: "Bash", Kind: hook.KindShell, Command: r.Command}, SessionState{Mode: hook.ModeReadOnly})
		if d.Verdict != hook.Deny {
			t.Errorf("%s (%s): %v as %q, want a refusal", r, r.Comment, d.Verdict, d.Command)
		}
	}
	if n < 90 {
		t.Errorf("only %d hostile gh rows in deny/", n)
	}
}

// TestGitHubReadsRepository: a read that names no repository reads the one gh would: the
// client's GH_REPO, else the project's git remote; an inline GH_REPO= or -R wins; none found is
// a refusal that asks for -R. The need carries the agent's description and the flags.
func TestGitHubReadsRepository(t *testing.T) {
	for _, c := range []struct {
		cmd, env, want string
	}{
		{"gh pr list", "", "pr-list o/r"},
		{"gh pr list", "env/x", "pr-list env/x"},
		{"gh pr list -R flag/x", "env/x", "pr-list flag/x"},
		{"GH_REPO=inline/x gh pr list", "env/x", "pr-list inline/x"},
		{"gh pr list", "ghe.corp.example/t/s", "pr-list t/s --host ghe.corp.example"},
		{"cd ../other && gh pr view 3", "", "pr other/x 3"},                                // that checkout's remote
		{"cd ../other && gh pr view --json title", "", "pr other/x --branch=other-branch"}, // and its branch
		{"git ls-remote --tags upstream", "env/x", "tags up/r"},                            // a named remote: not GH_REPO
		{"gh api repos/{owner}/{repo}/pulls", "", "api-get o/r pulls"},
		{"gh pr view --json title,body,files", "", "pr o/r --branch=feature/x"}, // the current branch's
		{"gh pr checks -R x/y", "", "pr-checks x/y --branch=feature/x"},
		{"gh pr view fix-1", "", "pr o/r --branch=fix-1"},
	} {
		p := githubPolicy()
		p.GHRepo = c.env
		words, d, ok := githubRead(p, c.cmd, "")
		if !ok || !strings.HasPrefix(strings.Join(words[3:], " "), c.want+" --need") {
			t.Errorf("%q with GH_REPO=%q: %v %q %s; want %q", c.cmd, c.env, d.Verdict, d.Command, d.Reason, c.want)
		}
	}
	p := githubPolicy()
	p.GitHubRepo = func(string) string { return "" }
	if d := p.Decide(bash("gh pr list"), SessionState{Mode: hook.ModeReadOnly}); d.Verdict != hook.Deny || !strings.Contains(d.Reason, "-R OWNER/REPO") {
		t.Errorf("no remote: %v %s", d.Verdict, d.Reason)
	}
	p.GitBranch = func() string { return "" }
	if d := p.Decide(bash("gh pr view -R o/r"), SessionState{Mode: hook.ModeReadOnly}); d.Verdict != hook.Deny || !strings.Contains(d.Reason, "number") {
		t.Errorf("a detached HEAD: %v %s", d.Verdict, d.Reason)
	}
	p.GitBranch = func() string { return "x..y" }
	if d := p.Decide(bash("gh pr view -R o/r"), SessionState{Mode: hook.ModeReadOnly}); d.Verdict != hook.Deny {
		t.Errorf("a hostile branch name: %v %q", d.Verdict, d.Command)
	}
	p.GHRepo = "a/b/c/d"
	if d := p.Decide(bash("gh pr list"), SessionState{Mode: hook.ModeReadOnly}); d.Verdict != hook.Deny {
		t.Errorf("a malformed GH_REPO: %v %q", d.Verdict, d.Command)
	}

	words, _, ok := githubRead(githubPolicy(), "gh api repos/o/r/commits --jq '.[].sha'", "the latest commit ids")
	if !ok || !strings.Contains(words[len(words)-5], `the latest commit ids (gh was asked for the jq filter ".[].sha")`) {
		t.Errorf("need: %q", words)
	}

	// In edit mode git reaches the project's own remote itself: ls-remote is the edit guard's.
	d := githubPolicy().Decide(bash("git ls-remote --heads origin"), SessionState{Mode: hook.ModeEdit})
	if strings.Contains(d.Command, "retrieve") {
		t.Errorf("edit mode rewrote git ls-remote: %q", d.Command)
	}
}
