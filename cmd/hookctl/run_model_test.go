//go:build linux

package main

import (
	"encoding/json"
	"fmt"
	"net"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"syscall"
	"testing"

	ct "github.com/hookctl/hookctl/agents/claude/claudetest"
	"github.com/hookctl/hookctl/securerun"
)

// realKey is the model credential the caller of hookctl run holds. It may reach the model's
// endpoint, and nothing else: not the run's environment, files or requests' bodies.
const realKey = "sk-ant-api03-REAL-CALLER-KEY-must-not-leak-0123456789"

// modelAttempts tries, under --network model-only, the model through the broker (which must
// work) and everything else of the network (which must not): another loopback port, the other
// server's port on another address, UDP to a resolver, a unix socket, a raw socket, TCP Fast
// Open past connect. It prints "ALLOWED name" for each that worked, and its environment to
// the artifacts.
const modelAttempts = `
import json, os, socket, sys, urllib.request
port, dns = int(sys.argv[1]), int(sys.argv[2])
def attempt(name, f):
    try:
        f(); print("ALLOWED", name)
    except Exception as e:
        print("refused", name, type(e).__name__, e)
def model():
    r = urllib.request.Request(os.environ["ANTHROPIC_BASE_URL"] + "/v1/messages", data=b'{"model":"m","max_tokens":1,"messages":[]}',
                               headers={"x-api-key": os.environ["ANTHROPIC_API_KEY"], "content-type": "application/json"})
    urllib.request.urlopen(r, timeout=10).read()
def model_fetches_for_us():
    # Issue 24: a body that makes the provider fetch a URL (with the repository's secret in it).
    body = b'{"model":"m","max_tokens":1,"messages":[{"role":"user","content":[{"type":"image","source":{"type":"url","url":"http://127.0.0.1:%d/collect?k=secret"}}]}],"mcp_servers":[{"type":"url","name":"x","url":"http://127.0.0.1:%d/"}]}' % (port, port)
    r = urllib.request.Request(os.environ["ANTHROPIC_BASE_URL"] + "/v1/messages", data=body,
                               headers={"x-api-key": os.environ["ANTHROPIC_API_KEY"], "content-type": "application/json"})
    urllib.request.urlopen(r, timeout=10).read()
def broker_elsewhere():
    r = urllib.request.Request(os.environ["ANTHROPIC_BASE_URL"] + "/v1/files")
    urllib.request.urlopen(r, timeout=10).read()
def proxy_request():
    s = socket.create_connection((os.environ["ANTHROPIC_BASE_URL"].split("//")[1].split(":")[0], int(os.environ["ANTHROPIC_BASE_URL"].rsplit(":", 1)[1])), 5)
    s.sendall(b"CONNECT 127.0.0.1:%d HTTP/1.1\r\nHost: x\r\n\r\n" % port)
    if b" 200 " not in s.recv(100): raise Exception("refused by the broker")
attempt("model", model)
attempt("model-fetches-for-us", model_fetches_for_us)
attempt("broker-other-path", broker_elsewhere)
attempt("broker-connect", proxy_request)
attempt("tcp-other-port", lambda: socket.create_connection(("127.0.0.1", port), 3))
attempt("tcp-other-host", lambda: socket.create_connection(("10.0.0.1", port), 3))
attempt("tcp-ipv6", lambda: socket.create_connection(("::1", port), 3))
def udp():
    s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM); s.sendto(b"\x12\x34\x01\x00\x00\x01\x00\x00\x00\x00\x00\x00\x07example\x03com\x00\x00\x01\x00\x01", ("127.0.0.1", dns))
attempt("udp-dns", udp)
attempt("dns-lookup", lambda: socket.getaddrinfo("example.com", 443))
attempt("unix-socket", lambda: socket.socket(socket.AF_UNIX, socket.SOCK_STREAM))
attempt("raw-socket", lambda: socket.socket(socket.AF_INET, socket.SOCK_RAW, socket.IPPROTO_ICMP))
attempt("mptcp", lambda: socket.socket(socket.AF_INET, socket.SOCK_STREAM, 262))
def listen():
    s = socket.socket(); s.bind(("127.0.0.1", 0)); s.listen()
attempt("listen", listen)
def fastopen():
    s = socket.socket(); s.sendto(b"GET / HTTP/1.0\r\n\r\n", 0x20000000, ("127.0.0.1", port))
attempt("tcp-fast-open", fastopen)
json.dump(dict(os.environ), open(os.environ["HOOKCTL_RUN_OUT"] + "/env.json", "w"))
print("done")
`

// serveUDP counts the datagrams that reach a UDP port on loopback: a resolver nobody may ask.
func serveUDP(t *testing.T) (int, *atomic.Int32) {
	c, err := net.ListenPacket("udp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	var n atomic.Int32
	go func() {
		buf := make([]byte, 512)
		for {
			if _, _, err := c.ReadFrom(buf); err != nil {
				return
			}
			n.Add(1)
		}
	}()
	return c.LocalAddr().(*net.UDPAddr).Port, &n
}

// modelWorld is a runWorld whose user allows a fake model endpoint: the Messages API fake of
// the Claude Code tests, on the host's loopback, which the run reaches only through the broker.
func modelWorld(t *testing.T, user *syscall.Credential, script ct.Script) (*runWorld, *ct.API) {
	w := newRunWorld(t, user)
	api := ct.NewAPI(t, script)
	os.MkdirAll(w.hh, 0o700)
	cfg := fmt.Sprintf("[run]\nmodel_endpoints = [%q]\n", api.URL())
	if err := os.WriteFile(filepath.Join(w.hh, "config.toml"), []byte(cfg), 0o600); err != nil {
		t.Fatal(err)
	}
	if user != nil {
		filepath.Walk(w.home, func(p string, _ os.FileInfo, _ error) error { return os.Lchown(p, int(user.Uid), int(user.Gid)) })
	}
	return w, api
}

// TestRunModelOnlyNetwork: under --network model-only a script reaches the model through the
// broker, which adds the caller's real key (the script has a placeholder), and nothing else:
// not a request whose body would make the provider fetch a URL (issue 24), not another loopback server (checked on the server's side), not UDP to a resolver (checked on
// the resolver's), not a unix, raw or MPTCP socket, not a listener, not TCP Fast Open, not the
// broker's other paths or a CONNECT through it. The run's environment holds no credential.
// As root and as an unprivileged user (a user namespace around the network namespace).
func TestRunModelOnlyNetwork(t *testing.T) {
	requireTool(t, "python3")
	forUsers(t, func(t *testing.T, user *syscall.Credential) {
		w, api := modelWorld(t, user, ct.Script{})
		dns, asked := serveUDP(t)
		script := filepath.Join(w.repo, "attempt.py")
		os.WriteFile(script, []byte(modelAttempts), 0o644)
		if user != nil {
			os.Chown(script, int(user.Uid), int(user.Gid))
		}
		stdout, stderr, code := w.run(t, []string{"ANTHROPIC_API_KEY=" + realKey},
			"run", "--profile", "secure-read-only", "--network", "model-only", "--model-url", api.URL(), "--out", w.out, "--", "/usr/bin/python3", "attempt.py", fmt.Sprint(w.port), fmt.Sprint(dns))
		if code != 0 || !strings.Contains(stdout, "done") {
			t.Fatalf("exit %d\n%s\n%s", code, stdout, stderr)
		}
		for _, line := range strings.Split(stdout, "\n") {
			name, ok := strings.CutPrefix(line, "ALLOWED ")
			if ok && name != "model" {
				t.Errorf("%s worked under model-only", name)
			}
		}
		if !strings.Contains(stdout, "ALLOWED model") {
			t.Errorf("the model was not reachable through the broker:\n%s\n%s", stdout, stderr)
		}
		if n := w.reached.Load(); n != 0 {
			t.Errorf("the other loopback server was reached %d times", n)
		}
		if n := asked.Load(); n != 0 {
			t.Errorf("the resolver got %d datagrams", n)
		}
		reqs := api.Requests()
		if len(reqs) != 1 || reqs[0].Credential != realKey || reqs[0].Path != "/v1/messages" {
			t.Errorf("the model saw %+v, want one /v1/messages with the caller's key", reqs)
		}
		env, err := os.ReadFile(filepath.Join(w.out, "artifacts", "env.json"))
		if err != nil {
			t.Fatal(err)
		}
		var vars map[string]string
		json.Unmarshal(env, &vars)
		if strings.Contains(string(env), realKey) || vars["ANTHROPIC_API_KEY"] != securerun.PlaceholderValue ||
			!strings.HasPrefix(vars["ANTHROPIC_BASE_URL"], "http://127.0.0.1:") {
			t.Errorf("the run's environment: %s", env)
		}
		m := w.meta(t)
		raw, _ := os.ReadFile(filepath.Join(w.out, securerun.MetaName))
		if strings.Contains(string(raw), realKey) {
			t.Error("runmeta.json holds the key")
		}
		if m.Network == nil || m.Network.Requests != 1 || m.Network.Refused != 3 || m.Network.BrokerError != "" {
			t.Errorf("runmeta network: %+v", m.Network)
		}
		if m.Preflight.Model == nil || m.Preflight.Model.Broker == nil || m.Preflight.Model.Broker.Variable != "ANTHROPIC_API_KEY" {
			t.Errorf("runmeta model: %+v", m.Preflight.Model)
		}
	})
}

// TestRunModelOnlyRefusals: model-only refuses to start without the credential, for a model URL
// that is not on the user's allowlist, and for a clear-text one hookctl did not get from the
// user; each says what to do.
func TestRunModelOnlyRefusals(t *testing.T) {
	w, api := modelWorld(t, nil, ct.Script{})
	for _, c := range []struct {
		env, args []string
		want      string
	}{
		{nil, []string{"--model-url", api.URL()}, "needs the model's credential in ANTHROPIC_API_KEY or ANTHROPIC_AUTH_TOKEN"},
		{[]string{"ANTHROPIC_API_KEY=" + realKey}, []string{"--model-url", "http://127.0.0.1:1"}, "is not on your allowlist"},
		{[]string{"ANTHROPIC_API_KEY=" + realKey, "ANTHROPIC_BASE_URL=https://evil.example"}, nil, "https://evil.example (ANTHROPIC_BASE_URL) is not on your allowlist"},
		{[]string{"ANTHROPIC_API_KEY=" + realKey}, []string{"--model-url", api.URL(), "--model-backend", "gemini"}, `--model-backend "gemini"`},
	} {
		args := append(append([]string{"run", "--profile", "secure-read-only", "--network", "model-only", "--out", w.out}, c.args...), "--", "true")
		_, stderr, code := w.run(t, c.env, args...)
		if code != securerun.ExitNotStarted || !strings.Contains(stderr, c.want) || strings.Contains(stderr, realKey) {
			t.Errorf("%q: exit %d, want %q\n%s", c.args, code, c.want, stderr)
		}
	}
	if len(api.Requests()) != 0 {
		t.Error("a refused run reached the model")
	}
}

// TestRunModelOnlyDryRun: the preflight of a model-only run of Claude Code says where the model
// is, how the broker adds the credential (its variable and header, never its value), what the
// agent sees instead, the flags and hooks hookctl adds, and what of the agent's configuration is
// not loaded; as text and as JSON.
func TestRunModelOnlyDryRun(t *testing.T) {
	claude := ct.Binary(t)
	w, api := modelWorld(t, nil, ct.Script{})
	args := []string{"run", "--profile", "secure-read-only", "--network", "model-only", "--model-url", api.URL(),
		"--read", filepath.Dir(filepath.Dir(claude)), "--out", w.out, "--dry-run", "--", claude, "-p", "review"}
	stdout, stderr, code := w.run(t, []string{"ANTHROPIC_API_KEY=" + realKey}, args...)
	if code != 0 {
		t.Fatalf("exit %d\n%s\n%s", code, stdout, stderr)
	}
	for _, want := range []string{
		"network      model-only: a network namespace holding only loopback",
		"to         " + api.URL() + " (through hookctl's credential broker)",
		"from ANTHROPIC_API_KEY as the X-Api-Key header, to " + api.URL() + " only",
		"the agent sees: ANTHROPIC_BASE_URL ANTHROPIC_API_KEY=" + securerun.PlaceholderValue,
		"agent        Claude Code: hookctl's hooks installed for the run, pinned read-only",
		"flags added: --settings " + filepath.Join(w.out, "config", "claude-settings.json") + " --setting-sources user --strict-mcp-config",
		"not loaded MCP servers from .mcp.json or any settings (--strict-mcp-config)",
		"the run starts under this policy",
	} {
		if !strings.Contains(stdout, want) {
			t.Errorf("the preflight lacks %q:\n%s", want, stdout)
		}
	}
	if strings.Contains(stdout+stderr, realKey) {
		t.Error("the preflight shows the key")
	}
	stdout, _, code = w.run(t, []string{"ANTHROPIC_API_KEY=" + realKey}, append(args[:len(args)-4], "--json", "--", claude, "-p", "review")...)
	var p securerun.Preflight
	if err := json.Unmarshal([]byte(stdout), &p); err != nil || code != 0 {
		t.Fatalf("--json: exit %d %v\n%s", code, err, stdout)
	}
	if p.Model == nil || p.Model.Broker == nil || p.Agent == nil || p.Agent.Client != "Claude Code" || p.Network.Policy != "model-only" ||
		len(p.Command) < 5 || p.Command[1] != "--settings" || strings.Contains(stdout, realKey) {
		t.Errorf("--json: %s", stdout)
	}
	if _, err := os.Stat(w.out); err == nil {
		t.Error("--dry-run made the output directory")
	}
}
