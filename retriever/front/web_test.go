package front

import (
	"reflect"
	"strings"
	"testing"

	"github.com/hookctl/hookctl/retriever"
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
