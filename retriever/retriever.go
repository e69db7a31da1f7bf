// Package retriever is hookctl's quarantined retrieval. Raw web and GitHub content never enters an
// agent that can read local files: the agent states what it needs, and a separate process — with
// network access and no access to the user's files — fetches the content, has a distiller model
// read it as untrusted data, and returns only the distilled answer. This is the dual-LLM or
// privilege-separation pattern (Willison 2023; CaMeL, arXiv:2503.18813): no single process holds
// local file access, raw untrusted content and network egress at once.
//
// The pieces: Fetcher (GET only, http and https only, no private or loopback addresses, checked on
// the resolved IP at every connection and redirect, capped and timed), HTML to text, the outbound
// scrubber (no secret leaves in a URL, query, header or need), Searchers and Distillers behind
// small interfaces, typed GitHub reads, isolation of the process (Landlock on Linux), and an
// append-only audit of every retrieval.
//
// Out of scope: the integrity of the distilled answer (a distiller can be fooled into a wrong
// summary; it cannot be made to act), and what the user's distiller provider does with the
// content it is sent (docs/residual-risks.md).
package retriever

import "context"

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

// GitHubOp is one typed, read-only GitHub operation (see github.go).
type GitHubOp struct {
	Op     string // issue, issue-comments, pr, pr-diff, pr-files, pr-comments, file, repo, releases
	Host   string // "" for github.com; an enterprise host must be on the config's allowlist
	Owner  string
	Repo   string
	Number int    // issue or pull request number
	Path   string // file
	Ref    string // file: branch, tag or commit; "" for the default branch
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

// Distiller answers a need from documents, treating them as adversarial data.
type Distiller interface {
	Name() string
	Distill(ctx context.Context, need string, docs []Document) (*Answer, error)
}

// Searcher finds documents for a query. Each result is a Document whose Text holds the title,
// URL and snippet the provider returned.
type Searcher interface {
	Name() string
	Search(ctx context.Context, query string) ([]Document, error)
}

// SearchDistiller searches and distills in one call, as the Anthropic Messages API does with
// its server-side web search tool. docs lists the sources it reports.
type SearchDistiller interface {
	Name() string
	SearchAndDistill(ctx context.Context, query, need string) (ans *Answer, docs []Document, err error)
}

// LoopbackForTestsEnv, set to 1 in the retriever's own environment, lets it reach loopback and
// private addresses, so that end-to-end tests can serve fixture pages on 127.0.0.1. No config
// file can turn it on.
const LoopbackForTestsEnv = "HOOKCTL_ALLOW_LOOPBACK_FOR_TESTS"
