package proxy

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httputil"
	"net/netip"
	"net/url"
	"os"
	"path"
	"slices"
	"strconv"
	"strings"
	"sync/atomic"
	"time"

	"github.com/hookctl/hookctl/sandbox/egress"
)

// The credential broker of `hookctl run --network model-only`: a reverse proxy between the
// agent, which reaches it as its model's base URL (http://127.0.0.1:PORT in the run's network
// namespace, its only way out), and the model's real endpoint. It admits only the model API's
// requests, each body judged field by field against its backend's table (modelapi.go), drops
// whatever credential the agent sends (it has a placeholder) and adds the real one, which it
// alone holds: hookctl run hands it over on its standard input. Like the egress
// proxy it runs in the retriever's worker, restricted to no file access before it accepts
// anything: it holds the network and the agent's traffic (the repository content the model
// reads), so it must hold nothing of the user's files.

// maxModelRequest caps one request's body: a long conversation with its tool results is a few
// MiB; a body past this is not a model request.
const maxModelRequest = 64 << 20

// credentialHeaders are dropped from every request before the broker adds its own: whatever
// the agent sends as a credential is the placeholder, or something it should not be sending.
var credentialHeaders = []string{"Authorization", "X-Api-Key", "Proxy-Authorization", "Cookie", "Api-Key",
	"X-Goog-Api-Key", "Anthropic-Api-Key"}

// Broker serves one run.
type Broker struct {
	Config egress.BrokerConfig
	// Events receives every request's event; it is called from many goroutines.
	Events func(egress.BrokerEvent)
	// Resolver resolves names; nil is net.DefaultResolver.
	Resolver interface {
		LookupNetIP(ctx context.Context, network, host string) ([]netip.Addr, error)
	}

	upstream *url.URL
	api      *apiBackend
	proxy    *httputil.ReverseProxy
}

// NewBroker checks cfg and builds the broker.
func NewBroker(cfg egress.BrokerConfig) (*Broker, error) {
	u, err := url.Parse(cfg.Upstream)
	switch {
	case err != nil:
		return nil, fmt.Errorf("the model's URL: %v", err)
	case u.Scheme != "https" && !(u.Scheme == "http" && cfg.Trusted):
		// The credential crosses this connection: in clear only to an endpoint the user named.
		return nil, fmt.Errorf("the model's URL %s is not https", u.Redacted())
	case u.Host == "" || u.User != nil || u.RawQuery != "" || u.Fragment != "":
		return nil, fmt.Errorf("the model's URL %s is not a base URL (scheme://host[:port][/path])", u.Redacted())
	case len(cfg.Paths) == 0:
		return nil, fmt.Errorf("no request path is admitted")
	case modelAPIs[cfg.Backend] == nil:
		return nil, fmt.Errorf("the model API %q is not one the broker knows", cfg.Backend)
	}
	b := &Broker{Config: cfg, upstream: u, api: modelAPIs[cfg.Backend]}
	tr := &http.Transport{
		Proxy:                 nil, // the worker's environment is empty; and the broker's route is its own
		DialContext:           b.dial,
		ForceAttemptHTTP2:     true,
		TLSHandshakeTimeout:   dialTimeout,
		ResponseHeaderTimeout: 10 * time.Minute, // a model may think before its first byte
		MaxIdleConnsPerHost:   4,
	}
	b.proxy = &httputil.ReverseProxy{
		Rewrite: func(pr *httputil.ProxyRequest) {
			pr.SetURL(u)
			pr.Out.Host = u.Host
			for _, h := range credentialHeaders {
				pr.Out.Header.Del(h)
			}
			for k, v := range cfg.Headers {
				pr.Out.Header.Set(k, v)
			}
		},
		Transport:     tr,
		FlushInterval: -1, // server-sent events: every chunk as it comes
		ErrorHandler: func(w http.ResponseWriter, r *http.Request, err error) {
			w.WriteHeader(http.StatusBadGateway)
			fmt.Fprintf(w, "hookctl's credential broker could not reach the model: %v\n", err)
		},
	}
	return b, nil
}

// dial connects to the model's host: to a public address unless the user listed the endpoint.
func (b *Broker) dial(ctx context.Context, network, address string) (net.Conn, error) {
	host, portText, err := net.SplitHostPort(address)
	if err != nil {
		return nil, err
	}
	port, _ := strconv.Atoi(portText)
	if !strings.EqualFold(host, b.upstream.Hostname()) {
		return nil, fmt.Errorf("refusing to connect to %s", address)
	}
	p := &Proxy{Resolver: b.Resolver}
	return p.dial(host, port, egress.Rule{Host: host, Port: port, Trusted: b.Config.Trusted})
}

// admit says why a request may not go to the model, or "", and which of its API's requests it
// is.
func (b *Broker) admit(r *http.Request) (string, *apiRequest) {
	switch {
	case r.Method != http.MethodPost && r.Method != http.MethodGet:
		return "method " + r.Method + " is not a model API request", nil
	case !strings.HasPrefix(r.RequestURI, "/"):
		// CONNECT, or an absolute-form request: a proxy request for some other host.
		return "only the model's API is reachable, not " + strconv.Quote(r.Host), nil
	}
	p := r.URL.EscapedPath()
	if p != path.Clean(p) || strings.Contains(p, "%") || strings.Contains(p, "//") {
		return "the path " + strconv.Quote(p) + " is not in canonical form", nil
	}
	if !slices.ContainsFunc(b.Config.Paths, func(a string) bool { return p == a || strings.HasPrefix(p, strings.TrimSuffix(a, "/")+"/") }) {
		return "the path " + strconv.Quote(p) + " is not one of the model API's", nil
	}
	var req *apiRequest
	for i, a := range b.api.requests {
		base, one := strings.CutSuffix(a.path, "/*")
		if a.method == r.Method && (p == a.path || one && strings.HasPrefix(p, base+"/") && !strings.Contains(p[len(base)+1:], "/")) {
			req = &b.api.requests[i]
			break
		}
	}
	if req == nil {
		return r.Method + " " + strconv.Quote(p) + " is not a request of the model API the broker admits (files, batches and the rest reach what is stored at the provider)", nil
	}
	for k := range r.URL.Query() {
		if !slices.Contains(strings.Fields(req.query), k) {
			return "the query parameter " + strconv.Quote(clip(k, 40)) + " is not one the broker admits", nil
		}
	}
	if ce := r.Header.Get("Content-Encoding"); ce != "" && !strings.EqualFold(ce, "identity") {
		return "a body in Content-Encoding " + strconv.Quote(clip(ce, 40)) + " (the broker judges the body as JSON it can read)", nil
	}
	if b.api.betaHeader != "" {
		for _, v := range r.Header.Values(b.api.betaHeader) {
			for _, beta := range strings.Split(v, ",") {
				beta = strings.ToLower(strings.TrimSpace(beta))
				for _, p := range b.api.refusedBetas {
					if strings.HasPrefix(beta, p) {
						return b.api.betaHeader + ": " + strconv.Quote(clip(beta, 60)) + " enables a feature that reaches the network or a service for the agent", nil
					}
				}
			}
		}
	}
	return "", req
}

// ServeHTTP relays one admitted request to the model, or refuses it.
func (b *Broker) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	start := time.Now()
	ev := egress.BrokerEvent{Method: r.Method, Path: clip(r.URL.Path, 256)}
	why, api := b.admit(r)
	if why != "" {
		b.refuse(w, ev, why)
		return
	}
	// The body is read whole (it is bounded): its model is recorded, and a body over the cap is
	// refused before anything goes upstream.
	data, err := io.ReadAll(http.MaxBytesReader(w, r.Body, maxModelRequest))
	if err != nil {
		ev.Refused = "the request body is over " + strconv.Itoa(maxModelRequest>>20) + " MiB, or could not be read"
		b.emit(ev)
		http.Error(w, "hookctl: "+ev.Refused, http.StatusRequestEntityTooLarge)
		return
	}
	switch {
	case api.body == nil && len(data) > 0:
		b.refuse(w, ev, "a "+r.Method+" of "+api.path+" has no body")
		return
	case api.body != nil:
		model, bad := checkBody(data, api.body)
		if bad != nil {
			b.refuse(w, ev, "the request's "+bad.Error())
			return
		}
		ev.Model = clip(printableOnly(model), 100)
	}
	ev.Client = clip(printableOnly(r.UserAgent()), 100)
	body := &countingReader{r: io.NopCloser(bytes.NewReader(data))}
	r.Body, r.ContentLength = body, int64(len(data))
	cw := &countingWriter{ResponseWriter: w}
	b.proxy.ServeHTTP(cw, r)
	ev.Status, ev.Sent, ev.Received, ev.Millis = cw.status, body.n.Load(), cw.n, time.Since(start).Milliseconds()
	if ev.Status == http.StatusBadGateway {
		ev.Error = "the model could not be reached"
	}
	b.emit(ev)
}

// refuse answers a request the broker does not send on, and reports it.
func (b *Broker) refuse(w http.ResponseWriter, ev egress.BrokerEvent, why string) {
	ev.Refused = why
	b.emit(ev)
	http.Error(w, "hookctl: "+why+": this run reaches only its model, through hookctl's credential broker", http.StatusForbidden)
}

func (b *Broker) emit(e egress.BrokerEvent) {
	if b.Events != nil {
		b.Events(e)
	}
}

// Serve answers requests on l until it is closed.
func (b *Broker) Serve(l net.Listener) error {
	srv := &http.Server{Handler: b, ReadHeaderTimeout: headerTimeout, MaxHeaderBytes: maxHeader,
		ErrorLog: nil}
	err := srv.Serve(l)
	if err == http.ErrServerClosed || isClosed(err) {
		return nil
	}
	return err
}

func isClosed(err error) bool {
	return err != nil && strings.Contains(err.Error(), "use of closed network connection")
}

func clip(s string, n int) string {
	if len(s) > n {
		return s[:n]
	}
	return s
}

type countingReader struct {
	r io.ReadCloser
	n atomic.Int64
}

func (c *countingReader) Read(p []byte) (int, error) {
	n, err := c.r.Read(p)
	c.n.Add(int64(n))
	return n, err
}

func (c *countingReader) Close() error { return c.r.Close() }

type countingWriter struct {
	http.ResponseWriter
	status int
	n      int64
}

func (c *countingWriter) WriteHeader(code int) {
	if c.status == 0 {
		c.status = code
	}
	c.ResponseWriter.WriteHeader(code)
}

func (c *countingWriter) Write(p []byte) (int, error) {
	if c.status == 0 {
		c.status = http.StatusOK
	}
	n, err := c.ResponseWriter.Write(p)
	c.n += int64(n)
	return n, err
}

// Flush passes ReverseProxy's flushes through, so that a stream reaches the agent as it comes.
func (c *countingWriter) Flush() {
	if f, ok := c.ResponseWriter.(http.Flusher); ok {
		f.Flush()
	}
}

// BrokerMain is the broker's process: its config (an egress.BrokerConfig) on stdin, the
// listener as the file listener, events out on stdout as JSON lines. isolate restricts the
// process before it accepts anything; an error there is fatal. It serves until its standard
// input ends (hookctl run closes it when the run has ended) or the listener fails.
func BrokerMain(stdin io.Reader, stdout io.Writer, listener *os.File, isolate func() error) int {
	var cfg egress.BrokerConfig
	if err := json.NewDecoder(io.LimitReader(stdin, maxConfig)).Decode(&cfg); err != nil {
		fmt.Fprintln(os.Stderr, "hookctl broker: failed to read the config:", err)
		return 2
	}
	b, err := NewBroker(cfg)
	if err != nil {
		fmt.Fprintln(os.Stderr, "hookctl broker:", err)
		return 2
	}
	return serveProcess("hookctl broker", stdin, stdout, listener, isolate, func(l net.Listener, report func(any)) error {
		b.Events = func(e egress.BrokerEvent) { report(e) }
		return b.Serve(l)
	})
}

// printableOnly keeps a client-given string's printable ASCII: it goes into the run's record.
func printableOnly(s string) string {
	return strings.Map(func(r rune) rune {
		if r < 0x20 || r > 0x7e {
			return -1
		}
		return r
	}, s)
}
