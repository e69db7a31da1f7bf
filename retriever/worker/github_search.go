package worker

// The GitHub reads issue 29 added: issue and pull request search in GitHub's query syntax (gh's
// --search, gh api search/issues), every ref of a repository (git ls-remote), and api-get's
// media type and pagination (gh api -H 'Accept: …', --paginate). Each is a GET through the
// session's pinned transport, capped like the others.

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strconv"
	"strings"

	"github.com/google/go-github/v62/github"

	"github.com/hookctl/hookctl/retriever"
)

const (
	// GitHubMaxRefs caps the refs a refs read lists (ten pages of a hundred).
	GitHubMaxRefs = 1000
	// ghMaxPagesBytes caps the bytes of all pages of one paginated api-get together.
	ghMaxPagesBytes = 16 << 20
)

// searchQuery builds the query of a list read that has --search, as gh builds it from its flags:
// the repository, the kind, the state, each label, the author and the head branch, then the
// caller's own text.
func (s *ghSession) searchQuery(author string) string {
	kind := "is:issue"
	if s.op.Op == "pr-list" {
		kind = "is:pr"
	}
	parts := []string{"repo:" + s.op.Owner + "/" + s.op.Repo, kind}
	switch state := s.op.State; state {
	case "", "open":
		parts = append(parts, "is:open")
	case "closed", "merged":
		parts = append(parts, "is:"+state)
	}
	for _, l := range s.op.Labels {
		parts = append(parts, `label:"`+l+`"`)
	}
	if author != "" {
		parts = append(parts, "author:"+author)
	}
	if s.op.Branch != "" {
		parts = append(parts, "head:"+s.op.Branch)
	}
	return strings.Join(append(parts, s.op.Search), " ")
}

// search answers issue-list and pr-list with --search, and search-issues, from the search API.
// The query is one URL parameter, encoded by go-github; what it finds is what the token may read.
func (s *ghSession) search(ctx context.Context) ([]retriever.Document, error) {
	q := s.op.Search
	if s.op.Op != "search-issues" {
		author, err := s.author(ctx)
		if err != nil {
			return nil, err
		}
		q = s.searchQuery(author)
	}
	max := s.limit(GitHubDefaultList)
	if s.op.Pages > 1 && s.op.Limit == 0 {
		max = min(s.op.Pages*100, retriever.GitHubMaxLimit*retriever.GitHubMaxPages)
	}
	total := 0
	incomplete := false
	items, more, resp, err := ghCollect(max, func(lo github.ListOptions) ([]*github.Issue, *github.Response, error) {
		res, resp, err := s.client.Search.Issues(ctx, q, &github.SearchOptions{ListOptions: lo})
		if err != nil {
			return nil, resp, err
		}
		total, incomplete = res.GetTotal(), incomplete || res.GetIncompleteResults()
		return res.Issues, resp, nil
	})
	if err != nil {
		return nil, err
	}
	sum := s.summary(resp, "issues and pull requests", len(items), max, more)
	sum = ghInsertLine(sum, "query", q)
	sum = ghInsertLine(sum, "total matches", strconv.Itoa(total))
	if incomplete {
		sum = ghInsertLine(sum, "incomplete", "yes: GitHub's search timed out and some matches may be missing")
	}
	docs := []retriever.Document{sum}
	for i, is := range items {
		kind := "issue"
		if is.IsPullRequest() {
			kind = "pull request"
		}
		st := is.GetState()
		if is.GetPullRequestLinks().MergedAt != nil {
			st = "merged"
		}
		d := s.listItem(resp, i, len(items), kind, is.GetNumber(), is.GetTitle(), st, is.GetUser(), is.Labels,
			is.CreatedAt, is.UpdatedAt, is.GetHTMLURL(), is.GetBody())
		docs = append(docs, ghInsertField(d, "repository", ghRepoOfURL(is.GetRepositoryURL())))
	}
	return docs, nil
}

// ghInsertLine adds a single-line field to a document that has no multi-line field.
func ghInsertLine(d retriever.Document, name, value string) retriever.Document {
	if value != "" {
		d.Text += name + ": " + ghLine(value) + "\n"
	}
	return d
}

// ghRepoOfURL is OWNER/REPO of an API repository URL (…/repos/OWNER/REPO).
func ghRepoOfURL(u string) string {
	_, rest, ok := strings.Cut(u, "/repos/")
	if !ok {
		return ""
	}
	return rest
}

// refs lists every ref, as git ls-remote does: HEAD (the default branch), branches, tags, and
// the refs GitHub keeps for pull requests, with their commits, at most GitHubMaxRefs.
func (s *ghSession) refs(ctx context.Context) ([]retriever.Document, error) {
	r, resp, err := s.client.Repositories.Get(ctx, s.op.Owner, s.op.Repo)
	if err != nil {
		return nil, err
	}
	refs, more, _, err := ghCollect(GitHubMaxRefs, func(lo github.ListOptions) ([]*github.Reference, *github.Response, error) {
		return s.client.Git.ListMatchingRefs(ctx, s.op.Owner, s.op.Repo, &github.ReferenceListOptions{ListOptions: lo})
	})
	if err != nil {
		return nil, err
	}
	var b strings.Builder
	head := ""
	for _, ref := range refs {
		if ref.GetRef() == "refs/heads/"+r.GetDefaultBranch() {
			head = ref.GetObject().GetSHA()
		}
	}
	if head != "" {
		fmt.Fprintf(&b, "%s\tHEAD\n", ghLine(head))
	}
	for _, ref := range refs {
		fmt.Fprintf(&b, "%s\t%s\n", ghLine(ref.GetObject().GetSHA()), ghLine(ref.GetRef()))
	}
	d := s.newDoc(resp, "refs of "+ghRepoName(s.op), "text/plain")
	d.field("default branch", r.GetDefaultBranch())
	d.field("items", fmt.Sprintf("%d refs", len(refs)))
	if more {
		d.d.Truncated = true
		d.field("truncated", fmt.Sprintf("yes: only the first %d refs are listed", GitHubMaxRefs))
	}
	return []retriever.Document{d.body("listing (commit, ref; one per line, as git ls-remote prints them)", b.String())}, nil
}

// apiGetPages GETs /repos/OWNER/REPO/PATH?QUERY with the media type asked for, and with --pages
// every page GitHub announces up to that many, one document per page.
func (s *ghSession) apiGetPages(ctx context.Context) ([]retriever.Document, error) {
	base := "repos/" + s.op.Owner + "/" + s.op.Repo + "/" + s.op.Path
	query := strings.Join(s.op.Query, "&")
	pages := max(s.op.Pages, 1)
	var docs []retriever.Document
	total := 0
	for page := 1; page <= pages; page++ {
		u := base
		q := query
		if page > 1 {
			q = strings.TrimPrefix(ghWithoutKey(q, "page")+"&page="+strconv.Itoa(page), "&")
		}
		if q != "" {
			u += "?" + q
		}
		req, err := s.client.NewRequest(http.MethodGet, u, nil)
		if err != nil {
			return nil, err
		}
		if s.op.Accept != "" {
			req.Header.Set("Accept", s.op.Accept)
		}
		resp, err := s.client.BareDo(ctx, req)
		if err != nil {
			return nil, err
		}
		body, err := io.ReadAll(resp.Body) // the transport caps it at ghMaxResponse
		resp.Body.Close()
		if err != nil {
			return nil, err
		}
		total += len(body)
		if total > ghMaxPagesBytes {
			return nil, fmt.Errorf("%w: the pages come to more than %d bytes", ErrGitHubRefused, ghMaxPagesBytes)
		}
		text := string(body)
		kind, name := "application/json", "response (JSON, as GitHub sent it)"
		if !ghJSONMedia(s.op.Accept) {
			if ghLooksBinary(text) {
				return nil, fmt.Errorf("%w: the response is binary", ErrGitHubRefused)
			}
			kind, name = "text/plain", "response (as GitHub sent it, "+s.op.Accept+")"
		} else if !json.Valid(body) {
			return nil, fmt.Errorf("%w: the response is not the JSON asked for", ErrGitHubRefused)
		}
		d := s.newDoc(resp, "GET /"+u, kind)
		d.field("request", "GET /"+u)
		if s.op.Accept != "" {
			d.field("accept", s.op.Accept)
		}
		if pages > 1 || resp.NextPage != 0 {
			d.field("page", strconv.Itoa(page))
		}
		last := resp.NextPage == 0 || resp.NextPage <= page
		if last || page == pages {
			if !last {
				d.d.Truncated = true
				d.field("pages", fmt.Sprintf("more pages exist; %d read (the cap is --pages %d)", page, pages))
			}
			docs = append(docs, d.body(name, text))
			break
		}
		docs = append(docs, d.body(name, text))
	}
	return docs, nil
}

// ghWithoutKey drops KEY=… pairs from a query of checked KEY=VALUE pairs.
func ghWithoutKey(q, key string) string {
	var keep []string
	for _, kv := range strings.Split(q, "&") {
		if k, _, _ := strings.Cut(kv, "="); kv != "" && k != key {
			keep = append(keep, kv)
		}
	}
	return strings.Join(keep, "&")
}

// ghJSONMedia says GitHub answers the media type with JSON.
func ghJSONMedia(accept string) bool {
	a := strings.ToLower(accept)
	return a == "" || a == "*/*" || strings.HasSuffix(a, "json")
}
