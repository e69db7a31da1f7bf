package main

import (
	"context"
	"errors"
	"fmt"
	"os"

	"github.com/spf13/cobra"

	"github.com/hookctl/hookctl/config"
	"github.com/hookctl/hookctl/gate"
	"github.com/hookctl/hookctl/hook"
	"github.com/hookctl/hookctl/retriever"
	"github.com/hookctl/hookctl/retriever/front"
	"github.com/hookctl/hookctl/sandbox"
)

func newRetrieveCmd(s *streams) *cobra.Command {
	return retrieveCmd(func(req *retriever.Request) error { return retrieveRun(s, req) })
}

// retrieveCmd is `hookctl retrieve`, which hands the request it read to run.
func retrieveCmd(run func(*retriever.Request) error) *cobra.Command {
	opts := &front.CLIOptions{}
	cmd := &cobra.Command{
		Use:   "retrieve fetch URL | search QUERY | github OP ARGS… | repo OWNER/REPO[@REF] --need TEXT",
		Short: "Fetch, search, read GitHub or a repository through the quarantined retriever",
		Long: `retrieve gets web or GitHub content for an agent without letting the raw content reach it.
A separate process, with network access and no access to your files, fetches the content and
has a distiller model read it as untrusted data; retrieve prints only the distilled answer to
the need you state, with a header saying where it came from and whether the content tried to
give instructions. The distiller may research the need within a budget ([retriever.research]):
search, read more pages, GitHub and a snapshot of a repository, and cites what it read. Every
retrieval is recorded, with each page it read: hookctl audit lists them.

The need crosses a trust boundary to the distiller's provider: describe exactly what you need,
and put nothing in it you would not send to a third party. Requests holding secrets are
refused.

  fetch URL                         a web page (http or https)
  search QUERY                      a web search (provider from the config)
  github issue OWNER/REPO N         also issue-comments, pr, pr-diff, pr-files, pr-comments
  github file OWNER/REPO PATH [--ref REF]
  github repo OWNER/REPO            also releases, branches, tags [--limit N]
  github issue-list OWNER/REPO      [--state S] [--label L]… [--author LOGIN|@me] [--limit N]
  github pr-list OWNER/REPO         the same, and --branch HEAD; --state merged
  github pr-checks OWNER/REPO N     the checks and statuses of a pull request's head
  github runs OWNER/REPO            workflow runs [--branch B] [--limit N]
  github run OWNER/REPO RUN-ID      also run-log-failed: the end of each failed job's log
  github api-get OWNER/REPO PATH    GET /repos/OWNER/REPO/PATH [--query KEY=VALUE]… [--accept TYPE] [--pages N]
  github issue-list|pr-list OWNER/REPO --search 'QUERY'   GitHub's search syntax, as gh --search
  github search-issues --search 'repo:OWNER/REPO QUERY'   GET /search/issues
  github refs OWNER/REPO            every branch and tag, as git ls-remote
  github … URL                      a github.com URL instead of OWNER/REPO N
  repo OWNER/REPO[@REF]             a snapshot of one ref (or a repository or /tree/ URL), read in memory`,
		Example: `  hookctl retrieve fetch https://go.dev/doc/go1.22 --need "What changed in for loops?"
  hookctl retrieve search "mvdan sh LangZsh" --need "Is zsh parsing supported, and since when?"
  hookctl retrieve github pr-diff cli/cli 123 --need "Which files does it touch and why?"
  hookctl retrieve repo mvdan/sh@v3.10.0 --need "How does the parser tell bash from zsh?"`,
		Args: cobra.MinimumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			// The github and repo flags as cobra read them: the operation is made of these and
			// the operands, and no argument is parsed again. An empty --ref or --host means none.
			opts.GitHub = retriever.GitHubFlags{}
			for _, f := range []string{"ref", "host", "state", "author", "branch", "limit", "search", "accept", "pages"} {
				if v, _ := cmd.Flags().GetString(f); cmd.Flags().Changed(f) && (v != "" || f != "ref" && f != "host") {
					opts.GitHub[f] = []string{v}
				}
			}
			for _, f := range []string{"label", "query"} {
				if cmd.Flags().Changed(f) {
					opts.GitHub[f], _ = cmd.Flags().GetStringArray(f)
				}
			}
			if sandbox.InsideEditSandbox() {
				// Its audit lives in hookctl's directory, which the sandbox hides; one written
				// anywhere else (HOOKCTL_HOME=/tmp/h) would be a retrieval the user never sees.
				return errors.New("hookctl retrieve does not run inside edit mode's sandbox, where it could not be audited; " +
					"run it as a command of its own (hookctl retrieve fetch URL --need '…'), or use WebFetch")
			}
			req, err := front.ParseCLI(args, opts)
			if err != nil {
				return err
			}
			return run(req)
		},
	}
	cmd.Flags().StringVar(&opts.Need, "need", "", "what you need from the content (required)")
	cmd.Flags().StringVar(&opts.Session, "session", "", "the session asking, for the audit")
	cmd.Flags().StringVar(&opts.AgentType, "agent-type", "", "the agent type asking, for the audit")
	cmd.Flags().StringVar(&opts.Tool, "tool", "cli", "the tool asking, for the audit")
	cmd.Flags().String("ref", "", "github file: the branch, tag or commit")
	cmd.Flags().String("host", "", "github: an enterprise host from the config's allowlist")
	cmd.Flags().String("state", "", "github issue-list, pr-list: open, closed, merged (pr-list) or all")
	cmd.Flags().String("author", "", "github issue-list, pr-list: a login, or @me")
	cmd.Flags().String("branch", "", "github pr, pr-diff, pr-files, pr-comments, pr-checks: the pull request of this head branch; pr-list: the head branch; runs: the branch run on")
	cmd.Flags().String("limit", "", "github list operations: 1 to 100 items")
	cmd.Flags().StringArray("label", nil, "github issue-list, pr-list: a label (repeatable; all must match)")
	cmd.Flags().StringArray("query", nil, "github api-get: a KEY=VALUE query parameter (repeatable)")
	cmd.Flags().String("search", "", "github issue-list, pr-list, search-issues: a query in GitHub's search syntax")
	cmd.Flags().String("accept", "", "github api-get: one of GitHub's media types")
	cmd.Flags().String("pages", "", "github api-get, search-issues: read up to N pages (1 to 10)")
	cmd.Flags().StringVar(&opts.Op, "op", "", "fetch, github, repo: the whole operation as JSON (what hookctl's rewrite of a curl, wget or gh read passes)")
	for _, f := range []string{"session", "agent-type", "tool"} {
		cmd.Flags().MarkHidden(f)
	}
	return cmd
}

func retrieveRun(s *streams, req *retriever.Request) error {
	env := hookEnv()
	if env.err != nil {
		return env.err
	}
	cfg, err := gate.LoadConfig(env.home)
	if err != nil {
		return err
	}
	res := front.New(env.binary, env.home, cfg, os.Environ()).Retrieve(context.Background(), req)
	fmt.Fprintln(s.out, res.Text)
	if !res.OK {
		return exitCode(exitDenied)
	}
	return nil
}

// hookRetrieve is the retrieval hook's answer to a web tool call.
func hookRetrieve(env environment) func(ctx context.Context, cfg *config.Config, c *hook.ToolCall) hook.Decision {
	return func(ctx context.Context, cfg *config.Config, c *hook.ToolCall) hook.Decision {
		return front.New(env.binary, env.home, cfg, os.Environ()).AnswerWebTool(ctx, c)
	}
}
