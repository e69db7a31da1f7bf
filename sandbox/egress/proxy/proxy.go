// Package proxy is hookctl's egress proxy: it serves edit mode's sandboxed commands, which reach
// it on a listener in their own network namespace, and connects only where an egress.Policy
// admits. It runs in the retriever's worker executable (hookctl-network egress), which
// restricts itself with Landlock to the few files name resolution and nothing else needs, before
// it accepts a connection: the proxy holds the network and relays untrusted bytes, so it must
// hold no file access (docs/threat-model.md's invariant).
//
// It speaks the two forms clients send a proxy: CONNECT host:port (HTTPS, and anything tunnelled)
// and a plain-HTTP request in absolute form (GET http://host/path). Both are judged on the host
// the client names, before any connection, and the connection itself is checked again on the
// address it goes to: a host that is not the user's own may reach only public addresses, so
// that no allowed name can be pointed (by DNS, or rebinding) at the machine's loopback, its
// networks or a cloud metadata service.
package proxy

import (
	"bufio"
	"context"
	"encoding/base64"
	"errors"
	"fmt"
	"io"
	"math"
	"net"
	"net/http"
	"net/netip"
	"net/url"
	"strconv"
	"strings"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/hookctl/hookctl/sandbox/egress"
)

// Limits. A client's request line and headers are small; one that sends more, or takes longer,
// is not a proxy client.
const (
	maxHeader     = 64 << 10
	headerTimeout = 10 * time.Second
	dialTimeout   = 15 * time.Second
)

// Proxy serves one sandboxed command.
type Proxy struct {
	Policy *egress.Policy
	// Upstream is the user's own proxy, or nil; hosts matching NoUpstream (NO_PROXY's syntax)
	// are reached directly.
	Upstream   *url.URL
	NoUpstream string
	// Publish words refusals for a review-mode publish, which may reach the GitHub API alone.
	Publish bool
	// Events receives every connection's event; it is called from many goroutines.
	Events func(egress.Event)
	// Resolver resolves names; nil is net.DefaultResolver. (Tests point names at loopback.)
	Resolver interface {
		LookupNetIP(ctx context.Context, network, host string) ([]netip.Addr, error)
	}
}

// Serve accepts connections on l until it fails (the launcher closes it when the command ends).
func (p *Proxy) Serve(l net.Listener) error {
	for {
		c, err := l.Accept()
		if err != nil {
			if errors.Is(err, net.ErrClosed) {
				return nil
			}
			var ne net.Error
			if errors.As(err, &ne) && ne.Timeout() {
				continue
			}
			return err
		}
		go p.handle(c)
	}
}

func (p *Proxy) emit(e egress.Event) {
	if p.Events != nil {
		p.Events(e)
	}
}

// handle serves one client connection: a CONNECT tunnel, or plain-HTTP requests each judged
// on its own.
func (p *Proxy) handle(c net.Conn) {
	defer c.Close()
	cl := &client{conn: c, limit: &io.LimitedReader{R: c}}
	cl.br = bufio.NewReader(cl.limit)
	req, err := cl.next(headerTimeout)
	if err != nil {
		// Not a request at all (or over the cap): nothing was reached, and there is no host to
		// report.
		reply(c, http.StatusBadRequest, "not a proxy request", "hookctl: edit mode's egress proxy: not a proxy request.")
		return
	}
	if req.Method == http.MethodConnect {
		p.tunnel(cl, req)
		return
	}
	p.serveHTTP(cl, req, nil)
}

// client is the command's side of a connection.
type client struct {
	conn  net.Conn
	limit *io.LimitedReader // caps each request's header
	br    *bufio.Reader
	bw    *bufio.Writer // responses, made on the first
}

// next reads the client's next request header, waiting at most wait for it.
func (cl *client) next(wait time.Duration) (*http.Request, error) {
	cl.conn.SetReadDeadline(time.Now().Add(wait))
	cl.limit.N = maxHeader
	req, err := http.ReadRequest(cl.br)
	cl.limit.N = math.MaxInt64 // the header is read; what follows is its body, or the tunnel
	cl.conn.SetReadDeadline(time.Time{})
	return req, err
}

// upstream is one connection the proxy opened for the client: where to, and what went each way.
type upstream struct {
	conn *meteredConn
	br   *bufio.Reader
	bw   *bufio.Writer
	ev   egress.Event
	// host, port is the target as judged, host lower-case and without a trailing dot.
	host string
	port int
}

// open connects to an admitted target and starts its event.
func (p *Proxy) open(method, host string, port int, rule egress.Rule) (*upstream, error) {
	ev := egress.Event{Method: method, Host: host, Port: port, Rule: rule.String()}
	c, err := p.dial(host, port, rule)
	if err != nil {
		ev.Reason = err.Error()
		return &upstream{ev: ev}, err
	}
	m := &meteredConn{Conn: c}
	return &upstream{conn: m, br: bufio.NewReader(m), bw: bufio.NewWriter(m), ev: ev, host: canonicalHost(host), port: port}, nil
}

// closeUpstream ends the connection and reports it, once.
func (p *Proxy) closeUpstream(up *upstream, start time.Time) {
	if up == nil || up.conn == nil {
		return
	}
	up.conn.Close()
	up.ev.Allowed, up.ev.Sent, up.ev.Received = true, up.conn.sent.Load(), up.conn.received.Load()
	up.ev.Millis = time.Since(start).Milliseconds()
	p.emit(up.ev)
	up.conn = nil
}

// idleTimeout is how long a kept-alive connection may wait for its next request.
const idleTimeout = 90 * time.Second

// serveHTTP judges and forwards plain-HTTP requests, from first until the connection ends. Each
// request is judged on its own: outside a tunnel (bound nil), on the absolute URL it names,
// and a request for another allowed host goes on a new upstream connection; inside a tunnel,
// every request must name the tunnel's host (its Host header, or an absolute URL), and
// nothing else is reached. What goes upstream is the request as parsed, written again in
// origin form with its own framing: bytes the proxy did not judge (a second request hidden in
// a body, a smuggled length) never pass.
func (p *Proxy) serveHTTP(cl *client, req *http.Request, bound *upstream) {
	start := time.Now()
	up := bound
	defer func() { p.closeUpstream(up, start) }()
	for {
		host, port, ev, ok := p.judgeRequest(req, bound)
		if !ok {
			p.refuse(cl.conn, ev.status, ev.Event)
			return
		}
		if up == nil || up.host != canonicalHost(host) || up.port != port {
			p.closeUpstream(up, start)
			var err error
			if up, err = p.open(req.Method, host, port, ev.rule); err != nil {
				p.refuse(cl.conn, http.StatusBadGateway, up.ev)
				up = nil
				return
			}
			start = time.Now()
		}
		if !p.exchange(cl, req, up) {
			return
		}
		var err error
		if req, err = cl.next(idleTimeout); err != nil {
			if !errors.Is(err, io.EOF) && !isClosedOrTimeout(err) {
				reply(cl.conn, http.StatusBadRequest, "not a proxy request", "hookctl: edit mode's egress proxy: not an HTTP request.")
			}
			return
		}
	}
}

// verdict is a request's refusal: its event and the status the client gets.
type verdict struct {
	egress.Event
	status int
	rule   egress.Rule
}

// judgeRequest admits one plain-HTTP request, or says why not.
func (p *Proxy) judgeRequest(req *http.Request, bound *upstream) (string, int, verdict, bool) {
	v := verdict{Event: egress.Event{Method: clip(req.Method, 20)}, status: http.StatusBadRequest}
	if bound != nil {
		v.Host, v.Port = bound.ev.Host, bound.ev.Port
	}
	var host string
	var port int
	var err error
	switch {
	case req.Method == "PRI" || req.ProtoMajor != 1:
		// HTTP/2 with prior knowledge (h2c): its frames name their host in :authority, which
		// the proxy does not parse; it judges HTTP/1.x only.
		v.Reason = "HTTP/2 in clear text (h2c) is refused: the proxy judges HTTP/1.1 requests one by one"
		return "", 0, v, false
	case req.Method == http.MethodConnect:
		v.Reason = "a CONNECT is a connection's first request, not one of several"
		return "", 0, v, false
	case bound != nil && strings.HasPrefix(req.RequestURI, "/"):
		// Origin form, inside a tunnel: the Host header names the host.
		host, port, err = hostPort(req.Host, bound.port)
	default:
		host, port, err = target(req)
	}
	if err != nil {
		v.Reason = err.Error()
		if h, p, err := hostPort(req.Host, 80); err == nil && bound == nil {
			v.Host, v.Port = h, p // what the request seems to want, for the refusal
		}
		return "", 0, v, false
	}
	v.Host, v.Port = host, port
	if bound != nil {
		if canonicalHost(host) != bound.host || port != bound.port {
			v.status = http.StatusForbidden
			v.Reason = fmt.Sprintf("the tunnel was allowed for %s, and a request in it names %s", net.JoinHostPort(bound.ev.Host, strconv.Itoa(bound.port)), net.JoinHostPort(host, strconv.Itoa(port)))
			return "", 0, v, false
		}
		return host, port, v, true
	}
	rule, ok := p.Policy.Admit(host, port)
	if !ok {
		v.status = http.StatusForbidden
		v.Reason = "not an allowed host"
		return "", 0, v, false
	}
	v.rule = rule
	return host, port, v, true
}

// hopHeaders are a request's headers for the proxy, not the server (RFC 9110 7.6.1).
var hopHeaders = []string{"Connection", "Proxy-Connection", "Keep-Alive", "Proxy-Authorization", "Proxy-Authenticate",
	"Te", "Trailer", "Upgrade", "Http2-Settings"}

// exchange sends one request upstream and its response back, and says whether the connection
// may carry another.
func (p *Proxy) exchange(cl *client, req *http.Request, up *upstream) bool {
	websocket := strings.EqualFold(strings.TrimSpace(req.Header.Get("Upgrade")), "websocket")
	for _, f := range req.Header["Connection"] {
		for _, name := range strings.Split(f, ",") {
			req.Header.Del(strings.TrimSpace(name))
		}
	}
	for _, h := range hopHeaders {
		req.Header.Del(h)
	}
	if websocket {
		// The one upgrade that passes: a WebSocket to the host just judged. An upgrade to h2c
		// was dropped above, so the request goes on as HTTP/1.1.
		req.Header.Set("Connection", "Upgrade")
		req.Header.Set("Upgrade", "websocket")
	}
	if _, ok := req.Header["User-Agent"]; !ok {
		req.Header["User-Agent"] = []string{""} // Request.Write adds Go's own otherwise
	}
	// req.Host is what was judged (an absolute URL's authority, whatever Host header came
	// with it; or, in a tunnel, the Host header): Write sends it as the Host header, and the
	// request in origin form.
	// The body goes up while the response comes down: a client that waits for 100 Continue,
	// or a server that answers before it has read the body, would otherwise stall. Writes are
	// buffered, and flushed whenever the other side has nothing more buffered (flushBeforeWait):
	// one write for a small message, and a stream still flows as it comes.
	if req.Body != nil && req.Body != http.NoBody {
		req.Body = &flushBeforeWait{ReadCloser: req.Body, bw: up.bw, from: cl.br}
	}
	wrote := make(chan error, 1)
	send := func() {
		err := req.Write(copyThrough{up.bw})
		if err == nil {
			err = up.bw.Flush()
		}
		wrote <- err
	}
	if req.Body == nil || req.Body == http.NoBody {
		send() // nothing to wait for: no goroutine
	} else {
		go send()
	}
	if cl.bw == nil {
		cl.bw = bufio.NewWriter(cl.conn)
	}
	for {
		resp, err := http.ReadResponse(up.br, req)
		if err != nil {
			up.conn.Close()
			<-wrote
			return false
		}
		switch {
		case resp.StatusCode == http.StatusSwitchingProtocols:
			if !websocket {
				return false
			}
			if resp.Write(cl.bw) != nil || cl.bw.Flush() != nil {
				return false
			}
			if err := <-wrote; err != nil {
				return false
			}
			// From here the connection carries the WebSocket's frames, to the host judged.
			up.relay(cl)
			return false
		case resp.StatusCode >= 100 && resp.StatusCode < 200:
			if resp.Write(cl.bw) != nil || cl.bw.Flush() != nil {
				up.conn.Close()
				<-wrote
				return false
			}
			continue
		}
		resp.Body = &flushBeforeWait{ReadCloser: resp.Body, bw: cl.bw, from: up.br}
		if err = resp.Write(copyThrough{cl.bw}); err == nil {
			err = cl.bw.Flush()
		}
		resp.Body.Close()
		select {
		case werr := <-wrote:
			return err == nil && werr == nil && !resp.Close && !req.Close
		default:
		}
		t := time.NewTimer(headerTimeout)
		defer t.Stop()
		select {
		case werr := <-wrote:
			return err == nil && werr == nil && !resp.Close && !req.Close
		case <-t.C:
			// The server answered without reading the whole body: the connection's framing is
			// lost, so it ends.
			up.conn.Close()
			<-wrote
			return false
		}
	}
}

// copyThrough is a bufio.Writer without its ReadFrom: a body is copied through io.Copy's own
// buffer, never read straight into bw's, so that flushBeforeWait may flush bw between reads.
// (ReadFrom reads into the free end of its buffer; a flush inside that read empties the buffer
// under it, and the bytes already sent would be sent again.) WriteByte keeps Request.Write
// from wrapping it in a buffer of its own, which nothing would flush until the body ended.
type copyThrough struct{ bw *bufio.Writer }

func (c copyThrough) Write(p []byte) (int, error)       { return c.bw.Write(p) }
func (c copyThrough) WriteByte(b byte) error            { return c.bw.WriteByte(b) }
func (c copyThrough) WriteString(s string) (int, error) { return c.bw.WriteString(s) }

// flushBeforeWait is a body read from one side and written to bw for the other: bw is flushed
// before a read that would wait for the network.
type flushBeforeWait struct {
	io.ReadCloser
	bw   *bufio.Writer
	from *bufio.Reader
}

func (f *flushBeforeWait) Read(p []byte) (int, error) {
	if f.from.Buffered() == 0 && f.bw.Buffered() > 0 {
		if err := f.bw.Flush(); err != nil {
			return 0, err
		}
	}
	return f.ReadCloser.Read(p)
}

func isClosedOrTimeout(err error) bool {
	var ne net.Error
	return errors.Is(err, net.ErrClosed) || errors.As(err, &ne) && ne.Timeout() || errors.Is(err, io.ErrUnexpectedEOF)
}

// tunnel serves a CONNECT: the target is judged, connected, and then the first bytes the client
// sends through it, before any is relayed: a TLS ClientHello must name the host the tunnel was
// allowed for; HTTP/1.x in clear is judged request by request against that host; an SSH
// client's banner carries no host to judge. Anything else is refused: the proxy cannot see
// where it goes.
func (p *Proxy) tunnel(cl *client, req *http.Request) {
	start := time.Now()
	ev := egress.Event{Method: req.Method}
	host, port, err := target(req)
	ev.Host, ev.Port = host, port
	if err != nil {
		ev.Reason = err.Error()
		p.refuse(cl.conn, http.StatusBadRequest, ev)
		return
	}
	rule, ok := p.Policy.Admit(host, port)
	if !ok {
		ev.Reason = "not an allowed host"
		p.refuse(cl.conn, http.StatusForbidden, ev)
		return
	}
	up, err := p.open(req.Method, host, port, rule)
	if err != nil {
		p.refuse(cl.conn, http.StatusBadGateway, up.ev)
		return
	}
	defer func() { p.closeUpstream(up, start) }()
	if _, err := io.WriteString(cl.conn, "HTTP/1.1 200 Connection established\r\n\r\n"); err != nil {
		return
	}
	refused := func(why string) {
		// The tunnel is open: the client learns of the refusal by its end, and the model from
		// the launcher, which writes the event to the command's standard error.
		ev := up.ev
		ev.Rule, ev.Reason = "", why
		up.conn.Close()
		up.conn = nil
		p.emit(ev)
	}
	// The first bytes are read under the header's deadline, which holds until the tunnel is
	// judged: a client that sends a few bytes and waits is not waited for.
	cl.conn.SetReadDeadline(time.Now().Add(headerTimeout))
	first, err := cl.br.Peek(1)
	http1, ssh := err == nil && isHTTP1(cl.br), err == nil && isSSH(cl.br)
	cl.conn.SetReadDeadline(time.Time{})
	var ne net.Error
	switch {
	case err != nil && !(errors.As(err, &ne) && ne.Timeout()):
		return // the client closed the tunnel before using it
	case err != nil:
		refused(fmt.Sprintf("the client sent nothing through the tunnel for %v: the proxy judges a tunnel by its first bytes", headerTimeout))
	case first[0] == recordHandshake:
		cl.conn.SetReadDeadline(time.Now().Add(headerTimeout))
		hello, err := readClientHello(cl.br)
		cl.conn.SetReadDeadline(time.Time{})
		if err != nil {
			refused(err.Error())
			return
		}
		if why := p.judgeHello(hello, host, port); why != "" {
			refused(why)
			return
		}
		if _, err := up.conn.Write(hello.raw); err != nil {
			return
		}
		// Past the ClientHello the bytes are encrypted: what the client sends inside (an HTTP
		// Host header, HTTP/2's :authority) is not seen (docs/decisions/0007).
		up.relay(cl)
	case http1:
		inner, err := cl.next(headerTimeout)
		if err != nil {
			refused("not an HTTP request in the tunnel")
			return
		}
		b := up
		up = nil // serveHTTP reports it
		p.serveHTTP(cl, inner, b)
	case ssh:
		up.relay(cl)
	default:
		refused("the tunnel carries neither TLS, HTTP/1.x nor SSH: the proxy cannot see which host it reaches")
	}
}

// judgeHello says why a tunnel's ClientHello may not go to host:port, or "".
func (p *Proxy) judgeHello(h *clientHello, host string, port int) string {
	unnamed := p.Policy.AllowsUnnamedTLS(host, port)
	ip := net.ParseIP(strings.Trim(host, "[]")) != nil
	switch {
	case h.ech && !unnamed:
		return "the TLS ClientHello hides its server name (ECH); the user can allow that for a host ([network] tls_unnamed)"
	case h.ech:
		return ""
	case h.serverName == "" && ip:
		return "" // a client connecting to an address names no server
	case h.serverName == "" && !unnamed:
		return "the TLS ClientHello names no server; the user can allow that for a host ([network] tls_unnamed)"
	case h.serverName == "":
		return ""
	case canonicalHost(h.serverName) == canonicalHost(host):
		return ""
	case ip:
		// A name for an address: the address was allowed, so the name must be allowed too.
		if _, ok := p.Policy.Admit(h.serverName, port); ok {
			return ""
		}
	}
	return fmt.Sprintf("the TLS ClientHello names %q, not %s, the host the tunnel was allowed for (domain fronting)", clip(h.serverName, 80), host)
}

// isHTTP1 says whether what the client sent starts like an HTTP/1.x request line.
func isHTTP1(br *bufio.Reader) bool {
	b, _ := br.Peek(8)
	i := 0
	for i < len(b) && b[i] >= 'A' && b[i] <= 'Z' {
		i++
	}
	return i > 0 && (i < len(b) && b[i] == ' ' || i == len(b))
}

func isSSH(br *bufio.Reader) bool {
	b, _ := br.Peek(4)
	return string(b) == "SSH-"
}

// canonicalHost is a host as the policy compares it: lower-case, no brackets, no trailing dot.
func canonicalHost(h string) string {
	return strings.ToLower(strings.TrimSuffix(strings.Trim(h, "[]"), "."))
}

// meteredConn counts what crosses a connection each way.
type meteredConn struct {
	net.Conn
	sent, received atomic.Int64
}

func (m *meteredConn) Read(p []byte) (int, error) {
	n, err := m.Conn.Read(p)
	m.received.Add(int64(n))
	return n, err
}

func (m *meteredConn) Write(p []byte) (int, error) {
	n, err := m.Conn.Write(p)
	m.sent.Add(int64(n))
	return n, err
}

func (m *meteredConn) CloseWrite() error {
	closeWrite(m.Conn)
	return nil
}

// target is the host and port a request asks for: CONNECT's authority, or an absolute http URL.
func target(req *http.Request) (string, int, error) {
	if req.Method == http.MethodConnect {
		return hostPort(req.RequestURI, 0)
	}
	if req.URL == nil || req.URL.Scheme != "http" || req.URL.Host == "" {
		return "", 0, errors.New("a proxy request names an absolute http:// URL or uses CONNECT")
	}
	return hostPort(req.URL.Host, 80)
}

// hostPort splits an authority; one without a port has def, if def is not 0.
func hostPort(authority string, def int) (string, int, error) {
	host, p, err := net.SplitHostPort(authority)
	if err != nil && def != 0 {
		// No port: the authority is the host ("name", "[::1]").
		h, bracketed := strings.CutPrefix(authority, "[")
		if h, ok := strings.CutSuffix(h, "]"); bracketed && ok || !bracketed && !strings.Contains(h, ":") {
			host, p, err = h, strconv.Itoa(def), nil
		}
	}
	if err != nil {
		return authority, 0, fmt.Errorf("%q is not host:port", clip(authority, 80))
	}
	port, err := strconv.Atoi(p)
	if err != nil || port < 1 || port > 65535 {
		return host, 0, fmt.Errorf("%q is not a port", clip(p, 20))
	}
	return host, port, nil
}

func (p *Proxy) refuse(c net.Conn, status int, ev egress.Event) {
	p.emit(ev)
	reply(c, status, ev.Reason, ev.Refusal(p.Publish))
}

func reply(c net.Conn, status int, reason, text string) {
	body := text + "\n"
	fmt.Fprintf(c, "HTTP/1.1 %d %s\r\nContent-Type: text/plain; charset=utf-8\r\nContent-Length: %d\r\nConnection: close\r\nX-Hookctl-Refused: %s\r\n\r\n%s",
		status, http.StatusText(status), len(body), strings.Map(printable, reason), body)
}

// printable keeps a header value on its line.
func printable(r rune) rune {
	if r < ' ' || r == 0x7f {
		return ' '
	}
	return r
}

// dial connects to host:port: through the user's proxy where there is one, else directly, to an
// address the rule allows.
func (p *Proxy) dial(host string, port int, rule egress.Rule) (net.Conn, error) {
	ctx, cancel := context.WithTimeout(context.Background(), dialTimeout)
	defer cancel()
	hostport := net.JoinHostPort(host, strconv.Itoa(port))
	if p.Upstream != nil && !noProxy(p.NoUpstream, host) {
		return p.viaUpstream(ctx, hostport)
	}
	var addrs []netip.Addr
	if a, err := netip.ParseAddr(host); err == nil {
		addrs = []netip.Addr{a}
	} else {
		r := p.Resolver
		if r == nil {
			r = net.DefaultResolver
		}
		if addrs, err = r.LookupNetIP(ctx, "ip", host); err != nil {
			return nil, fmt.Errorf("failed to resolve %s", host)
		}
	}
	var last error = fmt.Errorf("%s has no address", host)
	for _, a := range addrs {
		a = a.Unmap()
		if !rule.Trusted && !public(a) {
			last = fmt.Errorf("%s resolves to %s, which is not a public address (only a host the user lists in the config may reach one)", host, a)
			continue
		}
		d := net.Dialer{Control: func(_, address string, _ syscall.RawConn) error {
			// What is connected is what was checked: the address the dialer was given.
			if ap, err := netip.ParseAddrPort(address); err != nil || ap.Addr().Unmap() != a {
				return fmt.Errorf("refusing to connect to %s", address)
			}
			return nil
		}}
		c, err := d.DialContext(ctx, "tcp", netip.AddrPortFrom(a, uint16(port)).String())
		if err == nil {
			return c, nil
		}
		last = fmt.Errorf("failed to connect to %s", hostport)
	}
	return nil, last
}

// viaUpstream tunnels to hostport through the user's proxy.
func (p *Proxy) viaUpstream(ctx context.Context, hostport string) (net.Conn, error) {
	addr := p.Upstream.Host
	if p.Upstream.Port() == "" {
		addr = net.JoinHostPort(p.Upstream.Hostname(), "80")
	}
	var d net.Dialer
	c, err := d.DialContext(ctx, "tcp", addr)
	if err != nil {
		return nil, fmt.Errorf("failed to reach your proxy %s", p.Upstream.Redacted())
	}
	deadline, _ := ctx.Deadline()
	c.SetDeadline(deadline)
	req := "CONNECT " + hostport + " HTTP/1.1\r\nHost: " + hostport + "\r\n"
	if u := p.Upstream.User; u != nil {
		pw, _ := u.Password()
		req += "Proxy-Authorization: Basic " + basicAuth(u.Username(), pw) + "\r\n"
	}
	if _, err := io.WriteString(c, req+"\r\n"); err != nil {
		c.Close()
		return nil, fmt.Errorf("failed to reach your proxy %s", p.Upstream.Redacted())
	}
	br := bufio.NewReader(io.LimitReader(c, maxHeader))
	resp, err := http.ReadResponse(br, nil)
	if err != nil || resp.StatusCode != http.StatusOK || br.Buffered() > 0 {
		c.Close()
		if err == nil {
			err = errors.New(resp.Status)
		}
		return nil, fmt.Errorf("your proxy %s refused %s: %v", p.Upstream.Redacted(), hostport, err)
	}
	c.SetDeadline(time.Time{})
	return c, nil
}

// relay joins the client to the upstream for the rest of the connection, counting what
// crosses on the upstream's meter. The copy is between the sockets themselves (not the meter),
// so that the kernel splices it.
func (up *upstream) relay(cl *client) {
	if err := up.bw.Flush(); err != nil {
		return
	}
	if cl.bw != nil && cl.bw.Flush() != nil {
		return
	}
	if n := up.br.Buffered(); n > 0 {
		// What the upstream sent past the response the proxy read goes first.
		b, _ := up.br.Peek(n)
		if _, err := cl.conn.Write(b); err != nil {
			return
		}
	}
	sent, received := relay(cl.conn, cl.br, up.conn.Conn)
	up.conn.sent.Add(sent)
	up.conn.received.Add(received)
}

// relay copies both ways until both directions end, and returns the bytes each way. What the
// client sent that is still buffered in br goes first.
func relay(client net.Conn, br *bufio.Reader, up net.Conn) (sent, received int64) {
	var s atomic.Int64
	done := make(chan struct{})
	go func() {
		n, _ := io.Copy(up, br)
		s.Store(n)
		closeWrite(up)
		close(done)
	}()
	r, _ := io.Copy(client, up)
	closeWrite(client)
	<-done
	return s.Load(), r
}

func closeWrite(c net.Conn) {
	if tc, ok := c.(interface{ CloseWrite() error }); ok {
		tc.CloseWrite()
	} else {
		c.Close()
	}
}

// public says whether a is an address on the public internet: not loopback, private, link-local
// (where cloud metadata services answer), shared (CGNAT), multicast, unspecified or reserved.
func public(a netip.Addr) bool {
	if !a.IsValid() || a.IsLoopback() || a.IsPrivate() || a.IsLinkLocalUnicast() || a.IsLinkLocalMulticast() ||
		a.IsInterfaceLocalMulticast() || a.IsMulticast() || a.IsUnspecified() {
		return false
	}
	for _, p := range nonPublic {
		if p.Contains(a) {
			return false
		}
	}
	return true
}

var nonPublic = []netip.Prefix{
	netip.MustParsePrefix("0.0.0.0/8"),
	netip.MustParsePrefix("100.64.0.0/10"),  // shared address space (CGNAT)
	netip.MustParsePrefix("192.0.0.0/24"),   // IETF protocol assignments
	netip.MustParsePrefix("198.18.0.0/15"),  // benchmarking
	netip.MustParsePrefix("240.0.0.0/4"),    // reserved, broadcast
	netip.MustParsePrefix("64:ff9b::/96"),   // NAT64: may embed any IPv4 address
	netip.MustParsePrefix("64:ff9b:1::/48"), // local-use NAT64
	netip.MustParsePrefix("2002::/16"),      // 6to4: embeds an IPv4 address
}

// noProxy says whether host matches NO_PROXY's list: comma-separated names, ".domain" or
// "domain" for the domain and its subdomains, "*" for every host.
func noProxy(list, host string) bool {
	host = strings.ToLower(host)
	for _, e := range strings.Split(list, ",") {
		e = strings.ToLower(strings.TrimSpace(e))
		if h, _, err := net.SplitHostPort(e); err == nil {
			e = h
		}
		switch {
		case e == "":
		case e == "*":
			return true
		case strings.HasPrefix(e, "."):
			if strings.HasSuffix(host, e) || host == e[1:] {
				return true
			}
		case host == e || strings.HasSuffix(host, "."+e):
			return true
		}
	}
	return false
}

func basicAuth(user, password string) string {
	return base64.StdEncoding.EncodeToString([]byte(user + ":" + password))
}
