package worker

import (
	"context"
	"encoding/json"
	"fmt"
	"html"
	"net/http"
	"net/url"
	"regexp"
	"strings"
	"sync"
	"time"

	"github.com/hookctl/hookctl/retriever"
	"github.com/hookctl/hookctl/retriever/settings"
)

// Searchers for SearXNG and Brave. They talk to endpoints the user configured (a SearXNG
// instance is often on 127.0.0.1; Brave's API is a fixed public host), so they use a plain HTTP
// client with timeouts rather than the SSRF-guarded fetcher, which exists to stop content from
// steering the retriever to private addresses. The query they send has already been scrubbed of
// secrets by the caller. Results are untrusted Documents (title, URL, snippet) for a distiller.

const (
	// maxSearchResults caps the results taken from one search.
	maxSearchResults = 10
	// maxSearchResponse caps a search API response body.
	maxSearchResponse = 2 << 20
	// maxSnippetBytes caps a result's title and snippet.
	maxSnippetBytes = 2 << 10
	// searchTimeout bounds one search request.
	searchTimeout = 30 * time.Second

	braveEndpoint = "https://api.search.brave.com/res/v1/web/search"
)

type searxngSearcher struct {
	endpoint string // .../search
	client   *http.Client
	timeout  time.Duration
}

// newSearXNG is a searcher for the instance at base (retriever.ChooseSearch checked it).
func newSearXNG(base string) *searxngSearcher {
	return &searxngSearcher{endpoint: base + "/search", client: newAPIClient(), timeout: searchTimeout}
}

func (s *searxngSearcher) Name() string { return settings.SearchSearXNG }

func (s *searxngSearcher) Search(ctx context.Context, query string) ([]retriever.Document, error) {
	q := url.Values{"q": {query}, "format": {"json"}}
	body, err := getJSON(ctx, s.client, s.endpoint+"?"+q.Encode(), nil, s.timeout, nil)
	if err != nil {
		if strings.Contains(err.Error(), "HTTP 403") {
			err = fmt.Errorf("%w (is the json format enabled? add json to search.formats in the instance's settings.yml)", err)
		}
		return nil, fmt.Errorf("failed to search with searxng: %w", err)
	}
	var resp struct {
		Results []struct {
			Title   string `json:"title"`
			URL     string `json:"url"`
			Content string `json:"content"`
		} `json:"results"`
	}
	if err := json.Unmarshal(body, &resp); err != nil {
		return nil, fmt.Errorf("failed to search with searxng: failed to decode the response: %w", err)
	}
	var docs []retriever.Document
	for _, r := range resp.Results {
		if len(docs) == maxSearchResults {
			break
		}
		if d, ok := searchResultDoc(query, r.Title, r.URL, r.Content); ok {
			docs = append(docs, d)
		}
	}
	return docs, nil
}

type braveSearcher struct {
	endpoint string
	key      *secret
	client   *http.Client
	timeout  time.Duration
}

func newBrave(key string) *braveSearcher {
	return &braveSearcher{endpoint: braveEndpoint, key: newSecret(key), client: newAPIClient(), timeout: searchTimeout}
}

func (b *braveSearcher) Name() string { return settings.SearchBrave }

func (b *braveSearcher) Search(ctx context.Context, query string) ([]retriever.Document, error) {
	q := url.Values{"q": {query}, "count": {fmt.Sprint(maxSearchResults)}}
	headers := map[string]string{"X-Subscription-Token": b.key.value()}
	body, err := getJSON(ctx, b.client, b.endpoint+"?"+q.Encode(), headers, b.timeout, b.key)
	if err != nil {
		return nil, fmt.Errorf("failed to search with brave: %w", err)
	}
	var resp struct {
		Web struct {
			Results []struct {
				Title       string `json:"title"`
				URL         string `json:"url"`
				Description string `json:"description"`
			} `json:"results"`
		} `json:"web"`
	}
	if err := json.Unmarshal(body, &resp); err != nil {
		return nil, fmt.Errorf("failed to search with brave: failed to decode the response: %w", err)
	}
	var docs []retriever.Document
	for _, r := range resp.Web.Results {
		if len(docs) == maxSearchResults {
			break
		}
		if d, ok := searchResultDoc(query, r.Title, r.URL, r.Description); ok {
			docs = append(docs, d)
		}
	}
	return docs, nil
}

// searchResultDoc makes a Document of one result: Text is "title\nurl\nsnippet". A result
// without an http(s) URL is dropped.
func searchResultDoc(query, title, rawURL, snippet string) (retriever.Document, bool) {
	u, err := url.Parse(rawURL)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return retriever.Document{}, false
	}
	title = oneLine(plainSnippet(title), maxSnippetBytes)
	snippet = oneLine(plainSnippet(snippet), maxSnippetBytes)
	link := oneLine(rawURL, maxMetaBytes)
	return retriever.Document{
		Source: query,
		URL:    link,
		Host:   u.Hostname(),
		Title:  title,
		Text:   title + "\n" + link + "\n" + snippet,
	}, true
}

var snippetTag = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`</?[a-zA-Z][a-zA-Z0-9]*[^<>]{0,200}>`) })

// plainSnippet removes the highlighting tags (<strong>) and entities search APIs put in titles
// and snippets.
func plainSnippet(s string) string {
	return html.UnescapeString(snippetTag().ReplaceAllString(s, ""))
}

// getJSON GETs endpoint with headers and returns the body of a 2xx response, capped at
// maxSearchResponse, within timeout.
func getJSON(ctx context.Context, c *http.Client, endpoint string, headers map[string]string, timeout time.Duration, key *secret) ([]byte, error) {
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, endpoint, nil)
	if err != nil {
		return nil, fmt.Errorf("failed to build the request: %w", err)
	}
	req.Header.Set("Accept", "application/json")
	for k, v := range headers {
		req.Header.Set(k, v)
	}
	resp, err := c.Do(req)
	if err != nil {
		if ctx.Err() != nil {
			return nil, fmt.Errorf("no answer from %s within %v", redactedHost(endpoint), timeout)
		}
		return nil, fmt.Errorf("%s", key.redact(err.Error()))
	}
	defer resp.Body.Close()
	body, err := readAPIResponseCapped(resp, key, maxSearchResponse)
	if err != nil {
		return nil, err
	}
	return body, nil
}
