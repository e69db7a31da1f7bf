package worker

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

	"github.com/hookctl/hookctl/retriever"
)

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
	// PrivateRepos come from the config ([retriever.github] private_repos): the only
	// repositories a snapshot is read with the token (see Snapshot).
	PrivateRepos []string
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
func (g *GitHub) Do(ctx context.Context, op *retriever.GitHubOp) ([]retriever.Document, error) {
	if op == nil {
		return nil, errors.New("failed to read github: no operation")
	}
	s, err := g.session(op)
	if err != nil {
		return nil, err
	}
	source := s.source
	ctx = httptrace.WithClientTrace(ctx, &httptrace.ClientTrace{GotConn: s.gotConn})

	if op.ByBranch() {
		if err := s.prOfBranch(ctx); err != nil {
			return nil, fmt.Errorf("failed to read %s: %w", source, s.explain(err))
		}
	}
	var docs []retriever.Document
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
	case "issue-list", "pr-list", "search-issues":
		switch {
		case op.Search != "" || op.Op == "search-issues":
			docs, err = s.search(ctx)
		case op.Op == "issue-list":
			docs, err = s.issueList(ctx)
		default:
			docs, err = s.prList(ctx)
		}
	case "refs":
		docs, err = s.refs(ctx)
	case "pr-checks":
		docs, err = s.prChecks(ctx)
	case "runs":
		docs, err = s.runs(ctx)
	case "run":
		docs, err = s.run(ctx)
	case "run-log-failed":
		docs, err = s.runLog(ctx, true)
	case "run-log":
		docs, err = s.runLog(ctx, false)
	case "branches":
		docs, err = s.branches(ctx)
	case "tags":
		docs, err = s.tags(ctx)
	case "snapshot":
		err = fmt.Errorf("%w: a snapshot is read by Snapshot", ErrGitHubRefused)
	case "api-get":
		if op.Accept != "" || op.Pages != 0 {
			docs, err = s.apiGetPages(ctx)
		} else {
			docs, err = s.apiGet(ctx)
		}
	default:
		err = fmt.Errorf("%w: the worker has no operation %s", ErrGitHubRefused, retriever.Quote(op.Op))
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

// session validates op and sets up the client for it: the operation's one API host, the
// pinned transport with the token, no cookie jar.
func (g *GitHub) session(op *retriever.GitHubOp) (*ghSession, error) {
	if err := op.Validate(); err != nil {
		return nil, fmt.Errorf("failed to read github: %w", err)
	}
	source := op.Source()
	apiHost, base, err := g.apiBase(op.Host)
	if err != nil {
		return nil, fmt.Errorf("failed to read %s: %w", source, err)
	}
	if !ghTokenWellFormed(g.Token) {
		return nil, fmt.Errorf("failed to read %s: %s is malformed (printable ASCII, no spaces)", source, retriever.GitHubTokenEnv)
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
	s.inner = inner
	hc.Transport = &ghTransport{inner: inner, host: apiHost, token: g.Token}
	hc.Jar = nil // the API needs no cookies, and a jar could carry them between hosts
	s.client = github.NewClient(&hc)
	s.client.BaseURL = base
	s.client.UserAgent = "hookctl-retriever"
	return s, nil
}

// RepoPrivate reports whether the repository of op is private (or internal) as this client's
// token sees it. The research loop asks after a read made with the token.
func (g *GitHub) RepoPrivate(ctx context.Context, op *retriever.GitHubOp) (bool, error) {
	probe := &retriever.GitHubOp{Op: "repo", Host: op.Host, Owner: op.Owner, Repo: op.Repo}
	s, err := g.session(probe)
	if err != nil {
		return true, err
	}
	r, _, err := s.client.Repositories.Get(ctx, probe.Owner, probe.Repo)
	if err != nil {
		return true, s.explain(err)
	}
	return r.GetPrivate() || r.GetVisibility() == "private" || r.GetVisibility() == "internal", nil
}

// apiBase returns the one host requests may go to and the API's base URL. An enterprise host
// must be on the allowlist exactly (ignoring case): no suffix match, no implied port.
// Why: the host is chosen by the agent; anything looser is SSRF, and the token goes there.
// Test: TestGitHubEnterpriseHosts.
func (g *GitHub) apiBase(host string) (string, *url.URL, error) {
	h := ""
	if host != "" {
		var err error
		if h, err = retriever.NormalizeGitHubHost(host); err != nil {
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
	return "", nil, fmt.Errorf("%w: %s is not in [retriever.github] enterprise_hosts", ErrGitHubHostNotAllowed, retriever.Quote(h))
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
	op      *retriever.GitHubOp
	source  string
	apiHost string
	client  *github.Client
	inner   http.RoundTripper // the client's own transport, under the pinned one

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
	tokenHint := "a read-only token in " + retriever.GitHubTokenEnv + " raises the limit from 60 to 5,000 requests an hour"
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
			return fmt.Errorf("%w (or private: unauthenticated reads see public repositories only; set %s to a read-only token that can see it)", ErrGitHubNotFound, retriever.GitHubTokenEnv)
		}
		return fmt.Errorf("%w (or the token in %s cannot see it)", ErrGitHubNotFound, retriever.GitHubTokenEnv)
	case code == http.StatusUnauthorized:
		if s.g.Token == "" {
			return fmt.Errorf("%w: %s requires a token; set %s", ErrGitHubUnauthorized, s.apiHost, retriever.GitHubTokenEnv)
		}
		return fmt.Errorf("%w: the token in %s is expired, revoked or mistyped", ErrGitHubUnauthorized, retriever.GitHubTokenEnv)
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
		return fmt.Errorf("%w: the token in %s lacks read access here (it needs Contents, Issues, Pull requests and Metadata: read)", ErrGitHubForbidden, retriever.GitHubTokenEnv)
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
	d retriever.Document
	b strings.Builder
}

func (s *ghSession) newDoc(resp *github.Response, title, contentType string) *ghDoc {
	d := &ghDoc{d: retriever.Document{Source: s.source, Host: s.apiHost, Title: ghLine(title), ContentType: contentType}}
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
func (d *ghDoc) body(name, value string) retriever.Document {
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
func (d *ghDoc) done() retriever.Document {
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

func ghRepoName(op *retriever.GitHubOp) string { return op.Owner + "/" + op.Repo }

// summary is the leading Document of a list operation.
func (s *ghSession) summary(resp *github.Response, what string, shown, limit int, more bool) retriever.Document {
	d := s.newDoc(resp, fmt.Sprintf("%s %s", s.source, what), "text/plain")
	d.field("items", fmt.Sprintf("%d %s follow, one per document", shown, what))
	if more {
		d.d.Truncated = true
		d.field("truncated", fmt.Sprintf("yes: more %s exist; only the first %d are shown", what, limit))
	}
	return d.done()
}

func (s *ghSession) issue(ctx context.Context) ([]retriever.Document, error) {
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
	return []retriever.Document{d.body("body", is.GetBody())}, nil
}

// ghSuffix renders an optional qualifier as " (x)".
func ghSuffix(s string) string {
	if s == "" {
		return ""
	}
	return " (" + s + ")"
}

func (s *ghSession) issueCommentDocs(ctx context.Context, what string) ([]retriever.Document, error) {
	comments, more, resp, err := ghCollect(GitHubMaxComments, func(lo github.ListOptions) ([]*github.IssueComment, *github.Response, error) {
		return s.client.Issues.ListComments(ctx, s.op.Owner, s.op.Repo, s.op.Number, &github.IssueListCommentsOptions{ListOptions: lo})
	})
	if err != nil {
		return nil, err
	}
	docs := []retriever.Document{s.summary(resp, what, len(comments), GitHubMaxComments, more)}
	for i, c := range comments {
		d := s.commentDoc(resp, "comment", i, len(comments), c.GetUser(), c.GetAuthorAssociation())
		d.field("created", ghTime(c.CreatedAt))
		if !c.GetUpdatedAt().Equal(c.GetCreatedAt()) {
			d.field("edited", ghTime(c.UpdatedAt))
		}
		d.field("url", c.GetHTMLURL())
		docs = append(docs, d.body("body", c.GetBody()))
	}
	return docs, nil
}

// commentDoc starts the document of comment i (from 0) of n of a kind ("comment", "review",
// "review comment") on the issue or pull request: its title, its place in the list and its
// author, with the author's association to the repository.
func (s *ghSession) commentDoc(resp *github.Response, kind string, i, n int, user *github.User, assoc string) *ghDoc {
	d := s.newDoc(resp, fmt.Sprintf("%s %d by %s on %s#%d", kind, i+1, ghUser(user), ghRepoName(s.op), s.op.Number), "text/markdown")
	d.field("item", fmt.Sprintf("%s %d of %d", kind, i+1, n))
	d.field("author", ghUser(user)+ghSuffix(assoc))
	return d
}

func (s *ghSession) issueComments(ctx context.Context) ([]retriever.Document, error) {
	return s.issueCommentDocs(ctx, "comments")
}

func (s *ghSession) pull(ctx context.Context) ([]retriever.Document, error) {
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
	docs := []retriever.Document{d.body("body", pr.GetBody())}
	// The changed files' names, as gh pr view --json files gives them; pr-files has the patches.
	files, more, fresp, err := ghCollect(GitHubMaxFiles, func(lo github.ListOptions) ([]*github.CommitFile, *github.Response, error) {
		return s.client.PullRequests.ListFiles(ctx, s.op.Owner, s.op.Repo, s.op.Number, &lo)
	})
	if err != nil {
		return nil, err
	}
	var b strings.Builder
	for _, f := range files {
		fmt.Fprintf(&b, "%s\t+%d -%d\t%s\n", ghLine(f.GetStatus()), f.GetAdditions(), f.GetDeletions(), ghLine(f.GetFilename()))
	}
	fd := s.newDoc(fresp, fmt.Sprintf("files of pull request %s#%d", ghRepoName(s.op), s.op.Number), "text/plain")
	fd.field("items", fmt.Sprintf("%d files", len(files)))
	if more {
		fd.d.Truncated = true
		fd.field("truncated", fmt.Sprintf("yes: only the first %d files are listed", GitHubMaxFiles))
	}
	return append(docs, fd.body("files (status, changes, name; one per line)", b.String())), nil
}

// pullDiff reads the diff itself rather than through GetRaw, which would read any size into
// memory; past GitHubMaxDiff the diff is cut at a line and marked truncated.
func (s *ghSession) pullDiff(ctx context.Context) ([]retriever.Document, error) {
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
	return []retriever.Document{doc}, nil
}

func (s *ghSession) pullFiles(ctx context.Context) ([]retriever.Document, error) {
	files, more, resp, err := ghCollect(GitHubMaxFiles, func(lo github.ListOptions) ([]*github.CommitFile, *github.Response, error) {
		return s.client.PullRequests.ListFiles(ctx, s.op.Owner, s.op.Repo, s.op.Number, &lo)
	})
	if err != nil {
		return nil, err
	}
	docs := []retriever.Document{s.summary(resp, "files", len(files), GitHubMaxFiles, more)}
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
func (s *ghSession) pullComments(ctx context.Context) ([]retriever.Document, error) {
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
		d := s.commentDoc(resp, "review", i, len(reviews), r.GetUser(), r.GetAuthorAssociation())
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
		d := s.commentDoc(resp, "review comment", i, len(comments), c.GetUser(), c.GetAuthorAssociation())
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
func (s *ghSession) file(ctx context.Context) ([]retriever.Document, error) {
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
		return []retriever.Document{d.body("listing (type, size, name; one per line)", b.String())}, nil
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
		return []retriever.Document{d.done()}, nil
	case "submodule":
		d.field("kind", "submodule")
		d.field("repository", fc.GetSubmoduleGitURL())
		d.field("commit", fc.GetSHA())
		return []retriever.Document{d.done()}, nil
	default:
		return nil, fmt.Errorf("%w: the path is a %s", ErrGitHubRefused, retriever.Quote(fc.GetType()))
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
	return []retriever.Document{d.body("content", content)}, nil
}

// ghLooksBinary says a file is binary as git does (a NUL byte in the first 8000 bytes), or when
// it is not UTF-8, since the distiller reads text.
func ghLooksBinary(s string) bool {
	return strings.IndexByte(s[:min(len(s), 8000)], 0) >= 0 || !utf8.ValidString(s)
}

// repo reads a repository's description and its README (if it has one).
func (s *ghSession) repo(ctx context.Context) ([]retriever.Document, error) {
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
	docs := []retriever.Document{d.done()}

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

func (s *ghSession) releases(ctx context.Context) ([]retriever.Document, error) {
	max := s.limit(GitHubMaxReleases)
	rels, more, resp, err := ghCollect(max, func(lo github.ListOptions) ([]*github.RepositoryRelease, *github.Response, error) {
		return s.client.Repositories.ListReleases(ctx, s.op.Owner, s.op.Repo, &lo)
	})
	if err != nil {
		return nil, err
	}
	docs := []retriever.Document{s.summary(resp, "releases", len(rels), max, more)}
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
