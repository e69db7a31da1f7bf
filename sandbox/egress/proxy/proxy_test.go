package proxy

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"net/url"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/hookctl/hookctl/internal/loopback"
	"github.com/hookctl/hookctl/sandbox/egress"
)

// origin is a web server on loopback that counts the requests it was reached with.
type origin struct {
	*httptest.Server
	hits atomic.Int32
	port int
}

func newOrigin(t *testing.T) *origin {
	o := &origin{}
	o.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		o.hits.Add(1)
		fmt.Fprintf(w, "origin saw %s %s host=%s proxy-auth=%q", r.Method, r.URL.RequestURI(), r.Host, r.Header.Get("Proxy-Authorization"))
	}))
	t.Cleanup(o.Close)
	o.port = o.Listener.Addr().(*net.TCPAddr).Port
	return o
}

// fixedResolver answers every name with addr.
type fixedResolver struct{ addr netip.Addr }

func (f fixedResolver) LookupNetIP(context.Context, string, string) ([]netip.Addr, error) {
	return []netip.Addr{f.addr}, nil
}

// events collects what a proxy reports.
type events struct {
	mu  sync.Mutex
	all []egress.Event
}

func (e *events) add(ev egress.Event) {
	e.mu.Lock()
	defer e.mu.Unlock()
	e.all = append(e.all, ev)
}

// wait returns the events once there are n (an admitted connection reports when it closes).
func (e *events) wait(t *testing.T, n int) []egress.Event {
	t.Helper()
	for deadline := time.Now().Add(5 * time.Second); time.Now().Before(deadline); time.Sleep(5 * time.Millisecond) {
		e.mu.Lock()
		got := append([]egress.Event(nil), e.all...)
		e.mu.Unlock()
		if len(got) >= n {
			return got
		}
	}
	t.Fatalf("fewer than %d events: %+v", n, e.all)
	return nil
}

// serve starts p on a loopback listener and returns its address.
func serve(t *testing.T, p *Proxy) (string, *events) {
	t.Helper()
	ev := &events{}
	p.Events = ev.add
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { l.Close() })
	go p.Serve(l)
	return l.Addr().String(), ev
}

func policy(t *testing.T, remotes, user []string) *egress.Policy {
	t.Helper()
	p, err := egress.New(remotes, user, nil)
	if err != nil {
		t.Fatal(err)
	}
	return p
}

// connect sends a CONNECT for target through the proxy at addr and returns the response and
// the connection (the tunnel, if it was opened).
func connect(t *testing.T, addr, target string) (*http.Response, net.Conn, *bufio.Reader) {
	t.Helper()
	c, err := net.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	fmt.Fprintf(c, "CONNECT %s HTTP/1.1\r\nHost: %s\r\n\r\n", target, target)
	br := bufio.NewReader(c)
	resp, err := http.ReadResponse(br, &http.Request{Method: http.MethodConnect})
	if err != nil {
		t.Fatalf("CONNECT %s: %v", target, err)
	}
	return resp, c, br
}

func TestConnectToAnAllowedHost(t *testing.T) {
	o := newOrigin(t)
	target := fmt.Sprintf("127.0.0.1:%d", o.port)
	addr, ev := serve(t, &Proxy{Policy: policy(t, nil, []string{target})})
	resp, c, br := connect(t, addr, target)
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("CONNECT to an allowed host: %s", resp.Status)
	}
	fmt.Fprintf(c, "GET /through HTTP/1.1\r\nHost: %s\r\nConnection: close\r\n\r\n", target)
	body, _ := io.ReadAll(br)
	if !strings.Contains(string(body), "origin saw GET /through") {
		t.Errorf("through the tunnel: %q", body)
	}
	c.Close()
	got := ev.wait(t, 1)[0]
	if !got.Allowed || got.Method != "CONNECT" || got.Rule != target || got.Sent == 0 || got.Received == 0 {
		t.Errorf("event %+v", got)
	}
}

func TestPlainHTTPToAnAllowedHost(t *testing.T) {
	o := newOrigin(t)
	addr, ev := serve(t, &Proxy{Policy: policy(t, nil, []string{fmt.Sprintf("127.0.0.1:%d", o.port)})})
	proxyURL, _ := url.Parse("http://" + addr)
	client := &http.Client{Transport: &http.Transport{Proxy: http.ProxyURL(proxyURL)}}
	req, _ := http.NewRequest("GET", o.URL+"/pkg?v=1", nil)
	req.Header.Set("Proxy-Authorization", "Basic c2VjcmV0")
	resp, err := client.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	client.CloseIdleConnections()
	if !strings.Contains(string(body), "origin saw GET /pkg?v=1 host=127.0.0.1:") || !strings.Contains(string(body), `proxy-auth=""`) {
		t.Errorf("the origin got %q: want origin form, its Host, no Proxy-Authorization", body)
	}
	if got := ev.wait(t, 1)[0]; !got.Allowed || got.Method != "GET" || got.Port != o.port {
		t.Errorf("event %+v", got)
	}
}

func TestRefusedHostsReachNothing(t *testing.T) {
	o := newOrigin(t)
	allowed := fmt.Sprintf("127.0.0.1:%d", o.port)
	// "origin.test" is a remote's host (not the user's): it may reach only public addresses,
	// and the resolver points it at loopback, as a hostile DNS answer would.
	p := &Proxy{Policy: policy(t, []string{"origin.test:" + fmt.Sprint(o.port), fmt.Sprintf("127.0.0.1:%d", o.port+1)}, []string{allowed}),
		Resolver: fixedResolver{netip.MustParseAddr("127.0.0.1")}}
	addr, ev := serve(t, p)
	for _, row := range []struct {
		target string
		status int
		why    string
	}{
		{"evil.example:443", 403, "not an allowed host"},
		{fmt.Sprintf("127.0.0.1:%d", o.port+2), 403, "not an allowed host"},        // the allowed address, another port
		{fmt.Sprintf("localhost:%d", o.port), 403, "not an allowed host"},          // another name for it
		{fmt.Sprintf("origin.test:%d", o.port), 502, "not a public address"},       // rebinding to loopback
		{fmt.Sprintf("127.0.0.1:%d", o.port+1), 502, "not a public address"},       // a remote's literal loopback
		{fmt.Sprintf("[::ffff:127.0.0.1]:%d", o.port), 403, "not an allowed host"}, // a mapped spelling
		{"r\u0435gistry.npmjs.org:443", 403, "not an allowed host"},                // IDNA: a Cyrillic е, in UTF-8
		{"xn--rgistry-9wa.npmjs.org:443", 403, "not an allowed host"},              // the same look-alike as an A-label
		{"registry.npmjs.org.:8443", 403, "not an allowed host"},                   // the allowed name with a trailing dot, another port
		{"evil.example", 400, "not host:port"},
		{"evil.example:99999", 400, "not a port"},
		{"evil.example:http", 400, "not a proxy request"},
	} {
		resp, _, br := connect(t, addr, row.target)
		body, _ := io.ReadAll(br)
		if resp.StatusCode != row.status || !strings.Contains(resp.Header.Get("X-Hookctl-Refused"), row.why) ||
			!strings.Contains(string(body), "hookctl") {
			t.Errorf("CONNECT %s: %s %q %q; want %d and %q", row.target, resp.Status, resp.Header.Get("X-Hookctl-Refused"), body, row.status, row.why)
		}
	}
	for _, e := range ev.wait(t, 11) { // the last row reports nothing: it names no host
		if e.Allowed {
			t.Errorf("an admitted refusal: %+v", e)
		}
	}
	if n := o.hits.Load(); n != 0 {
		t.Errorf("the origin was reached %d times", n)
	}
}

func TestNotAProxyRequest(t *testing.T) {
	o := newOrigin(t)
	addr, ev := serve(t, &Proxy{Policy: policy(t, nil, []string{fmt.Sprintf("127.0.0.1:%d", o.port)})})
	for _, req := range []string{
		"GET /pkg HTTP/1.1\r\nHost: 127.0.0.1:" + fmt.Sprint(o.port) + "\r\n\r\n",       // origin form: the Host header is not a target
		"GET https://127.0.0.1:" + fmt.Sprint(o.port) + "/ HTTP/1.1\r\nHost: x\r\n\r\n", // https in absolute form: CONNECT is for that
	} {
		c, err := net.Dial("tcp", addr)
		if err != nil {
			t.Fatal(err)
		}
		io.WriteString(c, req)
		resp, err := http.ReadResponse(bufio.NewReader(c), nil)
		if err != nil || resp.StatusCode != http.StatusBadRequest {
			t.Errorf("%q: %v %v", req, resp, err)
		}
		c.Close()
	}
	ev.wait(t, 2)
	if n := o.hits.Load(); n != 0 {
		t.Errorf("the origin was reached %d times", n)
	}
}

// TestHeaderCap: a header past maxHeader is dropped, and reaches nothing.
func TestHeaderCap(t *testing.T) {
	o := newOrigin(t)
	target := fmt.Sprintf("127.0.0.1:%d", o.port)
	addr, _ := serve(t, &Proxy{Policy: policy(t, nil, []string{target})})
	for _, size := range []int{maxHeader - 200, maxHeader + 1} {
		c, err := net.Dial("tcp", addr)
		if err != nil {
			t.Fatal(err)
		}
		fmt.Fprintf(c, "CONNECT %s HTTP/1.1\r\nX-Pad: %s\r\n\r\n", target, strings.Repeat("a", size))
		c.SetReadDeadline(time.Now().Add(5 * time.Second))
		line, _ := bufio.NewReader(c).ReadString('\n')
		c.Close()
		if ok := strings.Contains(line, " 200 "); ok != (size < maxHeader) {
			t.Errorf("a %d-byte header: %q", size, line)
		}
	}
}

// TestThroughTheUsersProxy: with an upstream, the egress proxy tunnels through it (here another
// Proxy, which trusts the origin's name), still admitting only its own policy's hosts.
func TestThroughTheUsersProxy(t *testing.T) {
	o := newOrigin(t)
	name := fmt.Sprintf("origin.test:%d", o.port)
	upstream, upEvents := serve(t, &Proxy{Policy: policy(t, nil, []string{name}), Resolver: fixedResolver{netip.MustParseAddr("127.0.0.1")}})
	u, _ := url.Parse("http://user:pw@" + upstream)
	// The egress proxy's own resolver would fail the name: it must not resolve it at all.
	addr, ev := serve(t, &Proxy{Policy: policy(t, []string{name}, nil), Upstream: u, Resolver: fixedResolver{}})
	resp, c, br := connect(t, addr, name)
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("CONNECT through the upstream: %s", resp.Status)
	}
	fmt.Fprintf(c, "GET /up HTTP/1.1\r\nHost: %s\r\nConnection: close\r\n\r\n", name)
	if body, _ := io.ReadAll(br); !strings.Contains(string(body), "origin saw GET /up") {
		t.Errorf("through both proxies: %q", body)
	}
	c.Close()
	if got := ev.wait(t, 1)[0]; !got.Allowed {
		t.Errorf("event %+v", got)
	}
	upEvents.wait(t, 1)
	resp, _, _ = connect(t, addr, "evil.example:443")
	if resp.StatusCode != http.StatusForbidden {
		t.Errorf("a host outside the policy, with an upstream: %s", resp.Status)
	}
	// NO_PROXY: reached directly, by the egress proxy's own (failing) resolver.
	direct, _ := serve(t, &Proxy{Policy: policy(t, []string{name}, nil), Upstream: u, NoUpstream: ".test", Resolver: fixedResolver{}})
	if resp, _, _ := connect(t, direct, name); resp.StatusCode != http.StatusBadGateway {
		t.Errorf("NO_PROXY .test: %s, want the direct path's failure", resp.Status)
	}
}

func TestPublic(t *testing.T) {
	for addr, want := range map[string]bool{
		"93.184.215.14": true, "2606:2800:21f:cb07:6820:80da:af6b:8b2c": true, "8.8.8.8": true,
		"127.0.0.1": false, "127.8.0.1": false, "::1": false, "10.1.2.3": false, "172.16.0.1": false,
		"192.168.1.1": false, "169.254.169.254": false, "fe80::1": false, "fd00:ec2::254": false,
		"0.0.0.0": false, "0.1.2.3": false, "::": false, "100.64.0.1": false, "224.0.0.1": false,
		"255.255.255.255": false, "198.18.0.1": false, "64:ff9b::7f00:1": false, "2002:7f00:1::": false,
		"ff02::1": false,
	} {
		if got := public(netip.MustParseAddr(addr)); got != want {
			t.Errorf("public(%s) = %v", addr, got)
		}
	}
}

func TestNoProxy(t *testing.T) {
	for _, row := range []struct {
		list, host string
		want       bool
	}{
		{"", "a.example", false},
		{"*", "a.example", true},
		{"a.example", "a.example", true},
		{"a.example", "sub.a.example", true},
		{"a.example", "aa.example", false},
		{".a.example", "sub.a.example", true},
		{".a.example", "a.example", true},
		{" b.example , a.example:443 ", "A.example", true},
	} {
		if got := noProxy(row.list, row.host); got != row.want {
			t.Errorf("noProxy(%q, %q) = %v", row.list, row.host, got)
		}
	}
}

// recordingResolver records every name the proxy tries to resolve, and resolves none.
type recordingResolver struct {
	mu    sync.Mutex
	names []string
}

func (r *recordingResolver) LookupNetIP(_ context.Context, _, host string) ([]netip.Addr, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.names = append(r.names, host)
	return nil, fmt.Errorf("no such host")
}

// FuzzProxyRequest: whatever bytes a client sends, the proxy answers without panicking, and the
// only names it tries to reach are names the policy admits.
func FuzzProxyRequest(f *testing.F) {
	for _, s := range []string{
		"CONNECT registry.npmjs.org:443 HTTP/1.1\r\nHost: x\r\n\r\n",
		"CONNECT evil.example:443 HTTP/1.1\r\n\r\n",
		"GET http://pypi.org/simple/ HTTP/1.1\r\nHost: evil.example\r\n\r\n",
		"GET http://evil.example@pypi.org/ HTTP/1.1\r\n\r\n",
		"GET http://pypi.org:80@evil.example/ HTTP/1.1\r\n\r\n",
		"CONNECT [::1]:443 HTTP/1.1\r\n\r\n",
		"CONNECT pypi.org:443\r\n\r\n",
		"GET / HTTP/1.1\r\nHost: pypi.org\r\n\r\n",
		// Issue 24: a second request, kept alive or pipelined, for another host.
		"GET http://pypi.org/ HTTP/1.1\r\nHost: pypi.org\r\n\r\nGET http://evil.example/ HTTP/1.1\r\nHost: evil.example\r\n\r\n",
		"GET http://pypi.org/ HTTP/1.1\r\nHost: pypi.org\r\n\r\nGET /x HTTP/1.1\r\nHost: evil.example\r\n\r\n",
		"CONNECT pypi.org:443 HTTP/1.1\r\n\r\nGET / HTTP/1.1\r\nHost: evil.example\r\n\r\n",
		"CONNECT pypi.org:443 HTTP/1.1\r\n\r\n\x16\x03\x01\x00\x05\x01\x00\x00\x01\x00",
		"CONNECT pypi.org:443 HTTP/1.1\r\n\r\nPRI * HTTP/2.0\r\n\r\nSM\r\n\r\n",
	} {
		f.Add([]byte(s))
	}
	policy, err := egress.New(nil, nil, nil)
	if err != nil {
		f.Fatal(err)
	}
	f.Fuzz(func(t *testing.T, req []byte) {
		res := &recordingResolver{}
		p := &Proxy{Policy: policy, Resolver: res}
		client, server := net.Pipe()
		done := make(chan struct{})
		go func() {
			p.handle(server)
			close(done)
		}()
		go func() {
			client.Write(req)
			client.Write([]byte("\r\n\r\n"))
		}()
		client.SetReadDeadline(time.Now().Add(2 * time.Second))
		io.Copy(io.Discard, client)
		client.Close()
		<-done
		for _, name := range res.names {
			if _, ok := policy.Admit(name, 443); !ok {
				if _, ok := policy.Admit(name, 80); !ok {
					t.Fatalf("%q: the proxy tried to reach %q, which the policy does not admit", req, name)
				}
			}
		}
	})
}

// TestPlainHTTPForwarding: what the proxy writes again of a request still works as the client
// meant it: a streamed response reaches the client as it comes, a client that waits for 100
// Continue gets it, a WebSocket upgrade reaches the host judged, and an offer to upgrade to h2c
// is dropped (the request goes on as HTTP/1.1, which the proxy can judge).
func TestPlainHTTPForwarding(t *testing.T) {
	var upgrades sync.Map
	origin := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		upgrades.Store(r.URL.Path, r.Header.Get("Upgrade")+"|"+r.Header.Get("Http2-Settings"))
		switch r.URL.Path {
		case "/stream":
			io.WriteString(w, "one\n")
			w.(http.Flusher).Flush()
			time.Sleep(400 * time.Millisecond)
			io.WriteString(w, "two\n")
		case "/upload":
			n, _ := io.Copy(io.Discard, r.Body)
			fmt.Fprintf(w, "got %d", n)
		case "/ws":
			c, brw, _ := w.(http.Hijacker).Hijack()
			defer c.Close()
			io.WriteString(c, "HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n\r\n")
			line, _ := brw.ReadString('\n')
			io.WriteString(c, "frame: "+line)
		default:
			io.WriteString(w, "plain")
		}
	}))
	defer origin.Close()
	u, _ := url.Parse(origin.URL)
	addr, _ := serve(t, &Proxy{Policy: policy(t, nil, []string{u.Host})})
	proxyURL, _ := url.Parse("http://" + addr)
	tr := &http.Transport{Proxy: http.ProxyURL(proxyURL), ExpectContinueTimeout: 5 * time.Second}
	defer tr.CloseIdleConnections()
	client := &http.Client{Transport: tr}

	start := time.Now()
	resp, err := client.Get(origin.URL + "/stream")
	if err != nil {
		t.Fatal(err)
	}
	line, _ := bufio.NewReader(resp.Body).ReadString('\n')
	if line != "one\n" || time.Since(start) > 350*time.Millisecond {
		t.Errorf("the stream's first line %q came after %v: held back", line, time.Since(start))
	}
	io.Copy(io.Discard, resp.Body)
	resp.Body.Close()

	req, _ := http.NewRequest("POST", origin.URL+"/upload", strings.NewReader(strings.Repeat("x", 100000)))
	req.Header.Set("Expect", "100-continue")
	start = time.Now()
	if resp, err := client.Do(req); err != nil {
		t.Error(err)
	} else {
		body, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if string(body) != "got 100000" || time.Since(start) > 3*time.Second {
			t.Errorf("Expect: 100-continue: %q after %v", body, time.Since(start))
		}
	}

	c, err := net.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	fmt.Fprintf(c, "GET %s/ws HTTP/1.1\r\nHost: %s\r\nConnection: Upgrade\r\nUpgrade: websocket\r\n\r\n", origin.URL, u.Host)
	br := bufio.NewReader(c)
	if resp, err := http.ReadResponse(br, nil); err != nil || resp.StatusCode != 101 {
		t.Fatalf("websocket upgrade: %v %v", resp, err)
	}
	io.WriteString(c, "hello\n")
	c.SetReadDeadline(time.Now().Add(5 * time.Second))
	if line, _ := br.ReadString('\n'); line != "frame: hello\n" {
		t.Errorf("through the upgraded connection: %q", line)
	}

	c2, err := net.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	defer c2.Close()
	fmt.Fprintf(c2, "GET %s/h2c HTTP/1.1\r\nHost: %s\r\nConnection: Upgrade, HTTP2-Settings\r\nUpgrade: h2c\r\nHTTP2-Settings: AAMAAABkAAQCAAAAAAIAAAAA\r\n\r\n", origin.URL, u.Host)
	if resp, err := http.ReadResponse(bufio.NewReader(c2), nil); err != nil || resp.StatusCode != 200 {
		t.Fatalf("an h2c upgrade offer: %v %v", resp, err)
	}
	if v, _ := upgrades.Load("/h2c"); v != "|" {
		t.Errorf("the origin saw the upgrade offer: %q", v)
	}
}

// TestSlowBodiesArriveWhole: a response whose head and body come in separate segments (as
// Python's http.server writes them), and a request whose body comes after its head, reach the
// other side byte for byte: the proxy's buffered writes flush between reads without sending a
// byte twice. (An early version re-sent the head in place of the body.)
func TestSlowBodiesArriveWhole(t *testing.T) {
	body := strings.Repeat("0123456789abcdef", 40) // 640 bytes
	origin := loopback.Each(t, func(c net.Conn) {
		br := bufio.NewReader(c)
		req, err := http.ReadRequest(br)
		if err != nil {
			return
		}
		got, _ := io.ReadAll(req.Body)
		reply := body
		if req.Method == "POST" {
			reply = string(got)
		}
		fmt.Fprintf(c, "HTTP/1.0 200 OK\r\nContent-Length: %d\r\nConnection: close\r\n\r\n", len(reply))
		time.Sleep(2 * time.Millisecond)
		io.WriteString(c, reply)
	})
	addr, _ := serve(t, &Proxy{Policy: policy(t, nil, []string{origin})})
	for i := 0; i < 20; i++ {
		c, err := net.Dial("tcp", addr)
		if err != nil {
			t.Fatal(err)
		}
		method, sent := "GET", ""
		if i%2 == 1 {
			method, sent = "POST", body
		}
		fmt.Fprintf(c, "%s http://%s/x HTTP/1.1\r\nHost: x\r\nContent-Length: %d\r\n\r\n", method, origin, len(sent))
		time.Sleep(2 * time.Millisecond)
		io.WriteString(c, sent)
		c.SetReadDeadline(time.Now().Add(5 * time.Second))
		resp, err := http.ReadResponse(bufio.NewReader(c), nil)
		if err != nil {
			t.Fatalf("%s %d: %v", method, i, err)
		}
		got, _ := io.ReadAll(resp.Body)
		c.Close()
		if string(got) != body {
			t.Fatalf("%s %d: the body arrived as %q", method, i, got)
		}
	}
}
