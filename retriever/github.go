package retriever

// Typed, read-only GitHub reads (docs/decisions/0001-github-access.md).
//
// Threat model. Everything GitHub returns — titles, bodies, comments, diffs, file contents,
// release notes, even file names and branch names — may be written by an attacker, and is
// handed to the distiller as untrusted data, labelled by field, never interpreted here. The
// operation itself comes from the agent, so it is validated strictly (names, numbers, paths,
// refs, host) both when parsed and again before any request. Requests go to one host only:
// api.github.com, or an enterprise host the user listed in the config; a redirect anywhere else
// is refused, so the token can only ever reach that host. The token is the user's dedicated
// read-only one from HOOKCTL_GITHUB_TOKEN, never GH_TOKEN or GITHUB_TOKEN. Error messages are
// our own words: text from a response never reaches the agent except through the distiller.
//
// Out of scope: whether GitHub's answer is true, and what a token can read (that is the
// token's scope, which the user chooses).

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptrace"
	"net/url"
	"strconv"
	"strings"
	"sync"
	"time"
	"unicode"
	"unicode/utf8"

	"github.com/google/go-github/v62/github"
)

// GitHubTokenEnv is the only environment variable a GitHub token is read from. GH_TOKEN and
// GITHUB_TOKEN are deliberately ignored: they usually belong to the user's gh and git and carry
// write scopes.
const GitHubTokenEnv = "HOOKCTL_GITHUB_TOKEN"

// Caps on what one GitHub operation returns. Past a cap the result says what was left out.
const (
	GitHubMaxComments = 100     // per list: issue comments, review comments, reviews
	GitHubMaxFiles    = 100     // files of a pull request
	GitHubMaxReleases = 10      // newest first
	GitHubMaxEntries  = 1000    // entries of a directory (the contents API's own limit)
	GitHubMaxDiff     = 1 << 20 // bytes of a pull request's diff, truncated past it
	GitHubMaxFile     = 1 << 20 // bytes of a file; larger files are refused
	GitHubMaxText     = 1 << 20 // bytes of any one untrusted field (body, patch, notes)

	// ghMaxResponse caps any one response body; past it the read fails rather than handing a
	// cut-off JSON document to the decoder.
	ghMaxResponse = 8 << 20
	// ghMaxPages bounds pagination even if a server keeps announcing a next page.
	ghMaxPages = 10
)

// Errors a GitHub read can fail with; each is wrapped with the operation and what to do.
var (
	ErrGitHubHostNotAllowed = errors.New("host not allowed")
	ErrGitHubNotFound       = errors.New("not found")
	ErrGitHubUnauthorized   = errors.New("token rejected")
	ErrGitHubForbidden      = errors.New("forbidden")
	ErrGitHubRateLimited    = errors.New("rate limited")
	ErrGitHubRefused        = errors.New("content refused")
)

// GitHub reads GitHub for the retriever.
//
// A token for it is fine-grained and read-only: on github.com, Settings → Developer settings →
// Personal access tokens → Fine-grained tokens → Generate new token; Repository access: "Public
// repositories (read-only)", or "Only select repositories"; Repository permissions: Contents,
// Issues, Pull requests and Metadata, each "Read-only"; nothing else. Put it in
// HOOKCTL_GITHUB_TOKEN in the retriever's environment. Without one, public repositories are
// read unauthenticated (60 requests an hour).
type GitHub struct {
	// Token comes from HOOKCTL_GITHUB_TOKEN only; "" reads unauthenticated. It is sent only to
	// the host the operation targets (api.github.com or an allowlisted enterprise host).
	Token string
	// EnterpriseHosts come from the config ([retriever.github] enterprise_hosts). An operation's
	// host must equal one of them, ignoring case; a port must be listed to be used.
	EnterpriseHosts []string
	// HTTPClient is the retriever's guarded client. It is required: there is no fallback to an
	// unguarded one. Its transport is wrapped, never replaced.
	HTTPClient *http.Client
}

// ghOperands is what follows an operation's name.
type ghOperands int

const (
	ghNumbered ghOperands = iota // OWNER/REPO NUMBER, OWNER/REPO#NUMBER or a URL
	ghFilePath                   // OWNER/REPO PATH [--ref REF] or a /blob/ or /tree/ URL
	ghRepoOnly                   // OWNER/REPO or a URL
)

// ghURLKind is the shape of a github.com web URL.
type ghURLKind string

const (
	ghURLRepo     ghURLKind = "repo"     // /OWNER/REPO
	ghURLIssue    ghURLKind = "issues"   // /OWNER/REPO/issues/N
	ghURLPull     ghURLKind = "pull"     // /OWNER/REPO/pull/N[/files|/commits|/checks]
	ghURLBlob     ghURLKind = "blob"     // /OWNER/REPO/blob/REF/PATH
	ghURLTree     ghURLKind = "tree"     // /OWNER/REPO/tree/REF/PATH
	ghURLReleases ghURLKind = "releases" // /OWNER/REPO/releases
)

// ghOpSpec says what an operation takes and which URLs name it.
type ghOpSpec struct {
	operands ghOperands
	urls     []ghURLKind
}

// ghOps is every operation there is; anything else is refused. The issues API serves pull
// requests too, so issue operations take /pull/ URLs; the pulls API does not serve issues.
var ghOps = map[string]ghOpSpec{
	"issue":          {ghNumbered, []ghURLKind{ghURLIssue, ghURLPull}},
	"issue-comments": {ghNumbered, []ghURLKind{ghURLIssue, ghURLPull}},
	"pr":             {ghNumbered, []ghURLKind{ghURLPull}},
	"pr-diff":        {ghNumbered, []ghURLKind{ghURLPull}},
	"pr-files":       {ghNumbered, []ghURLKind{ghURLPull}},
	"pr-comments":    {ghNumbered, []ghURLKind{ghURLPull}},
	"file":           {ghFilePath, []ghURLKind{ghURLBlob, ghURLTree}},
	"repo":           {ghRepoOnly, []ghURLKind{ghURLRepo}},
	"releases":       {ghRepoOnly, []ghURLKind{ghURLRepo, ghURLReleases}},
}

// ghOpNames lists the operations in the order the usage shows them.
var ghOpNames = []string{"issue", "issue-comments", "pr", "pr-diff", "pr-files", "pr-comments", "file", "repo", "releases"}

func init() {
	if len(ghOpNames) != len(ghOps) {
		panic("retriever: ghOpNames and ghOps disagree")
	}
	for _, n := range ghOpNames {
		if _, ok := ghOps[n]; !ok {
			panic("retriever: ghOpNames lists unknown operation " + n)
		}
	}
}

// githubUsage is the grammar, for error messages and the CLI's help.
const githubUsage = `hookctl retrieve github OP ARGS [--host HOST]
  issue|issue-comments|pr|pr-diff|pr-files|pr-comments  OWNER/REPO NUMBER | OWNER/REPO#NUMBER | URL
  file      OWNER/REPO PATH [--ref REF] | https://github.com/OWNER/REPO/blob/REF/PATH
  repo      OWNER/REPO | URL
  releases  OWNER/REPO | URL`

// ParseGitHubArgs reads `hookctl retrieve github` arguments into an operation:
//
//	issue OWNER/REPO NUMBER | issue-comments … | pr … | pr-diff … | pr-files … | pr-comments …
//	file OWNER/REPO PATH [--ref REF] | repo OWNER/REPO | releases OWNER/REPO
//
// with `--host HOST` (or --host=HOST) for an enterprise host, and `--` ending the flags. A
// github.com (or enterprise) https URL may stand for OWNER/REPO NUMBER, OWNER/REPO PATH or
// OWNER/REPO; its query and fragment are ignored. In a /blob/ or /tree/ URL the segment after
// blob or tree is the ref, so a branch name with a slash must be given with --ref instead.
// Whether the host is allowed is decided by Do, which knows the config.
func ParseGitHubArgs(args []string) (*GitHubOp, error) {
	if len(args) == 0 {
		return nil, fmt.Errorf("failed to parse github arguments: no operation\n%s", githubUsage)
	}
	name := args[0]
	spec, ok := ghOps[name]
	if !ok {
		return nil, fmt.Errorf("failed to parse github arguments: unknown operation %s; one of %s",
			ghQuote(name), strings.Join(ghOpNames, ", "))
	}
	var (
		pos                []string
		host, ref          string
		hostSet, refSet    bool
		onlyPositionalLeft bool
	)
	// Each iteration consumes one argument, or a flag and its value.
	for i := 1; i < len(args); i++ {
		a := args[i]
		if onlyPositionalLeft || a == "" || a[0] != '-' {
			pos = append(pos, a)
			continue
		}
		if a == "--" {
			onlyPositionalLeft = true
			continue
		}
		flag, value, hasValue := strings.Cut(a, "=")
		switch flag {
		case "--host", "--ref":
		default:
			if ghAllDigits(strings.TrimLeft(a, "-")) {
				return nil, fmt.Errorf("failed to parse github arguments: %s: a number must be positive", ghQuote(a))
			}
			return nil, fmt.Errorf("failed to parse github arguments: unknown flag %s", ghQuote(a))
		}
		if !hasValue {
			if i+1 >= len(args) {
				return nil, fmt.Errorf("failed to parse github arguments: %s needs a value", flag)
			}
			i++
			value = args[i]
		}
		switch flag {
		case "--host":
			if hostSet {
				return nil, errors.New("failed to parse github arguments: --host given twice")
			}
			hostSet, host = true, value
		case "--ref":
			if value == "" {
				return nil, errors.New("failed to parse github arguments: --ref needs a value")
			}
			if spec.operands != ghFilePath {
				return nil, fmt.Errorf("failed to parse github arguments: --ref applies to file only, not %s", name)
			}
			if refSet {
				return nil, errors.New("failed to parse github arguments: --ref given twice")
			}
			refSet, ref = true, value
		}
	}

	op := &GitHubOp{Op: name}
	if hostSet {
		h, err := ghNormalizeHost(host)
		if err != nil {
			return nil, fmt.Errorf("failed to parse github arguments: --host: %w", err)
		}
		op.Host = h
	}
	if err := ghFillOperands(op, spec, pos); err != nil {
		return nil, fmt.Errorf("failed to parse github arguments: %w", err)
	}
	if refSet {
		if op.Ref != "" {
			return nil, errors.New("failed to parse github arguments: the URL already names a ref; drop --ref")
		}
		op.Ref = ref
	}
	if err := validateGitHubOp(op); err != nil {
		return nil, fmt.Errorf("failed to parse github arguments: %w", err)
	}
	return op, nil
}

// ghFillOperands reads the positional arguments of op into it.
func ghFillOperands(op *GitHubOp, spec ghOpSpec, pos []string) error {
	if len(pos) == 0 {
		return fmt.Errorf("%s needs arguments\n%s", op.Op, githubUsage)
	}
	if strings.Contains(pos[0], "://") {
		if len(pos) > 1 {
			return fmt.Errorf("unexpected argument %s after the URL", ghQuote(pos[1]))
		}
		return ghFillFromURL(op, spec, pos[0])
	}
	want := 2
	if spec.operands == ghRepoOnly {
		want = 1
	}
	slug := pos[0]
	if spec.operands == ghNumbered && len(pos) == 1 {
		// OWNER/REPO#NUMBER, as gh and GitHub's own text write it.
		s, n, ok := strings.Cut(slug, "#")
		if !ok {
			return fmt.Errorf("%s needs OWNER/REPO NUMBER", op.Op)
		}
		slug, pos = s, []string{s, n}
	}
	if len(pos) < want {
		if spec.operands == ghFilePath {
			return errors.New("file needs OWNER/REPO PATH")
		}
		return fmt.Errorf("%s needs OWNER/REPO NUMBER", op.Op)
	}
	if len(pos) > want {
		return fmt.Errorf("unexpected argument %s", ghQuote(pos[want]))
	}
	owner, repo, ok := strings.Cut(slug, "/")
	if !ok {
		return fmt.Errorf("%s is not OWNER/REPO", ghQuote(slug))
	}
	op.Owner, op.Repo = owner, repo
	switch spec.operands {
	case ghNumbered:
		n, err := ghParseNumber(pos[1])
		if err != nil {
			return err
		}
		op.Number = n
	case ghFilePath:
		op.Path = pos[1]
	}
	return nil
}

// ghFillFromURL reads a web URL into op. The URL is only read, never fetched.
func ghFillFromURL(op *GitHubOp, spec ghOpSpec, raw string) error {
	if len(raw) > 4096 {
		return errors.New("URL is too long")
	}
	u, err := url.Parse(raw)
	if err != nil {
		return fmt.Errorf("%s is not a URL", ghQuote(raw))
	}
	if u.Scheme != "https" {
		return fmt.Errorf("%s: only https URLs", ghQuote(raw))
	}
	if u.User != nil || u.Opaque != "" || u.Host == "" {
		return fmt.Errorf("%s is not a github URL", ghQuote(raw))
	}
	host := strings.ToLower(u.Host)
	switch host {
	case "github.com", "www.github.com":
		host = ""
	case "api.github.com":
		return errors.New("an api.github.com URL: give the github.com web URL or OWNER/REPO")
	default:
		if host, err = ghNormalizeHost(host); err != nil {
			return err
		}
	}
	if op.Host != "" && op.Host != host {
		return fmt.Errorf("--host %s disagrees with the URL's host", op.Host)
	}
	op.Host = host

	p := strings.TrimSuffix(u.Path, "/")
	if !strings.HasPrefix(p, "/") {
		return fmt.Errorf("%s names no repository", ghQuote(raw))
	}
	segs := strings.Split(p[1:], "/")
	if len(segs) < 2 {
		return fmt.Errorf("%s names no repository", ghQuote(raw))
	}
	for _, s := range segs {
		if s == "" {
			return fmt.Errorf("%s has an empty path segment", ghQuote(raw))
		}
	}
	op.Owner, op.Repo = segs[0], segs[1]

	var kind ghURLKind
	switch {
	case len(segs) == 2:
		kind = ghURLRepo
		op.Repo = strings.TrimSuffix(op.Repo, ".git")
	case segs[2] == "issues" && len(segs) == 4:
		kind = ghURLIssue
	case segs[2] == "pull" && (len(segs) == 4 ||
		len(segs) == 5 && (segs[4] == "files" || segs[4] == "commits" || segs[4] == "checks")):
		kind = ghURLPull
	case (segs[2] == "blob" || segs[2] == "tree") && len(segs) >= 5:
		kind = ghURLKind(segs[2])
		op.Ref, op.Path = segs[3], strings.Join(segs[4:], "/")
	case segs[2] == "releases" && len(segs) == 3:
		kind = ghURLReleases
	default:
		return fmt.Errorf("%s is not a URL hookctl reads (issue, pull request, blob, tree, repository, releases)", ghQuote(raw))
	}
	accepted := false
	for _, k := range spec.urls {
		accepted = accepted || k == kind
	}
	if !accepted {
		return fmt.Errorf("this URL (%s) does not name a %s", kind, op.Op)
	}
	if kind == ghURLIssue || kind == ghURLPull {
		n, err := ghParseNumber(segs[3])
		if err != nil {
			return err
		}
		op.Number = n
	}
	return nil
}

// validateGitHubOp checks an operation completely. Do runs it again, because an operation may
// arrive from another process rather than from ParseGitHubArgs.
func validateGitHubOp(op *GitHubOp) error {
	spec, ok := ghOps[op.Op]
	if !ok {
		return fmt.Errorf("unknown operation %s", ghQuote(op.Op))
	}
	if op.Host != "" {
		h, err := ghNormalizeHost(op.Host)
		if err != nil {
			return err
		}
		if h != "" && h != op.Host {
			return fmt.Errorf("host %s is not in canonical form", ghQuote(op.Host))
		}
	}
	if err := ghCheckOwner(op.Owner); err != nil {
		return err
	}
	if err := ghCheckRepo(op.Repo); err != nil {
		return err
	}
	if spec.operands == ghNumbered {
		if op.Number <= 0 || op.Number > ghMaxNumber {
			return fmt.Errorf("number %d is not a positive issue or pull request number", op.Number)
		}
	} else if op.Number != 0 {
		return fmt.Errorf("%s takes no number", op.Op)
	}
	if spec.operands == ghFilePath {
		if err := ghCheckPath(op.Path); err != nil {
			return err
		}
		if op.Ref != "" {
			if err := ghCheckRef(op.Ref); err != nil {
				return err
			}
		}
	} else if op.Path != "" || op.Ref != "" {
		return fmt.Errorf("%s takes no path or ref", op.Op)
	}
	return nil
}

// ghMaxNumber is the largest issue number GitHub can hand out (a 32-bit signed integer).
const ghMaxNumber = 1<<31 - 1

// ghParseNumber reads an issue or pull request number: decimal digits, no sign, no leading
// zero, at most ghMaxNumber.
func ghParseNumber(s string) (int, error) {
	if s == "" || len(s) > 10 || !ghAllDigits(s) || s[0] == '0' {
		return 0, fmt.Errorf("%s is not a positive issue or pull request number", ghQuote(s))
	}
	n, err := strconv.Atoi(s)
	if err != nil || n > ghMaxNumber {
		return 0, fmt.Errorf("%s is not a positive issue or pull request number", ghQuote(s))
	}
	return n, nil
}

func ghAllDigits(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return false
		}
	}
	return s != ""
}

// ghCheckOwner applies GitHub's account-name rule: 1 to 39 letters, digits and hyphens, not
// starting with a hyphen. An underscore is also allowed, not first, for managed users
// (name_shortcode) and enterprise servers.
func ghCheckOwner(s string) error {
	ok := len(s) >= 1 && len(s) <= 39 && ghIsAlnum(s[0])
	for i := 0; ok && i < len(s); i++ {
		ok = ghIsAlnum(s[i]) || s[i] == '-' || s[i] == '_'
	}
	if !ok {
		return fmt.Errorf("%s is not a GitHub owner name", ghQuote(s))
	}
	return nil
}

// ghCheckRepo applies GitHub's repository-name rule: 1 to 100 letters, digits, '.', '-' and
// '_', and not "." or "..", which would walk the API path.
func ghCheckRepo(s string) error {
	ok := len(s) >= 1 && len(s) <= 100 && s != "." && s != ".."
	for i := 0; ok && i < len(s); i++ {
		ok = ghIsAlnum(s[i]) || s[i] == '.' || s[i] == '-' || s[i] == '_'
	}
	if !ok {
		return fmt.Errorf("%s is not a GitHub repository name", ghQuote(s))
	}
	return nil
}

func ghIsAlnum(c byte) bool {
	return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9'
}

// ghCheckPath accepts a repository path: relative, '/'-separated, no empty or "." segments, and
// no "..", '\', '%', '?', '#' or control characters anywhere.
// Why: the path ends up in a URL that go-github resolves against the API base, so a ".." segment
// would walk out of /repos/OWNER/REPO/contents/ to any other endpoint; '%' could be decoded
// twice on the way. Test: TestGitHubParseArgs (path rows), TestGitHubDoValidates.
func ghCheckPath(p string) error {
	if p == "" {
		return errors.New("file needs a path")
	}
	if len(p) > 1024 || !utf8.ValidString(p) {
		return fmt.Errorf("path %s is too long or not UTF-8", ghQuote(p))
	}
	if strings.Contains(p, "..") {
		return fmt.Errorf("path %s contains \"..\"", ghQuote(p))
	}
	for _, seg := range strings.Split(p, "/") {
		if seg == "" || seg == "." {
			return fmt.Errorf("path %s has an empty or \".\" segment (or a leading or trailing /)", ghQuote(p))
		}
	}
	for _, r := range p {
		if r < 0x20 || r == 0x7f || unicode.IsControl(r) || strings.ContainsRune(`\%?#`, r) {
			return fmt.Errorf("path %s contains a character hookctl does not send: \\ %% ? # or a control character", ghQuote(p))
		}
	}
	return nil
}

// ghCheckRef applies git's ref-name rules (git check-ref-format) and refuses spaces, so that a
// ref is a branch, tag or commit and nothing else.
func ghCheckRef(r string) error {
	bad := r == "" || len(r) > 255 || r == "@" || !utf8.ValidString(r) ||
		strings.Contains(r, "..") || strings.Contains(r, "@{") || strings.Contains(r, "//") ||
		strings.HasPrefix(r, "-") || strings.HasPrefix(r, "/") || strings.HasSuffix(r, "/") ||
		strings.HasSuffix(r, ".") || strings.HasSuffix(r, ".lock") ||
		strings.HasPrefix(r, ".") || strings.Contains(r, "/.")
	for i := 0; !bad && i < len(r); i++ {
		c := r[i]
		bad = c <= ' ' || c == 0x7f || strings.IndexByte("~^:?*[\\", c) >= 0
	}
	if bad {
		return fmt.Errorf("ref %s is not a valid branch, tag or commit name", ghQuote(r))
	}
	return nil
}

// ghNormalizeHost checks a bare host name, optionally with a port, and lowercases it;
// github.com and its API and www names become "" (the default). Schemes, paths, user
// information, IPv6 literals and anything else are refused.
func ghNormalizeHost(h string) (string, error) {
	h = strings.ToLower(h)
	switch h {
	case "github.com", "api.github.com", "www.github.com":
		return "", nil
	}
	name, port, hasPort := strings.Cut(h, ":")
	ok := len(h) <= 260 && name != "" && len(name) <= 253
	if hasPort {
		p, err := strconv.Atoi(port)
		ok = ok && err == nil && ghAllDigits(port) && port[0] != '0' && p <= 65535
	}
	for _, label := range strings.Split(name, ".") {
		ok = ok && label != "" && len(label) <= 63 && label[0] != '-' && label[len(label)-1] != '-'
		for i := 0; ok && i < len(label); i++ {
			ok = ghIsAlnum(label[i]) || label[i] == '-'
		}
	}
	if !ok {
		return "", fmt.Errorf("%s is not a host name (HOST or HOST:PORT, nothing else)", ghQuote(h))
	}
	return h, nil
}

// ghQuote quotes a short prefix of untrusted input for an error message.
func ghQuote(s string) string {
	const max = 60
	if len(s) > max {
		return strconv.Quote(ghCut(s, max)) + "…"
	}
	return strconv.Quote(s)
}

// githubSource names an operation for Document.Source and the audit, e.g.
// "github issue-comments owner/repo#12" or "github file ghe.example.com:owner/repo:docs/a.md@v1".
func githubSource(op *GitHubOp) string {
	var b strings.Builder
	b.WriteString("github ")
	b.WriteString(op.Op)
	b.WriteByte(' ')
	if op.Host != "" {
		b.WriteString(op.Host)
		b.WriteByte(':')
	}
	b.WriteString(op.Owner + "/" + op.Repo)
	switch ghOps[op.Op].operands {
	case ghNumbered:
		b.WriteString("#" + strconv.Itoa(op.Number))
	case ghFilePath:
		b.WriteString(":" + op.Path)
		if op.Ref != "" {
			b.WriteString("@" + op.Ref)
		}
	}
	return b.String()
}

// Do performs an operation and returns documents for the distiller. Each Document holds one
// item (the issue, one comment, one file, one release, the diff…); its Text is labelled lines
// "field: value" (single-line values, control characters replaced by spaces) followed by at
// most one multi-line field, always last, introduced by a line "NAME:" — its value is the
// untrusted text verbatim to the end of Text. A list operation starts with a summary Document
// giving how many items follow and whether the cap left any out.
//
// The host is checked against EnterpriseHosts before any request, and the operation is
// validated again whatever its origin.
func (g *GitHub) Do(ctx context.Context, op *GitHubOp) ([]Document, error) {
	if op == nil {
		return nil, errors.New("failed to read github: no operation")
	}
	if err := validateGitHubOp(op); err != nil {
		return nil, fmt.Errorf("failed to read github: %w", err)
	}
	source := githubSource(op)
	apiHost, base, err := g.apiBase(op.Host)
	if err != nil {
		return nil, fmt.Errorf("failed to read %s: %w", source, err)
	}
	if !ghTokenWellFormed(g.Token) {
		return nil, fmt.Errorf("failed to read %s: %s is malformed (printable ASCII, no spaces)", source, GitHubTokenEnv)
	}
	if g.HTTPClient == nil {
		return nil, fmt.Errorf("failed to read %s: no HTTP client", source)
	}

	s := &ghSession{g: g, op: op, source: source, apiHost: apiHost}
	hc := *g.HTTPClient
	inner := hc.Transport
	if inner == nil {
		inner = http.DefaultTransport
	}
	hc.Transport = &ghTransport{inner: inner, host: apiHost, token: g.Token}
	hc.Jar = nil // the API needs no cookies, and a jar could carry them between hosts
	s.client = github.NewClient(&hc)
	s.client.BaseURL = base
	s.client.UserAgent = "hookctl-retriever"
	ctx = httptrace.WithClientTrace(ctx, &httptrace.ClientTrace{GotConn: s.gotConn})

	var docs []Document
	switch op.Op {
	case "issue":
		docs, err = s.issue(ctx)
	case "issue-comments":
		docs, err = s.issueComments(ctx)
	case "pr":
		docs, err = s.pull(ctx)
	case "pr-diff":
		docs, err = s.pullDiff(ctx)
	case "pr-files":
		docs, err = s.pullFiles(ctx)
	case "pr-comments":
		docs, err = s.pullComments(ctx)
	case "file":
		docs, err = s.file(ctx)
	case "repo":
		docs, err = s.repo(ctx)
	case "releases":
		docs, err = s.releases(ctx)
	}
	if err != nil {
		return nil, fmt.Errorf("failed to read %s: %w", source, s.explain(err))
	}
	ip := s.remoteIP()
	for i := range docs {
		docs[i].IP = ip
	}
	return docs, nil
}

// apiBase returns the one host requests may go to and the API's base URL. An enterprise host
// must be on the allowlist exactly (ignoring case): no suffix match, no implied port.
// Why: the host is chosen by the agent; anything looser is SSRF, and the token goes there.
// Test: TestGitHubEnterpriseHosts.
func (g *GitHub) apiBase(host string) (string, *url.URL, error) {
	h := ""
	if host != "" {
		var err error
		if h, err = ghNormalizeHost(host); err != nil {
			return "", nil, fmt.Errorf("%w: %w", ErrGitHubHostNotAllowed, err)
		}
	}
	if h == "" {
		return "api.github.com", &url.URL{Scheme: "https", Host: "api.github.com", Path: "/"}, nil
	}
	for _, allowed := range g.EnterpriseHosts {
		if strings.EqualFold(strings.TrimSpace(allowed), h) {
			return h, &url.URL{Scheme: "https", Host: h, Path: "/api/v3/"}, nil
		}
	}
	return "", nil, fmt.Errorf("%w: %s is not in [retriever.github] enterprise_hosts", ErrGitHubHostNotAllowed, ghQuote(h))
}

func ghTokenWellFormed(t string) bool {
	if len(t) > 1024 {
		return false
	}
	for i := 0; i < len(t); i++ {
		if t[i] <= ' ' || t[i] >= 0x7f {
			return false
		}
	}
	return true
}

// ghTransport pins every request, redirects included, to one host over https, allows only
// GET and HEAD, adds the token there and nowhere else, and caps each response body.
// Why: http.Client keeps headers on a redirect to another port of the same host name, and a
// redirect from an API host is not a reason to send the token anywhere else.
// Test: TestGitHubRedirectToAnotherHostRefused, TestGitHubAuthorizationHeader, TestGitHubResponseCap.
type ghTransport struct {
	inner http.RoundTripper
	host  string
	token string
}

var errGitHubRedirectedAway = fmt.Errorf("%w: the API redirected to another host", ErrGitHubHostNotAllowed)

func (t *ghTransport) RoundTrip(req *http.Request) (*http.Response, error) {
	if req.URL.Scheme != "https" || !strings.EqualFold(req.URL.Host, t.host) {
		return nil, errGitHubRedirectedAway
	}
	if req.Method != http.MethodGet && req.Method != http.MethodHead {
		return nil, fmt.Errorf("refusing %s: the retriever only reads", req.Method)
	}
	r := req.Clone(req.Context())
	r.Header.Del("Authorization")
	r.Header.Del("Cookie")
	if t.token != "" {
		r.Header.Set("Authorization", "Bearer "+t.token)
	}
	resp, err := t.inner.RoundTrip(r)
	if err != nil {
		return nil, err
	}
	resp.Body = &ghCappedBody{ReadCloser: resp.Body, left: ghMaxResponse}
	return resp, nil
}

var errGitHubResponseTooLarge = fmt.Errorf("%w: a response was larger than %d bytes", ErrGitHubRefused, ghMaxResponse)

// ghCappedBody fails a read past its cap instead of truncating, so that no decoder sees half a
// document.
type ghCappedBody struct {
	io.ReadCloser
	left int64
}

// Read reads at most one byte past the cap, which is how it knows the body went past it.
func (b *ghCappedBody) Read(p []byte) (int, error) {
	if b.left < 0 {
		return 0, errGitHubResponseTooLarge
	}
	if int64(len(p)) > b.left+1 {
		p = p[:b.left+1]
	}
	n, err := b.ReadCloser.Read(p)
	if int64(n) > b.left {
		b.left = -1
		return 0, errGitHubResponseTooLarge
	}
	b.left -= int64(n)
	return n, err
}

// ghSession is one Do call.
type ghSession struct {
	g       *GitHub
	op      *GitHubOp
	source  string
	apiHost string
	client  *github.Client

	mu sync.Mutex
	ip string // the last address connected to
}

func (s *ghSession) gotConn(info httptrace.GotConnInfo) {
	if info.Conn == nil {
		return
	}
	host, _, err := net.SplitHostPort(info.Conn.RemoteAddr().String())
	if err != nil {
		return
	}
	s.mu.Lock()
	s.ip = host
	s.mu.Unlock()
}

func (s *ghSession) remoteIP() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.ip
}

// explain turns a go-github error into one of ours. Response text (GitHub's message) is left
// out: an error goes back to the agent without passing the distiller.
func (s *ghSession) explain(err error) error {
	if errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded) ||
		errors.Is(err, ErrGitHubHostNotAllowed) || errors.Is(err, ErrGitHubRefused) {
		return err
	}
	tokenHint := "a read-only token in " + GitHubTokenEnv + " raises the limit from 60 to 5,000 requests an hour"
	if s.g.Token != "" {
		tokenHint = "the token's limit is 5,000 requests an hour"
	}
	var rl *github.RateLimitError
	if errors.As(err, &rl) {
		return fmt.Errorf("%w: retry after %s; %s", ErrGitHubRateLimited, ghWhen(rl.Rate.Reset.Time), tokenHint)
	}
	var abuse *github.AbuseRateLimitError
	if errors.As(err, &abuse) {
		when := "a minute or more"
		if abuse.RetryAfter != nil {
			when = ghWhen(time.Now().Add(*abuse.RetryAfter))
		}
		return fmt.Errorf("%w (secondary limit, too many requests at once): retry after %s", ErrGitHubRateLimited, when)
	}
	var er *github.ErrorResponse
	if !errors.As(err, &er) || er.Response == nil {
		return fmt.Errorf("failed to read from %s: %w", s.apiHost, err)
	}
	h := er.Response.Header
	switch code := er.Response.StatusCode; {
	case code == http.StatusNotFound:
		if s.g.Token == "" {
			return fmt.Errorf("%w (or private: unauthenticated reads see public repositories only; set %s to a read-only token that can see it)", ErrGitHubNotFound, GitHubTokenEnv)
		}
		return fmt.Errorf("%w (or the token in %s cannot see it)", ErrGitHubNotFound, GitHubTokenEnv)
	case code == http.StatusUnauthorized:
		if s.g.Token == "" {
			return fmt.Errorf("%w: %s requires a token; set %s", ErrGitHubUnauthorized, s.apiHost, GitHubTokenEnv)
		}
		return fmt.Errorf("%w: the token in %s is expired, revoked or mistyped", ErrGitHubUnauthorized, GitHubTokenEnv)
	case code == http.StatusTooManyRequests:
		when := "a minute or more"
		if v, err := strconv.ParseInt(h.Get("Retry-After"), 10, 64); err == nil && v >= 0 {
			when = ghWhen(time.Now().Add(time.Duration(v) * time.Second))
		} else if v, err := strconv.ParseInt(h.Get("X-RateLimit-Reset"), 10, 64); err == nil && v > 0 {
			when = ghWhen(time.Unix(v, 0))
		}
		return fmt.Errorf("%w: retry after %s; %s", ErrGitHubRateLimited, when, tokenHint)
	case code == http.StatusForbidden:
		if strings.HasPrefix(h.Get("X-GitHub-SSO"), "required") {
			return fmt.Errorf("%w: the organization requires SAML single sign-on: authorize the token for it", ErrGitHubForbidden)
		}
		if s.g.Token == "" {
			return fmt.Errorf("%w: %s refused an unauthenticated read", ErrGitHubForbidden, s.apiHost)
		}
		return fmt.Errorf("%w: the token in %s lacks read access here (it needs Contents, Issues, Pull requests and Metadata: read)", ErrGitHubForbidden, GitHubTokenEnv)
	case code == http.StatusNotAcceptable && s.op.Op == "pr-diff":
		return fmt.Errorf("%w: GitHub does not serve a diff this large; use pr-files", ErrGitHubRefused)
	case code == http.StatusGone:
		return errors.New("gone: deleted, transferred away or disabled")
	case code == http.StatusUnavailableForLegalReasons:
		return errors.New("unavailable for legal reasons")
	default:
		return fmt.Errorf("%s answered HTTP %d", s.apiHost, code)
	}
}

// ghWhen renders a retry time in UTC, and how far away it is.
func ghWhen(t time.Time) string {
	d := time.Until(t).Round(time.Second)
	if d < 0 {
		d = 0
	}
	return t.UTC().Format(time.RFC3339) + " (in " + d.String() + ")"
}

// ghCollect pages through a list until max items, the last page, or ghMaxPages. more reports
// that items were left out.
func ghCollect[T any](max int, list func(github.ListOptions) ([]T, *github.Response, error)) (items []T, more bool, first *github.Response, err error) {
	opt := github.ListOptions{Page: 1, PerPage: min(max, 100)}
	for pages := 0; ; pages++ {
		if pages == ghMaxPages {
			return items, true, first, nil
		}
		got, resp, err := list(opt)
		if err != nil {
			return nil, false, nil, err
		}
		if first == nil {
			first = resp
		}
		items = append(items, got...)
		if len(items) >= max {
			return items[:max], len(items) > max || resp.NextPage != 0, first, nil
		}
		// A next page must move forward, or a server could keep us on one page.
		if resp.NextPage <= opt.Page {
			return items, false, first, nil
		}
		opt.Page = resp.NextPage
	}
}

// ghDoc builds one Document's labelled text.
type ghDoc struct {
	d Document
	b strings.Builder
}

func (s *ghSession) newDoc(resp *github.Response, title, contentType string) *ghDoc {
	d := &ghDoc{d: Document{Source: s.source, Host: s.apiHost, Title: ghLine(title), ContentType: contentType}}
	if resp != nil && resp.Response != nil {
		d.d.Status = resp.StatusCode
		if resp.Request != nil {
			d.d.URL = resp.Request.URL.String()
		}
	}
	d.field("source", s.source)
	return d
}

// field adds a single-line field; an empty value is left out.
func (d *ghDoc) field(name, value string) {
	if value == "" {
		return
	}
	d.b.WriteString(name + ": " + ghLine(value) + "\n")
}

// body adds the one multi-line field and finishes the document. Past GitHubMaxText the value is
// cut at a character boundary and a "truncated" field says so.
func (d *ghDoc) body(name, value string) Document {
	d.d.Bytes = int64(len(value))
	if len(value) > GitHubMaxText {
		value = ghCut(value, GitHubMaxText)
		d.d.Truncated = true
		d.field("truncated", fmt.Sprintf("yes: showing the first %d of %d bytes of %s", len(value), d.d.Bytes, name))
	}
	d.b.WriteString(name + ":\n")
	d.b.WriteString(value)
	d.d.Text = d.b.String()
	return d.d
}

// done finishes a document that has no multi-line field.
func (d *ghDoc) done() Document {
	d.d.Text = d.b.String()
	return d.d
}

// ghCut cuts s to at most n bytes, at the last newline if there is one in the final quarter,
// else at a character boundary.
func ghCut(s string, n int) string {
	if len(s) <= n {
		return s
	}
	if i := strings.LastIndexByte(s[:n], '\n'); i >= n-n/4 {
		return s[:i+1]
	}
	cut := n
	for i := 0; i < utf8.UTFMax-1 && cut > 0 && !utf8.RuneStart(s[cut]); i++ {
		cut--
	}
	return s[:cut]
}

// ghLine makes an untrusted value safe to use as a single-line field: control characters,
// line and paragraph separators and bidirectional overrides become spaces, so a title or a
// file name cannot start a line that looks like another field. Long values are cut.
func ghLine(s string) string {
	const max = 1000
	if len(s) > max {
		s = ghCut(s, max) + "…"
	}
	return strings.Map(func(r rune) rune {
		if unicode.IsControl(r) || r == '\u2028' || r == '\u2029' || unicode.Is(unicode.Bidi_Control, r) || r == utf8.RuneError {
			return ' '
		}
		return r
	}, s)
}

func ghUser(u *github.User) string {
	if u.GetLogin() == "" {
		return "(unknown)"
	}
	return "@" + u.GetLogin()
}

func ghTime(t *github.Timestamp) string {
	if t == nil || t.IsZero() {
		return ""
	}
	return t.UTC().Format(time.RFC3339)
}

func ghRepoName(op *GitHubOp) string { return op.Owner + "/" + op.Repo }

// summary is the leading Document of a list operation.
func (s *ghSession) summary(resp *github.Response, what string, shown, limit int, more bool) Document {
	d := s.newDoc(resp, fmt.Sprintf("%s %s", s.source, what), "text/plain")
	d.field("items", fmt.Sprintf("%d %s follow, one per document", shown, what))
	if more {
		d.d.Truncated = true
		d.field("truncated", fmt.Sprintf("yes: more %s exist; only the first %d are shown", what, limit))
	}
	return d.done()
}

func (s *ghSession) issue(ctx context.Context) ([]Document, error) {
	is, resp, err := s.client.Issues.Get(ctx, s.op.Owner, s.op.Repo, s.op.Number)
	if err != nil {
		return nil, err
	}
	kind := "issue"
	if is.IsPullRequest() {
		kind = "pull request"
	}
	d := s.newDoc(resp, fmt.Sprintf("%s %s#%d: %s", kind, ghRepoName(s.op), is.GetNumber(), is.GetTitle()), "text/markdown")
	d.field("kind", kind)
	d.field("title", is.GetTitle())
	d.field("state", is.GetState()+ghSuffix(is.GetStateReason()))
	d.field("author", ghUser(is.GetUser())+ghSuffix(is.GetAuthorAssociation()))
	d.field("created", ghTime(is.CreatedAt))
	d.field("updated", ghTime(is.UpdatedAt))
	d.field("closed", ghTime(is.ClosedAt))
	var labels []string
	for _, l := range is.Labels {
		labels = append(labels, l.GetName())
	}
	d.field("labels", strings.Join(labels, ", "))
	d.field("comments", strconv.Itoa(is.GetComments()))
	d.field("url", is.GetHTMLURL())
	return []Document{d.body("body", is.GetBody())}, nil
}

// ghSuffix renders an optional qualifier as " (x)".
func ghSuffix(s string) string {
	if s == "" {
		return ""
	}
	return " (" + s + ")"
}

func (s *ghSession) issueCommentDocs(ctx context.Context, what string) ([]Document, error) {
	comments, more, resp, err := ghCollect(GitHubMaxComments, func(lo github.ListOptions) ([]*github.IssueComment, *github.Response, error) {
		return s.client.Issues.ListComments(ctx, s.op.Owner, s.op.Repo, s.op.Number, &github.IssueListCommentsOptions{ListOptions: lo})
	})
	if err != nil {
		return nil, err
	}
	docs := []Document{s.summary(resp, what, len(comments), GitHubMaxComments, more)}
	for i, c := range comments {
		d := s.newDoc(resp, fmt.Sprintf("comment %d by %s on %s#%d", i+1, ghUser(c.GetUser()), ghRepoName(s.op), s.op.Number), "text/markdown")
		d.field("item", fmt.Sprintf("comment %d of %d", i+1, len(comments)))
		d.field("author", ghUser(c.GetUser())+ghSuffix(c.GetAuthorAssociation()))
		d.field("created", ghTime(c.CreatedAt))
		if !c.GetUpdatedAt().Equal(c.GetCreatedAt()) {
			d.field("edited", ghTime(c.UpdatedAt))
		}
		d.field("url", c.GetHTMLURL())
		docs = append(docs, d.body("body", c.GetBody()))
	}
	return docs, nil
}

func (s *ghSession) issueComments(ctx context.Context) ([]Document, error) {
	return s.issueCommentDocs(ctx, "comments")
}

func (s *ghSession) pull(ctx context.Context) ([]Document, error) {
	pr, resp, err := s.client.PullRequests.Get(ctx, s.op.Owner, s.op.Repo, s.op.Number)
	if err != nil {
		return nil, err
	}
	d := s.newDoc(resp, fmt.Sprintf("pull request %s#%d: %s", ghRepoName(s.op), pr.GetNumber(), pr.GetTitle()), "text/markdown")
	d.field("kind", "pull request")
	d.field("title", pr.GetTitle())
	state := pr.GetState()
	if pr.GetMerged() {
		state = "merged"
	}
	if pr.GetDraft() {
		state += " (draft)"
	}
	d.field("state", state)
	d.field("author", ghUser(pr.GetUser())+ghSuffix(pr.GetAuthorAssociation()))
	d.field("base", pr.GetBase().GetLabel())
	d.field("head", pr.GetHead().GetLabel())
	d.field("head commit", pr.GetHead().GetSHA())
	d.field("created", ghTime(pr.CreatedAt))
	d.field("updated", ghTime(pr.UpdatedAt))
	d.field("merged", ghTime(pr.MergedAt))
	d.field("closed", ghTime(pr.ClosedAt))
	d.field("changes", fmt.Sprintf("%d files, +%d -%d, %d commits", pr.GetChangedFiles(), pr.GetAdditions(), pr.GetDeletions(), pr.GetCommits()))
	d.field("comments", fmt.Sprintf("%d conversation, %d review", pr.GetComments(), pr.GetReviewComments()))
	d.field("url", pr.GetHTMLURL())
	return []Document{d.body("body", pr.GetBody())}, nil
}

// pullDiff reads the diff itself rather than through GetRaw, which would read any size into
// memory; past GitHubMaxDiff the diff is cut at a line and marked truncated.
func (s *ghSession) pullDiff(ctx context.Context) ([]Document, error) {
	u := fmt.Sprintf("repos/%s/%s/pulls/%d", s.op.Owner, s.op.Repo, s.op.Number)
	req, err := s.client.NewRequest(http.MethodGet, u, nil)
	if err != nil {
		return nil, err
	}
	req.Header.Set("Accept", "application/vnd.github.v3.diff")
	resp, err := s.client.BareDo(ctx, req)
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	raw, err := io.ReadAll(io.LimitReader(resp.Body, GitHubMaxDiff+1))
	if err != nil {
		return nil, err
	}
	diff, truncated := string(raw), false
	if len(raw) > GitHubMaxDiff {
		diff, truncated = ghCut(diff, GitHubMaxDiff), true
	}
	d := s.newDoc(resp, fmt.Sprintf("diff of pull request %s#%d", ghRepoName(s.op), s.op.Number), "text/x-diff")
	if truncated {
		d.d.Truncated = true
		d.field("truncated", fmt.Sprintf("yes: the diff is larger than %d bytes; showing its first %d bytes, cut at a line; use pr-files for the rest", GitHubMaxDiff, len(diff)))
	}
	doc := d.body("diff", diff)
	doc.Bytes = int64(len(raw))
	return []Document{doc}, nil
}

func (s *ghSession) pullFiles(ctx context.Context) ([]Document, error) {
	files, more, resp, err := ghCollect(GitHubMaxFiles, func(lo github.ListOptions) ([]*github.CommitFile, *github.Response, error) {
		return s.client.PullRequests.ListFiles(ctx, s.op.Owner, s.op.Repo, s.op.Number, &lo)
	})
	if err != nil {
		return nil, err
	}
	docs := []Document{s.summary(resp, "files", len(files), GitHubMaxFiles, more)}
	for i, f := range files {
		d := s.newDoc(resp, fmt.Sprintf("file %s in pull request %s#%d", f.GetFilename(), ghRepoName(s.op), s.op.Number), "text/x-diff")
		d.field("item", fmt.Sprintf("file %d of %d", i+1, len(files)))
		d.field("file", f.GetFilename())
		d.field("previous name", f.GetPreviousFilename())
		d.field("status", f.GetStatus())
		d.field("changes", fmt.Sprintf("+%d -%d", f.GetAdditions(), f.GetDeletions()))
		if f.Patch == nil {
			d.field("patch", "none (binary, or too large for GitHub to show)")
			docs = append(docs, d.done())
			continue
		}
		docs = append(docs, d.body("patch", f.GetPatch()))
	}
	return docs, nil
}

// pullComments reads the conversation (issue comments), the reviews that have a body, and the
// inline review comments, each list capped on its own.
func (s *ghSession) pullComments(ctx context.Context) ([]Document, error) {
	docs, err := s.issueCommentDocs(ctx, "conversation comments")
	if err != nil {
		return nil, err
	}

	reviews, more, resp, err := ghCollect(GitHubMaxComments, func(lo github.ListOptions) ([]*github.PullRequestReview, *github.Response, error) {
		return s.client.PullRequests.ListReviews(ctx, s.op.Owner, s.op.Repo, s.op.Number, &lo)
	})
	if err != nil {
		return nil, err
	}
	docs = append(docs, s.summary(resp, "reviews", len(reviews), GitHubMaxComments, more))
	for i, r := range reviews {
		d := s.newDoc(resp, fmt.Sprintf("review %d by %s on %s#%d", i+1, ghUser(r.GetUser()), ghRepoName(s.op), s.op.Number), "text/markdown")
		d.field("item", fmt.Sprintf("review %d of %d", i+1, len(reviews)))
		d.field("author", ghUser(r.GetUser())+ghSuffix(r.GetAuthorAssociation()))
		d.field("verdict", r.GetState())
		d.field("submitted", ghTime(r.SubmittedAt))
		d.field("url", r.GetHTMLURL())
		docs = append(docs, d.body("body", r.GetBody()))
	}

	comments, more, resp, err := ghCollect(GitHubMaxComments, func(lo github.ListOptions) ([]*github.PullRequestComment, *github.Response, error) {
		return s.client.PullRequests.ListComments(ctx, s.op.Owner, s.op.Repo, s.op.Number, &github.PullRequestListCommentsOptions{ListOptions: lo})
	})
	if err != nil {
		return nil, err
	}
	docs = append(docs, s.summary(resp, "review comments", len(comments), GitHubMaxComments, more))
	for i, c := range comments {
		d := s.newDoc(resp, fmt.Sprintf("review comment %d by %s on %s#%d", i+1, ghUser(c.GetUser()), ghRepoName(s.op), s.op.Number), "text/markdown")
		d.field("item", fmt.Sprintf("review comment %d of %d", i+1, len(comments)))
		d.field("author", ghUser(c.GetUser())+ghSuffix(c.GetAuthorAssociation()))
		d.field("created", ghTime(c.CreatedAt))
		d.field("file", c.GetPath())
		if c.Line != nil {
			d.field("line", strconv.Itoa(c.GetLine()))
		} else if c.OriginalLine != nil {
			d.field("line", strconv.Itoa(c.GetOriginalLine())+" (outdated)")
		}
		if c.InReplyTo != nil {
			d.field("in reply to", strconv.FormatInt(c.GetInReplyTo(), 10))
		}
		d.field("url", c.GetHTMLURL())
		docs = append(docs, d.body("body", c.GetBody()))
	}
	return docs, nil
}

// file reads a file through the contents API. A directory is listed (type, size, name) rather
// than refused: the listing is what a caller needs to ask for the right file next. Binary
// files and files over GitHubMaxFile are refused; a symlink or submodule is described.
func (s *ghSession) file(ctx context.Context) ([]Document, error) {
	var opts *github.RepositoryContentGetOptions
	if s.op.Ref != "" {
		opts = &github.RepositoryContentGetOptions{Ref: s.op.Ref}
	}
	fc, dir, resp, err := s.client.Repositories.GetContents(ctx, s.op.Owner, s.op.Repo, s.op.Path, opts)
	if err != nil {
		return nil, err
	}
	ref := s.op.Ref
	if ref == "" {
		ref = "(default branch)"
	}
	if fc == nil {
		d := s.newDoc(resp, fmt.Sprintf("directory %s in %s", s.op.Path, ghRepoName(s.op)), "text/plain")
		d.field("kind", "directory")
		d.field("path", s.op.Path)
		d.field("ref", ref)
		n := min(len(dir), GitHubMaxEntries)
		d.field("entries", strconv.Itoa(len(dir)))
		if len(dir) > n {
			d.d.Truncated = true
			d.field("truncated", fmt.Sprintf("yes: showing the first %d entries", n))
		}
		var b strings.Builder
		for _, e := range dir[:n] {
			fmt.Fprintf(&b, "%s\t%d\t%s\n", ghLine(e.GetType()), e.GetSize(), ghLine(e.GetName()))
		}
		return []Document{d.body("listing (type, size, name; one per line)", b.String())}, nil
	}

	d := s.newDoc(resp, fmt.Sprintf("file %s in %s", s.op.Path, ghRepoName(s.op)), "text/plain")
	d.field("path", fc.GetPath())
	d.field("ref", ref)
	d.field("blob", fc.GetSHA())
	d.field("url", fc.GetHTMLURL())
	switch fc.GetType() {
	case "file":
	case "symlink":
		d.field("kind", "symlink")
		d.field("target", fc.GetTarget())
		return []Document{d.done()}, nil
	case "submodule":
		d.field("kind", "submodule")
		d.field("repository", fc.GetSubmoduleGitURL())
		d.field("commit", fc.GetSHA())
		return []Document{d.done()}, nil
	default:
		return nil, fmt.Errorf("%w: the path is a %s", ErrGitHubRefused, ghQuote(fc.GetType()))
	}
	if fc.GetSize() > GitHubMaxFile {
		return nil, fmt.Errorf("%w: the file is %d bytes, over the %d-byte cap", ErrGitHubRefused, fc.GetSize(), GitHubMaxFile)
	}
	content, err := fc.GetContent()
	if err != nil {
		return nil, fmt.Errorf("%w: the file's content could not be decoded", ErrGitHubRefused)
	}
	if len(content) > GitHubMaxFile {
		return nil, fmt.Errorf("%w: the file is %d bytes, over the %d-byte cap", ErrGitHubRefused, len(content), GitHubMaxFile)
	}
	if ghLooksBinary(content) {
		return nil, fmt.Errorf("%w: the file is binary", ErrGitHubRefused)
	}
	d.field("kind", "file")
	d.field("size", strconv.Itoa(len(content))+" bytes")
	return []Document{d.body("content", content)}, nil
}

// ghLooksBinary says a file is binary as git does (a NUL byte in the first 8000 bytes), or when
// it is not UTF-8, since the distiller reads text.
func ghLooksBinary(s string) bool {
	return strings.IndexByte(s[:min(len(s), 8000)], 0) >= 0 || !utf8.ValidString(s)
}

// repo reads a repository's description and its README (if it has one).
func (s *ghSession) repo(ctx context.Context) ([]Document, error) {
	r, resp, err := s.client.Repositories.Get(ctx, s.op.Owner, s.op.Repo)
	if err != nil {
		return nil, err
	}
	d := s.newDoc(resp, "repository "+r.GetFullName(), "text/plain")
	d.field("repository", r.GetFullName())
	d.field("description", r.GetDescription())
	d.field("homepage", r.GetHomepage())
	d.field("default branch", r.GetDefaultBranch())
	d.field("language", r.GetLanguage())
	d.field("topics", strings.Join(r.Topics, ", "))
	d.field("license", r.GetLicense().GetSPDXID())
	d.field("visibility", r.GetVisibility())
	var flags []string
	for _, f := range []struct {
		on   bool
		name string
	}{{r.GetArchived(), "archived"}, {r.GetFork(), strings.TrimSpace("fork " + r.GetParent().GetFullName())}, {r.GetIsTemplate(), "template"}} {
		if f.on {
			flags = append(flags, f.name)
		}
	}
	d.field("flags", strings.Join(flags, ", "))
	d.field("stars", strconv.Itoa(r.GetStargazersCount()))
	d.field("forks", strconv.Itoa(r.GetForksCount()))
	d.field("open issues and pull requests", strconv.Itoa(r.GetOpenIssuesCount()))
	d.field("created", ghTime(r.CreatedAt))
	d.field("last push", ghTime(r.PushedAt))
	d.field("url", r.GetHTMLURL())
	docs := []Document{d.done()}

	readme, resp, err := s.client.Repositories.GetReadme(ctx, s.op.Owner, s.op.Repo, nil)
	var er *github.ErrorResponse
	if errors.As(err, &er) && er.Response != nil && er.Response.StatusCode == http.StatusNotFound {
		return docs, nil
	}
	if err != nil {
		return nil, err
	}
	rd := s.newDoc(resp, "README of "+r.GetFullName(), "text/markdown")
	rd.field("path", readme.GetPath())
	rd.field("url", readme.GetHTMLURL())
	content, err := readme.GetContent()
	switch {
	case readme.GetSize() > GitHubMaxFile || err != nil:
		rd.field("content", fmt.Sprintf("not shown: over %d bytes, or not decodable", GitHubMaxFile))
		docs = append(docs, rd.done())
	case ghLooksBinary(content):
		rd.field("content", "not shown: binary")
		docs = append(docs, rd.done())
	default:
		docs = append(docs, rd.body("content", content))
	}
	return docs, nil
}

func (s *ghSession) releases(ctx context.Context) ([]Document, error) {
	rels, more, resp, err := ghCollect(GitHubMaxReleases, func(lo github.ListOptions) ([]*github.RepositoryRelease, *github.Response, error) {
		return s.client.Repositories.ListReleases(ctx, s.op.Owner, s.op.Repo, &lo)
	})
	if err != nil {
		return nil, err
	}
	docs := []Document{s.summary(resp, "releases", len(rels), GitHubMaxReleases, more)}
	for i, r := range rels {
		d := s.newDoc(resp, fmt.Sprintf("release %s of %s", r.GetTagName(), ghRepoName(s.op)), "text/markdown")
		d.field("item", fmt.Sprintf("release %d of %d, newest first", i+1, len(rels)))
		d.field("tag", r.GetTagName())
		d.field("name", r.GetName())
		var flags []string
		if r.GetDraft() {
			flags = append(flags, "draft")
		}
		if r.GetPrerelease() {
			flags = append(flags, "prerelease")
		}
		d.field("flags", strings.Join(flags, ", "))
		d.field("author", ghUser(r.GetAuthor()))
		d.field("published", ghTime(r.PublishedAt))
		var assets []string
		for _, a := range r.Assets {
			assets = append(assets, fmt.Sprintf("%s (%d bytes)", a.GetName(), a.GetSize()))
		}
		d.field("assets", strings.Join(assets, ", "))
		d.field("url", r.GetHTMLURL())
		docs = append(docs, d.body("notes", r.GetBody()))
	}
	return docs, nil
}
