// Package worker is the untrusted side of hookctl's quarantined retrieval: it runs in the
// isolated worker process, hookctl-network, which the front starts for each retrieval.
// The worker restricts itself (Landlock on Linux: no access to the user's files) before any
// network I/O, then fetches the page, runs the search or reads GitHub, converts HTML to text,
// runs the injection heuristics on the raw content, and has a distiller model answer the need
// from it as untrusted data. It writes the result to its standard output for the front and
// returns raw content only when the user asked the audit to keep it.
//
// The pieces: Fetcher (GET only, http and https only, no private or loopback addresses, checked
// on the resolved IP at every connection and redirect, capped and timed), HTML to text, typed
// GitHub reads, Searchers and Distillers behind small interfaces, the injection heuristics, and
// the isolation of the process.
//
// Out of scope: the integrity of the distilled answer (a distiller can be fooled into a wrong
// summary; it cannot be made to act), and what the user's distiller provider does with the
// content it is sent (docs/residual-risks.md).
package worker

import (
	"context"
	"fmt"
	"os/exec"

	"github.com/hookctl/hookctl/retriever"
	"github.com/hookctl/hookctl/retriever/settings"
)

// Distiller answers a need from documents, treating them as adversarial data.
type Distiller interface {
	Name() string
	Distill(ctx context.Context, need string, docs []retriever.Document) (*retriever.Answer, error)
}

// Searcher finds documents for a query. Each result is a Document whose Text holds the title,
// URL and snippet the provider returned.
type Searcher interface {
	Name() string
	Search(ctx context.Context, query string) ([]retriever.Document, error)
}

// SearchDistiller searches and distills in one call, as the Anthropic Messages API does with
// its server-side web search tool. docs lists the sources it reports.
type SearchDistiller interface {
	Name() string
	SearchAndDistill(ctx context.Context, query, need string) (ans *retriever.Answer, docs []retriever.Document, err error)
}

// NewDistiller builds the distiller retriever.ChooseDistiller chooses for cfg (see there).
// environ is the environment the keys are read from and programs are run with; lookPath finds
// programs (nil means exec.LookPath).
func NewDistiller(cfg settings.Config, environ []string, lookPath func(string) (string, error)) (Distiller, error) {
	if lookPath == nil {
		lookPath = exec.LookPath
	}
	c, err := retriever.ChooseDistiller(&cfg, environ, lookPath)
	if err != nil {
		return nil, err
	}
	var d Distiller
	switch c.Backend {
	case settings.BackendAnthropic:
		d, err = newAnthropic(c, environ)
	case settings.BackendOpenAI:
		d, err = newOpenAI(c, environ)
	case settings.BackendClaudeCLI:
		d = newClaudeCLI(c, environ)
	case settings.BackendCommand:
		d = newCommand(c, environ)
	case settings.BackendExtract:
		d = extractDistiller{}
	default:
		err = fmt.Errorf("unknown distiller %q", c.Backend)
	}
	if err != nil {
		return nil, fmt.Errorf("failed to set up the %s distiller: %w", c.Backend, err)
	}
	return d, nil
}

// NewSearch builds the search provider retriever.ChooseSearch chooses for cfg: exactly one of
// the results is non-nil.
func NewSearch(cfg settings.Config, environ []string) (Searcher, SearchDistiller, error) {
	c, err := retriever.ChooseSearch(&cfg, environ)
	if err != nil {
		return nil, nil, err
	}
	switch c.Provider {
	case settings.SearchAnthropic:
		a, err := newAnthropic(c.Anthropic, environ)
		if err != nil {
			return nil, nil, fmt.Errorf("failed to set up search: %w", err)
		}
		return nil, a, nil
	case settings.SearchSearXNG:
		return newSearXNG(c.Endpoint), nil, nil
	case settings.SearchBrave:
		key := retriever.EnvValue(environ, c.KeyEnv)
		if key == "" {
			return nil, nil, fmt.Errorf("failed to set up search: $%s is not set", c.KeyEnv)
		}
		return newBrave(key), nil, nil
	}
	return nil, nil, fmt.Errorf("failed to set up search: unknown search provider %q", c.Provider)
}
