package front

import (
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/hookctl/hookctl/gate"
	"github.com/hookctl/hookctl/retriever"
	"github.com/hookctl/hookctl/retriever/settings"
)

// TestParseCLI: hookctl retrieve's arguments (after cobra has taken its flags) become one
// request, or an error that says what is wrong.
func TestParseCLI(t *testing.T) {
	who := CLIOptions{Need: "which version?", Session: "s1", AgentType: "Explore", Tool: "Bash"}
	req := func(r retriever.Request) *retriever.Request {
		r.Need, r.Session, r.AgentType, r.Tool = who.Need, who.Session, who.AgentType, who.Tool
		return &r
	}
	for _, c := range []struct {
		args    []string
		want    *retriever.Request
		wantErr string
	}{
		{args: []string{"fetch", "https://go.dev/doc"}, want: req(retriever.Request{Kind: retriever.KindFetch, URL: "https://go.dev/doc"})},
		{args: []string{"search", "mvdan sh zsh"}, want: req(retriever.Request{Kind: retriever.KindSearch, Query: "mvdan sh zsh"})},
		{args: []string{"github", "pr-diff", "cli/cli", "123"}, want: req(retriever.Request{Kind: retriever.KindGitHub,
			GitHub: &retriever.GitHubOp{Op: "pr-diff", Owner: "cli", Repo: "cli", Number: 123}})},
		{args: []string{"fetch"}, wantErr: "fetch takes one URL"},
		{args: []string{"fetch", "https://a", "https://b"}, wantErr: "fetch takes one URL"},
		{args: []string{"search", "a", "b"}, wantErr: "search takes one quoted query"},
		{args: []string{"github", "pr-diff", "cli/cli", "../1"}, wantErr: "failed to parse github arguments"},
		{args: []string{"curl", "https://a"}, wantErr: `unknown retrieval "curl"`},
		{args: nil, wantErr: "say what to retrieve"},
		{args: []string{"repo", "mvdan/sh@v3.10.0"}, want: req(retriever.Request{Kind: retriever.KindRepo,
			GitHub: &retriever.GitHubOp{Op: "snapshot", Owner: "mvdan", Repo: "sh", Ref: "v3.10.0"}})},
		{args: []string{"repo", "https://github.com/o/r/tree/main/pkg"}, want: req(retriever.Request{Kind: retriever.KindRepo,
			GitHub: &retriever.GitHubOp{Op: "snapshot", Owner: "o", Repo: "r", Ref: "main", Path: "pkg"}})},
		{args: []string{"repo", "o/r@a..b"}, wantErr: "failed to parse repo arguments"},
		{args: []string{"github", "snapshot", "o/r"}, wantErr: "hookctl retrieve repo"},
	} {
		opts := who
		got, err := ParseCLI(c.args, &opts)
		switch {
		case c.wantErr != "":
			if err == nil || !strings.Contains(err.Error(), c.wantErr) {
				t.Errorf("%q: err = %v, want %q", c.args, err, c.wantErr)
			}
		case err != nil:
			t.Errorf("%q: %v", c.args, err)
		case !reflect.DeepEqual(got, c.want):
			t.Errorf("%q: got %+v, want %+v", c.args, got, c.want)
		}
	}
	for _, need := range []string{"", "  \t"} {
		if _, err := ParseCLI([]string{"fetch", "https://go.dev"}, &CLIOptions{Need: need}); err == nil || !strings.Contains(err.Error(), "--need") {
			t.Errorf("need %q: err = %v", need, err)
		}
	}
}

// TestParseCLIOp: the hook's rewrite hands a fetch or a GitHub operation on as --op JSON, which is decoded
// and checked, never parsed from argv; anything else beside it, an unknown field, or an
// operation Validate refuses is an error.
func TestParseCLIOp(t *testing.T) {
	for _, c := range []struct {
		args    []string
		op      string
		want    retriever.Kind
		wantErr string
	}{
		{[]string{"github"}, `{"op":"pr-list","owner":"o","repo":"r","search":"is:open author:x"}`, retriever.KindGitHub, ""},
		{[]string{"repo"}, `{"op":"snapshot","owner":"o","repo":"r","ref":"main"}`, retriever.KindRepo, ""},
		{[]string{"github"}, `{"op":"snapshot","owner":"o","repo":"r"}`, "", "read with repo"},
		{[]string{"repo"}, `{"op":"issue","owner":"o","repo":"r","number":1}`, "", "read with repo"},
		{[]string{"github", "pr", "o/r", "1"}, `{"op":"issue","owner":"o","repo":"r","number":1}`, "", "alone"},
		{[]string{"github"}, `{"op":"issue","owner":"o","repo":"r","number":1,"method":"POST"}`, "", "unknown field"},
		{[]string{"github"}, `{"op":"file","owner":"o","repo":"r","path":"../../user"}`, "", "contains"},
		{[]string{"fetch"}, `{"op":"issue","owner":"o","repo":"r","number":1}`, "", `unknown field "op"`}, // a GitHub operation is no fetch
		{[]string{"fetch", "https://a"}, `{"url":"https://b"}`, "", "alone"},
		{[]string{"fetch"}, `{"url":"file:///etc/passwd"}`, "", "http or https"},
	} {
		got, err := ParseCLI(c.args, &CLIOptions{Need: "n", Op: c.op})
		switch {
		case c.wantErr != "":
			if err == nil || !strings.Contains(err.Error(), c.wantErr) {
				t.Errorf("%q %s: %v, want %q", c.args, c.op, err, c.wantErr)
			}
		case err != nil || got.Kind != c.want || retriever.EncodeGitHubOp(got.GitHub) != c.op:
			t.Errorf("%q %s: %+v %v", c.args, c.op, got, err)
		}
	}
	// A fetch's operation is its URL, as encoded: the request fetches it and nothing else.
	op := `{"url":"https://e.com/a b?c=1&d='x'"}`
	got, err := ParseCLI([]string{"fetch"}, &CLIOptions{Need: "n", Op: op})
	if err != nil || got.Kind != retriever.KindFetch || got.URL != "https://e.com/a b?c=1&d='x'" || got.GitHub != nil {
		t.Errorf("fetch %s: %+v %v", op, got, err)
	}
}

// TestRepoURLSnapshot: a WebFetch of a github.com repository or /tree/ URL reads a snapshot; a
// blob, an issue, another host, or a look-alike is fetched as a page.
func TestRepoURLSnapshot(t *testing.T) {
	for u, want := range map[string]string{
		"https://github.com/o/r":                    `{"op":"snapshot","owner":"o","repo":"r"}`,
		"https://github.com/o/r.git":                `{"op":"snapshot","owner":"o","repo":"r"}`,
		"http://www.github.com/o/r/tree/v2/docs":    `{"op":"snapshot","owner":"o","repo":"r","path":"docs","ref":"v2"}`,
		"https://github.com/o/r/blob/main/x.go":     "",
		"https://github.com/o/r/issues/3":           "",
		"https://github.com.evil.example/o/r":       "",
		"https://gitlab.com/o/r":                    "",
		"https://github.com/o/r/tree/main/%2e%2e/x": "",
	} {
		got := ""
		if op := repoURLSnapshot(u); op != nil {
			got = retriever.EncodeGitHubOp(op)
		}
		if got != want {
			t.Errorf("%s: %s, want %s", u, got, want)
		}
	}
}

// TestResearchConfigLoads: [retriever.research] and private_repos are keys the global config
// takes, and their values reach the budget the worker applies, capped.
func TestResearchConfigLoads(t *testing.T) {
	home := t.TempDir()
	os.WriteFile(filepath.Join(home, "config.toml"), []byte("[retriever.research]\nenabled = false\nsteps = 99\npages = 3\nprotocol = \"text\"\n"+
		"[retriever.github]\nprivate_repos = [\"my-org/*\"]\n"), 0o600)
	cfg, err := gate.LoadConfig(home)
	if err != nil {
		t.Fatal(err)
	}
	r := cfg.Retriever
	if r.Research.On() || r.Research.Protocol != "text" || len(r.GitHub.PrivateRepos) != 1 {
		t.Errorf("%+v", r)
	}
	if b := r.Research.Budget(); b.Steps != settings.ResearchMaxSteps || b.Pages != 3 || b.Bytes != settings.DefaultResearchBytes {
		t.Errorf("budget %+v", b)
	}
	if (settings.ResearchConfig{}).On() != true {
		t.Error("research is off by default")
	}
}
