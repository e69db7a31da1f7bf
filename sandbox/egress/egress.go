// Package egress is the policy of edit mode's network: which hosts a sandboxed command may reach,
// through hookctl's egress proxy, and what the proxy reports back.
//
// Edit mode's sandbox puts the command in a network namespace of its own, whose only interface
// is loopback. The launcher listens there on 127.0.0.1 and points HTTPS_PROXY and HTTP_PROXY at
// it; the proxy (package egress/proxy, in the retriever's worker executable, which has the
// network and no file access) accepts on that listener from outside the namespace and connects
// only to the hosts of a Policy. A program that does not honour the proxy variables has no
// route anywhere: it fails closed.
//
// This package links no network code: the launcher, which runs in hookctl's own executable, uses
// it to build the policy it hands the proxy, to start the proxy and read its events (Supervise),
// and as ssh's ProxyCommand inside the sandbox (ProxyConnect, a socket of the system calls' own).
//
// Out of scope: what an allowed host serves (a package registry serves packages an agent may
// install; the retriever quarantines web pages, not registries), and what an allowed host
// accepts (a push to the project's own remote, a package publish with the user's token).
// docs/decisions/0007 records the choices.
package egress

import (
	"bufio"
	"fmt"
	"net/url"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
)

// DefaultHosts are the hosts every edit-mode session may reach without configuration: the
// public registries of the common package managers and toolchains. The project's git remotes
// (as they were when the session started) are added per session; the user's config adds more.
var DefaultHosts = []string{
	// Go modules and checksums.
	"proxy.golang.org", "sum.golang.org",
	// npm, yarn.
	"registry.npmjs.org", "registry.yarnpkg.com",
	// Python.
	"pypi.org", "files.pythonhosted.org",
	// Rust.
	"crates.io", "index.crates.io", "static.crates.io", "static.rust-lang.org",
	// Ruby.
	"rubygems.org", "index.rubygems.org",
	// Maven and Gradle.
	"repo.maven.apache.org", "repo1.maven.org", "plugins.gradle.org", "services.gradle.org",
	// .NET.
	"api.nuget.org",
}

// defaultPorts are the ports an entry without one admits.
var defaultPorts = []int{443, 80}

// Rule admits one host, or every subdomain of one ("*.example.com"), on Port or, when Port is
// 0, on 443 and 80. Trusted rules (the user's own) may reach any address the name resolves to,
// loopback and private networks included; the others (defaults, the project's remotes) only
// public addresses, so that a name resolving to 127.0.0.1 or 169.254.169.254 reaches nothing on
// the machine or the cloud host.
type Rule struct {
	Host    string `json:"host"`
	Port    int    `json:"port,omitempty"`
	Trusted bool   `json:"trusted,omitempty"`
	Source  string `json:"source"` // "default", "remote", "config"
}

// String spells the rule as the config does.
func (r Rule) String() string {
	h := r.Host
	if strings.Contains(h, ":") {
		h = "[" + h + "]"
	}
	if r.Port != 0 {
		return h + ":" + strconv.Itoa(r.Port)
	}
	return h
}

// ParseRule reads one entry: "host", "host:port", "*.domain", "*.domain:port", an IPv4 address
// or a bracketed IPv6 one. Names are ASCII, compared without case or a trailing dot.
func ParseRule(s, source string, trusted bool) (Rule, error) {
	r := Rule{Source: source, Trusted: trusted}
	host, port := s, ""
	if rest, ok := strings.CutPrefix(s, "["); ok {
		var found bool
		if host, port, found = strings.Cut(rest, "]"); !found || !strings.Contains(host, ":") {
			return r, fmt.Errorf("%q: an IPv6 address goes in brackets, [::1]", s)
		}
		if port != "" && !strings.HasPrefix(port, ":") {
			return r, fmt.Errorf("%q: after the address comes :port or nothing", s)
		}
		port = strings.TrimPrefix(port, ":")
	} else if strings.Count(s, ":") > 1 {
		return r, fmt.Errorf("%q: an IPv6 address goes in brackets, [::1]", s)
	} else if i := strings.IndexByte(s, ':'); i >= 0 {
		host, port = s[:i], s[i+1:]
	}
	if port != "" || strings.HasSuffix(s, ":") {
		n, err := strconv.Atoi(port)
		if err != nil || n < 1 || n > 65535 {
			return r, fmt.Errorf("%q: the port must be a number from 1 to 65535", s)
		}
		r.Port = n
	}
	host = strings.TrimSuffix(host, ".")
	wild := strings.HasPrefix(host, "*.")
	name := strings.TrimPrefix(host, "*.")
	if !validHost(name) || wild && strings.Contains(name, ":") {
		return r, fmt.Errorf("%q is not a host name, *.domain or an IP address", s)
	}
	r.Host = strings.ToLower(host)
	return r, nil
}

// validHost accepts DNS names of letters, digits, hyphens and dots, and IP addresses.
func validHost(h string) bool {
	if h == "" || len(h) > 253 {
		return false
	}
	if strings.Contains(h, ":") { // IPv6
		return strings.Count(h, ":") >= 2 && strings.Trim(h, "0123456789abcdefABCDEF:.") == ""
	}
	for _, label := range strings.Split(h, ".") {
		if label == "" || len(label) > 63 || label[0] == '-' || label[len(label)-1] == '-' {
			return false
		}
		for _, c := range label {
			if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '-') {
				return false
			}
		}
	}
	return true
}

// Policy is the rules one sandboxed command's proxy enforces.
type Policy struct {
	Rules []Rule `json:"rules"`
	// UnnamedTLS are the hosts (the user's [network] tls_unnamed) whose TLS tunnels may carry
	// no server name, or an encrypted one (ECH): the proxy cannot see which host behind the
	// address such a tunnel reaches. Every other tunnel's ClientHello must name the host the
	// tunnel was allowed for.
	UnnamedTLS []Rule `json:"unnamed_tls,omitempty"`
}

// Admit says which rule, if any, lets a connection to host:port through. host is as the client
// asked for it (a CONNECT target, a request's Host); a name that is not a valid host matches
// nothing.
func (p *Policy) Admit(host string, port int) (Rule, bool) {
	h := strings.ToLower(strings.TrimSuffix(strings.TrimSuffix(strings.TrimPrefix(host, "["), "]"), "."))
	if !validHost(h) {
		return Rule{}, false
	}
	for _, r := range p.Rules {
		if !matchHost(r.Host, h) {
			continue
		}
		if r.Port == port || r.Port == 0 && slices.Contains(defaultPorts, port) {
			return r, true
		}
	}
	return Rule{}, false
}

// AllowsUnnamedTLS says whether a TLS tunnel to host:port may name no server, or an encrypted
// one.
func (p *Policy) AllowsUnnamedTLS(host string, port int) bool {
	_, ok := (&Policy{Rules: p.UnnamedTLS}).Admit(host, port)
	return ok
}

func matchHost(pattern, host string) bool {
	if d, ok := strings.CutPrefix(pattern, "*."); ok {
		return strings.HasSuffix(host, "."+d)
	}
	return pattern == host
}

// New builds the policy of one session: the user's own entries (trusted, and first, so that a
// host the user lists is trusted even where it is also a default or a remote), DefaultHosts,
// and the hosts of its git remotes; unnamedTLS are the user's [network] tls_unnamed. A bad entry of the user's is an error: the config's loader
// reports it before a command ever runs.
func New(remotes, user, unnamedTLS []string) (*Policy, error) {
	p := &Policy{}
	for _, h := range user {
		r, err := ParseRule(h, "config", true)
		if err != nil {
			return nil, err
		}
		p.Rules = append(p.Rules, r)
	}
	for _, h := range unnamedTLS {
		r, err := ParseRule(h, "config", true)
		if err != nil {
			return nil, err
		}
		p.UnnamedTLS = append(p.UnnamedTLS, r)
	}
	for _, h := range DefaultHosts {
		p.Rules = append(p.Rules, Rule{Host: h, Source: "default"})
	}
	for _, h := range remotes {
		if r, err := ParseRule(h, "remote", false); err == nil {
			p.Rules = append(p.Rules, r)
		}
	}
	return p, nil
}

// RemoteHosts reads the hosts of a repository's remotes from the text of its git config (url
// and pushurl in [remote "…"] sections), in any of git's URL forms: scheme://[user@]host[:port]/…
// and the scp-like user@host:path. A remote on a local path has no host. The port of an ssh
// remote is dropped: ssh does not go through the proxy, and the same host's HTTPS does.
func RemoteHosts(gitConfig string) []string {
	var hosts []string
	inRemote := false
	sc := bufio.NewScanner(strings.NewReader(gitConfig))
	for sc.Scan() {
		line := strings.TrimSpace(sc.Text())
		if strings.HasPrefix(line, "[") {
			inRemote = strings.HasPrefix(line, `[remote "`) || strings.HasPrefix(line, "[remote.")
			continue
		}
		key, value, ok := strings.Cut(line, "=")
		if !inRemote || !ok {
			continue
		}
		switch strings.ToLower(strings.TrimSpace(key)) {
		case "url", "pushurl":
			for _, h := range remoteHost(strings.Trim(strings.TrimSpace(value), `"`)) {
				if !slices.Contains(hosts, h) {
					hosts = append(hosts, h)
				}
			}
		}
	}
	return hosts
}

// remoteHost is the rules a remote's URL needs: its host (web ports), and for an ssh remote the
// host on its ssh port too, which git reaches through the proxy with the launcher's ssh
// ProxyCommand (hookctl sandbox --proxy-connect).
func remoteHost(u string) []string {
	if strings.Contains(u, "://") {
		p, err := url.Parse(u)
		if err != nil || p.Scheme == "file" || p.Hostname() == "" {
			return nil
		}
		switch {
		case p.Scheme == "ssh" || p.Scheme == "git+ssh" || p.Scheme == "ssh+git":
			port := p.Port()
			if port == "" {
				port = "22"
			}
			return []string{p.Hostname(), joinHostPort(p.Hostname(), port)}
		case p.Port() != "" && (p.Scheme == "https" || p.Scheme == "http"):
			return []string{p.Host}
		}
		return []string{p.Hostname()}
	}
	// scp-like: [user@]host:path, where host has no slash before the colon: ssh, on port 22.
	host, _, ok := strings.Cut(u, ":")
	if !ok || strings.Contains(host, "/") || filepath.IsAbs(u) {
		return nil
	}
	if i := strings.LastIndexByte(host, '@'); i >= 0 {
		host = host[i+1:]
	}
	if !validHost(host) {
		return nil
	}
	return []string{host, host + ":22"}
}

// joinHostPort is net.JoinHostPort, which this package, linked by hookctl's own executable,
// must not import.
func joinHostPort(host, port string) string {
	if strings.Contains(host, ":") {
		return "[" + host + "]:" + port
	}
	return host + ":" + port
}

// Event is one connection as the proxy reports it to the launcher, one JSON line each, on its
// standard output: refused ones when refused, admitted ones when they close.
type Event struct {
	Host     string `json:"host"`
	Port     int    `json:"port"`
	Method   string `json:"method"` // CONNECT, or the plain-HTTP request's method
	Allowed  bool   `json:"allowed"`
	Rule     string `json:"rule,omitempty"`   // the rule that admitted it (set on a refusal: it failed to connect)
	Reason   string `json:"reason,omitempty"` // why it was refused, or how it failed
	Sent     int64  `json:"sent,omitempty"`   // bytes from the command
	Received int64  `json:"received,omitempty"`
	Millis   int64  `json:"ms,omitempty"`
}

// Refusal is what the launcher writes to the command's standard error when the proxy refuses a
// connection (or an allowed one fails), so that the model reads why its command failed and what
// it can do. publish says the command is a review-mode publish, which may reach the GitHub API
// alone.
func (e *Event) Refusal(publish bool) string {
	target := fmt.Sprintf("%s:%d", e.Host, e.Port)
	switch {
	case e.Rule != "":
		return fmt.Sprintf("hookctl: the egress proxy could not reach %s: %s.", target, e.Reason)
	case publish:
		return fmt.Sprintf("hookctl: a review-mode publish reaches only api.github.com:443; %s was refused (%s).", target, e.Reason)
	}
	return fmt.Sprintf("hookctl: edit mode's network reaches only allowed hosts; %s was refused (%s). "+
		"Fetch web pages with the WebFetch tool; the user can allow a host in hookctl's config ([network] allow), "+
		"or add a git remote's host with `hookctl remotes add HOST`.",
		target, e.Reason)
}

// Config is what the launcher hands the proxy on its standard input.
type Config struct {
	Policy Policy `json:"policy"`
	// Upstream is the user's own proxy (HTTPS_PROXY as the launcher found it), through which
	// the egress proxy connects, or "".
	Upstream string `json:"upstream,omitempty"`
	// NoUpstream is the user's NO_PROXY: hosts reached directly even with an upstream.
	NoUpstream string `json:"no_upstream,omitempty"`
	// Publish: the command is a review-mode publish (refusals say so).
	Publish bool `json:"publish,omitempty"`
}

// BrokerConfig is what hookctl run hands the credential broker (`hookctl-network
// broker`) on its standard input: where the model is, which requests may go there, and the
// credential the broker adds to each of them. The credential travels on this pipe alone: it is
// never in the run's environment, files or command lines.
type BrokerConfig struct {
	// Backend is the model API the run speaks ("anthropic", "openai"): the broker judges each
	// request's body by that API's fields, and refuses a backend it does not know.
	Backend string `json:"backend"`
	// Upstream is the model's base URL (https://api.anthropic.com); request paths are joined
	// to it.
	Upstream string `json:"upstream"`
	// Trusted: the user listed the endpoint in hookctl's config, so it may resolve to loopback
	// or a private address; otherwise only public addresses are reached.
	Trusted bool `json:"trusted,omitempty"`
	// Paths are the request paths admitted: each one, and what lies beneath it.
	Paths []string `json:"paths"`
	// Headers are set on every request sent upstream (the credential); the request's own
	// headers of those names, and every other credential header, are dropped first.
	Headers map[string]string `json:"headers"`
}

// BrokerEvent is one request as the broker reports it, one JSON line each on its standard
// output, when it has been answered or refused.
type BrokerEvent struct {
	Method   string `json:"method"`
	Path     string `json:"path"`
	Status   int    `json:"status,omitempty"`
	Refused  string `json:"refused,omitempty"` // why the broker refused it (it went nowhere)
	Error    string `json:"error,omitempty"`   // how an admitted request failed upstream
	Sent     int64  `json:"sent,omitempty"`
	Received int64  `json:"received,omitempty"`
	Millis   int64  `json:"ms,omitempty"`
	// Model is the model the request asked for (its body's "model"); Client its User-Agent.
	Model  string `json:"model,omitempty"`
	Client string `json:"client,omitempty"`
}
