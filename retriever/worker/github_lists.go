package worker

// The list and status reads of GitHub (issue and pull request lists, checks, workflow runs and
// their failed jobs' logs, branches, tags) and api-get, the GET of a REST path under the
// repository. Every one is a GET through the session's pinned transport (ghTransport); each
// list is capped by the operation's --limit or its default, and says when more exist.

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strconv"
	"strings"

	"github.com/google/go-github/v62/github"

	"github.com/hookctl/hookctl/retriever"
)

// Defaults and caps of the list reads, beyond the operation's --limit.
const (
	GitHubDefaultList = 30       // items of a list when no --limit is given (gh's default)
	GitHubDefaultRuns = 20       // workflow runs when no --limit is given (gh run list's default)
	GitHubMaxListBody = 4 << 10  // bytes of each item's body in a list, cut past it
	GitHubMaxJobs     = 100      // jobs of one workflow run
	GitHubMaxLogJobs  = 5        // failed jobs whose logs run-log-failed reads
	GitHubMaxLog      = 64 << 10 // bytes of the end of each failed job's log
	GitHubMaxChecks   = 100      // check runs and statuses of a pull request's head commit
)

// limit is the operation's --limit, or def.
func (s *ghSession) limit(def int) int {
	if s.op.Limit > 0 {
		return s.op.Limit
	}
	return def
}

// author resolves --author: @me is the token's own user, which only the worker can know.
// Why: gh resolves @me with the user's own login; the retriever's token is the only identity
// here, and without one there is no "me". Test: TestGitHubListAuthorMe.
func (s *ghSession) author(ctx context.Context) (string, error) {
	if s.op.Author != "@me" {
		return s.op.Author, nil
	}
	if s.g.Token == "" {
		return "", fmt.Errorf("%w: --author @me needs a token in %s (it names the token's user)", ErrGitHubUnauthorized, retriever.GitHubTokenEnv)
	}
	u, _, err := s.client.Users.Get(ctx, "")
	if err != nil {
		return "", err
	}
	if err := retrieverCheckLogin(u.GetLogin()); err != nil {
		return "", fmt.Errorf("%w: the token's user has no usable login", ErrGitHubRefused)
	}
	return u.GetLogin(), nil
}

// issuesWhere lists the repository's issues with opts, keeping those keep says: the issues API
// returns pull requests too, so each list takes the one kind it reads.
func (s *ghSession) issuesWhere(ctx context.Context, opts *github.IssueListByRepoOptions, max int, keep func(*github.Issue) bool) ([]*github.Issue, bool, *github.Response, error) {
	return ghCollect(max, func(lo github.ListOptions) ([]*github.Issue, *github.Response, error) {
		opts.ListOptions = lo
		got, resp, err := s.client.Issues.ListByRepo(ctx, s.op.Owner, s.op.Repo, opts)
		var kept []*github.Issue
		for _, is := range got {
			if keep(is) {
				kept = append(kept, is)
			}
		}
		return kept, resp, err
	})
}

// retrieverCheckLogin checks a login GitHub returned before it goes into a query.
func retrieverCheckLogin(l string) error {
	op := retriever.GitHubOp{Op: "issue-list", Owner: "o", Repo: "r", Author: l}
	return op.Validate()
}

// issueList lists issues (not pull requests, which the issues API also returns) with the
// filters. The issues API pages past pull requests, so a page may hold fewer issues than asked.
func (s *ghSession) issueList(ctx context.Context) ([]retriever.Document, error) {
	author, err := s.author(ctx)
	if err != nil {
		return nil, err
	}
	max := s.limit(GitHubDefaultList)
	opts := &github.IssueListByRepoOptions{State: s.op.State, Creator: author, Labels: s.op.Labels}
	if opts.State == "" {
		opts.State = "open"
	}
	issues, more, resp, err := s.issuesWhere(ctx, opts, max, func(is *github.Issue) bool { return !is.IsPullRequest() })
	if err != nil {
		return nil, err
	}
	docs := []retriever.Document{s.summary(resp, "issues", len(issues), max, more)}
	for i, is := range issues {
		docs = append(docs, s.listItem(resp, i, len(issues), "issue", is.GetNumber(), is.GetTitle(), is.GetState()+ghSuffix(is.GetStateReason()),
			is.GetUser(), is.Labels, is.CreatedAt, is.UpdatedAt, is.GetHTMLURL(), is.GetBody()))
	}
	return docs, nil
}

// listItem is one issue or pull request of a list, its body cut to GitHubMaxListBody.
func (s *ghSession) listItem(resp *github.Response, i, n int, kind string, number int, title, state string, user *github.User,
	labels []*github.Label, created, updated *github.Timestamp, url, body string) retriever.Document {
	d := s.newDoc(resp, fmt.Sprintf("%s %s#%d: %s", kind, ghRepoName(s.op), number, title), "text/markdown")
	d.field("item", fmt.Sprintf("%s %d of %d", kind, i+1, n))
	d.field("number", strconv.Itoa(number))
	d.field("title", title)
	d.field("state", state)
	d.field("author", ghUser(user))
	var names []string
	for _, l := range labels {
		names = append(names, l.GetName())
	}
	d.field("labels", strings.Join(names, ", "))
	d.field("created", ghTime(created))
	d.field("updated", ghTime(updated))
	d.field("url", url)
	if len(body) > GitHubMaxListBody {
		d.field("body truncated", fmt.Sprintf("yes: the first %d of %d bytes; read the item itself for the rest", GitHubMaxListBody, len(body)))
		body = ghCut(body, GitHubMaxListBody)
	}
	return d.body("body", body)
}

// prList lists pull requests. The pulls API filters by state, head and base only; an author or
// label filter (or state merged) is answered from the issues API, which serves pull requests
// too and says when one was merged.
func (s *ghSession) prList(ctx context.Context) ([]retriever.Document, error) {
	author, err := s.author(ctx)
	if err != nil {
		return nil, err
	}
	max := s.limit(GitHubDefaultList)
	state := s.op.State
	if state == "" {
		state = "open"
	}
	if author == "" && len(s.op.Labels) == 0 && state != "merged" {
		opts := &github.PullRequestListOptions{State: state}
		if s.op.Branch != "" {
			opts.Head = s.op.Owner + ":" + s.op.Branch
		}
		prs, more, resp, err := ghCollect(max, func(lo github.ListOptions) ([]*github.PullRequest, *github.Response, error) {
			opts.ListOptions = lo
			return s.client.PullRequests.List(ctx, s.op.Owner, s.op.Repo, opts)
		})
		if err != nil {
			return nil, err
		}
		docs := []retriever.Document{s.summary(resp, "pull requests", len(prs), max, more)}
		for i, pr := range prs {
			st := pr.GetState()
			if pr.MergedAt != nil {
				st = "merged"
			}
			if pr.GetDraft() {
				st += " (draft)"
			}
			d := s.listItem(resp, i, len(prs), "pull request", pr.GetNumber(), pr.GetTitle(), st, pr.GetUser(), pr.Labels,
				pr.CreatedAt, pr.UpdatedAt, pr.GetHTMLURL(), pr.GetBody())
			docs = append(docs, ghInsertField(d, "head", pr.GetHead().GetLabel()))
		}
		return docs, nil
	}
	if s.op.Branch != "" {
		return nil, fmt.Errorf("%w: --branch cannot be combined with --author, --label or --state merged", ErrGitHubRefused)
	}
	opts := &github.IssueListByRepoOptions{State: state, Creator: author, Labels: s.op.Labels}
	if state == "merged" {
		opts.State = "closed"
	}
	items, more, resp, err := s.issuesWhere(ctx, opts, max, func(is *github.Issue) bool {
		return is.IsPullRequest() && (state != "merged" || is.GetPullRequestLinks().MergedAt != nil)
	})
	if err != nil {
		return nil, err
	}
	docs := []retriever.Document{s.summary(resp, "pull requests", len(items), max, more)}
	for i, is := range items {
		st := is.GetState()
		if is.GetPullRequestLinks().MergedAt != nil {
			st = "merged"
		}
		docs = append(docs, s.listItem(resp, i, len(items), "pull request", is.GetNumber(), is.GetTitle(), st, is.GetUser(), is.Labels,
			is.CreatedAt, is.UpdatedAt, is.GetHTMLURL(), is.GetBody()))
	}
	return docs, nil
}

// ghInsertField adds a single-line field to a finished document, before its multi-line field.
func ghInsertField(d retriever.Document, name, value string) retriever.Document {
	if value == "" {
		return d
	}
	i := strings.Index(d.Text, "\nbody:\n")
	if i < 0 {
		return d
	}
	d.Text = d.Text[:i+1] + name + ": " + ghLine(value) + d.Text[i:]
	return d
}

// prChecks reads the check runs and commit statuses of a pull request's head commit: what
// `gh pr checks` shows.
func (s *ghSession) prChecks(ctx context.Context) ([]retriever.Document, error) {
	pr, resp, err := s.client.PullRequests.Get(ctx, s.op.Owner, s.op.Repo, s.op.Number)
	if err != nil {
		return nil, err
	}
	sha := pr.GetHead().GetSHA()
	if !ghIsHex(sha) {
		return nil, fmt.Errorf("%w: the pull request's head commit is not a commit id", ErrGitHubRefused)
	}
	runs, more, cresp, err := ghCollect(GitHubMaxChecks, func(lo github.ListOptions) ([]*github.CheckRun, *github.Response, error) {
		res, resp, err := s.client.Checks.ListCheckRunsForRef(ctx, s.op.Owner, s.op.Repo, sha, &github.ListCheckRunsOptions{ListOptions: lo})
		if err != nil {
			return nil, resp, err
		}
		return res.CheckRuns, resp, nil
	})
	if err != nil {
		return nil, err
	}
	status, sresp, err := s.client.Repositories.GetCombinedStatus(ctx, s.op.Owner, s.op.Repo, sha, &github.ListOptions{PerPage: GitHubMaxChecks})
	if err != nil {
		return nil, err
	}
	d := s.newDoc(resp, fmt.Sprintf("checks of pull request %s#%d", ghRepoName(s.op), s.op.Number), "text/plain")
	d.field("head commit", sha)
	d.field("title", pr.GetTitle())
	d.field("combined status", status.GetState())
	docs := []retriever.Document{d.done(), s.summary(cresp, "check runs", len(runs), GitHubMaxChecks, more)}
	for i, r := range runs {
		c := s.newDoc(cresp, "check run "+r.GetName(), "text/plain")
		c.field("item", fmt.Sprintf("check run %d of %d", i+1, len(runs)))
		c.field("name", r.GetName())
		c.field("app", r.GetApp().GetSlug())
		c.field("status", r.GetStatus())
		c.field("conclusion", r.GetConclusion())
		c.field("started", ghTime(r.StartedAt))
		c.field("completed", ghTime(r.CompletedAt))
		c.field("url", r.GetHTMLURL())
		out := r.GetOutput()
		text := strings.TrimSpace(out.GetTitle() + "\n" + out.GetSummary())
		if len(text) > GitHubMaxListBody {
			text = ghCut(text, GitHubMaxListBody)
		}
		docs = append(docs, c.body("output", text))
	}
	docs = append(docs, s.summary(sresp, "commit statuses", len(status.Statuses), GitHubMaxChecks, status.GetTotalCount() > len(status.Statuses)))
	for i, st := range status.Statuses {
		c := s.newDoc(sresp, "status "+st.GetContext(), "text/plain")
		c.field("item", fmt.Sprintf("status %d of %d", i+1, len(status.Statuses)))
		c.field("context", st.GetContext())
		c.field("state", st.GetState())
		c.field("description", st.GetDescription())
		c.field("url", st.GetTargetURL())
		docs = append(docs, c.done())
	}
	return docs, nil
}

func ghIsHex(s string) bool {
	ok := len(s) >= 7 && len(s) <= 64
	for i := 0; ok && i < len(s); i++ {
		ok = s[i] >= '0' && s[i] <= '9' || s[i] >= 'a' && s[i] <= 'f'
	}
	return ok
}

// runs lists workflow runs, newest first.
func (s *ghSession) runs(ctx context.Context) ([]retriever.Document, error) {
	max := s.limit(GitHubDefaultRuns)
	opts := &github.ListWorkflowRunsOptions{Branch: s.op.Branch}
	runs, more, resp, err := ghCollect(max, func(lo github.ListOptions) ([]*github.WorkflowRun, *github.Response, error) {
		opts.ListOptions = lo
		res, resp, err := s.client.Actions.ListRepositoryWorkflowRuns(ctx, s.op.Owner, s.op.Repo, opts)
		if err != nil {
			return nil, resp, err
		}
		return res.WorkflowRuns, resp, nil
	})
	if err != nil {
		return nil, err
	}
	docs := []retriever.Document{s.summary(resp, "workflow runs", len(runs), max, more)}
	for i, r := range runs {
		d := s.runDoc(resp, r)
		d.field("item", fmt.Sprintf("run %d of %d, newest first", i+1, len(runs)))
		docs = append(docs, d.done())
	}
	return docs, nil
}

func (s *ghSession) runDoc(resp *github.Response, r *github.WorkflowRun) *ghDoc {
	d := s.newDoc(resp, fmt.Sprintf("workflow run %d of %s: %s", r.GetID(), ghRepoName(s.op), r.GetDisplayTitle()), "text/plain")
	d.field("run id", strconv.FormatInt(r.GetID(), 10))
	d.field("workflow", r.GetName())
	d.field("title", r.GetDisplayTitle())
	d.field("event", r.GetEvent())
	d.field("branch", r.GetHeadBranch())
	d.field("commit", r.GetHeadSHA())
	d.field("status", r.GetStatus())
	d.field("conclusion", r.GetConclusion())
	d.field("attempt", strconv.Itoa(r.GetRunAttempt()))
	d.field("actor", ghUser(r.GetActor()))
	d.field("created", ghTime(r.CreatedAt))
	d.field("updated", ghTime(r.UpdatedAt))
	d.field("url", r.GetHTMLURL())
	return d
}

// run reads one workflow run and its jobs, with each job's steps and their conclusions: what
// `gh run view` shows.
func (s *ghSession) run(ctx context.Context) ([]retriever.Document, error) {
	r, resp, err := s.client.Actions.GetWorkflowRunByID(ctx, s.op.Owner, s.op.Repo, int64(s.op.Number))
	if err != nil {
		return nil, err
	}
	jobs, more, jresp, err := s.jobs(ctx)
	if err != nil {
		return nil, err
	}
	docs := []retriever.Document{s.runDoc(resp, r).done(), s.summary(jresp, "jobs", len(jobs), GitHubMaxJobs, more)}
	for i, j := range jobs {
		docs = append(docs, s.jobDoc(jresp, j, fmt.Sprintf("job %d of %d", i+1, len(jobs))).done())
	}
	return docs, nil
}

func (s *ghSession) jobs(ctx context.Context) ([]*github.WorkflowJob, bool, *github.Response, error) {
	return ghCollect(GitHubMaxJobs, func(lo github.ListOptions) ([]*github.WorkflowJob, *github.Response, error) {
		res, resp, err := s.client.Actions.ListWorkflowJobs(ctx, s.op.Owner, s.op.Repo, int64(s.op.Number), &github.ListWorkflowJobsOptions{ListOptions: lo})
		if err != nil {
			return nil, resp, err
		}
		return res.Jobs, resp, nil
	})
}

func (s *ghSession) jobDoc(resp *github.Response, j *github.WorkflowJob, item string) *ghDoc {
	d := s.newDoc(resp, "job "+j.GetName(), "text/plain")
	d.field("item", item)
	d.field("job", j.GetName())
	d.field("job id", strconv.FormatInt(j.GetID(), 10))
	d.field("status", j.GetStatus())
	d.field("conclusion", j.GetConclusion())
	d.field("started", ghTime(j.StartedAt))
	d.field("completed", ghTime(j.CompletedAt))
	var steps []string
	for _, st := range j.Steps {
		steps = append(steps, fmt.Sprintf("%d %s (%s)", st.GetNumber(), ghLine(st.GetName()), st.GetConclusion()))
	}
	d.field("steps", strings.Join(steps, "; "))
	d.field("url", j.GetHTMLURL())
	return d
}

// ghFailed says a job or step conclusion is a failure, as gh --log-failed counts it.
func ghFailed(conclusion string) bool {
	return conclusion == "failure" || conclusion == "timed_out" || conclusion == "startup_failure"
}

// runLog reads the logs of a run's jobs (only its failed ones, for run-log-failed): the end of
// each (where a failure is), for at most GitHubMaxLogJobs jobs. GitHub answers a log request with a redirect to a signed
// URL on its log storage; that URL is fetched without the token, and only from GitHub's log
// hosts (ghLogHost).
func (s *ghSession) runLog(ctx context.Context, failedOnly bool) ([]retriever.Document, error) {
	jobs, _, jresp, err := s.jobs(ctx)
	if err != nil {
		return nil, err
	}
	var failed []*github.WorkflowJob
	for _, j := range jobs {
		if !failedOnly || ghFailed(j.GetConclusion()) {
			failed = append(failed, j)
		}
	}
	what := "failed jobs"
	if !failedOnly {
		what = "jobs"
	}
	d := s.newDoc(jresp, fmt.Sprintf("%s of workflow run %d of %s", what, s.op.Number, ghRepoName(s.op)), "text/plain")
	d.field("items", fmt.Sprintf("%d %s of %d", len(failed), what, len(jobs)))
	if len(failed) > GitHubMaxLogJobs {
		d.d.Truncated = true
		d.field("truncated", fmt.Sprintf("yes: the logs of the first %d %s follow", GitHubMaxLogJobs, what))
		failed = failed[:GitHubMaxLogJobs]
	}
	docs := []retriever.Document{d.done()}
	for i, j := range failed {
		jd := s.jobDoc(jresp, j, fmt.Sprintf("%s %d of %d", strings.TrimSuffix(what, "s"), i+1, len(failed)))
		var names []string
		for _, st := range j.Steps {
			if ghFailed(st.GetConclusion()) {
				names = append(names, ghLine(st.GetName()))
			}
		}
		jd.field("failed steps", strings.Join(names, "; "))
		log, total, err := s.jobLog(ctx, j.GetID())
		if err != nil {
			return nil, err
		}
		if total > len(log) {
			jd.d.Truncated = true
			jd.field("log truncated", fmt.Sprintf("yes: the last %d of %d bytes", len(log), total))
		}
		docs = append(docs, jd.body("log", log))
	}
	return docs, nil
}

// jobLog returns the last GitHubMaxLog bytes of a job's log and the log's size.
func (s *ghSession) jobLog(ctx context.Context, id int64) (string, int, error) {
	u, _, err := s.client.Actions.GetWorkflowJobLogs(ctx, s.op.Owner, s.op.Repo, id, 0)
	if err != nil {
		return "", 0, err
	}
	if u.Scheme != "https" || u.User != nil || !ghLogHost(u.Hostname(), s.apiHost) {
		return "", 0, fmt.Errorf("%w: the log is stored on a host hookctl does not read from", ErrGitHubHostNotAllowed)
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, u.String(), nil)
	if err != nil {
		return "", 0, err
	}
	hc := *s.g.HTTPClient
	inner := hc.Transport
	if inner == nil {
		inner = http.DefaultTransport
	}
	// No token: the URL is signed. Pinned to the log host, and no redirect is followed. The
	// log's end is what matters, so the whole log is streamed (up to ghMaxLogStream) rather
	// than capped like an API response.
	hc.Transport = &ghLogTransport{inner: inner, host: u.Host}
	hc.Jar = nil
	hc.CheckRedirect = func(*http.Request, []*http.Request) error { return errGitHubRedirectedAway }
	resp, err := hc.Do(req)
	if err != nil {
		return "", 0, err
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return "", 0, fmt.Errorf("the log host answered HTTP %d", resp.StatusCode)
	}
	// Keep the last GitHubMaxLog bytes read, up to the transport's cap on the whole log.
	var tail []byte
	total := 0
	buf := make([]byte, 32<<10)
	body := io.LimitReader(resp.Body, ghMaxLogStream)
	for {
		n, err := body.Read(buf)
		total += n
		tail = append(tail, buf[:n]...)
		if len(tail) > 2*GitHubMaxLog {
			tail = append([]byte(nil), tail[len(tail)-GitHubMaxLog:]...)
		}
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return "", 0, err
		}
	}
	if len(tail) > GitHubMaxLog {
		tail = tail[len(tail)-GitHubMaxLog:]
	}
	log := strings.ToValidUTF8(string(tail), "\uFFFD")
	if ghLooksBinary(log) {
		return "", 0, fmt.Errorf("%w: the log is binary", ErrGitHubRefused)
	}
	return log, total, nil
}

// ghMaxLogStream caps the bytes of one job's log read to find its end.
const ghMaxLogStream = 64 << 20

// ghLogTransport pins a log download to the log host over https, GET only, with no
// Authorization or Cookie header.
type ghLogTransport struct {
	inner http.RoundTripper
	host  string
}

func (t *ghLogTransport) RoundTrip(req *http.Request) (*http.Response, error) {
	if req.URL.Scheme != "https" || !strings.EqualFold(req.URL.Host, t.host) {
		return nil, errGitHubRedirectedAway
	}
	if req.Method != http.MethodGet {
		return nil, fmt.Errorf("refusing %s: the retriever only reads", req.Method)
	}
	r := req.Clone(req.Context())
	r.Header.Del("Authorization")
	r.Header.Del("Cookie")
	return t.inner.RoundTrip(r)
}

// ghLogHost says a signed log URL's host is GitHub's log storage: Actions' result hosts on
// github.com, or the enterprise API host itself.
// Why: the redirect's target comes from the API's answer, not from hookctl; anything looser
// would let a hostile enterprise host, or a man in the middle of one, send the worker anywhere.
// Test: TestGitHubRunLogFailed, TestGitHubRunLogOtherHostRefused.
func ghLogHost(host, apiHost string) bool {
	host = strings.ToLower(host)
	if apiHost != "api.github.com" {
		return strings.EqualFold(host, strings.Split(apiHost, ":")[0])
	}
	for _, suffix := range []string{".actions.githubusercontent.com", ".blob.core.windows.net"} {
		if name, ok := strings.CutSuffix(host, suffix); ok && name != "" && !strings.Contains(name, ".") {
			return true
		}
	}
	return false
}

// branches lists branch names and their head commits.
func (s *ghSession) branches(ctx context.Context) ([]retriever.Document, error) {
	return ghRefs(s, "branches", func(b *github.Branch) string { return b.GetCommit().GetSHA() },
		func(lo github.ListOptions) ([]*github.Branch, *github.Response, error) {
			return s.client.Repositories.ListBranches(ctx, s.op.Owner, s.op.Repo, &github.BranchListOptions{ListOptions: lo})
		})
}

// tags lists tag names and their commits.
func (s *ghSession) tags(ctx context.Context) ([]retriever.Document, error) {
	return ghRefs(s, "tags", func(t *github.RepositoryTag) string { return t.GetCommit().GetSHA() },
		func(lo github.ListOptions) ([]*github.RepositoryTag, *github.Response, error) {
			return s.client.Repositories.ListTags(ctx, s.op.Owner, s.op.Repo, &lo)
		})
}

// ghRefs lists named refs (what: branches or tags) with their commits, one per line.
func ghRefs[T interface{ GetName() string }](s *ghSession, what string, sha func(T) string, list func(github.ListOptions) ([]T, *github.Response, error)) ([]retriever.Document, error) {
	max := s.limit(GitHubDefaultList)
	refs, more, resp, err := ghCollect(max, list)
	if err != nil {
		return nil, err
	}
	var b strings.Builder
	for _, r := range refs {
		fmt.Fprintf(&b, "%s\t%s\n", ghLine(sha(r)), ghLine(r.GetName()))
	}
	return []retriever.Document{s.refList(resp, what, len(refs), max, more, b.String())}, nil
}

func (s *ghSession) refList(resp *github.Response, what string, n, max int, more bool, listing string) retriever.Document {
	d := s.newDoc(resp, fmt.Sprintf("%s of %s", what, ghRepoName(s.op)), "text/plain")
	d.field("items", fmt.Sprintf("%d %s", n, what))
	if more {
		d.d.Truncated = true
		d.field("truncated", fmt.Sprintf("yes: more %s exist; only the first %d are shown", what, max))
	}
	return d.body("listing (commit, name; one per line)", listing)
}

// apiGet GETs /repos/OWNER/REPO/PATH?QUERY and hands the JSON to the distiller as it came,
// cut to GitHubMaxText. The path and query were checked (ghCheckAPIPath, validateFilters): no
// segment leaves the repository and no value needs escaping; a redirect elsewhere is refused by
// the transport, as for every read.
func (s *ghSession) apiGet(ctx context.Context) ([]retriever.Document, error) {
	u := "repos/" + s.op.Owner + "/" + s.op.Repo + "/" + s.op.Path
	if len(s.op.Query) > 0 {
		u += "?" + strings.Join(s.op.Query, "&")
	}
	req, err := s.client.NewRequest(http.MethodGet, u, nil)
	if err != nil {
		return nil, err
	}
	var raw json.RawMessage
	resp, err := s.client.Do(ctx, req, &raw)
	if err != nil {
		return nil, err
	}
	d := s.newDoc(resp, "GET /"+u, "application/json")
	d.field("request", "GET /"+u)
	if resp.NextPage != 0 {
		d.d.Truncated = true
		d.field("pages", "more pages exist; this is the first (add --query page=N or per_page=100)")
	}
	return []retriever.Document{d.body("response (JSON, as GitHub sent it)", string(raw))}, nil
}

// prOfBranch finds the pull request whose head is the operation's branch in the repository
// itself (OWNER:BRANCH), newest first, open or not, as `gh pr view` with no number does, and
// reads it by number from then on. A pull request from a fork's branch is not found this way.
func (s *ghSession) prOfBranch(ctx context.Context) error {
	prs, _, err := s.client.PullRequests.List(ctx, s.op.Owner, s.op.Repo, &github.PullRequestListOptions{
		State: "all", Head: s.op.Owner + ":" + s.op.Branch, ListOptions: github.ListOptions{PerPage: 1}})
	if err != nil {
		return err
	}
	if len(prs) == 0 || prs[0].GetNumber() <= 0 {
		return fmt.Errorf("%w: no pull request has the head %s:%s (give its number)", ErrGitHubNotFound, s.op.Owner, ghLine(s.op.Branch))
	}
	op := *s.op
	op.Number, op.Branch = prs[0].GetNumber(), ""
	if err := op.Validate(); err != nil {
		return fmt.Errorf("%w: GitHub named pull request %d", ErrGitHubRefused, prs[0].GetNumber())
	}
	s.op = &op
	return nil
}
