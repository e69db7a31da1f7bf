package main

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"time"

	"github.com/hookctl/hookctl/audit"
	"github.com/hookctl/hookctl/retriever/front"
	"github.com/hookctl/hookctl/sandbox"
	"github.com/hookctl/hookctl/sandbox/egress"
)

// Bounds on what one command's proxy reports: the refusals the audit keeps one by one (the
// rest are counted), the length of one event line, and how long the proxy gets to finish its
// reports once the command has ended.
const (
	maxRefusalsAudited = 20
	maxEventLine       = 16 << 10
	egressStopWait     = 2 * time.Second
)

// egressStarter returns what the launcher of the edit or publish profile runs when the command
// first connects:
// the egress proxy (the retriever's worker, as `hookctl-retrieve-worker egress`, which has the
// network and no file access) serving the listener in the command's network namespace, with
// newPolicy's policy (edit: the package registries, the project's remotes as they were when the
// session started, the user's [network] allow; publish: the GitHub API). The launcher keeps the file access: it writes
// each refusal to the command's standard error, for the model, and the connections to the
// audit once the command has ended.
func egressStarter(home, session, profile string, newPolicy func() (*egress.Policy, error)) func(*os.File) func() {
	return func(listener *os.File) func() {
		policy, err := newPolicy()
		if err != nil {
			fmt.Fprintln(os.Stderr, "hookctl: the egress proxy did not start:", err)
			return nil
		}
		conf := egress.Config{Policy: *policy, Upstream: firstEnv("HTTPS_PROXY", "https_proxy", "HTTP_PROXY", "http_proxy"),
			NoUpstream: firstEnv("NO_PROXY", "no_proxy"), Publish: profile == sandbox.PublishName}
		cmd := exec.Command(front.WorkerPath(hookEnv().binary), "egress")
		cmd.ExtraFiles = []*os.File{listener}
		cmd.Env, cmd.Dir, cmd.Stderr = []string{}, "/", os.Stderr
		diesWithParent(cmd)
		stdin, err1 := cmd.StdinPipe()
		stdout, err2 := cmd.StdoutPipe()
		if err := firstErr(err1, err2, cmd.Start()); err != nil {
			fmt.Fprintln(os.Stderr, "hookctl: the egress proxy did not start, so the command has no network:", err)
			return nil
		}
		json.NewEncoder(stdin).Encode(conf)
		log := &egressLog{start: time.Now(), session: session, profile: profile, hosts: map[string]*audit.AuditEntry{}}
		read := make(chan struct{})
		go func() {
			defer close(read)
			log.read(stdout)
		}()
		return func() {
			stdin.Close()
			t := time.AfterFunc(egressStopWait, func() { cmd.Process.Kill() })
			<-read
			cmd.Wait()
			t.Stop()
			log.flush(audit.AuditAt(home))
		}
	}
}

func firstErr(errs ...error) error {
	for _, e := range errs {
		if e != nil {
			return e
		}
	}
	return nil
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

// egressLog gathers one command's connections: one audit entry per host admitted (connections
// counted, bytes summed), one per refusal up to maxRefusalsAudited.
type egressLog struct {
	start    time.Time
	session  string
	profile  string
	hosts    map[string]*audit.AuditEntry
	order    []string
	refused  []*audit.AuditEntry
	overflow int
}

func (l *egressLog) read(r io.Reader) {
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 4096), maxEventLine)
	for sc.Scan() {
		var ev egress.Event
		if json.Unmarshal(sc.Bytes(), &ev) != nil {
			continue
		}
		target := fmt.Sprintf("%s:%d", ev.Host, ev.Port)
		if !ev.Allowed {
			fmt.Fprintln(os.Stderr, ev.Refusal(l.profile == sandbox.PublishName))
			if len(l.refused) == maxRefusalsAudited {
				l.overflow++
				continue
			}
			outcome := "refused"
			if ev.Rule != "" {
				outcome = "failed" // allowed, and it could not connect
			}
			l.refused = append(l.refused, &audit.AuditEntry{Time: time.Now(), Host: target, Outcome: outcome, Rule: ev.Rule, Error: ev.Reason, Connections: 1})
			continue
		}
		e := l.hosts[target]
		if e == nil {
			e = &audit.AuditEntry{Time: time.Now(), Host: target, Outcome: "allowed", Rule: ev.Rule}
			l.hosts[target] = e
			l.order = append(l.order, target)
		}
		e.Connections++
		e.Bytes += ev.Received
		e.Sent += ev.Sent
	}
	io.Copy(io.Discard, r)
}

func (l *egressLog) flush(a *audit.Audit) {
	entries := l.refused
	for _, h := range l.order {
		entries = append(entries, l.hosts[h])
	}
	if l.overflow > 0 {
		entries = append(entries, &audit.AuditEntry{Time: time.Now(), Outcome: "refused", Connections: l.overflow,
			Error: fmt.Sprintf("%d more refused connections, not listed", l.overflow)})
	}
	for _, e := range entries {
		e.ID, e.Session, e.Tool, e.Kind = audit.NewID(e.Time), l.session, "Bash", audit.KindEgress
		e.Scrub, e.Isolation = "unchecked", l.profile+" sandbox, egress proxy"
		e.DurationMS = time.Since(l.start).Milliseconds()
		if err := a.Append(e); err != nil {
			fmt.Fprintln(os.Stderr, "hookctl: failed to audit the command's network use:", err)
			return
		}
	}
}
