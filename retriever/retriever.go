// Package retriever is hookctl's quarantined retrieval: raw web and GitHub content never enters
// an agent that can read local files. The agent states what it needs; the front (package
// front, in the hookctl process that asked, which can read the user's files) checks the request
// for secrets (package scrub) and starts the worker (package worker, the hookctl-network
// executable: network access, no access to the user's files), which fetches the content, has a
// distiller model read it as untrusted data and returns only the distilled answer; the front
// audits every retrieval. This is the dual-LLM or privilege-separation pattern (Willison 2023;
// CaMeL, arXiv:2503.18813): no single process holds local file access, raw untrusted content and
// network egress at once.
//
// This package is the vocabulary both processes share: the request, the documents and the
// answer, what passes between the front and the worker, GitHub operations and how they are
// parsed, media types, and which distiller and search provider a config chooses. It links no
// network code; the [retriever] config itself is in package settings.
package retriever

// Kind is what a retrieval does.
type Kind string

const (
	KindFetch  Kind = "fetch"
	KindSearch Kind = "search"
	KindGitHub Kind = "github"
	// KindRepo reads a snapshot of one ref of a GitHub repository (GitHub.Op is "snapshot").
	KindRepo Kind = "repo"
)

// Request is one retrieval.
type Request struct {
	Kind   Kind
	URL    string    // KindFetch
	Query  string    // KindSearch
	GitHub *GitHubOp // KindGitHub
	// Need is what the caller wants from the content, in its own words. It crosses the trust
	// boundary to the distiller's provider, so it is scrubbed like the URL.
	Need string

	// Who asked, for the audit.
	Session, AgentID, AgentType, Tool string
}

// GitHubOp is one typed, read-only GitHub operation (githubop.go parses and checks it; the
// worker reads it).
//
// It crosses two process boundaries as JSON (the hook's rewrite hands it to `hookctl retrieve
// github --op`, the front to the worker), and is checked by Validate on each side.
type GitHubOp struct {
	Op     string `json:"op"`             // one of ghOps: issue, pr, pr-list, runs, api-get, snapshot, …
	Host   string `json:"host,omitempty"` // "" for github.com; an enterprise host must be on the config's allowlist
	Owner  string `json:"owner,omitempty"`
	Repo   string `json:"repo,omitempty"`
	Number int    `json:"number,omitempty"` // issue or pull request number; a workflow run's id (run, run-log-failed)
	Path   string `json:"path,omitempty"`   // file; api-get: the path under /repos/OWNER/REPO/; snapshot: a directory to start from
	Ref    string `json:"ref,omitempty"`    // file, snapshot: branch, tag or commit; "" for the default branch

	// Filters of the list operations, each only where ghOps allows it.
	State  string   `json:"state,omitempty"`  // issue-list, pr-list
	Labels []string `json:"labels,omitempty"` // issue-list, pr-list: all must match
	Author string   `json:"author,omitempty"` // issue-list, pr-list: a login, or @me (the token's user, resolved by the worker)
	Branch string   `json:"branch,omitempty"` // pr-list: the head branch; runs: the branch run on
	Limit  int      `json:"limit,omitempty"`  // list operations: 1 to GitHubMaxLimit; 0 for the operation's default
	Query  []string `json:"query,omitempty"`  // api-get: KEY=VALUE parameters, in order
	// Search is GitHub's issue search syntax: issue-list and pr-list answer from the search API
	// with it (as gh's --search does); search-issues sends it as the whole query.
	Search string `json:"search,omitempty"`
	// Accept is the media type api-get asks for (gh api -H 'Accept: …'): GitHub's own only.
	Accept string `json:"accept,omitempty"`
	// Pages is how many pages api-get and search-issues read (gh api --paginate): 1 to
	// GitHubMaxPages; 0 reads the first.
	Pages int `json:"pages,omitempty"`
}

// Document is content retrieved from outside, before distillation. It is untrusted data.
type Document struct {
	Source      string // what was asked for: the URL, the query, the GitHub operation
	URL         string // the final URL, after redirects
	Host        string // the host connected to
	IP          string // the address connected to
	Status      int
	ContentType string
	Bytes       int64 // bytes received
	Truncated   bool  // the body was longer than the cap
	Title       string
	Text        string // readable text (HTML converted), the distiller's input
}

// Answer is a distiller's answer to a need.
type Answer struct {
	Text string
	// Citations are the sources the answer names, each checked to be one the retrieval read:
	// a URL, or a file and line range of a repository snapshot.
	Citations []Citation `json:",omitempty"`
	// Injection describes each suspected attempt in the content to instruct its reader. It is
	// reported, never followed.
	Injection []string
	Distiller string // the backend that answered
	// Weak is set by the extract backend, which uses no model: its answer is cleaned text, and
	// every result says so.
	Weak bool
}

// Citation is one source an answer names, as the worker checked it.
type Citation struct {
	// Where is the URL read, or OWNER/REPO@REF:PATH for a snapshot's file.
	Where string `json:"where"`
	// Lines is the line range of a snapshot's file, "12-40" (or "12").
	Lines string `json:"lines,omitempty"`
	// Step is the research step that read it (0: the caller's own request).
	Step int `json:"step"`
}

// String renders a citation for the caller: the URL, or repo@ref:path:12-40.
func (c Citation) String() string {
	if c.Lines != "" {
		return c.Where + ":" + c.Lines
	}
	return c.Where
}

// Step is one tool call of a research retrieval, for the audit: what the distiller model asked
// for (the caller's own request is step 0), and what came of it. Target is the URL, query,
// GitHub operation or snapshot path; Outcome is "read", "refused", "failed" or "budget".
type Step struct {
	N       int    `json:"n"`
	Tool    string `json:"tool"`
	Target  string `json:"target,omitempty"`
	Outcome string `json:"outcome"`
	Bytes   int64  `json:"bytes,omitempty"`
	Why     string `json:"why,omitempty"`
}

// Usage is what a retrieval spent of its research budget.
type Usage struct {
	Turns   int   `json:"turns"` // model calls
	Calls   int   `json:"calls"` // tool calls the model made
	Pages   int   `json:"pages"` // documents read from the network, the caller's request included
	Bytes   int64 `json:"bytes"` // bytes received from the network
	Elapsed int64 `json:"elapsed_ms"`
	// Exhausted names the budget that ended the research, if one did.
	Exhausted string `json:"exhausted,omitempty"`
}
