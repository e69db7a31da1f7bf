package launcher

import (
	"fmt"
	"os"
	"time"

	"github.com/hookctl/hookctl/audit"
	"github.com/hookctl/hookctl/config"
	"github.com/hookctl/hookctl/gate"
	"github.com/hookctl/hookctl/retriever/front"
	"github.com/hookctl/hookctl/sandbox"
	"github.com/hookctl/hookctl/sandbox/egress"
	"github.com/hookctl/hookctl/session"
)

// egressStarter returns what the launcher of the edit or publish profile runs when the command
// first connects: the egress proxy (egress.Supervise, in the retriever's worker beside hookctl)
// serving the listener in the command's network namespace, with newPolicy's policy (edit: the
// package registries, the project's remotes as they were when the session started, the user's
// [network] allow; publish: the GitHub API); and, once the command has ended, the audit of its
// connections.
func (e *Env) egressStarter(home, session, profile string, newPolicy func() (*egress.Policy, error)) func(*os.File) func() {
	return func(listener *os.File) func() {
		policy, err := newPolicy()
		if err != nil {
			fmt.Fprintln(os.Stderr, "hookctl: the egress proxy did not start:", err)
			return nil
		}
		conf := egress.Config{Policy: *policy, Upstream: firstEnv("HTTPS_PROXY", "https_proxy", "HTTP_PROXY", "http_proxy"),
			NoUpstream: firstEnv("NO_PROXY", "no_proxy"), Publish: profile == sandbox.PublishName}
		start := time.Now()
		sup, err := egress.Supervise(front.WorkerPath(e.Binary), listener, conf, os.Stderr)
		if err != nil {
			fmt.Fprintln(os.Stderr, "hookctl: the egress proxy did not start, so the command has no network:", err)
			return nil
		}
		return func() { auditEgress(audit.AuditAt(home), session, profile, start, sup.Stop()) }
	}
}

// auditEgress appends a command's network use to the audit: the command is a sandboxed one,
// whatever tool of whatever client ran it, so the entries name no tool.
func auditEgress(a *audit.Audit, session, profile string, start time.Time, records []egress.Record) {
	for _, r := range records {
		e := &audit.AuditEntry{ID: audit.NewID(r.Time), Time: r.Time, Session: session, Kind: audit.KindEgress, Host: r.Host,
			Outcome: r.Outcome, Rule: r.Rule, Error: r.Error, Connections: r.Connections, Bytes: r.Received, Sent: r.Sent,
			Scrub: "unchecked", Isolation: profile + " sandbox, egress proxy", DurationMS: time.Since(start).Milliseconds()}
		if err := a.Append(e); err != nil {
			fmt.Fprintln(os.Stderr, "hookctl: failed to audit the command's network use:", err)
			return
		}
	}
}

// firstEnv is the value of the first of names that is set and not empty.
func firstEnv(names ...string) string {
	for _, n := range names {
		if v := os.Getenv(n); v != "" {
			return v
		}
	}
	return ""
}

// policyFor is the egress policy of a command under opts's profile: a publish reaches the GitHub
// API alone; an edit-mode command the registries, its project's remotes as recorded when hookctl
// first saw a session there (and as the human added since), and the user's [network] allow.
func policyFor(home string, opts *Options, cfg *config.Config) func() (*egress.Policy, error) {
	if opts.Profile == sandbox.PublishName {
		return publishPolicy
	}
	return func() (*egress.Policy, error) {
		var remotes []string
		if sess, err := session.NewStore(home).Load(opts.Session); err == nil {
			remotes = session.NewProjects(home).RemotesFor(sess)
		}
		return egress.New(remotes, cfg.Network.Allow, cfg.Network.TLSUnnamed)
	}
}

// egressWatch is the watcher a root launcher starts beside the command (sandbox.StartWatcher):
// the bridge's listener comes on descriptor 3.
func egressWatch(e *Env, opts *Options, _ []string, _ Stdio) (int, error) {
	home, err := config.Home()
	if err != nil {
		return 0, err
	}
	cfg, err := gate.LoadConfig(home)
	if err != nil {
		return 0, err
	}
	return 0, sandbox.Watch(3, opts.EgressWatch, e.egressStarter(home, opts.Session, opts.Profile, policyFor(home, opts, cfg)))
}

// publishPolicy is what a publish may reach: the GitHub API (gh's GH_HOST is pinned to
// github.com), on 443, and at public addresses only.
func publishPolicy() (*egress.Policy, error) {
	return &egress.Policy{Rules: []egress.Rule{{Host: "api.github.com", Port: 443, Source: "publish"}}}, nil
}
