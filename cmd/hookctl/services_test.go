//go:build linux

package main

import (
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/hookctl/hookctl/internal/loopback"
)

// services are stand-ins of what a developer's machine runs on unix sockets, each started
// outside any sandbox, as the world's user where it matters (tmux, the session bus and the
// ssh agent check who connects): a tmux server with a shell, a D-Bus session bus that can start
// a service, a container engine's API (rootless Docker's socket and Docker Desktop's link to
// it), containerd's socket, an ssh agent, and an abstract socket.
type services struct {
	dir                     string
	tmux, bus, busConf      string
	docker, dockerLink      string
	containerd, agent       string
	abstract                string
	created, reached, heard atomic.Int32 // containers created, containerd connections, abstract ones
}

func startServices(t *testing.T, w *editWorld) *services {
	t.Helper()
	for _, tool := range []string{"tmux", "dbus-daemon", "dbus-send", "ssh-agent", "ssh-add", "curl", "python3"} {
		requireTool(t, tool)
	}
	s := &services{dir: filepath.Join(filepath.Dir(w.home), "services")}
	for _, d := range []string{"", "xdg", "run", "run/containerd", "dbus"} {
		os.MkdirAll(filepath.Join(s.dir, d), 0o755)
		w.chown(filepath.Join(s.dir, d))
	}
	s.tmux = filepath.Join(s.dir, "tmux.sock")
	// tmux runs a session's command with the user's shell, taken from SHELL or else the
	// password file, where the world's user has nologin: the victim's pane would die at once.
	if out, err := w.shell(t, "SHELL=/bin/bash tmux -S "+s.tmux+" new-session -d -s victim 'bash --norc --noprofile' && sleep 0.2 && tmux -S "+s.tmux+" has-session -t victim"); err != nil {
		t.Fatalf("tmux: %v %s", err, out)
	}
	t.Cleanup(func() { w.shell(t, "tmux -S "+s.tmux+" kill-server") })

	s.bus = filepath.Join(s.dir, "bus.sock")
	s.busConf = filepath.Join(s.dir, "bus.conf")
	os.WriteFile(s.busConf, []byte(`<!DOCTYPE busconfig PUBLIC "-//freedesktop//DTD D-Bus Bus Configuration 1.0//EN"
 "http://www.freedesktop.org/standards/dbus/1.0/busconfig.dtd">
<busconfig><type>session</type><listen>unix:path=`+s.bus+`</listen><servicedir>`+filepath.Join(s.dir, "dbus")+`</servicedir>
<auth>EXTERNAL</auth><policy context="default"><allow send_destination="*" eavesdrop="true"/><allow eavesdrop="true"/><allow own="*"/></policy></busconfig>
`), 0o644)
	os.WriteFile(filepath.Join(s.dir, "dbus", "org.hookctl.Victim.service"), []byte("[D-BUS Service]\nName=org.hookctl.Victim\nExec=/bin/bash -c true\n"), 0o644)
	out, err := w.shell(t, "dbus-daemon --config-file="+s.busConf+" --fork --print-pid")
	if err != nil {
		t.Fatalf("dbus-daemon: %v %s", err, out)
	}
	pid := strings.TrimSpace(out)
	t.Cleanup(func() { w.shell(t, "kill "+pid) })

	// The container engine's API: an HTTP server that records the containers it is asked to
	// create.
	s.docker = filepath.Join(s.dir, "xdg", "docker.sock")
	s.dockerLink = filepath.Join(s.dir, "run", "docker.sock")
	l := listenUnix(t, s.docker)
	mux := http.NewServeMux()
	mux.HandleFunc("/containers/create", func(rw http.ResponseWriter, r *http.Request) {
		if r.Method == http.MethodPost {
			s.created.Add(1)
		}
		io.WriteString(rw, `{"Id":"c0ffee"}`)
	})
	srv := &http.Server{Handler: mux}
	go srv.Serve(l)
	t.Cleanup(func() { srv.Close() })
	os.Symlink(s.docker, s.dockerLink)

	s.containerd = filepath.Join(s.dir, "run", "containerd", "containerd.sock")
	countConns(t, listenUnix(t, s.containerd), &s.reached)
	s.abstract = fmt.Sprintf("hookctl-victim-%d-%d", os.Getpid(), time.Now().UnixNano())
	countConns(t, loopback.Listen(t, "unix", "@"+s.abstract), &s.heard)

	s.agent = filepath.Join(s.dir, "agent.sock")
	if out, err := w.shell(t, "ssh-agent -a "+s.agent+" > "+filepath.Join(s.dir, "agent.env")); err != nil {
		t.Fatalf("ssh-agent: %v %s", err, out)
	}
	t.Cleanup(func() { w.shell(t, ". "+filepath.Join(s.dir, "agent.env")+" >/dev/null; ssh-agent -k >/dev/null") })
	return s
}

// listenUnix listens on a unix socket anyone may connect to (the world's user does).
func listenUnix(t *testing.T, path string) net.Listener {
	t.Helper()
	l := loopback.Listen(t, "unix", path)
	os.Chmod(path, 0o777)
	return l
}

// countConns counts the connections l accepts that send anything.
func countConns(t *testing.T, l net.Listener, n *atomic.Int32) {
	loopback.Go(l, func(c net.Conn) {
		c.SetReadDeadline(time.Now().Add(2 * time.Second))
		if b := make([]byte, 1); func() bool { k, _ := c.Read(b); return k > 0 }() {
			n.Add(1)
		}
	})
}

// socketAttack is one attempt on a service outside, and how to tell it worked.
type socketAttack struct {
	name, script string
	worked       func() bool
}

// attacks are the socket attacks on s; canary is the file the tmux and D-Bus payloads make.
func (s *services) attacks(canary string, ran func() bool) []socketAttack {
	payload := filepath.Join(s.dir, "payload.sh")
	os.WriteFile(payload, []byte("touch "+canary+"\n"), 0o755)
	waitRan := func() bool {
		for i := 0; i < 30; i++ {
			if ran() {
				return true
			}
			time.Sleep(100 * time.Millisecond)
		}
		return false
	}
	bus := "dbus-send --bus=unix:path=" + s.bus + " --print-reply --reply-timeout=3000 --dest=org.freedesktop.DBus /org/freedesktop/DBus org.freedesktop.DBus."
	py := func(code string) string { return "python3 -c " + shellQuote(code) }
	create := func(sock string) string {
		return `import socket; c=socket.socket(socket.AF_UNIX); c.connect("` + sock + `"); ` +
			`c.send(b"POST /containers/create HTTP/1.0\r\nContent-Length: 2\r\n\r\n{}"); print(c.recv(64))`
	}
	counted := func(n *atomic.Int32) func() bool {
		before := n.Load()
		return func() bool { time.Sleep(200 * time.Millisecond); return n.Load() > before }
	}
	return []socketAttack{
		{"tmux send-keys into the user's pane", "tmux -S " + s.tmux + " send-keys -t victim 'touch " + canary + "' Enter", waitRan},
		{"D-Bus: BASH_ENV into the activation environment, then start a service",
			bus + "UpdateActivationEnvironment dict:string:string:BASH_ENV," + payload + " && " + bus + "StartServiceByName string:org.hookctl.Victim uint32:0", waitRan},
		{"rootless Docker's socket: create a container", py(create(s.docker)), counted(&s.created)},
		{"Docker Desktop's link to it", py(create(s.dockerLink)), counted(&s.created)},
		{"the link, by curl", "curl -s --unix-socket " + s.dockerLink + " -X POST http://docker/containers/create -d '{}'", counted(&s.created)},
		{"containerd's socket", py(`import socket; c=socket.socket(socket.AF_UNIX); c.connect("` + s.containerd + `"); c.send(b"PRI * HTTP/2.0")`), counted(&s.reached)},
		{"containerd's socket through a relative path", "cd " + filepath.Dir(s.containerd) + " && " + py(`import socket; c=socket.socket(socket.AF_UNIX); c.connect("containerd.sock"); c.send(b"x")`), counted(&s.reached)},
		{"an abstract socket", py(`import socket; c=socket.socket(socket.AF_UNIX); c.connect("\0` + s.abstract + `"); c.send(b"x")`), counted(&s.heard)},
		{"an ssh agent the user did not list", "SSH_AUTH_SOCK=" + s.agent + " ssh-add -l; [ $? -le 1 ] && touch " + canary, waitRan},
	}
}

// TestSocketsOfServicesOutside: issue 22's unix socket attacks and more, against stand-ins.
// Control: each works without hookctl. Then, as root and as an unprivileged user, under every
// profile that could reach them: edit mode through the hook's rewrite (the supervisor refuses a
// socket whose listener is outside the sandbox), a publish as review mode's rewrite runs it
// (no unix socket at all), and a read-only command as the hook's rewrite runs it (no connect).
// What edit mode needs still works: a socket made inside, and the ssh agent the user runs.
func TestSocketsOfServicesOutside(t *testing.T) {
	forEditWorlds(t, func(t *testing.T, w *editWorld) {
		s := startServices(t, w)
		canary, ran := w.canary(t)
		for _, a := range s.attacks(canary, ran) {
			if out, _ := w.shell(t, a.script); !a.worked() {
				t.Errorf("control: %s did not work without hookctl: %s", a.name, out)
			}
		}
		profiles := []struct {
			name string
			run  func(script string) string
		}{
			{"edit", func(script string) string { out, _, _ := w.viaHook(t, script); return out }},
			{"publish", func(script string) string { return w.inSandbox(t, script, "--profile", "publish") }},
			{"read-only", func(script string) string { return w.inSandbox(t, script) }},
		}
		for _, p := range profiles {
			held := 0
			for _, a := range s.attacks(canary, ran) {
				out := p.run(a.script)
				if a.worked() {
					t.Errorf("%s: %s reached the service outside:\n%s", p.name, a.name, out)
					continue
				}
				held++
				switch {
				case p.name != "edit":
				case strings.HasPrefix(a.name, "the link, by curl"):
					// curl is a web fetch, which edit mode's hook sends to the retriever.
				case a.name == "an abstract socket" && strings.Contains(out, "Connection refused"):
					// Abstract names belong to a network namespace: edit mode's own has none of
					// the user's (the supervisor refuses one where edit mode has the whole network).
				case !strings.Contains(out, "outside edit mode's sandbox"):
					t.Errorf("edit: %s: no refusal saying why:\n%s", a.name, out)
				}
			}
			t.Logf("%s: %d of %d attacks on services outside refused", p.name, held, len(s.attacks(canary, ran)))
		}
		// What edit mode's commands need of unix sockets still works: one made inside the
		// sandbox, and the ssh agent the user runs (SSH_AUTH_SOCK when the command starts).
		inside := `import socket, tempfile; p = tempfile.mkdtemp() + "/s.sock"; l = socket.socket(socket.AF_UNIX); l.bind(p); l.listen(); ` +
			`c = socket.socket(socket.AF_UNIX); c.connect(p); a, _ = l.accept(); c.send(b"ok"); print(a.recv(2).decode())`
		if out, _, refused := w.viaHook(t, "python3 -c "+shellQuote(inside)); refused || strings.TrimSpace(out) != "ok" {
			t.Errorf("a unix socket made inside edit mode's sandbox: refused %v, %q", refused, out)
		}
		w.env = append(w.env, "SSH_AUTH_SOCK="+s.agent)
		if out, _, _ := w.viaHook(t, "ssh-add -l; echo status $?"); !strings.Contains(out, "status 1") {
			t.Errorf("the user's ssh agent from edit mode: %q", out)
		}
		// With the user's whole network (network.edit = "full"), abstract sockets of the
		// machine are in reach of a connect: the supervisor refuses them as it does files.
		config := filepath.Join(w.hh, "config.toml")
		os.WriteFile(config, []byte("[network]\nedit = \"full\"\n"), 0o600)
		w.chown(config)
		for _, a := range s.attacks(canary, ran) {
			if a.name != "an abstract socket" && a.name != "tmux send-keys into the user's pane" {
				continue
			}
			out, _ := w.run(t, a.script)
			if a.worked() || !strings.Contains(out, "outside edit mode's sandbox") {
				t.Errorf("edit with the whole network: %s: %s", a.name, out)
			}
		}
	})
}
