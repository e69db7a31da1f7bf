// Package proxy is hookctl's egress proxy: it serves edit mode's sandboxed commands, which reach
// it on a listener in their own network namespace, and connects only where an egress.Policy
// admits. It runs in the retriever's worker executable (hookctl-retrieve-worker egress), which
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

func (p *Proxy) handle(c net.Conn) {
	defer c.Close()
	start := time.Now()
	c.SetReadDeadline(start.Add(headerTimeout))
	header := &io.LimitedReader{R: c, N: maxHeader}
	br := bufio.NewReader(header)
	req, err := http.ReadRequest(br)
	if err != nil {
		// Not a request at all (or over the cap): nothing was reached, and there is no host to
		// report.
		reply(c, http.StatusBadRequest, "not a proxy request", "hookctl: edit mode's egress proxy: not a proxy request.")
		return
	}
	header.N = math.MaxInt64 // the header is read; what follows is the body or the tunnel
	c.SetReadDeadline(time.Time{})

	ev := egress.Event{Method: req.Method}
	host, port, err := target(req)
	ev.Host, ev.Port = host, port
	if err != nil {
		ev.Reason = err.Error()
		p.refuse(c, http.StatusBadRequest, ev)
		return
	}
	rule, ok := p.Policy.Admit(host, port)
	if !ok {
		ev.Reason = "not an allowed host"
		p.refuse(c, http.StatusForbidden, ev)
		return
	}
	ev.Rule = rule.String()
	up, err := p.dial(host, port, rule)
	if err != nil {
		ev.Reason = err.Error()
		p.refuse(c, http.StatusBadGateway, ev)
		return
	}
	defer up.Close()

	if req.Method == http.MethodConnect {
		if _, err := io.WriteString(c, "HTTP/1.1 200 Connection established\r\n\r\n"); err != nil {
			return
		}
	} else {
		// The first request goes on in origin form, without what was meant for the proxy; the
		// rest of the connection is relayed as it comes, to the same host.
		req.Header.Del("Proxy-Connection")
		req.Header.Del("Proxy-Authorization")
		if err := req.Write(up); err != nil {
			ev.Reason = "failed to send the request: " + err.Error()
			p.refuse(c, http.StatusBadGateway, ev)
			return
		}
	}
	ev.Allowed = true
	ev.Sent, ev.Received = relay(c, br, up)
	ev.Millis = time.Since(start).Milliseconds()
	p.emit(ev)
}

// target is the host and port a request asks for: CONNECT's authority, or an absolute http URL.
func target(req *http.Request) (string, int, error) {
	authority := req.RequestURI
	if req.Method != http.MethodConnect {
		if req.URL == nil || req.URL.Scheme != "http" || req.URL.Host == "" {
			return "", 0, errors.New("a proxy request names an absolute http:// URL or uses CONNECT")
		}
		authority = req.URL.Host
		if req.URL.Port() == "" {
			authority = net.JoinHostPort(req.URL.Hostname(), "80")
		}
	}
	host, p, err := net.SplitHostPort(authority)
	if err != nil {
		return authority, 0, fmt.Errorf("%q is not host:port", authority)
	}
	port, err := strconv.Atoi(p)
	if err != nil || port < 1 || port > 65535 {
		return host, 0, fmt.Errorf("%q is not a port", p)
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

// relay copies both ways until both directions end, and returns the bytes each way. What the
// client sent after its header (buffered in br) goes first.
func relay(client net.Conn, br *bufio.Reader, up net.Conn) (sent, received int64) {
	var s, r atomic.Int64
	done := make(chan struct{})
	go func() {
		n, _ := io.Copy(up, br)
		s.Store(n)
		closeWrite(up)
		close(done)
	}()
	n, _ := io.Copy(client, up)
	r.Store(n)
	closeWrite(client)
	<-done
	return s.Load(), r.Load()
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
