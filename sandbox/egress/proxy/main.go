package proxy

import (
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/url"
	"os"
	"sync"

	"github.com/hookctl/hookctl/sandbox/egress"
)

// maxConfig caps the launcher's config on standard input.
const maxConfig = 1 << 20

// Main is the egress proxy's process: its config (an egress.Config) on stdin, the listener as
// the file listener, events out on stdout as JSON lines. isolate restricts the process before
// it accepts anything; an error there is fatal. It serves until its standard input ends (the
// launcher closes it when the command has finished) or the listener fails.
func Main(stdin io.Reader, stdout io.Writer, listener *os.File, isolate func() error) int {
	dec := json.NewDecoder(io.LimitReader(stdin, maxConfig))
	var cfg egress.Config
	if err := dec.Decode(&cfg); err != nil {
		fmt.Fprintln(os.Stderr, "hookctl egress: failed to read the config:", err)
		return 2
	}
	p := &Proxy{Policy: &cfg.Policy, NoUpstream: cfg.NoUpstream, Publish: cfg.Publish}
	if cfg.Upstream != "" {
		u, err := url.Parse(cfg.Upstream)
		if err != nil || u.Host == "" || u.Scheme != "http" {
			fmt.Fprintln(os.Stderr, "hookctl egress: your HTTPS_PROXY is not an http:// proxy URL; hookctl's egress proxy cannot use it")
			return 2
		}
		p.Upstream = u
	}
	return serveProcess("hookctl egress", stdin, stdout, listener, isolate, func(l net.Listener, report func(any)) error {
		p.Events = func(e egress.Event) { report(e) }
		return p.Serve(l)
	})
}

// serveProcess is the rest of each of the worker's network processes (Main, BrokerMain) once its
// config is read: isolate the process before anything is accepted, take the listener, report
// events one JSON line each on stdout, and serve until stdin ends (the launcher or hookctl run
// closes it when the command has finished) or the listener fails.
func serveProcess(name string, stdin io.Reader, stdout io.Writer, listener *os.File, isolate func() error,
	run func(l net.Listener, report func(any)) error) int {
	if err := isolate(); err != nil {
		fmt.Fprintln(os.Stderr, name+": failed to isolate the process:", err)
		return 2
	}
	l, err := net.FileListener(listener)
	if err != nil {
		fmt.Fprintln(os.Stderr, name+": failed to use the listener:", err)
		return 2
	}
	listener.Close()
	var mu sync.Mutex
	enc := json.NewEncoder(stdout)
	report := func(e any) {
		mu.Lock()
		defer mu.Unlock()
		enc.Encode(e)
	}
	go func() {
		io.Copy(io.Discard, stdin)
		l.Close()
	}()
	if err := run(l, report); err != nil {
		fmt.Fprintln(os.Stderr, name+":", err)
		return 1
	}
	return 0
}
