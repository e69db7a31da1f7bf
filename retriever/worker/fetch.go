package worker

// The fetcher is the retriever's only way onto the web, and the web decides where it goes next
// (a redirect, a link the agent follows, a name whose DNS answer changes), so it is built to be
// unusable against the user's own network: cloud metadata at 169.254.169.254, a router's admin
// page, a database on localhost. Every connection is made by dialAddr, which resolves the name
// itself, refuses it if any address it resolves to is blocked, and connects to one of the
// addresses it checked, never resolving again. New connections are made for every request of a
// fetch (no keep-alive pool outlives a fetch or is shared between fetches), so no request can
// ride on a connection that was not checked for it.

import (
	"bytes"
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"io"
	"mime"
	"net"
	"net/http"
	"net/http/httptrace"
	"net/netip"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"
	"unicode/utf8"

	"github.com/hookctl/hookctl/internal/clip"
	"github.com/hookctl/hookctl/retriever"
	"github.com/hookctl/hookctl/retriever/settings"
)

// MaxURLBytes caps the URL a fetch accepts.
const MaxURLBytes = 8 << 10

// ErrFetchRefused is wrapped by every error for a fetch the retriever declined to make (a
// blocked address, a URL it does not accept, a content type it does not read), as opposed to one
// that failed.
var ErrFetchRefused = errors.New("refused")

// fetchRefusal is a refused fetch. Its text names the host and the reason, never the URL's path
// or query, which may hold secrets. why is made of hookctl's words, the caller's own URL and
// host names that passed fetchCheckHost, so the agent may be shown it; detail holds what the
// server sent that explains the refusal (a header, a redirect's target), for the audit only.
type fetchRefusal struct {
	why, detail string
	redirects   []string // hosts a server redirected to: their names are the server's words
}

func (r *fetchRefusal) Error() string {
	if r.detail != "" {
		return "refused: " + r.why + " (" + r.detail + ")"
	}
	return "refused: " + r.why
}
func (r *fetchRefusal) Is(target error) bool { return target == ErrFetchRefused }

// Shown is the refusal as the agent may see it: without the server's words.
func (r *fetchRefusal) Shown() string { return unnameHosts("refused: "+r.why, r.redirects) }

func fetchRefusef(format string, args ...any) error {
	return &fetchRefusal{why: fmt.Sprintf(format, args...)}
}

// fetchRefuseSent is fetchRefusef with what the server sent, quoted, as the detail.
func fetchRefuseSent(sent, format string, args ...any) error {
	return &fetchRefusal{why: fmt.Sprintf(format, args...), detail: "the server sent " + strconv.Quote(fetchShort(sent))}
}

// fetchFailure is a fetch that failed on the network or in the protocol. Go's errors quote what
// the server sent (a malformed status line, the names in a TLS certificate), so the agent is
// shown only the kind of failure; the audit keeps the error.
type fetchFailure struct {
	where     string // scheme://host of the request
	kind      string // hookctl's words
	err       error
	redirects []string // as in fetchRefusal
}

func (f *fetchFailure) Error() string { return "failed to fetch " + f.where + ": " + f.err.Error() }
func (f *fetchFailure) Unwrap() error { return f.err }

// Shown is the failure as the agent may see it.
func (f *fetchFailure) Shown() string {
	return unnameHosts("failed to fetch "+f.where+": "+f.kind+" (the details are in hookctl audit, for the user)", f.redirects)
}

// unnameHosts replaces in s each host a server redirected to by a description. A host name is
// valid DNS, yet "ignore-previous-instructions.evil.example" is one. A name inside the caller's
// own host is left, since the caller wrote it (and replacing it would mangle that host).
func unnameHosts(s string, redirects []string) string {
	for _, h := range redirects {
		s = strings.ReplaceAll(s, h, "the host it was redirected to")
	}
	return s
}

// withRedirects records in a fetch's error the hosts a server redirected it to, other than
// origin, the caller's own host (with and without its port), longest first.
func withRedirects(err error, origin string, hosts []string) error {
	var names []string
	for _, h := range hosts {
		for _, n := range []string{h, fetchHostname(h)} {
			if n != "" && !strings.Contains(origin, n) && !slices.Contains(names, n) {
				names = append(names, n)
			}
		}
	}
	if len(names) == 0 {
		return err
	}
	slices.SortFunc(names, func(a, b string) int { return len(b) - len(a) })
	var r *fetchRefusal
	var f *fetchFailure
	switch {
	case errors.As(err, &r):
		r.redirects = names
	case errors.As(err, &f):
		f.redirects = names
	}
	return err
}

func fetchHostname(hostport string) string {
	if h, _, err := net.SplitHostPort(hostport); err == nil {
		return strings.Trim(h, "[]")
	}
	return hostport
}

// ShownError is err as the agent may see it: for a fetch, without anything the server sent.
// Other errors come from the APIs the user configured (distiller, search, GitHub) and keep
// their own messages.
func ShownError(err error) string {
	var s interface{ Shown() string }
	if errors.As(err, &s) {
		return s.Shown()
	}
	return err.Error()
}

// Resolver resolves host names; *net.Resolver satisfies it.
type Resolver interface {
	LookupIPAddr(ctx context.Context, host string) ([]net.IPAddr, error)
}

// Fetcher fetches one URL for the retriever.
//
// It makes GET requests to http and https URLs only, and connects only to addresses BlockedAddr
// passes, checked on the resolved address at every connection, redirects included. It follows
// at most MaxRedirects redirects, gives up connecting (TCP and TLS) after ConnectTimeout and on
// the whole fetch, slow body included, after TotalTimeout. It reads at most MaxBytes of the
// decompressed body and reads only text: HTML is converted with HTMLToText; JSON, XML,
// JavaScript, YAML, TOML and any text/* type are passed as text; anything else (images, PDF,
// archives, octet-stream, audio, video, fonts) is refused, as is a body that looks binary.
//
// A response with any status is returned as a Document with Status set, its body read like any
// other (a 404 or 500 page often says what went wrong); the caller records and judges Status.
//
// A Fetcher is safe for concurrent use; it holds no connections between fetches.
type Fetcher struct {
	MaxBytes  int64    // 0 = DefaultMaxBytes
	Resolver  Resolver // nil = net.DefaultResolver
	UserAgent string   // "" = DefaultUserAgent

	// Settable only from this package: by its tests, and blocked by fetchAddrPolicy.
	blocked        func(netip.Addr) (bool, string)       // nil = BlockedAddr
	proxy          func(*http.Request) (*url.URL, error) // nil = http.ProxyFromEnvironment
	connectTimeout time.Duration                         // 0 = ConnectTimeout
	totalTimeout   time.Duration                         // 0 = TotalTimeout
	tlsConfig      *tls.Config                           // nil = the system roots
}

// DefaultUserAgent identifies the retriever to the sites it reads.
const DefaultUserAgent = "hookctl-retriever/1 (+https://github.com/hookctl/hookctl)"

// Fetch fetches rawURL. Errors name the host and what was refused or failed, never the query.
//
// Proxies: when HTTPS_PROXY or HTTP_PROXY is set (NO_PROXY honoured), requests go through the
// proxy, which resolves the target itself. Before sending one, Fetch checks the target as far as
// it can: an IP literal must not be blocked, and a name that resolves through Resolver must
// resolve only to addresses that are not. The proxy's own policy governs the rest: a name that
// does not resolve locally (common behind a proxy) is left to it, and it may resolve a name
// differently. The proxy's address, which the user's environment chose, is not checked, and is
// the Document's IP; a direct request to that same address is refused, so a proxy on loopback
// does not open loopback.
func (f *Fetcher) Fetch(ctx context.Context, rawURL string) (doc *retriever.Document, err error) {
	u, err := fetchParseURL(rawURL)
	if err != nil {
		return nil, err
	}
	var redirects []string // hosts the servers redirected to
	defer func() {
		if err != nil {
			err = withRedirects(err, u.Host, redirects)
		}
	}()
	total := f.totalTimeout
	if total <= 0 {
		total = settings.TotalTimeout
	}
	ctx, cancel := context.WithTimeout(ctx, total)
	defer cancel()

	st := &fetchState{f: f, proxies: map[string]bool{}}
	tr := &http.Transport{
		Proxy:                  st.proxyFor,
		DialContext:            st.dial,
		TLSClientConfig:        f.tlsConfig,
		TLSHandshakeTimeout:    f.connect(),
		DisableKeepAlives:      true,
		MaxResponseHeaderBytes: 64 << 10,
	}
	defer tr.CloseIdleConnections()
	client := &http.Client{Transport: tr, CheckRedirect: func(req *http.Request, via []*http.Request) error {
		redirects = append(redirects, req.URL.Host)
		return fetchCheckRedirect(req, via)
	}}

	req, err := http.NewRequestWithContext(ctx, http.MethodGet, u.String(), nil)
	if err != nil {
		return nil, fetchRefusef("%s: not a URL the fetcher accepts", u.Host)
	}
	ua := f.UserAgent
	if ua == "" {
		ua = DefaultUserAgent
	}
	req.Header.Set("User-Agent", ua)
	req.Header.Set("Accept", "text/html,application/xhtml+xml,text/markdown,text/plain;q=0.9,"+
		"application/json;q=0.9,text/*;q=0.8,*/*;q=0.1")
	var remote string // the address the last response came from
	req = req.WithContext(httptrace.WithClientTrace(ctx, &httptrace.ClientTrace{
		GotConn: func(info httptrace.GotConnInfo) {
			if a, err := netip.ParseAddrPort(info.Conn.RemoteAddr().String()); err == nil {
				remote = a.Addr().Unmap().String()
			}
		},
	}))

	resp, err := client.Do(req)
	if err != nil {
		return nil, fetchError(ctx, u, total, err)
	}
	defer resp.Body.Close()
	final := resp.Request.URL
	doc = &retriever.Document{
		Source: rawURL,
		URL:    final.String(),
		Host:   final.Hostname(),
		IP:     remote,
		Status: resp.StatusCode,
	}

	if ce := resp.Header.Get("Content-Encoding"); ce != "" && !strings.EqualFold(ce, "identity") {
		return nil, fetchRefuseSent(ce, "%s sent a content encoding the retriever does not decode", final.Host)
	}
	ct := resp.Header.Get("Content-Type")
	media, charset, err := fetchMediaType(ct)
	if err != nil {
		return nil, fetchRefuseSent(ct, "%s sent an unreadable content type", final.Host)
	}
	if ct != "" {
		if retriever.ClassifyMedia(media) == retriever.MediaBinary {
			return nil, fetchRefuseSent(media, "%s sent %s, which the retriever does not read", final.Host, retriever.ShownMediaType(media))
		}
	}

	body, truncated, err := fetchReadCapped(resp.Body, f.maxBytes())
	if err != nil {
		return nil, fetchError(ctx, final, total, err)
	}
	doc.Bytes, doc.Truncated = int64(len(body)), truncated
	if ct == "" {
		media, charset, _ = fetchMediaType(http.DetectContentType(body))
		if retriever.ClassifyMedia(media) == retriever.MediaBinary {
			return nil, fetchRefusef("%s sent no content type and the body looks like %s", final.Host, retriever.ShownMediaType(media))
		}
	}
	doc.ContentType = media
	if truncated {
		body = fetchTrimCutRune(body)
	}
	if bytes.IndexByte(body, 0) >= 0 {
		return nil, fetchRefuseSent(media, "%s sent %s that looks binary (a NUL byte)", final.Host, retriever.ShownMediaType(media))
	}
	body = fetchDecode(body, charset)
	if why := fetchLooksBinary(body); why != "" {
		return nil, fetchRefuseSent(media, "%s sent %s that looks binary (%s)", final.Host, retriever.ShownMediaType(media), why)
	}
	if retriever.ClassifyMedia(media) == retriever.MediaHTML {
		doc.Title, doc.Text = HTMLToText(body)
	} else {
		doc.Text = htmlPlainText(body)
	}
	return doc, nil
}

func (f *Fetcher) maxBytes() int64 {
	if f.MaxBytes > 0 {
		return f.MaxBytes
	}
	return settings.DefaultMaxBytes
}

func (f *Fetcher) connect() time.Duration {
	if f.connectTimeout > 0 {
		return f.connectTimeout
	}
	return settings.ConnectTimeout
}

func (f *Fetcher) isBlocked(a netip.Addr) (bool, string) {
	if f.blocked != nil {
		return f.blocked(a)
	}
	return BlockedAddr(a)
}

// fetchResolveError is a failure to resolve a host name.
type fetchResolveError struct{ err error }

func (e *fetchResolveError) Error() string { return e.err.Error() }
func (e *fetchResolveError) Unwrap() error { return e.err }

// resolve returns the addresses of host: an IP literal itself, a name through the Resolver.
func (f *Fetcher) resolve(ctx context.Context, host string) ([]netip.Addr, error) {
	if a, err := netip.ParseAddr(host); err == nil {
		return []netip.Addr{a}, nil
	}
	var r Resolver = net.DefaultResolver
	if f.Resolver != nil {
		r = f.Resolver
	}
	ips, err := r.LookupIPAddr(ctx, host)
	if err != nil {
		return nil, &fetchResolveError{fmt.Errorf("failed to resolve %s: %w", host, err)}
	}
	var out []netip.Addr
	for _, ip := range ips {
		a, ok := netip.AddrFromSlice(ip.IP)
		if !ok {
			return nil, &fetchResolveError{fmt.Errorf("failed to resolve %s: the resolver returned an invalid address", host)}
		}
		out = append(out, a.Unmap().WithZone(ip.Zone))
	}
	if len(out) == 0 {
		return nil, &fetchResolveError{fmt.Errorf("failed to resolve %s: no addresses", host)}
	}
	return out, nil
}

// checkAddrs refuses host if any of its addresses is blocked. Refusing when any (rather than
// all) is blocked is the conservative choice: a name that answers with a public and a private
// address is either misconfigured or an attack, and which one a client picks is not ours to
// guess.
func (f *Fetcher) checkAddrs(host string, addrs []netip.Addr) error {
	for _, a := range addrs {
		if blocked, why := f.isBlocked(a); blocked {
			if a.String() == host {
				return fetchRefusef("%s is %s", host, why)
			}
			return fetchRefusef("%s resolves to %s (%s)", host, a, why)
		}
	}
	return nil
}

// fetchState is one fetch's connection policy.
type fetchState struct {
	f  *Fetcher
	mu sync.Mutex
	// proxies are the proxy addresses (host:port, as the transport dials them) this fetch has
	// used; dialing them is not checked, and a direct request to one is refused.
	proxies map[string]bool
}

// proxyFor chooses the proxy for a request (the environment's, or none) and, when there is one,
// checks the target host before the proxy resolves it.
func (st *fetchState) proxyFor(req *http.Request) (*url.URL, error) {
	choose := http.ProxyFromEnvironment
	if st.f.proxy != nil {
		choose = st.f.proxy
	}
	p, err := choose(req)
	if err != nil {
		return nil, fmt.Errorf("failed to choose a proxy: %w", err)
	}
	target := fetchCanonicalAddr(req.URL)
	st.mu.Lock()
	if p == nil {
		direct := st.proxies[target]
		st.mu.Unlock()
		if direct {
			return nil, fetchRefusef("%s is the proxy's address", req.URL.Host)
		}
		return nil, nil
	}
	st.proxies[fetchCanonicalAddr(p)] = true
	st.mu.Unlock()
	host := req.URL.Hostname()
	addrs, err := st.f.resolve(req.Context(), host)
	if err != nil {
		if req.Context().Err() != nil {
			return nil, err
		}
		// Behind a proxy, local DNS often cannot resolve the web's names; the proxy decides.
		return p, nil
	}
	if err := st.f.checkAddrs(host, addrs); err != nil {
		return nil, err
	}
	return p, nil
}

// dial is the transport's only way to connect. addr is host:port of the target or of a proxy.
func (st *fetchState) dial(ctx context.Context, network, addr string) (net.Conn, error) {
	ctx, cancel := context.WithTimeout(ctx, st.f.connect())
	defer cancel()
	var d net.Dialer
	st.mu.Lock()
	proxy := st.proxies[addr]
	st.mu.Unlock()
	if proxy {
		return d.DialContext(ctx, network, addr)
	}
	host, portStr, err := net.SplitHostPort(addr)
	if err != nil {
		return nil, fetchRefusef("%s: not a host and port", addr)
	}
	port, err := strconv.ParseUint(portStr, 10, 16)
	if err != nil || port == 0 {
		return nil, fetchRefusef("%s: invalid port", addr)
	}
	addrs, err := st.f.resolve(ctx, host)
	if err != nil {
		return nil, err
	}
	if err := st.f.checkAddrs(host, addrs); err != nil {
		return nil, err
	}
	// Connect to the addresses just checked, in the resolver's order, never resolving again.
	var firstErr error
	for i, a := range addrs {
		if i == 4 {
			break
		}
		c, err := d.DialContext(ctx, network, netip.AddrPortFrom(a.Unmap(), uint16(port)).String())
		if err == nil {
			return c, nil
		}
		if firstErr == nil {
			firstErr = err
		}
		if ctx.Err() != nil {
			break
		}
	}
	return nil, firstErr
}

// fetchCanonicalAddr returns host:port for a URL as the transport dials it, the port defaulted
// by scheme.
func fetchCanonicalAddr(u *url.URL) string {
	port := u.Port()
	if port == "" {
		switch u.Scheme {
		case "http":
			port = "80"
		case "https":
			port = "443"
		case "socks5", "socks5h":
			port = "1080"
		}
	}
	return net.JoinHostPort(u.Hostname(), port)
}

// fetchCheckRedirect allows at most MaxRedirects redirects, each to a URL the fetcher accepts; where
// it points is checked when it is dialed.
func fetchCheckRedirect(req *http.Request, via []*http.Request) error {
	if len(via) > settings.MaxRedirects {
		return fetchRefuseSent(req.URL.Host, "more than %d redirects", settings.MaxRedirects)
	}
	// The server wrote the redirect's target, and the host it names failed the check: the
	// agent learns only that it was refused.
	if err := fetchCheckURL(req.URL); err != nil {
		why := err.Error()
		if r, ok := err.(*fetchRefusal); ok {
			why = r.why
		}
		return &fetchRefusal{why: fmt.Sprintf("a redirect from %s to a URL the fetcher does not accept", via[len(via)-1].URL.Host), detail: why}
	}
	return nil
}

// fetchError turns a client error into one that names the host, not the URL (a *url.Error's
// text quotes the whole URL, query and all).
func fetchError(ctx context.Context, u *url.URL, total time.Duration, err error) error {
	var r *fetchRefusal
	if errors.As(err, &r) {
		return r // not err: a *url.Error around it would quote the URL
	}
	if ue, ok := err.(*url.Error); ok {
		err = ue.Err
		if ue.Timeout() && ctx.Err() != nil {
			err = fetchTimeout(total)
		}
	}
	if errors.Is(err, context.DeadlineExceeded) && ctx.Err() != nil {
		err = fetchTimeout(total)
	}
	return &fetchFailure{where: u.Scheme + "://" + u.Host, kind: fetchFailureKind(err), err: err}
}

// fetchTimeout is the whole fetch running out of time.
type fetchTimeout time.Duration

func (t fetchTimeout) Error() string { return fmt.Sprintf("timed out after %s", time.Duration(t)) }

// fetchFailureKind names a network or protocol failure in hookctl's words.
func fetchFailureKind(err error) string {
	var (
		dns      *net.DNSError
		resolve  *fetchResolveError
		cert     *tls.CertificateVerificationError
		alert    tls.AlertError
		record   tls.RecordHeaderError
		netError net.Error
		timeout  fetchTimeout
	)
	switch {
	case errors.As(err, &timeout):
		return timeout.Error()
	case errors.As(err, &resolve), errors.As(err, &dns):
		return "the host name did not resolve"
	case errors.Is(err, syscall.ECONNREFUSED):
		return "the connection was refused"
	case errors.Is(err, syscall.ECONNRESET):
		return "the connection was reset"
	case errors.As(err, &cert):
		return "the server's TLS certificate did not verify"
	case errors.As(err, &alert), errors.As(err, &record):
		return "the TLS handshake failed"
	case errors.Is(err, io.EOF), errors.Is(err, io.ErrUnexpectedEOF):
		return "the server closed the connection early"
	case errors.As(err, &netError) && netError.Timeout():
		return "timed out"
	}
	return "a network or protocol error"
}

// fetchReadCapped reads at most max bytes of r and reports whether there was more. It never holds more
// than max+1 bytes: the buffer grows by doubling up to that and no further.
func fetchReadCapped(r io.Reader, max int64) (b []byte, truncated bool, err error) {
	limit := max + 1
	b = make([]byte, 0, min(limit, 32<<10))
	for int64(len(b)) < limit {
		if len(b) == cap(b) {
			nb := make([]byte, len(b), min(int64(cap(b))*2, limit))
			copy(nb, b)
			b = nb
		}
		n, err := r.Read(b[len(b):cap(b)])
		b = b[:len(b)+n]
		if err == io.EOF {
			break
		}
		if err != nil {
			return nil, false, err
		}
	}
	if int64(len(b)) > max {
		return b[:max], true, nil
	}
	return b, false, nil
}

// fetchMediaType returns the lower-case media type and charset of a Content-Type value.
func fetchMediaType(ct string) (media, charset string, err error) {
	if strings.TrimSpace(ct) == "" {
		return "", "", nil
	}
	media, params, err := mime.ParseMediaType(ct)
	if err != nil && !errors.Is(err, mime.ErrInvalidMediaParameter) {
		return "", "", err
	}
	return media, strings.ToLower(params["charset"]), nil
}

// fetchTrimCutRune drops a UTF-8 sequence cut off at the end of a truncated body.
func fetchTrimCutRune(b []byte) []byte {
	i := len(b) - 1
	for i > 0 && i > len(b)-utf8.UTFMax && !utf8.RuneStart(b[i]) {
		i--
	}
	if i >= 0 && !utf8.FullRune(b[i:]) {
		return b[:i]
	}
	return b
}

// fetchLooksBinary returns why a decoded body looks binary, or "": more than 30% of its
// characters are controls or invalid UTF-8.
func fetchLooksBinary(body []byte) string {
	var chars, odd int
	for i := 0; i < len(body); {
		r, size := utf8.DecodeRune(body[i:])
		i += size
		chars++
		switch {
		case r == utf8.RuneError && size == 1:
			odd++
		case r < 0x20 && r != '\t' && r != '\n' && r != '\r' && r != '\f' && r != '\v', r == 0x7f,
			0x80 <= r && r <= 0x9f:
			odd++
		}
	}
	if odd*10 > chars*3 {
		return fmt.Sprintf("%d of %d characters are not text", odd, chars)
	}
	return ""
}

// fetchDecode decodes body to UTF-8: Latin-1 when the charset says so (each byte is its code
// point), otherwise it is taken as UTF-8, a leading byte-order mark dropped. Other charsets are
// not decoded; their non-ASCII bytes become U+FFFD.
func fetchDecode(body []byte, charset string) []byte {
	switch charset {
	case "iso-8859-1", "latin1", "iso_8859-1", "l1":
		out := make([]byte, 0, len(body)+len(body)/4)
		for _, c := range body {
			out = utf8.AppendRune(out, rune(c))
		}
		return out
	}
	if len(body) >= 3 && body[0] == 0xEF && body[1] == 0xBB && body[2] == 0xBF {
		return body[3:]
	}
	return body
}

// fetchShort is at most 64 bytes of a header value or URL part, for an error; never cut inside
// a UTF-8 sequence, since the agent may be shown it.
func fetchShort(s string) string { return clip.String(s, 64) }

// --- URL validation ---

// fetchParseURL parses a URL to fetch, refusing the forms parsers disagree on: anything past
// MaxURLBytes, control characters, spaces, backslashes, an encoded NUL, invalid UTF-8, and then
// whatever fetchCheckURL refuses.
func fetchParseURL(raw string) (*url.URL, error) {
	if len(raw) > MaxURLBytes {
		return nil, fetchRefusef("the URL is longer than %d bytes", MaxURLBytes)
	}
	if !utf8.ValidString(raw) {
		return nil, fetchRefusef("the URL is not valid UTF-8")
	}
	for i := 0; i < len(raw); i++ {
		switch c := raw[i]; {
		case c < 0x20 || c == 0x7f:
			return nil, fetchRefusef("the URL contains a control character")
		case c == ' ':
			return nil, fetchRefusef("the URL contains a space")
		case c == '\\':
			return nil, fetchRefusef("the URL contains a backslash, which parsers read differently")
		}
	}
	if strings.Contains(raw, "%00") {
		return nil, fetchRefusef("the URL contains an encoded NUL")
	}
	scheme, rest, ok := strings.Cut(raw, ":")
	if !ok || !strings.HasPrefix(rest, "//") {
		return nil, fetchRefusef("only http and https URLs with a host are fetched")
	}
	switch strings.ToLower(scheme) {
	case "http", "https":
	default:
		return nil, fetchRefusef("only http and https URLs are fetched, not %q", fetchShort(scheme))
	}
	authority := rest[2:]
	if i := strings.IndexAny(authority, "/?#"); i >= 0 {
		authority = authority[:i]
	}
	if strings.ContainsRune(authority, '@') {
		return nil, fetchRefusef("the URL has a user name or password")
	}
	if strings.ContainsRune(authority, '%') {
		return nil, fetchRefusef("the URL's host is percent-encoded")
	}
	u, err := url.Parse(raw)
	if err != nil {
		return nil, fetchRefusef("the URL does not parse")
	}
	if err := fetchCheckURL(u); err != nil {
		return nil, err
	}
	u.Fragment, u.RawFragment = "", "" // never sent
	return u, nil
}

// fetchCheckURL checks a parsed URL, the first or a redirect's: http or https, no userinfo, and
// a host that is an IP literal or an ASCII host name (an IDN must be written in its xn-- form).
func fetchCheckURL(u *url.URL) error {
	if u.Scheme != "http" && u.Scheme != "https" {
		return fetchRefusef("only http and https URLs are fetched, not %q", fetchShort(u.Scheme))
	}
	if u.Opaque != "" || u.Host == "" {
		return fetchRefusef("the URL has no host")
	}
	if u.User != nil {
		return fetchRefusef("the URL has a user name or password")
	}
	if p := u.Port(); p != "" {
		n, err := strconv.Atoi(p)
		if err != nil || n < 1 || n > 65535 {
			return fetchRefusef("%s: invalid port", fetchShort(u.Host))
		}
	}
	if strings.HasSuffix(u.Host, ":") {
		return fetchRefusef("%s: empty port", fetchShort(u.Host))
	}
	return fetchCheckHost(u.Hostname(), strings.HasPrefix(u.Host, "["))
}

// fetchCheckHost refuses a host that is not a plain IP literal or ASCII host name. A name whose
// last label is numeric must be a dotted-quad IPv4 address: 127.1, 0x7f.0.0.1, 2130706433 and
// 0177.0.0.1 all mean 127.0.0.1 to some parser.
func fetchCheckHost(host string, bracketed bool) error {
	if host == "" {
		return fetchRefusef("the URL has no host")
	}
	if bracketed {
		a, err := netip.ParseAddr(host)
		if err != nil || !a.Is6() || a.Zone() != "" {
			return fetchRefusef("%s: not an IPv6 address", fetchShort(host))
		}
		return nil
	}
	if len(host) > 253 {
		return fetchRefusef("the host name is longer than 253 bytes")
	}
	name := strings.TrimSuffix(host, ".")
	labels := strings.Split(name, ".")
	for _, l := range labels {
		if l == "" || len(l) > 63 {
			return fetchRefusef("%s: not a valid host name", fetchShort(host))
		}
		for i := 0; i < len(l); i++ {
			c := l[i]
			if !('a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9' || c == '-' || c == '_') {
				if c >= 0x80 {
					return fetchRefusef("%s: a non-ASCII host name must be given in its xn-- form", fetchShort(host))
				}
				return fetchRefusef("%s: not a valid host name", fetchShort(host))
			}
		}
	}
	last := strings.ToLower(labels[len(labels)-1])
	numeric := strings.HasPrefix(last, "0x")
	if !numeric {
		numeric = strings.Trim(last, "0123456789") == ""
	}
	if numeric {
		if a, err := netip.ParseAddr(name); err != nil || !a.Is4() || name != host {
			return fetchRefusef("%s: an ambiguous IPv4 address form", fetchShort(host))
		}
	}
	return nil
}

// --- blocked addresses ---

// fetchBlockedRange is a range the retriever never connects to, with why.
type fetchBlockedRange struct {
	prefix netip.Prefix
	why    string
}

// fetchBlocked4 are the IPv4 ranges blocked. The retriever reads the public web; none of these is
// on it, and several (loopback, private, link-local metadata, CGNAT) are exactly where a page
// would send it to attack the user.
//
//	range              reason
//	0.0.0.0/8          "this network"; 0.0.0.0 reaches the local host on Linux
//	10.0.0.0/8         private (RFC 1918)
//	100.64.0.0/10      shared address space, carrier-grade NAT (RFC 6598); Alibaba Cloud metadata 100.100.100.200
//	127.0.0.0/8        loopback
//	169.254.0.0/16     link-local (RFC 3927); AWS, GCP and Azure metadata 169.254.169.254
//	172.16.0.0/12      private (RFC 1918)
//	192.0.0.0/24       IETF protocol assignments (RFC 6890); Oracle Cloud metadata 192.0.0.192
//	192.0.2.0/24       documentation, TEST-NET-1 (RFC 5737)
//	192.88.99.0/24     6to4 relay anycast, deprecated (RFC 7526)
//	192.168.0.0/16     private (RFC 1918)
//	198.18.0.0/15      benchmarking (RFC 2544)
//	198.51.100.0/24    documentation, TEST-NET-2 (RFC 5737)
//	203.0.113.0/24     documentation, TEST-NET-3 (RFC 5737)
//	224.0.0.0/4        multicast
//	255.255.255.255/32 limited broadcast
//	240.0.0.0/4        reserved (RFC 1112)
var fetchBlocked4 = []fetchBlockedRange{
	{netip.MustParsePrefix("0.0.0.0/8"), `an unspecified ("this network") address`},
	{netip.MustParsePrefix("10.0.0.0/8"), "a private address"},
	{netip.MustParsePrefix("100.64.0.0/10"), "a carrier-grade NAT address"},
	{netip.MustParsePrefix("127.0.0.0/8"), "a loopback address"},
	{netip.MustParsePrefix("169.254.0.0/16"), "a link-local address"},
	{netip.MustParsePrefix("172.16.0.0/12"), "a private address"},
	{netip.MustParsePrefix("192.0.0.0/24"), "an IETF protocol assignment"},
	{netip.MustParsePrefix("192.0.2.0/24"), "a documentation address"},
	{netip.MustParsePrefix("192.88.99.0/24"), "a 6to4 relay address"},
	{netip.MustParsePrefix("192.168.0.0/16"), "a private address"},
	{netip.MustParsePrefix("198.18.0.0/15"), "a benchmarking address"},
	{netip.MustParsePrefix("198.51.100.0/24"), "a documentation address"},
	{netip.MustParsePrefix("203.0.113.0/24"), "a documentation address"},
	{netip.MustParsePrefix("224.0.0.0/4"), "a multicast address"},
	{netip.MustParsePrefix("255.255.255.255/32"), "the broadcast address"},
	{netip.MustParsePrefix("240.0.0.0/4"), "a reserved address"},
}

// fetchBlocked6 are the IPv6 ranges blocked outright. Outside them only global unicast
// (2000::/3) is allowed, and the forms that embed an IPv4 address are judged by it.
//
//	range              reason
//	::/128             unspecified
//	::1/128            loopback
//	::/96              IPv4-compatible, deprecated (RFC 4291)
//	::ffff:0:0/96      IPv4-mapped: judged by the embedded IPv4 address
//	64:ff9b::/96       NAT64 well-known prefix (RFC 6052): judged by the embedded IPv4 address
//	64:ff9b:1::/48     NAT64 local use (RFC 8215)
//	100::/64           discard-only (RFC 6666)
//	2001::/32          Teredo (RFC 4380): tunnels to an IPv4 address this check cannot see
//	2001::/23          other IETF protocol assignments: benchmarking 2001:2::/48, ORCHID, …
//	2001:db8::/32      documentation (RFC 3849)
//	2002::/16          6to4 (RFC 3056): judged by the embedded IPv4 address
//	3fff::/20          documentation (RFC 9637)
//	fc00::/7           unique local (RFC 4193); AWS metadata fd00:ec2::254
//	fe80::/10          link-local
//	fec0::/10          site-local, deprecated (RFC 3879)
//	ff00::/8           multicast
var fetchBlocked6 = []fetchBlockedRange{
	{netip.MustParsePrefix("::/128"), "an unspecified address"},
	{netip.MustParsePrefix("::1/128"), "a loopback address"},
	{netip.MustParsePrefix("::/96"), "an IPv4-compatible address"},
	{netip.MustParsePrefix("64:ff9b:1::/48"), "a local-use NAT64 address"},
	{netip.MustParsePrefix("100::/64"), "a discard-only address"},
	{netip.MustParsePrefix("2001::/32"), "a Teredo address"},
	{netip.MustParsePrefix("2001:db8::/32"), "a documentation address"},
	{netip.MustParsePrefix("2001::/23"), "an IETF protocol assignment"},
	{netip.MustParsePrefix("3fff::/20"), "a documentation address"},
	{netip.MustParsePrefix("fc00::/7"), "a unique-local address"},
	{netip.MustParsePrefix("fe80::/10"), "a link-local address"},
	{netip.MustParsePrefix("fec0::/10"), "a site-local address"},
	{netip.MustParsePrefix("ff00::/8"), "a multicast address"},
}

var (
	fetchMapped4 = netip.MustParsePrefix("::ffff:0:0/96")
	fetchNAT64   = netip.MustParsePrefix("64:ff9b::/96")
	fetch6to4    = netip.MustParsePrefix("2002::/16")
	fetchGlobal6 = netip.MustParsePrefix("2000::/3")
)

// BlockedAddr reports whether an address is one the retriever never connects to, and why.
// The ranges and their reasons are in fetchBlocked4 and fetchBlocked6; an IPv6 address that
// embeds an IPv4 one (IPv4-mapped, NAT64, 6to4) is blocked when the IPv4 address is; any other
// IPv6 address outside global unicast 2000::/3 is blocked. The zero Addr is blocked.
func BlockedAddr(ip netip.Addr) (blocked bool, why string) {
	if !ip.IsValid() {
		return true, "not a valid address"
	}
	ip = ip.WithZone("")
	if ip.Is4() {
		for _, r := range fetchBlocked4 {
			if r.prefix.Contains(ip) {
				return true, r.why
			}
		}
		return false, ""
	}
	if fetchMapped4.Contains(ip) {
		if blocked, why := BlockedAddr(ip.Unmap()); blocked {
			return true, "an IPv4-mapped form of " + why
		}
		return false, ""
	}
	b := ip.As16()
	if fetchNAT64.Contains(ip) {
		if blocked, why := BlockedAddr(netip.AddrFrom4([4]byte{b[12], b[13], b[14], b[15]})); blocked {
			return true, "a NAT64 form of " + why
		}
		return false, ""
	}
	for _, r := range fetchBlocked6 {
		if r.prefix.Contains(ip) {
			return true, r.why
		}
	}
	if fetch6to4.Contains(ip) {
		if blocked, why := BlockedAddr(netip.AddrFrom4([4]byte{b[2], b[3], b[4], b[5]})); blocked {
			return true, "a 6to4 form of " + why
		}
		return false, ""
	}
	if !fetchGlobal6.Contains(ip) {
		return true, "not a global unicast address"
	}
	return false, ""
}
