// Package retriever is hookctl's quarantined retrieval: raw web and GitHub content never enters
// an agent that can read local files. The agent states what it needs; the front (package
// front, in the hookctl process that asked, which can read the user's files) checks the request
// for secrets (package scrub) and starts the worker (package worker, the hookctl-retrieve-worker
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
type GitHubOp struct {
	Op     string // one of ghOps: issue, pr, pr-list, runs, api-get, …
	Host   string // "" for github.com; an enterprise host must be on the config's allowlist
	Owner  string
	Repo   string
	Number int    // issue or pull request number; a workflow run's id (run, run-log-failed)
	Path   string // file; api-get: the path under /repos/OWNER/REPO/
	Ref    string // file: branch, tag or commit; "" for the default branch

	// Filters of the list operations, each only where ghOps allows it.
	State  string   // issue-list, pr-list
	Labels []string // issue-list, pr-list: all must match
	Author string   // issue-list, pr-list: a login, or @me (the token's user, resolved by the worker)
	Branch string   // pr-list: the head branch; runs: the branch run on
	Limit  int      // list operations: 1 to GitHubMaxLimit; 0 for the operation's default
	Query  []string // api-get: KEY=VALUE parameters, in order
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
	// Injection describes each suspected attempt in the content to instruct its reader. It is
	// reported, never followed.
	Injection []string
	Distiller string // the backend that answered
	// Weak is set by the extract backend, which uses no model: its answer is cleaned text, and
	// every result says so.
	Weak bool
}
