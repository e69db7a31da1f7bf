package worker

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/hookctl/hookctl/retriever/settings"
)

func TestSearchSearXNG(t *testing.T) {
	api := newFakeAPI(t, func(w http.ResponseWriter, r recordedRequest) {
		var results []any
		for i := range 15 {
			results = append(results, map[string]any{"title": fmt.Sprintf("Result <b>%d</b> &amp; more", i),
				"url": fmt.Sprintf("https://example.com/%d", i), "content": "snippet\nwith newline", "engine": "ddg"})
		}
		results = append([]any{map[string]any{"title": "bad", "url": "javascript:alert(1)", "content": "x"}}, results...)
		writeJSONReply(w, 200, map[string]any{"query": "q", "results": results})
	})
	s, _, err := NewSearch(settings.Config{Search: "searxng", SearXNG: settings.SearXNGConfig{URL: api.srv.URL + "/searx/"}}, nil)
	if err != nil {
		t.Fatal(err)
	}
	docs, err := s.Search(context.Background(), "go 1.26 release notes & more")
	if err != nil {
		t.Fatal(err)
	}
	r := api.Requests()[0]
	q, _ := url.ParseQuery(r.Query)
	if r.Method != "GET" || r.Path != "/searx/search" || q.Get("q") != "go 1.26 release notes & more" || q.Get("format") != "json" {
		t.Errorf("request %s %s?%s", r.Method, r.Path, r.Query)
	}
	if len(docs) != maxSearchResults {
		t.Fatalf("%d docs, want %d", len(docs), maxSearchResults)
	}
	d := docs[0]
	if d.URL != "https://example.com/0" || d.Title != "Result 0 & more" || d.Host != "example.com" ||
		d.Text != "Result 0 & more\nhttps://example.com/0\nsnippet with newline" || d.Source != "go 1.26 release notes & more" {
		t.Errorf("doc %+v", d)
	}
}

func TestSearchSearXNGJSONDisabled(t *testing.T) {
	api := newFakeAPI(t, func(w http.ResponseWriter, r recordedRequest) {
		w.WriteHeader(403)
		io.WriteString(w, "<html>Forbidden</html>")
	})
	s, _, _ := NewSearch(settings.Config{Search: "searxng", SearXNG: settings.SearXNGConfig{URL: api.srv.URL}}, nil)
	_, err := s.Search(context.Background(), "q")
	if err == nil || !strings.Contains(err.Error(), "HTTP 403") || !strings.Contains(err.Error(), "search.formats") {
		t.Errorf("err = %v", err)
	}
}

const testBraveKey = "BSA-test-key-5d4c3b2a"

func newTestBrave(t *testing.T, url string) *braveSearcher {
	t.Helper()
	s, _, err := NewSearch(settings.Config{Search: "brave"}, []string{"BRAVE_API_KEY=" + testBraveKey})
	if err != nil {
		t.Fatal(err)
	}
	b := s.(*braveSearcher)
	b.endpoint = url + "/res/v1/web/search"
	return b
}

func TestSearchBrave(t *testing.T) {
	if braveEndpoint != "https://api.search.brave.com/res/v1/web/search" {
		t.Errorf("braveEndpoint = %s", braveEndpoint)
	}
	api := newFakeAPI(t, func(w http.ResponseWriter, r recordedRequest) {
		writeJSONReply(w, 200, map[string]any{"type": "search", "web": map[string]any{"results": []any{
			map[string]any{"title": "Go <strong>1.26</strong>", "url": "https://go.dev/doc/go1.26", "description": "Release notes for <strong>Go</strong> 1.26"},
			map[string]any{"title": "no url", "url": "", "description": "x"},
		}}})
	})
	b := newTestBrave(t, api.srv.URL)
	docs, err := b.Search(context.Background(), "go 1.26")
	if err != nil {
		t.Fatal(err)
	}
	r := api.Requests()[0]
	q, _ := url.ParseQuery(r.Query)
	if r.Path != "/res/v1/web/search" || q.Get("q") != "go 1.26" || r.Header.Get("X-Subscription-Token") != testBraveKey ||
		r.Header.Get("Accept") != "application/json" {
		t.Errorf("request %s?%s %v", r.Path, r.Query, r.Header)
	}
	if len(docs) != 1 || docs[0].Title != "Go 1.26" || docs[0].Text != "Go 1.26\nhttps://go.dev/doc/go1.26\nRelease notes for Go 1.26" {
		t.Errorf("docs %+v", docs)
	}
}

func TestSearchBraveErrors(t *testing.T) {
	for _, tc := range []struct {
		status int
		body   string
		want   string
	}{
		{401, `{"type":"ErrorResponse","error":{"code":"SUBSCRIPTION_TOKEN_INVALID","detail":"bad token ` + testBraveKey + `"}}`, "HTTP 401"},
		{429, `{}`, "HTTP 429"},
		{200, `{"web": {"results": [`, "failed to decode"},
	} {
		api := newFakeAPI(t, func(w http.ResponseWriter, r recordedRequest) {
			w.WriteHeader(tc.status)
			io.WriteString(w, tc.body)
		})
		_, err := newTestBrave(t, api.srv.URL).Search(context.Background(), "q")
		if err == nil || !strings.Contains(err.Error(), tc.want) || strings.Contains(err.Error(), testBraveKey) {
			t.Errorf("%d: err = %v, want %q without the key", tc.status, err, tc.want)
		}
	}
}

func TestSearchTimeoutAndCap(t *testing.T) {
	release := make(chan struct{})
	slow := newFakeAPI(t, func(w http.ResponseWriter, r recordedRequest) { <-release })
	defer close(release)
	s, _, _ := NewSearch(settings.Config{Search: "searxng", SearXNG: settings.SearXNGConfig{URL: slow.srv.URL}}, nil)
	s.(*searxngSearcher).timeout = 200 * time.Millisecond
	if _, err := s.Search(context.Background(), "q"); err == nil || !strings.Contains(err.Error(), "no answer from") {
		t.Errorf("timeout: err = %v", err)
	}
	big := newFakeAPI(t, func(w http.ResponseWriter, r recordedRequest) {
		io.WriteString(w, `{"results":[{"title":"`+strings.Repeat("a", maxSearchResponse)+`"}]}`)
	})
	s, _, _ = NewSearch(settings.Config{Search: "searxng", SearXNG: settings.SearXNGConfig{URL: big.srv.URL}}, nil)
	if _, err := s.Search(context.Background(), "q"); err == nil || !strings.Contains(err.Error(), "larger than") {
		t.Errorf("cap: err = %v", err)
	}
}
