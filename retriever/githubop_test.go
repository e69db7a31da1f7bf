package retriever

import (
	"fmt"
	"reflect"
	"strings"
	"testing"
)

// ---- ParseGitHubArgs ----

type ghArgsRow struct {
	args []string
	want *GitHubOp // nil: an error containing err
	err  string
	why  string
}

func ghGood(why string, want GitHubOp, args ...string) ghArgsRow {
	return ghArgsRow{args: args, want: &want, why: why}
}

func ghBad(why, err string, args ...string) ghArgsRow {
	return ghArgsRow{args: args, err: err, why: why}
}

type ghO = GitHubOp

var ghArgsRows = []ghArgsRow{
	// Good: the positional forms.
	ghGood("issue", ghO{Op: "issue", Owner: "octo-org", Repo: "widget", Number: 12}, "issue", "octo-org/widget", "12"),
	ghGood("issue comments", ghO{Op: "issue-comments", Owner: "o", Repo: "r", Number: 1}, "issue-comments", "o/r", "1"),
	ghGood("pr", ghO{Op: "pr", Owner: "o", Repo: "r.go", Number: 3}, "pr", "o/r.go", "3"),
	ghGood("pr-diff", ghO{Op: "pr-diff", Owner: "o", Repo: "r", Number: 3}, "pr-diff", "o/r", "3"),
	ghGood("pr-files", ghO{Op: "pr-files", Owner: "o", Repo: "r", Number: 3}, "pr-files", "o/r", "3"),
	ghGood("pr-comments", ghO{Op: "pr-comments", Owner: "o", Repo: "r", Number: 3}, "pr-comments", "o/r", "3"),
	ghGood("largest issue number", ghO{Op: "issue", Owner: "o", Repo: "r", Number: 2147483647}, "issue", "o/r", "2147483647"),
	ghGood("OWNER/REPO#N as gh writes it", ghO{Op: "issue", Owner: "o", Repo: "r", Number: 7}, "issue", "o/r#7"),
	ghGood("file", ghO{Op: "file", Owner: "o", Repo: "r", Path: "docs/README.md"}, "file", "o/r", "docs/README.md"),
	ghGood("file with --ref", ghO{Op: "file", Owner: "o", Repo: "r", Path: "a.go", Ref: "v1.2.0"}, "file", "o/r", "a.go", "--ref", "v1.2.0"),
	ghGood("file with --ref= before operands", ghO{Op: "file", Owner: "o", Repo: "r", Path: "a.go", Ref: "feature/x"}, "file", "--ref=feature/x", "o/r", "a.go"),
	ghGood("file path starting with - after --", ghO{Op: "file", Owner: "o", Repo: "r", Path: "-x.txt"}, "file", "--", "o/r", "-x.txt"),
	ghGood("repo named .github", ghO{Op: "repo", Owner: "o", Repo: ".github"}, "repo", "o/.github"),
	ghGood("releases", ghO{Op: "releases", Owner: "Octo-Org", Repo: "Widget_2"}, "releases", "Octo-Org/Widget_2"),
	ghGood("managed-user owner", ghO{Op: "repo", Owner: "mona_octoinc", Repo: "r"}, "repo", "mona_octoinc/r"),
	ghGood("enterprise host", ghO{Op: "issue", Host: "ghe.example.com", Owner: "o", Repo: "r", Number: 1}, "issue", "--host", "GHE.example.com", "o/r", "1"),
	ghGood("enterprise host with port", ghO{Op: "repo", Host: "ghe.example.com:8443", Owner: "o", Repo: "r"}, "repo", "o/r", "--host=ghe.example.com:8443"),
	ghGood("--host github.com is the default", ghO{Op: "repo", Owner: "o", Repo: "r"}, "repo", "--host", "github.com", "o/r"),
	// Good: URLs.
	ghGood("issue URL", ghO{Op: "issue", Owner: "o", Repo: "r", Number: 12}, "issue", "https://github.com/o/r/issues/12"),
	ghGood("issue op on a pull URL: the issues API serves PRs", ghO{Op: "issue-comments", Owner: "o", Repo: "r", Number: 3}, "issue-comments", "https://github.com/o/r/pull/3"),
	ghGood("pull URL with fragment", ghO{Op: "pr", Owner: "o", Repo: "r", Number: 3}, "pr", "https://github.com/o/r/pull/3#issuecomment-99"),
	ghGood("pull files URL", ghO{Op: "pr-files", Owner: "o", Repo: "r", Number: 3}, "pr-files", "https://www.github.com/o/r/pull/3/files?w=1"),
	ghGood("pull URL trailing slash", ghO{Op: "pr-diff", Owner: "o", Repo: "r", Number: 3}, "pr-diff", "https://github.com/o/r/pull/3/"),
	ghGood("blob URL", ghO{Op: "file", Owner: "o", Repo: "r", Ref: "main", Path: "cmd/x/main.go"}, "file", "https://github.com/o/r/blob/main/cmd/x/main.go#L10"),
	ghGood("tree URL lists a directory", ghO{Op: "file", Owner: "o", Repo: "r", Ref: "v1", Path: "docs"}, "file", "https://github.com/o/r/tree/v1/docs"),
	ghGood("repo URL with .git", ghO{Op: "repo", Owner: "o", Repo: "r"}, "repo", "https://github.com/o/r.git"),
	ghGood("releases URL", ghO{Op: "releases", Owner: "o", Repo: "r"}, "releases", "https://github.com/o/r/releases"),
	ghGood("enterprise URL", ghO{Op: "pr", Host: "ghe.corp.example", Owner: "team", Repo: "svc", Number: 5}, "pr", "https://ghe.corp.example/team/svc/pull/5"),
	ghGood("look-alike host: parsed, then refused by Do unless listed", ghO{Op: "repo", Host: "github.com.evil.example", Owner: "o", Repo: "r"}, "repo", "https://github.com.evil.example/o/r"),
	// Good: lists, checks, runs, refs, api-get.
	ghGood("issue-list with every filter", ghO{Op: "issue-list", Owner: "o", Repo: "r", State: "closed", Labels: []string{"bug", "good first issue"}, Author: "mallory", Limit: 20},
		"issue-list", "o/r", "--state", "closed", "--label", "bug", "--label=good first issue", "--author", "mallory", "--limit", "20"),
	ghGood("pr-list by @me", ghO{Op: "pr-list", Owner: "o", Repo: "r", Author: "@me"}, "pr-list", "o/r", "--author", "@me"),
	ghGood("pr-list merged on a branch", ghO{Op: "pr-list", Owner: "o", Repo: "r", State: "merged", Branch: "feature/x"}, "pr-list", "o/r", "--state=merged", "--branch", "feature/x"),
	ghGood("limit at the cap", ghO{Op: "runs", Owner: "o", Repo: "r", Limit: 100}, "runs", "o/r", "--limit", "100"),
	ghGood("pr-checks by URL", ghO{Op: "pr-checks", Owner: "o", Repo: "r", Number: 3}, "pr-checks", "https://github.com/o/r/pull/3/checks"),
	ghGood("run id past 32 bits", ghO{Op: "run-log-failed", Owner: "o", Repo: "r", Number: 12345678901}, "run-log-failed", "o/r", "12345678901"),
	ghGood("largest run id", ghO{Op: "run", Owner: "o", Repo: "r", Number: 1<<53 - 1}, "run", "o/r", "9007199254740991"),
	ghGood("pr by its head branch", ghO{Op: "pr", Owner: "o", Repo: "r", Branch: "feature/x"}, "pr", "o/r", "--branch", "feature/x"),
	ghGood("pr-checks by its head branch", ghO{Op: "pr-checks", Owner: "o", Repo: "r", Branch: "fix"}, "pr-checks", "--branch=fix", "o/r"),
	ghGood("tags", ghO{Op: "tags", Owner: "o", Repo: "r", Limit: 5}, "tags", "o/r", "--limit=5"),
	ghGood("api-get with a query", ghO{Op: "api-get", Owner: "o", Repo: "r", Path: "issues", Query: []string{"state=open", "per_page=100"}},
		"api-get", "o/r", "issues", "--query", "state=open", "--query", "per_page=100"),
	ghGood("api-get deep path", ghO{Op: "api-get", Owner: "o", Repo: "r", Path: "actions/runs/1/jobs"}, "api-get", "o/r", "actions/runs/1/jobs"),
	ghGood("api-get query value at the cap", ghO{Op: "api-get", Owner: "o", Repo: "r", Path: "commits", Query: []string{"sha=" + strings.Repeat("a", 100)}},
		"api-get", "o/r", "commits", "--query", "sha="+strings.Repeat("a", 100)),
	ghGood("enterprise URL agreeing with --host", ghO{Op: "repo", Host: "ghe.corp.example", Owner: "t", Repo: "s"}, "repo", "--host", "ghe.corp.example", "https://ghe.corp.example/t/s"),

	// Bad: operations and flags.
	ghBad("no arguments", "no operation"),
	ghBad("unknown op", "unknown operation", "issues", "o/r", "1"),
	ghBad("write op", "unknown operation", "pr-merge", "o/r", "1"),
	ghBad("gh-style subcommand", "unknown operation", "api", "repos/o/r"),
	ghBad("unknown flag", "unknown flag", "issue", "o/r", "1", "--jq", ".body"),
	ghBad("--ref on an issue", "--ref applies to file and snapshot only", "issue", "o/r", "1", "--ref", "main"),
	ghBad("--host without a value", "needs a value", "repo", "o/r", "--host"),
	ghBad("--host twice", "--host given twice", "repo", "--host", "a.example", "--host", "b.example", "o/r"),
	ghBad("extra argument", "unexpected argument", "issue", "o/r", "1", "2"),
	ghBad("extra argument to repo", "unexpected argument", "repo", "o/r", "README.md"),
	ghBad("missing number", "needs OWNER/REPO NUMBER", "pr", "o/r"),
	ghBad("missing path", "file needs OWNER/REPO PATH", "file", "o/r"),
	ghBad("nothing after the op", "needs arguments", "releases"),
	// Bad: numbers.
	ghBad("negative number", "must be positive", "issue", "o/r", "-3"),
	ghBad("zero", "not a positive", "issue", "o/r", "0"),
	ghBad("leading zero", "not a positive", "issue", "o/r", "012"),
	ghBad("plus sign", "not a positive", "issue", "o/r", "+3"),
	ghBad("past int32", "not a positive", "issue", "o/r", "2147483648"),
	ghBad("hex", "not a positive", "pr", "o/r", "0x10"),
	ghBad("number in URL is a word", "not a positive", "issue", "https://github.com/o/r/issues/new"),
	// Bad: names.
	ghBad("owner with a dot", "not a GitHub owner name", "repo", "o.x/r"),
	ghBad("owner starting with a hyphen", "not a GitHub owner name", "repo", "--", "-o/r"),
	ghBad("owner-looking flag", "unknown flag", "repo", "-o/r"),
	ghBad("owner too long (40)", "not a GitHub owner name", "repo", strings.Repeat("a", 40)+"/r"),
	ghBad("repo ..: would walk the API path", "not a GitHub repository name", "repo", "o/.."),
	ghBad("repo with a slash", "not a GitHub repository name", "repo", "o/r/x"),
	ghBad("repo with a query", "not a GitHub repository name", "repo", "o/r?x=1"),
	ghBad("no slash", "not OWNER/REPO", "repo", "widget"),
	ghBad("repo too long (101)", "not a GitHub repository name", "repo", "o/"+strings.Repeat("r", 101)),
	// Bad: paths and refs.
	ghBad("path traversal", "contains \"..\"", "file", "o/r", "../../user"),
	ghBad("path traversal in the middle", "contains \"..\"", "file", "o/r", "docs/../../../orgs/x"),
	ghBad("absolute path", "empty or \".\" segment", "file", "o/r", "/etc/passwd"),
	ghBad("dot segment", "empty or \".\" segment", "file", "o/r", "./a"),
	ghBad("percent-encoded traversal", "character hookctl does not send", "file", "o/r", "%2e%2e/x"),
	ghBad("backslash", "character hookctl does not send", "file", "o/r", `a\b`),
	ghBad("query in path", "character hookctl does not send", "file", "o/r", "a?ref=evil"),
	ghBad("newline in path", "character hookctl does not send", "file", "o/r", "a\nb"),
	ghBad("ref with ..", "not a valid branch", "file", "o/r", "a", "--ref", "main..evil"),
	ghBad("ref with a space", "not a valid branch", "file", "o/r", "a", "--ref", "my branch"),
	ghBad("ref starting with -", "not a valid branch", "file", "o/r", "a", "--ref=-x"),
	ghBad("empty --ref", "--ref needs a value", "file", "o/r", "a", "--ref="),
	ghBad("ref with @{", "not a valid branch", "file", "o/r", "a", "--ref", "HEAD@{1}"),
	ghBad("ref twice: URL and flag", "already names a ref", "file", "https://github.com/o/r/blob/main/a", "--ref", "v1"),
	// Bad: hosts and URLs.
	ghBad("host with a path", "not a host name", "repo", "--host", "ghe.example/api", "o/r"),
	ghBad("host with a scheme", "not a host name", "repo", "--host", "https://ghe.example", "o/r"),
	ghBad("host with userinfo", "not a host name", "repo", "--host", "u@ghe.example", "o/r"),
	ghBad("host with a bad port", "not a host name", "repo", "--host", "ghe.example:99999", "o/r"),
	ghBad("IPv6 literal", "not a host name", "repo", "--host", "[::1]", "o/r"),
	ghBad("http URL", "only https", "issue", "http://github.com/o/r/issues/1"),
	ghBad("javascript URL", "only https", "issue", "javascript://github.com/o/r/issues/1"),
	ghBad("URL with userinfo", "not a github URL", "issue", "https://user:pw@github.com/o/r/issues/1"),
	ghBad("api URL", "api.github.com URL", "repo", "https://api.github.com/repos/o/r"),
	ghBad("URL traversal, encoded", "contains \"..\"", "file", "https://github.com/o/r/blob/main/%2e%2e/%2e%2e/user"),
	ghBad("URL with an empty segment", "empty path segment", "issue", "https://github.com/o//r/issues/1"),
	ghBad("pr op on an issue URL", "does not name a pr", "pr", "https://github.com/o/r/issues/1"),
	ghBad("URL of another kind", "not a URL hookctl reads", "issue", "https://github.com/o/r/actions/runs/1"),
	ghBad("pull URL too deep", "not a URL hookctl reads", "pr", "https://github.com/o/r/pull/3/files/x"),
	ghBad("blob URL without a path", "not a URL hookctl reads", "file", "https://github.com/o/r/blob/main"),
	ghBad("URL then an extra argument", "after the URL", "issue", "https://github.com/o/r/issues/1", "2"),
	ghBad("URL host disagrees with --host", "disagrees", "repo", "--host", "ghe.example", "https://github.com/o/r"),
	ghBad("URL host with a backslash trick", "is not a URL", "repo", "https://ghe.example\\@evil.example/o/r"),
	ghBad("URL host with a bad port", "not a host name", "repo", "https://ghe.example:0/o/r"),
	// Bad: filters. They become query parameters.
	ghBad("filter the op does not take", "does not apply to issue", "issue", "o/r", "1", "--state", "open"),
	ghBad("merged is not an issue state", "one of open closed all", "issue-list", "o/r", "--state", "merged"),
	ghBad("limit past the cap", "give 1 to 100", "issue-list", "o/r", "--limit", "101"),
	ghBad("limit zero", "give 1 to 100", "pr-list", "o/r", "--limit", "0"),
	ghBad("limit with a sign", "give 1 to 100", "pr-list", "o/r", "--limit", "+5"),
	ghBad("label adding a parameter", "no , & =", "issue-list", "o/r", "--label", "x&state=all"),
	ghBad("label with a comma: two labels", "no , & =", "issue-list", "o/r", "--label", "a,b"),
	ghBad("label with a newline", "control or format", "issue-list", "o/r", "--label", "a\nb"),
	ghBad("label with a bidi override", "control or format", "issue-list", "o/r", "--label", "a\u202eb"),
	ghBad("label too long (51)", "1 to 50 bytes", "issue-list", "o/r", "--label", strings.Repeat("l", 51)),
	ghBad("eleven labels", "at most 10 labels", append([]string{"issue-list", "o/r"}, strings.Split(strings.Repeat("--label=x ", 11), " ")[:11]...)...),
	ghBad("author with a query", "not a GitHub owner name", "pr-list", "o/r", "--author", "a&b=c"),
	ghBad("author twice", "--author given twice", "pr-list", "o/r", "--author", "a", "--author", "b"),
	ghBad("branch with ..", "not a valid branch", "runs", "o/r", "--branch", "a..b"),
	ghBad("a number and a branch", "not both", "pr", "o/r", "3", "--branch", "x"),
	ghBad("an issue has no branch", "does not apply to issue", "issue", "o/r", "--branch", "x"),
	ghBad("OWNER/REPO#N and a branch", "not both", "pr", "o/r#3", "--branch", "x"),
	ghBad("run id zero", "not a workflow run id", "run", "o/r", "0"),
	ghBad("run id past 2^53", "not a workflow run id", "run", "o/r", "9007199254740992"),
	ghBad("run id with letters", "not a workflow run id", "run", "o/r", "12a"),
	ghBad("run needs an id", "needs OWNER/REPO RUN-ID", "run-log-failed", "o/r"),
	// Bad: api-get paths and queries (query injection, traversal).
	ghBad("api-get traversal", "segments of", "api-get", "o/r", "contents/../../x"),
	ghBad("api-get traversal to the root", "segments of", "api-get", "o/r", ".."),
	ghBad("api-get encoded traversal", "segments of", "api-get", "o/r", "%2e%2e/user"),
	ghBad("api-get query in the path", "segments of", "api-get", "o/r", "issues?state=all"),
	ghBad("api-get empty segment", "segments of", "api-get", "o/r", "issues//1"),
	ghBad("api-get absolute path", "segments of", "api-get", "o/r", "/user"),
	ghBad("api-get path too long", "1 to 512 bytes", "api-get", "o/r", strings.Repeat("a/", 256)+"a"),
	ghBad("api-get too many segments", "more than 16 segments", "api-get", "o/r", strings.Repeat("a/", 16)+"a"),
	ghBad("api-get needs a path", "needs OWNER/REPO PATH", "api-get", "o/r"),
	ghBad("query value with an encoded newline", "KEY=VALUE", "api-get", "o/r", "issues", "--query", "x=%0a"),
	ghBad("query value adding a parameter", "KEY=VALUE", "api-get", "o/r", "issues", "--query", "a=1&b=2"),
	ghBad("query value with a space", "KEY=VALUE", "api-get", "o/r", "issues", "--query", "q=a b"),
	ghBad("query value with a plus", "KEY=VALUE", "api-get", "o/r", "issues", "--query", "q=a+b"),
	ghBad("query key with a bracket", "KEY=VALUE", "api-get", "o/r", "issues", "--query", "a[]=1"),
	ghBad("query without =", "KEY=VALUE", "api-get", "o/r", "issues", "--query", "state"),
	ghBad("query value past the cap (101)", "KEY=VALUE", "api-get", "o/r", "commits", "--query", "sha="+strings.Repeat("a", 101)),
	ghBad("query key twice", "given twice", "api-get", "o/r", "issues", "--query", "page=1", "--query", "page=2"),
	ghBad("query on another op", "does not apply to issue-list", "issue-list", "o/r", "--query", "state=all"),
	ghBad("api-get by URL", "does not name a api-get", "api-get", "https://github.com/o/r"),

	// Issue 29: search, media types, pages, refs, snapshots.
	ghGood("pr-list with a search", ghO{Op: "pr-list", Owner: "o", Repo: "r", Search: "is:open author:x label:\"needs review\""},
		"pr-list", "o/r", "--search", "is:open author:x label:\"needs review\""),
	ghGood("issue-list search and state", ghO{Op: "issue-list", Owner: "o", Repo: "r", State: "closed", Search: "crash in:title"},
		"issue-list", "o/r", "--state=closed", "--search=crash in:title"),
	ghGood("search-issues across GitHub", ghO{Op: "search-issues", Search: "repo:cli/cli is:open remote", Pages: 3},
		"search-issues", "--search", "repo:cli/cli is:open remote", "--pages", "3"),
	ghGood("api-get asking for the raw media type", ghO{Op: "api-get", Owner: "o", Repo: "r", Path: "contents/x", Accept: "application/vnd.github.raw"},
		"api-get", "o/r", "contents/x", "--accept", "application/vnd.github.raw"),
	ghGood("api-get every page", ghO{Op: "api-get", Owner: "o", Repo: "r", Path: "issues", Pages: 10}, "api-get", "o/r", "issues", "--pages=10"),
	ghGood("refs", ghO{Op: "refs", Owner: "o", Repo: "r"}, "refs", "o/r"),
	ghGood("snapshot of the default branch", ghO{Op: "snapshot", Owner: "o", Repo: "r"}, "snapshot", "o/r"),
	ghGood("snapshot at a tag", ghO{Op: "snapshot", Owner: "o", Repo: "r", Ref: "v1.2.0"}, "snapshot", "o/r@v1.2.0"),
	ghGood("snapshot with --ref", ghO{Op: "snapshot", Owner: "o", Repo: "r", Ref: "feature/x"}, "snapshot", "o/r", "--ref", "feature/x"),
	ghGood("snapshot of a repository URL", ghO{Op: "snapshot", Owner: "o", Repo: "r"}, "snapshot", "https://github.com/o/r.git"),
	ghGood("snapshot of a tree URL", ghO{Op: "snapshot", Owner: "o", Repo: "r", Ref: "main", Path: "pkg/x"}, "snapshot", "https://github.com/o/r/tree/main/pkg/x"),
	ghGood("snapshot of a tree URL's root", ghO{Op: "snapshot", Owner: "o", Repo: "r", Ref: "v2"}, "snapshot", "https://github.com/o/r/tree/v2"),
	ghBad("search with a newline", "control or format", "pr-list", "o/r", "--search", "a\nb"),
	ghBad("search too long", "1 to 256 bytes", "search-issues", "--search", strings.Repeat("q", 257)),
	ghBad("empty search", "1 to 256 bytes", "search-issues", "--search", " "),
	ghBad("search-issues needs a query", "needs --search", "search-issues"),
	ghBad("search-issues takes no repository", "takes its scope in --search", "search-issues", "o/r", "--search", "x"),
	ghBad("search on an op that takes none", "does not apply to issue", "issue", "o/r", "1", "--search", "x"),
	ghBad("a preview media type", "only GitHub's own media types", "api-get", "o/r", "x", "--accept", "application/vnd.github.squirrel-girl-preview+json"),
	ghBad("a media type that is a header injection", "only GitHub's own media types", "api-get", "o/r", "x", "--accept", "application/json\r\nAuthorization: x"),
	ghBad("pages past the cap", "give 1 to 10", "api-get", "o/r", "x", "--pages", "11"),
	ghBad("pages on a typed read", "does not apply to issue", "issue", "o/r", "1", "--pages", "2"),
	ghBad("snapshot ref with ..", "not a valid branch", "snapshot", "o/r@a..b"),
	ghBad("snapshot with an empty ref", "names no ref", "snapshot", "o/r@"),
	ghBad("snapshot ref twice", "already names a ref", "snapshot", "o/r@v1", "--ref", "v2"),
	ghBad("snapshot of a blob URL", "does not name a snapshot", "snapshot", "https://github.com/o/r/blob/main/a.go"),
	ghBad("snapshot tree URL traversal", "contains \"..\"", "snapshot", "https://github.com/o/r/tree/main/%2e%2e/x"),
	ghBad("refs takes no path", "unexpected argument", "refs", "o/r", "x"),
}

// init rejects duplicate rows, which would hide a missing case behind a repeated one.
func init() {
	seen := map[string]string{}
	for _, r := range ghArgsRows {
		k := strings.Join(r.args, "\x00")
		if prev, ok := seen[k]; ok {
			panic(fmt.Sprintf("ghArgsRows: %q duplicates %q", r.why, prev))
		}
		seen[k] = r.why
	}
}

func TestGitHubParseArgs(t *testing.T) {
	if len(ghArgsRows) < 30 {
		t.Fatalf("only %d rows", len(ghArgsRows))
	}
	for _, r := range ghArgsRows {
		got, err := ParseGitHubArgs(r.args)
		switch {
		case r.want != nil && err != nil:
			t.Errorf("%s: %q: unexpected error %v", r.why, r.args, err)
		case r.want != nil && !reflect.DeepEqual(got, r.want):
			t.Errorf("%s: %q: got %+v, want %+v", r.why, r.args, *got, *r.want)
		case r.want == nil && err == nil:
			t.Errorf("%s: %q: accepted as %+v", r.why, r.args, *got)
		case r.want == nil && !strings.Contains(err.Error(), r.err):
			t.Errorf("%s: %q: error %q, want it to contain %q", r.why, r.args, err, r.err)
		}
	}
}

// TestGitHubParseArgsRoundTrip: every good row prints to arguments that parse to the same op.
func TestGitHubParseArgsRoundTrip(t *testing.T) {
	for _, r := range ghArgsRows {
		if r.want == nil {
			continue
		}
		args := githubOpArgs(r.want)
		got, err := ParseGitHubArgs(args)
		if err != nil || !reflect.DeepEqual(got, r.want) {
			t.Errorf("%s: %q reparsed to %+v, %v", r.why, args, got, err)
		}
	}
}

// TestDecodeGitHubOp: the JSON form the hook hands `hookctl retrieve github --op` decodes to
// the same operation, and nothing else decodes: unknown fields, trailing text, an operation
// Validate refuses.
func TestDecodeGitHubOp(t *testing.T) {
	for _, r := range ghArgsRows {
		if r.want == nil {
			continue
		}
		got, err := DecodeGitHubOp(EncodeGitHubOp(r.want))
		if err != nil || !reflect.DeepEqual(got, r.want) {
			t.Errorf("%s: %s decoded to %+v, %v", r.why, EncodeGitHubOp(r.want), got, err)
		}
	}
	for _, c := range []struct{ text, err string }{
		{`{"op":"issue","owner":"o","repo":"r","number":1,"token":"x"}`, "unknown field"},
		{`{"op":"issue","owner":"o","repo":"r","number":1} {"op":"x"}`, "followed by more"},
		{`{"op":"issue","owner":"o","repo":"r","number":1}]`, "followed by more"},
		{`{"op":"file","owner":"o","repo":"r","path":"../x"}`, "contains"},
		{`{"op":"pr-merge","owner":"o","repo":"r","number":1}`, "unknown operation"},
		{`{"op":"search-issues","owner":"o","repo":"r","search":"x"}`, "names no repository"},
		{`{"op":"snapshot","owner":"o","repo":"r","path":"pkg"}`, "needs its ref"},
		{`["issue"]`, "not one hookctl reads"},
		{strings.Repeat(" ", 17<<10), "too long"},
	} {
		if _, err := DecodeGitHubOp(c.text); err == nil || !strings.Contains(err.Error(), c.err) {
			t.Errorf("%.60s: %v, want an error containing %q", c.text, err, c.err)
		}
	}
}

func FuzzGitHubParseArgs(f *testing.F) {
	for _, r := range ghArgsRows {
		f.Add(strings.Join(r.args, "\x00"))
	}
	f.Fuzz(func(t *testing.T, s string) {
		op, err := ParseGitHubArgs(strings.Split(s, "\x00"))
		if err != nil {
			return
		}
		if err := op.Validate(); err != nil {
			t.Fatalf("parsed %q to an invalid op %+v: %v", s, *op, err)
		}
		again, err := ParseGitHubArgs(githubOpArgs(op))
		if err != nil || !reflect.DeepEqual(again, op) {
			t.Fatalf("%q: %+v printed as %q reparsed to %+v, %v", s, *op, githubOpArgs(op), again, err)
		}
		if strings.Contains(op.Path, "..") || strings.Contains(op.Ref, "..") {
			t.Fatalf("%q: traversal accepted: %+v", s, *op)
		}
	})
}

// githubOpArgs is op.Args(), the printing the round-trip tests read back.
func githubOpArgs(op *GitHubOp) []string { return op.Args() }
