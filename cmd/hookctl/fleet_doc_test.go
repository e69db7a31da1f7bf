//go:build linux

package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// fleetWorld is a machine as docs/fleet.md finds it: a developer (uid 65534) with a home,
// an administrator with a directory of their own, hookctl installed, and no /etc/hookctl. Each
// command runs in a mount namespace whose /etc is the machine's with a layer of the world's
// own over it (overlayfs), so what the administrator writes under /etc stays in the world and
// persists from one command to the next, and the machine's /etc is untouched.
type fleetWorld struct {
	root, bin, home, admin string
	upper, work            string // the layer over /etc, and overlayfs's work directory
}

func newFleetWorld(t *testing.T) *fleetWorld {
	t.Helper()
	requireTool(t, "unshare")
	requireTool(t, "setpriv")
	if os.Geteuid() != 0 {
		t.Skip("mounting a layer over /etc needs root")
	}
	root := machineDir(t, "hookctl-fleet-doc-")
	w := &fleetWorld{root: root, bin: filepath.Join(root, "bin", "hookctl"), home: filepath.Join(root, "home"), admin: filepath.Join(root, "admin")}
	w.layer(t)
	// hookctl as make install leaves it: its exporter and retriever beside it.
	os.MkdirAll(filepath.Dir(w.bin), 0o755)
	for _, name := range []string{"hookctl", "hookctl-export", "hookctl-network"} {
		b, err := os.ReadFile(filepath.Join(filepath.Dir(hookctlBinary(t)), name))
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(filepath.Dir(w.bin), name), b, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	os.MkdirAll(filepath.Join(w.home, ".config", "hookctl"), 0o755)
	os.MkdirAll(filepath.Join(w.home, ".aws"), 0o755)
	os.WriteFile(filepath.Join(w.home, ".aws", "credentials"), []byte("[default]\naws_secret_access_key = CANARY\n"), 0o600)
	filepath.Walk(w.home, func(p string, _ os.FileInfo, _ error) error { return os.Lchown(p, int(nobody.Uid), int(nobody.Gid)) })
	os.Mkdir(w.admin, 0o700)
	return w
}

// layer starts a new, empty layer over /etc: a machine the administrator has not touched.
func (w *fleetWorld) layer(t *testing.T) {
	t.Helper()
	up, err := os.MkdirTemp(w.root, "etc-")
	if err != nil {
		t.Fatal(err)
	}
	w.upper, w.work = filepath.Join(up, "upper"), filepath.Join(up, "work")
	os.Mkdir(w.upper, 0o755)
	os.Mkdir(w.work, 0o700)
}

// run runs one command of the document: a `sudo` command as root from the administrator's
// directory, any other as the developer in their home, with hookctl on the PATH.
func (w *fleetWorld) run(t *testing.T, command string) string {
	t.Helper()
	argv := []string{"unshare", "--mount", "--propagation", "private", "--", "sh", "-c",
		`mount -t overlay overlay -o "lowerdir=/etc,upperdir=$0,workdir=$1" /etc && shift && exec "$@"`, w.upper, w.work}
	dir := w.admin
	if !strings.HasPrefix(command, "sudo ") {
		argv, dir = append(argv, "setpriv", "--reuid=65534", "--regid=65534", "--clear-groups"), w.home
	}
	argv = append(argv, "bash", "-c", "sudo() { \"$@\"; }\n"+command)
	cmd := exec.Command(argv[0], argv[1:]...)
	cmd.Dir = dir
	home := w.home
	if dir == w.admin {
		home = w.admin // sudo's HOME is root's
	}
	cmd.Env = []string{"PATH=" + filepath.Dir(w.bin) + ":" + os.Getenv("PATH"), "HOME=" + home, "LANG=C.UTF-8", "TERM=dumb", "TMPDIR=" + home}
	out, err := cmd.CombinedOutput()
	if strings.Contains(string(out), "mount: ") {
		t.Fatalf("the layer over /etc: %v\n%s", err, out)
	}
	return string(out)
}

// fleetSetups are the states a docs/fleet.md example starts from (`<!-- example setup: NAME -->`
// before its block), as its text describes them.
var fleetSetups = map[string]func(t *testing.T, w *fleetWorld, toml string){
	"the policy above saved as config.toml": func(t *testing.T, w *fleetWorld, toml string) {
		if err := os.WriteFile(filepath.Join(w.admin, "config.toml"), []byte(toml), 0o644); err != nil {
			t.Fatal(err)
		}
	},
	"the [telemetry] section above added to /etc/hookctl/config.toml": func(t *testing.T, w *fleetWorld, toml string) {
		path := filepath.Join(w.upper, "hookctl", "config.toml")
		b, err := os.ReadFile(path)
		if err != nil {
			t.Fatalf("the administrator's policy is not in place: %v", err)
		}
		if err := os.WriteFile(path, append(append(b, '\n'), toml...), 0o644); err != nil {
			t.Fatal(err)
		}
	},
	`a developer whose config.toml sets default_mode = "edit" and allow_read = ["~/.aws"]`: func(t *testing.T, w *fleetWorld, _ string) {
		path := filepath.Join(w.home, ".config", "hookctl", "config.toml")
		if err := os.WriteFile(path, []byte("default_mode = \"edit\"\nallow_read = [\"~/.aws\"]\n"), 0o600); err != nil {
			t.Fatal(err)
		}
		os.Lchown(path, int(nobody.Uid), int(nobody.Gid))
	},
}

// TestFleetDocExamples follows docs/fleet.md as an administrator and a developer would: every
// command of its console examples runs, in order, on a fleetWorld, and prints what the document
// shows (`…` as in the README's examples); the administrator's steps start from a machine with
// no /etc/hookctl. Control: the same developer on an untouched machine reads the credentials
// the policy keeps closed.
func TestFleetDocExamples(t *testing.T) {
	w := newFleetWorld(t)
	b, err := os.ReadFile(filepath.Join("..", "..", "docs", "fleet.md"))
	if err != nil {
		t.Fatal(err)
	}
	normalize := func(s string) string { return strings.ReplaceAll(s, w.home, "/home/you") }
	lines := strings.Split(string(b), "\n")
	lastTOML, ran := "", 0
	for i := 0; i < len(lines); i++ {
		if lines[i] == "```toml" {
			var block []string
			block, i = fenced(lines, i)
			lastTOML = strings.Join(block, "\n") + "\n"
			continue
		}
		if name, ok := strings.CutPrefix(lines[i], "<!-- example setup: "); ok {
			setup := fleetSetups[strings.TrimSuffix(name, " -->")]
			if setup == nil {
				t.Fatalf("docs/fleet.md:%d: no setup named %q", i+1, name)
			}
			setup(t, w, lastTOML)
			continue
		}
		if lines[i] != "```console" {
			continue
		}
		block, end := fenced(lines, i)
		i = end
		for _, ex := range consoleExamples(block) {
			out := w.run(t, ex.command)
			ran++
			if !matchExample(normalize(ex.want), normalize(out)) {
				t.Errorf("docs/fleet.md: $ %s\nprints:\n%s\nthe document shows:\n%s", ex.command, out, ex.want)
			}
		}
	}
	if ran < 4 {
		t.Errorf("ran %d examples of docs/fleet.md; the reader is broken", ran)
	}
	if fi, err := os.Stat(filepath.Join(w.upper, "hookctl", "config.toml")); err != nil || fi.Mode().Perm() != 0o644 {
		t.Errorf("the administrator's steps did not install the policy: %v", err)
	}
	w.layer(t)
	if out := w.run(t, "hookctl check -- 'cat ~/.aws/credentials'; echo exit $?"); !strings.HasPrefix(out, "allow") || !strings.HasSuffix(out, "exit 0\n") {
		t.Errorf("control: on a machine without the policy the developer's allow_read does not open ~/.aws:\n%s", out)
	}
}
