package front

import (
	"context"
	"errors"
	"fmt"
	"net/url"
	"path/filepath"
	"strings"
	"time"

	"github.com/hookctl/hookctl/audit"
	"github.com/hookctl/hookctl/config"
	"github.com/hookctl/hookctl/hook"
	"github.com/hookctl/hookctl/retriever"
	"github.com/hookctl/hookctl/scrub"
)

// New makes the front for this machine: binary is hookctl's own executable (symlinks
// resolved), home is $HOOKCTL_HOME, cfg the loaded configuration and environ the caller's
// environment.
func New(binary, home string, cfg *config.Config, environ []string) *Front {
	return &Front{
		Worker:      WorkerPath(binary),
		Config:      cfg.Retriever,
		Audit:       &audit.Audit{Dir: filepath.Join(home, "audit"), MaxBytes: cfg.Audit.MaxBytes},
		KeepRaw:     cfg.Audit.KeepRaw,
		DirectFetch: cfg.DirectFetch,
		Environ:     environ,
	}
}

// AnswerWebTool is the retrieval hook's answer to a WebFetch or WebSearch call: the retrieval's
// text as the refusal, so that the client shows the agent the distilled answer instead of
// fetching; or, with direct_fetch on, a pass, audited.
func (f *Front) AnswerWebTool(ctx context.Context, c *hook.ToolCall) hook.Decision {
	if f.DirectFetch {
		if err := f.auditDirect(c); err != nil {
			return hook.Decision{Verdict: hook.Deny, Reason: "hookctl could not audit this direct fetch: " + err.Error()}
		}
		return hook.Decision{Verdict: hook.Pass}
	}
	req := &retriever.Request{Need: c.Web.Need, Session: c.Session, AgentID: c.AgentID, AgentType: c.AgentType, Tool: c.Tool}
	if c.Web.URL != "" {
		req.Kind, req.URL = retriever.KindFetch, c.Web.URL
		// A repository's page or a directory of it reads as code, not as GitHub's HTML: a
		// snapshot of that ref, which the distiller can list, read and search.
		if op := repoURLSnapshot(c.Web.URL); op != nil {
			req.Kind, req.URL, req.GitHub = retriever.KindRepo, "", op
		}
	} else {
		req.Kind, req.Query = retriever.KindSearch, c.Web.Query
	}
	res := f.Retrieve(ctx, req)
	d := hook.Decision{Verdict: hook.Deny, Reason: res.Text}
	if res.Entry != nil {
		d.Audit = res.Entry.ID
	}
	return d
}

// auditDirect records a web call that direct_fetch lets the client make itself.
func (f *Front) auditDirect(c *hook.ToolCall) error {
	now := time.Now()
	e := &audit.AuditEntry{ID: audit.NewID(now), Time: now.UTC(), Session: c.Session, AgentID: c.AgentID,
		AgentType: c.AgentType, Tool: c.Tool, URL: c.Web.URL, Query: c.Web.Query, Scrub: "unchecked",
		Outcome: "direct", Direct: true, Error: "direct_fetch is on: the client fetched this itself, unmediated"}
	e.Kind = retriever.KindFetch
	if c.Web.Query != "" {
		e.Kind = retriever.KindSearch
	}
	// Unchecked, since nothing is withheld from the client; but the audit records no secret.
	redactEntry(e, scrub.NewScrubber(f.Environ))
	return f.Audit.Append(e)
}

// repoURLSnapshot is the snapshot a WebFetch of a github.com repository or /tree/ URL names, or
// nil for any other URL (a blob, an issue, any other host: those are fetched as pages).
func repoURLSnapshot(raw string) *retriever.GitHubOp {
	u, err := url.Parse(raw)
	if err != nil || !strings.EqualFold(u.Hostname(), "github.com") && !strings.EqualFold(u.Hostname(), "www.github.com") {
		return nil
	}
	if u.Scheme == "http" {
		raw = "https" + strings.TrimPrefix(raw, "http")
	}
	op, err := retriever.ParseGitHubURL("snapshot", raw)
	if err != nil || op.Validate() != nil {
		return nil
	}
	return op
}

// CLIOptions are the flags of `hookctl retrieve` besides the operation's own.
type CLIOptions struct {
	Need      string // what the caller needs from the content (required)
	Session   string // who asked, for the audit
	AgentType string
	Tool      string
	// Op is the operation's JSON form, as the hook's rewrite hands it on (fetch --op, github
	// --op, repo --op): decoded and checked, never parsed again from argv.
	Op string
	// GitHub are the github and repo flags (--ref, --host, --state, …) as the command line read
	// them: the operation is made of them and the operands, not of argv printed again.
	GitHub retriever.GitHubFlags
}

// ParseCLI reads `hookctl retrieve` arguments (fetch URL, search QUERY, github OP ARGS…) into a
// request.
func ParseCLI(args []string, opts *CLIOptions) (*retriever.Request, error) {
	if strings.TrimSpace(opts.Need) == "" {
		return nil, errors.New("say what you need with --need; the distiller answers only that")
	}
	if len(args) == 0 {
		return nil, errors.New("say what to retrieve: fetch URL, search QUERY, github OP ARGS or repo OWNER/REPO[@REF]")
	}
	req := &retriever.Request{Need: opts.Need, Session: opts.Session, AgentType: opts.AgentType, Tool: opts.Tool}
	if len(opts.GitHub) > 0 && (opts.Op != "" || args[0] != "github" && args[0] != "repo") {
		what := "github and repo"
		if opts.Op != "" {
			what = "github and repo without --op, which takes the whole operation"
		}
		for f := range opts.GitHub {
			return nil, fmt.Errorf("--%s goes with %s only", f, what)
		}
	}
	if opts.Op != "" && len(args) == 1 && args[0] == "fetch" {
		op, err := retriever.DecodeFetchOp(opts.Op)
		if err != nil {
			return nil, fmt.Errorf("--op: %w", err)
		}
		req.Kind, req.URL = retriever.KindFetch, op.URL
		return req, nil
	}
	if opts.Op != "" {
		if len(args) != 1 || args[0] != "github" && args[0] != "repo" {
			return nil, errors.New("--op goes with fetch, github or repo alone, and takes the whole operation")
		}
		op, err := retriever.DecodeGitHubOp(opts.Op)
		if err != nil {
			return nil, fmt.Errorf("--op: %w", err)
		}
		req.Kind, req.GitHub = retriever.KindGitHub, op
		if args[0] == "repo" || op.Op == "snapshot" {
			if args[0] != "repo" || op.Op != "snapshot" {
				return nil, errors.New("--op: a snapshot is read with repo, and repo reads only a snapshot")
			}
			req.Kind = retriever.KindRepo
		}
		return req, nil
	}
	switch args[0] {
	case "fetch":
		if len(args) != 2 {
			return nil, errors.New("fetch takes one URL")
		}
		req.Kind, req.URL = retriever.KindFetch, args[1]
	case "search":
		if len(args) != 2 {
			return nil, errors.New("search takes one quoted query")
		}
		req.Kind, req.Query = retriever.KindSearch, args[1]
	case "github":
		op, err := githubOp(args[1:], opts.GitHub)
		if err != nil {
			return nil, err
		}
		if op.Op == "snapshot" {
			return nil, errors.New("a snapshot is read with hookctl retrieve repo OWNER/REPO[@REF]")
		}
		req.Kind, req.GitHub = retriever.KindGitHub, op
	case "repo":
		op, err := githubOp(append([]string{"snapshot"}, args[1:]...), opts.GitHub)
		if err != nil {
			return nil, errors.New(strings.Replace(err.Error(), "github arguments", "repo arguments", 1))
		}
		req.Kind, req.GitHub = retriever.KindRepo, op
	default:
		return nil, fmt.Errorf("unknown retrieval %q: use fetch, search, github or repo", args[0])
	}
	return req, nil
}

// githubOp makes a GitHub operation of its name and operands (args) and the flags the command
// line read.
func githubOp(args []string, flags retriever.GitHubFlags) (*retriever.GitHubOp, error) {
	if len(args) == 0 {
		return retriever.ParseGitHubArgs(args) // the error that lists the operations
	}
	return retriever.GitHubOpOf(args[0], args[1:], flags)
}
