package proxy

import (
	"bufio"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/hookctl/hookctl/sandbox/egress"
)

// model is a fake model endpoint that records what reached it, and streams its answer in two
// flushed chunks with a pause between them.
type model struct {
	*httptest.Server
	mu   sync.Mutex
	seen []*http.Request
}

func newModel(t *testing.T) *model {
	m := &model{}
	m.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		io.Copy(io.Discard, r.Body)
		m.mu.Lock()
		m.seen = append(m.seen, r)
		m.mu.Unlock()
		w.Header().Set("Content-Type", "text/event-stream")
		fmt.Fprint(w, "event: one\n\n")
		w.(http.Flusher).Flush()
		time.Sleep(300 * time.Millisecond)
		fmt.Fprint(w, "event: two\n\n")
	}))
	t.Cleanup(m.Close)
	return m
}

func (m *model) requests() []*http.Request {
	m.mu.Lock()
	defer m.mu.Unlock()
	return append([]*http.Request(nil), m.seen...)
}

// serveBroker runs a broker for cfg on loopback and returns its address and its events.
func serveBroker(t *testing.T, cfg egress.BrokerConfig) (string, func() []egress.BrokerEvent) {
	t.Helper()
	b, err := NewBroker(cfg)
	if err != nil {
		t.Fatal(err)
	}
	var mu sync.Mutex
	var evs []egress.BrokerEvent
	b.Events = func(e egress.BrokerEvent) {
		mu.Lock()
		defer mu.Unlock()
		evs = append(evs, e)
	}
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	go b.Serve(l)
	t.Cleanup(func() { l.Close() })
	return l.Addr().String(), func() []egress.BrokerEvent {
		mu.Lock()
		defer mu.Unlock()
		return append([]egress.BrokerEvent(nil), evs...)
	}
}

func TestBrokerAddsTheCredentialAndDropsTheAgents(t *testing.T) {
	m := newModel(t)
	addr, events := serveBroker(t, egress.BrokerConfig{Backend: "anthropic", Upstream: m.URL, Trusted: true, Paths: []string{"/v1/messages"},
		Headers: map[string]string{"X-Api-Key": "sk-real-secret"}})
	req, _ := http.NewRequest("POST", "http://"+addr+"/v1/messages?beta=true", strings.NewReader(`{"model":"x"}`))
	req.Header.Set("X-Api-Key", "hookctl-placeholder")
	req.Header.Set("Authorization", "Bearer stolen")
	req.Header.Set("Cookie", "session=1")
	req.Header.Set("Anthropic-Version", "2023-06-01")
	start := time.Now()
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	// The first event arrives before the model's pause ends: the stream is not buffered.
	line, err := bufio.NewReader(resp.Body).ReadString('\n')
	if err != nil || line != "event: one\n" || time.Since(start) > 250*time.Millisecond {
		t.Errorf("first line %q after %v (%v): the stream was held back", line, time.Since(start), err)
	}
	io.Copy(io.Discard, resp.Body)
	resp.Body.Close()
	seen := m.requests()
	if len(seen) != 1 {
		t.Fatalf("the model saw %d requests", len(seen))
	}
	h := seen[0].Header
	if h.Get("X-Api-Key") != "sk-real-secret" || h.Get("Authorization") != "" || h.Get("Cookie") != "" ||
		h.Get("Anthropic-Version") != "2023-06-01" || seen[0].URL.RequestURI() != "/v1/messages?beta=true" {
		t.Errorf("the model saw %s with headers %v", seen[0].URL.RequestURI(), h)
	}
	if ev := events(); len(ev) != 1 || ev[0].Status != 200 || ev[0].Refused != "" || ev[0].Sent != int64(len(`{"model":"x"}`)) {
		t.Errorf("events %+v", ev)
	}
}

func TestBrokerRefusesAllButTheModelAPI(t *testing.T) {
	m := newModel(t)
	addr, events := serveBroker(t, egress.BrokerConfig{Backend: "anthropic", Upstream: m.URL, Trusted: true,
		Paths: []string{"/v1/messages"}, Headers: map[string]string{"X-Api-Key": "k"}})
	for _, raw := range []string{
		"CONNECT example.com:443 HTTP/1.1\r\nHost: example.com:443\r\n\r\n",
		"GET http://169.254.169.254/latest/meta-data/ HTTP/1.1\r\nHost: 169.254.169.254\r\n\r\n",
		"POST /v1/messagesX HTTP/1.1\r\nHost: x\r\nContent-Length: 0\r\n\r\n",
		"POST /v1/messages/../../admin HTTP/1.1\r\nHost: x\r\nContent-Length: 0\r\n\r\n",
		"POST /v1/%6dessages HTTP/1.1\r\nHost: x\r\nContent-Length: 0\r\n\r\n",
		"POST //v1/messages HTTP/1.1\r\nHost: x\r\nContent-Length: 0\r\n\r\n",
		"DELETE /v1/messages HTTP/1.1\r\nHost: x\r\n\r\n",
		"GET /v1/files HTTP/1.1\r\nHost: x\r\n\r\n",
	} {
		c, err := net.Dial("tcp", addr)
		if err != nil {
			t.Fatal(err)
		}
		io.WriteString(c, raw)
		c.SetReadDeadline(time.Now().Add(5 * time.Second))
		resp, err := http.ReadResponse(bufio.NewReader(c), nil)
		if err != nil {
			t.Errorf("%q: %v", strings.SplitN(raw, "\r\n", 2)[0], err)
		} else if resp.StatusCode != http.StatusForbidden && resp.StatusCode != http.StatusBadRequest {
			t.Errorf("%q: status %d, want 403", strings.SplitN(raw, "\r\n", 2)[0], resp.StatusCode)
		}
		c.Close()
	}
	if n := len(m.requests()); n != 0 {
		t.Errorf("the model was reached %d times", n)
	}
	refused := 0
	for _, e := range events() {
		if e.Refused != "" {
			refused++
		}
	}
	if refused < 7 {
		t.Errorf("%d refusals reported, want at least 7: %+v", refused, events())
	}
}

func TestBrokerRefusesUntrustedPrivateAndClearText(t *testing.T) {
	if _, err := NewBroker(egress.BrokerConfig{Backend: "anthropic", Upstream: "http://api.example.com", Paths: []string{"/v1"}}); err == nil {
		t.Error("a clear-text endpoint the user did not list was accepted: the credential would cross in clear")
	}
	for _, u := range []string{"https://user:pw@api.example.com", "https://api.example.com/?x=1", "ftp://x"} {
		if _, err := NewBroker(egress.BrokerConfig{Backend: "anthropic", Upstream: u, Trusted: true, Paths: []string{"/v1"}}); err == nil {
			t.Errorf("%s accepted as a base URL", u)
		}
	}
	// An endpoint the user did not list that resolves to loopback reaches nothing there.
	m := newModel(t)
	port := m.Listener.Addr().(*net.TCPAddr).Port
	b, err := NewBroker(egress.BrokerConfig{Backend: "anthropic", Upstream: fmt.Sprintf("https://api.example.com:%d", port), Paths: []string{"/v1/messages"}})
	if err != nil {
		t.Fatal(err)
	}
	b.Resolver = fixedResolver{netip.MustParseAddr("127.0.0.1")}
	rec := httptest.NewRecorder()
	b.ServeHTTP(rec, httptest.NewRequest("POST", "/v1/messages", strings.NewReader("{}")))
	if rec.Code != http.StatusBadGateway || len(m.requests()) != 0 {
		t.Errorf("status %d, model reached %d times: an untrusted name pointed at loopback must reach nothing", rec.Code, len(m.requests()))
	}
}
