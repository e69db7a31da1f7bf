package proxy

import (
	"crypto/tls"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"

	"github.com/hookctl/hookctl/sandbox/egress"
)

// The latency of the egress proxy and the broker, one request per op, against servers on
// loopback. Compare medians of -count runs before and after a change (docs/decisions/0007).

// BenchmarkProxyKeepAlive: plain-HTTP requests on one kept-alive connection through the proxy.
func BenchmarkProxyKeepAlive(b *testing.B) { benchProxy(b, false, false) }

// BenchmarkProxyNewConnection: one plain-HTTP request per connection.
func BenchmarkProxyNewConnection(b *testing.B) { benchProxy(b, false, true) }

// BenchmarkProxyConnectTLS: a CONNECT, a TLS handshake and one request per connection.
func BenchmarkProxyConnectTLS(b *testing.B) { benchProxy(b, true, true) }

func benchProxy(b *testing.B, tlsToo, fresh bool) {
	o := benchOrigin(b, tlsToo)
	client := proxiedClient(b, o, fresh)
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		get(b, client, o.URL+"/pkg")
	}
}

// BenchmarkBroker: a model request with a small and with a 1 MiB body (a long conversation).
func BenchmarkBroker(b *testing.B) {
	m := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		io.Copy(io.Discard, r.Body)
		io.WriteString(w, `{"type":"message","content":[{"type":"text","text":"ok"}]}`)
	}))
	b.Cleanup(m.Close)
	bb, err := NewBroker(egress.BrokerConfig{Backend: "anthropic", Upstream: m.URL, Trusted: true, Paths: []string{"/v1/messages"},
		Headers: map[string]string{"X-Api-Key": "k"}})
	if err != nil {
		b.Fatal(err)
	}
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { l.Close() })
	go bb.Serve(l)
	client := &http.Client{Transport: &http.Transport{}}
	for _, size := range []int{1 << 10, 1 << 20} {
		text := strings.Repeat("a", size)
		body := fmt.Sprintf(`{"model":"claude-x","max_tokens":100,"messages":[{"role":"user","content":[{"type":"text","text":%q}]}]}`, text)
		b.Run(fmt.Sprintf("body=%dKiB", size>>10), func(b *testing.B) {
			for i := 0; i < b.N; i++ {
				done(b)(client.Post("http://"+l.Addr().String()+"/v1/messages", "application/json", strings.NewReader(body)))
			}
		})
	}
}

func benchOrigin(b *testing.B, tlsToo bool) *httptest.Server {
	h := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { io.WriteString(w, "package") })
	var o *httptest.Server
	if tlsToo {
		o = httptest.NewTLSServer(h)
	} else {
		o = httptest.NewServer(h)
	}
	b.Cleanup(o.Close)
	return o
}

// proxiedClient is a client that reaches o through a proxy whose policy admits it.
func proxiedClient(b *testing.B, o *httptest.Server, fresh bool) *http.Client {
	u, _ := url.Parse(o.URL)
	p := &Proxy{Policy: &egress.Policy{Rules: []egress.Rule{{Host: u.Hostname(), Port: atoi(u.Port()), Trusted: true}}}}
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { l.Close() })
	go p.Serve(l)
	proxyURL, _ := url.Parse("http://" + l.Addr().String())
	tr := &http.Transport{Proxy: http.ProxyURL(proxyURL), DisableKeepAlives: fresh,
		TLSClientConfig: &tls.Config{InsecureSkipVerify: true}}
	b.Cleanup(tr.CloseIdleConnections)
	return &http.Client{Transport: tr}
}

func get(b *testing.B, c *http.Client, u string) { done(b)(c.Get(u)) }

// done reads a response whole, and fails the benchmark on anything but 200.
func done(b *testing.B) func(*http.Response, error) {
	return func(resp *http.Response, err error) {
		if err != nil {
			b.Fatal(err)
		}
		io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
		if resp.StatusCode != 200 {
			b.Fatalf("status %d", resp.StatusCode)
		}
	}
}

func atoi(s string) int {
	n := 0
	fmt.Sscan(s, &n)
	return n
}

// BenchmarkCheckBody: the broker's judging of a model request's body alone.
func BenchmarkCheckBody(b *testing.B) {
	for _, size := range []int{1 << 10, 1 << 20} {
		body := []byte(fmt.Sprintf(`{"model":"claude-x","max_tokens":100,"messages":[{"role":"user","content":[{"type":"text","text":%q}]}]}`, strings.Repeat("a", size)))
		b.Run(fmt.Sprintf("body=%dKiB", size>>10), func(b *testing.B) {
			b.SetBytes(int64(len(body)))
			for i := 0; i < b.N; i++ {
				if _, err := checkBody(body, anthropicMessages); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
