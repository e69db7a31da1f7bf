package worker

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"regexp"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/hookctl/hookctl/retriever"
	"github.com/hookctl/hookctl/retriever/settings"
)

// An honest fake researcher, for measuring: an Anthropic Messages API whose model knows nothing
// but what arrives. It answers with every FACT- marker it has read; while a fact it was told to
// expect is missing and tools are offered, it follows what it has seen — links and result URLs it
// has not read (two a turn), or in a snapshot a grep for the facts and a read of each file that
// matched. Without the research loop it gets one call and answers from that.

var (
	factRe    = regexp.MustCompile(`FACT-[A-Z0-9]+`)
	siteURLRe = regexp.MustCompile(`http://127\.0\.0\.1:\d+/[A-Za-z0-9/_.-]*[A-Za-z0-9/]`)
	readRe    = regexp.MustCompile(`Result of (http://127\.0\.0\.1:\d+/[A-Za-z0-9/_.-]*)`)
	grepHitRe = regexp.MustCompile(`(?m)^([A-Za-z0-9/_.-]+\.go):(\d+): `)
	fileRead  = regexp.MustCompile(`Result of (o/r@main:[A-Za-z0-9/_.-]+):(\d+)-(\d+)`)
)

func honestResearcher(t *testing.T, want int) *httptest.Server {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		var req struct {
			Tools []struct {
				Name string `json:"name"`
			} `json:"tools"`
			ToolChoice map[string]any `json:"tool_choice"`
		}
		json.Unmarshal(b, &req)
		body := strings.ReplaceAll(strings.ReplaceAll(string(b), `\u003c`, "<"), `\u003e`, ">")
		body = strings.ReplaceAll(body, `\n`, "\n")
		facts := unique(factRe.FindAllString(body, -1))
		offered := map[string]bool{}
		for _, tl := range req.Tools {
			offered[tl.Name] = req.ToolChoice == nil
		}
		var content []any
		if len(facts) < want && len(offered) > 0 {
			content = nextCalls(body, offered)
		}
		if content == nil {
			var src []string
			for _, m := range readRe.FindAllStringSubmatch(body, -1) {
				src = append(src, m[1])
			}
			for _, m := range fileRead.FindAllStringSubmatch(body, -1) {
				src = append(src, m[1]+":"+m[2]+"-"+m[3])
			}
			for _, m := range grepHitRe.FindAllStringSubmatch(body, -1) {
				src = append(src, "o/r@main:"+m[1]+":"+m[2])
			}
			text := "Facts: " + strings.Join(facts, " ") + "\n\nSources:\n- " + strings.Join(unique(src), "\n- ")
			content = []any{map[string]any{"type": "text", "text": text}}
		}
		json.NewEncoder(w).Encode(map[string]any{"id": "m", "type": "message", "role": "assistant", "content": content, "stop_reason": "end_turn"})
	}))
	t.Cleanup(srv.Close)
	return srv
}

// nextCalls picks the next tool calls from what the conversation shows, or nil.
func nextCalls(body string, offered map[string]bool) []any {
	use := func(name string, input map[string]any) any {
		return map[string]any{"type": "tool_use", "id": fmt.Sprintf("tu_%d_%d", len(body), len(input)), "name": name, "input": input}
	}
	var calls []any
	if offered["repo_grep"] {
		if !strings.Contains(body, "/FACT-/") {
			return []any{use("repo_grep", map[string]any{"pattern": "FACT-"})}
		}
		read := map[string]bool{}
		for _, m := range fileRead.FindAllStringSubmatch(body, -1) {
			read[strings.TrimPrefix(m[1], "o/r@main:")] = true
		}
		for _, m := range grepHitRe.FindAllStringSubmatch(body, -1) {
			if !read[m[1]] && len(calls) < 3 {
				read[m[1]] = true
				calls = append(calls, use("repo_read", map[string]any{"path": m[1]}))
			}
		}
		return calls
	}
	if !offered["fetch"] {
		return nil
	}
	read := map[string]bool{}
	for _, m := range readRe.FindAllStringSubmatch(body, -1) {
		read[m[1]] = true
	}
	for _, m := range regexp.MustCompile(`Source: (http://127\.0\.0\.1:\d+/[A-Za-z0-9/_.-]*)`).FindAllStringSubmatch(body, -1) {
		read[m[1]] = true // the caller's own page
	}
	// Links as the page gave them, resolved against the caller's page, as a model would.
	if m := regexp.MustCompile(`Source: (http://127\.0\.0\.1:\d+)/`).FindStringSubmatch(body); m != nil {
		for _, l := range regexp.MustCompile(`\]\((/[A-Za-z0-9/_.-]+)\)`).FindAllStringSubmatch(body, -1) {
			body += " " + m[1] + l[1]
		}
	}
	for _, u := range siteURLRe.FindAllString(body, -1) {
		if !read[u] && len(calls) < 2 {
			read[u] = true
			calls = append(calls, use("fetch", map[string]any{"url": u}))
		}
	}
	return calls
}

func unique(in []string) []string {
	seen := map[string]bool{}
	var out []string
	for _, s := range in {
		if s != "" && !seen[s] {
			seen[s] = true
			out = append(out, s)
		}
	}
	sort.Strings(out)
	return out
}

// TestResearchFixtureNeeds measures the fixture needs answered with and without the research
// loop, through the worker's whole path (job.retrieve) and a model behind HTTP: facts answered
// of those the need asks for, pages read, model calls, tool calls, bytes received, latency. The
// loop must answer every need fully; without it, only the need its first page answers.
func TestResearchFixtureNeeds(t *testing.T) {
	pages := map[string]string{
		"/guide":           `<h1>Guide</h1><p>FACT-ONEPAGE: the default port is 8080.</p>`,
		"/docs":            `<h1>Widget docs</h1><p>Widget 2 is out.</p><a href="/docs/changes-v2">changes</a> <a href="/docs/migrate">migrating</a>`,
		"/docs/changes-v2": `<h1>Changes</h1><p>FACT-CHANGE: Open takes a context.</p>`,
		"/docs/migrate":    `<h1>Migrating</h1><p>FACT-MIGRATE: run widget fix.</p>`,
		"/blog/scheduler":  `<h1>The new scheduler</h1><p>FACT-QUANTUM: the default quantum is 40 ms.</p>`,
	}
	s := newSite(t, pages)
	searx := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		fmt.Fprintf(w, `{"results":[{"title":"The new scheduler","url":%q,"content":"We rewrote the scheduler."}]}`, s.URL+"/blog/scheduler")
	}))
	defer searx.Close()
	archive := tarball(t, "o-r-0123456", tarFiles(map[string]string{
		"README.md":        "# cache\n",
		"cache/cache.go":   "package cache\n\nfunc Get() { evict() } // FACT-GET\n",
		"cache/evict.go":   "package cache\n\nfunc evict() { lru.Remove() } // FACT-LRU\n",
		"cache/lru/lru.go": "package lru\n\nfunc Remove() {} // FACT-O1\n",
		"docs/other.txt":   "nothing\n",
	}))

	needs := []struct {
		name string
		req  retriever.Request
		want int
	}{
		{"one page", retriever.Request{Kind: retriever.KindFetch, URL: s.URL + "/guide", Need: "What is the default port?"}, 1},
		{"two linked pages", retriever.Request{Kind: retriever.KindFetch, URL: s.URL + "/docs", Need: "What changed in v2 and how do I migrate?"}, 2},
		{"search result page", retriever.Request{Kind: retriever.KindSearch, Query: "scheduler quantum", Need: "What is the scheduler's default quantum?"}, 1},
		{"repository, three files", retriever.Request{Kind: retriever.KindRepo, GitHub: &retriever.GitHubOp{Op: "snapshot", Owner: "o", Repo: "r"},
			Need: "How does the cache evict entries?"}, 3},
	}
	var table []string
	for _, n := range needs {
		for _, loop := range []bool{false, true} {
			model := honestResearcher(t, n.want)
			f := newGHFake(t)
			if n.req.Kind == retriever.KindRepo {
				serveRepo(f, false, "main", archive, "")
			}
			cfg := settings.Config{Distiller: "anthropic", Search: "searxng"}
			cfg.Anthropic.BaseURL, cfg.Anthropic.APIKeyEnv, cfg.SearXNG.URL = model.URL, "K", searx.URL
			on := loop
			cfg.Research.Enabled = &on
			req := n.req
			j := &job{in: &retriever.WorkerInput{Request: req, Config: cfg}, environ: []string{"K=sk-test"},
				fetcher: newTestFetcher(fetchLoopbackPublic), github: &GitHub{HTTPClient: f.client()}}
			start := time.Now()
			_, ans, err := j.retrieve(context.Background())
			took := time.Since(start)
			if err != nil {
				t.Fatalf("%s (loop %v): %v", n.name, loop, err)
			}
			got := len(unique(factRe.FindAllString(ans.Text, -1)))
			u := j.usage
			table = append(table, fmt.Sprintf("%-24s %-8v %d/%d facts  %2d pages  %2d model calls  %2d tool calls  %6d bytes  %5.0f ms  %d citations",
				n.name, map[bool]string{false: "one-call", true: "research"}[loop], got, n.want, u.Pages, u.Turns, u.Calls, u.Bytes,
				float64(took.Microseconds())/1000, len(ans.Citations)))
			switch {
			case loop && got != n.want:
				t.Errorf("%s: the research loop answered %d of %d facts: %q", n.name, got, n.want, ans.Text)
			case !loop && n.name != "one page" && got == n.want:
				t.Errorf("%s: without the loop every fact was already there: the fixture measures nothing", n.name)
			}
		}
	}
	t.Logf("need                     mode     answered   pages   model calls   tool calls   bytes   latency\n%s", strings.Join(table, "\n"))
}
