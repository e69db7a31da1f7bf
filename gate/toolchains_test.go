package gate

import (
	"maps"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/hookctl/hookctl/config"
	"github.com/hookctl/hookctl/fixtures/hostile"
	"github.com/hookctl/hookctl/hook"
	"github.com/hookctl/hookctl/internal/shellglob"
	"github.com/hookctl/hookctl/internal/testbin"
	"github.com/hookctl/hookctl/policy"
)

// toolWorld is a project and a home for one toolchain test: traps in bin/ (first on PATH)
// append their arguments to canary/<name> and fail.
type toolWorld struct {
	t                               *testing.T
	project, home, tmp, canary, bin string
}

func newToolWorld(t *testing.T) *toolWorld {
	t.Helper()
	dir := t.TempDir()
	if real, err := filepath.EvalSymlinks(dir); err == nil {
		dir = real
	}
	w := &toolWorld{t: t, project: filepath.Join(dir, "project"), home: filepath.Join(dir, "home"),
		tmp: filepath.Join(dir, "tmp"), canary: filepath.Join(dir, "canary"), bin: filepath.Join(dir, "bin")}
	for _, d := range []string{w.project, w.home, w.tmp, w.canary, w.bin} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	return w
}

// write writes a file under the world's directory (project/…, home/…, bin/…).
func (w *toolWorld) write(rel, text string, mode os.FileMode) string {
	w.t.Helper()
	p := filepath.Join(filepath.Dir(w.project), rel)
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		w.t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte(text), mode); err != nil {
		w.t.Fatal(err)
	}
	return p
}

// trap writes bin/name, a program that records its arguments in canary/name and fails.
func (w *toolWorld) trap(name string) string {
	return w.write("bin/"+name, "#!/bin/sh\necho \"$*\" >> "+filepath.Join(w.canary, name)+"\nexit 1\n", 0o755)
}

// env is the caller's PATH behind bin/, the world's HOME and TMPDIR, and rustup's toolchains.
func (w *toolWorld) env() []string {
	env := []string{"PATH=" + w.bin + ":" + os.Getenv("PATH"), "HOME=" + w.home, "TMPDIR=" + w.tmp, "LANG=C.UTF-8", "USER=" + os.Getenv("USER")}
	return append(env, hostile.Rustup()...)
}

// run runs command under bash in dir (the project if ""), with the world's environment, and
// returns what it printed and the traps it sprang: canary name → the arguments they got.
func (w *toolWorld) run(dir, command string) (string, map[string]string) {
	w.t.Helper()
	os.RemoveAll(w.canary)
	os.MkdirAll(w.canary, 0o755)
	if dir == "" {
		dir = w.project
	}
	cmd := exec.Command("bash", "--norc", "--noprofile", "-c", command)
	cmd.Dir, cmd.Env = dir, w.env()
	out, _ := cmd.CombinedOutput()
	sprung := map[string]string{}
	entries, _ := os.ReadDir(w.canary)
	for _, e := range entries {
		b, _ := os.ReadFile(filepath.Join(w.canary, e.Name()))
		sprung[e.Name()] = string(b)
	}
	return string(out), sprung
}

// snapshot is the project and the home, for before-and-after comparisons (run reports the
// canaries), but for the sandbox's scratch directories in hookctl's home (and that home, which
// the launcher makes for them): the one place a sandboxed command may write.
func (w *toolWorld) snapshot() hostile.State {
	w.t.Helper()
	s, err := hostile.Snapshot(w.project, w.home)
	if err != nil {
		w.t.Fatal(err)
	}
	hh := filepath.Join(w.home, ".config", "hookctl")
	for p := range s {
		if p == hh || strings.HasPrefix(p, filepath.Join(hh, "scratch")) {
			delete(s, p)
		}
	}
	config := filepath.Dir(hh) // made with it, when the home had none
	if !slices.ContainsFunc(slices.Collect(maps.Keys(s)), func(p string) bool { return strings.HasPrefix(p, config+"/") }) {
		delete(s, config)
	}
	return s
}

// rewritten is command as the hook runs it inside the sandbox, after checking that the policy
// admits it for the sandbox only: the hook's sandboxed command with the launcher replaced by
// passThrough, so that what runs, outside the sandbox, is the script the sandboxed bash would.
func rewritten(t *testing.T, command string) string {
	t.Helper()
	call := &hook.ToolCall{Tool: "Bash", Kind: hook.KindShell, Command: command}
	p := &policy.Policy{World: shellglob.World{}, Client: testClient, Config: &config.Config{}}
	if d := p.Decide(call, policy.SessionState{}); d.Verdict != hook.Deny || !strings.Contains(d.Reason, "runs only in the sandbox") {
		t.Fatalf("%s on the policy alone: %s %q, want admitted for the sandbox only", command, d.Verdict, d.Reason)
	}
	p.Binary, p.Sandbox = passThrough(t), func() policy.Isolation { return policy.Isolation{Available: true} }
	d := p.Decide(call, policy.SessionState{})
	if d.Verdict != hook.Allow || !strings.Contains(d.Command, " -- bash --noprofile --norc -c ") {
		t.Fatalf("%s with the sandbox: %s %q, want it launched", command, d.Verdict, d.Command)
	}
	return d.Command
}

// passThrough is a launcher that runs what follows its `--` as it is, with no sandbox.
func passThrough(t *testing.T) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), "hookctl")
	if err := os.WriteFile(p, []byte("#!/bin/sh\nwhile [ \"$#\" -gt 0 ] && [ \"$1\" != -- ]; do shift; done\nshift\nexec \"$@\"\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	return p
}

// toolRow is an admitted command and a phrase its output must hold.
type toolRow struct{ command, want string }

// checkInSandbox runs each row as the hook does where the sandbox holds, through the real
// launcher, and requires the output wanted, no trap sprung and the project and home unchanged;
// on the policy alone each row must be refused because it runs only in the sandbox.
func checkInSandbox(t *testing.T, w *toolWorld, rows []toolRow) {
	for _, c := range rows {
		d := (&policy.Policy{World: shellglob.World{}, Client: testClient, Config: &config.Config{}}).Decide(&hook.ToolCall{Tool: "Bash", Kind: hook.KindShell, Command: c.command, Cwd: w.project}, policy.SessionState{})
		if d.Verdict != hook.Deny || !strings.Contains(d.Reason, "runs only in the sandbox") {
			t.Errorf("%s on the policy alone: %s %q, want refused because it runs only in the sandbox", c.command, d.Verdict, d.Reason)
		}
	}
	t.Run("sandbox", func(t *testing.T) {
		p := sandboxPolicy(t)
		p.Config.UserHome = w.home
		for _, c := range rows {
			d := p.Decide(&hook.ToolCall{Session: "toolchains", Tool: "Bash", Kind: hook.KindShell, Command: c.command, Cwd: w.project}, policy.SessionState{Mode: hook.ModeReadOnly})
			if d.Verdict != hook.Allow || !strings.Contains(d.Command, " sandbox ") {
				t.Errorf("%s: %s %q, want it run in the sandbox", c.command, d.Verdict, d.Command)
				continue
			}
			before := w.snapshot()
			out, sprung := w.run("", d.Command)
			if diff := hostile.Diff(before, w.snapshot()); len(diff) > 0 {
				t.Errorf("%s in the sandbox changed the world: %q\n%s", c.command, diff, out)
			}
			if len(sprung) > 0 {
				t.Errorf("%s in the sandbox sprang %v", c.command, sprung)
			}
			if !strings.Contains(out, c.want) {
				t.Errorf("%s in the sandbox printed %q, want %q in it", c.command, out, c.want)
			}
		}
	})
}

// TestGoPinsRealGo runs go version, go env, go list and go doc, as the rewrite gives them, in a
// project and home that spring a trap for each way the go command runs a program the judge did
// not see (programs/golang.go): go.mod's toolchain line with GOTOOLCHAIN=path in the home's go
// env file (go1.99.9 is a trap on PATH), VCS stamping (the repository's core.fsmonitor), the go
// env file's GOFLAGS=-toolexec, a //go:generate line, and the go env file's CC, which may run
// only to probe flags on empty input, never on the project's C code. Each mechanism has a
// control, the command without the pin, that must spring it; GOPROXY=off must turn a missing
// module into an error, not a download. Then the same rows run in the real sandbox, which
// must leave the project and home unchanged (go's telemetry and cache writes refused) and
// still print what go prints.
func TestGoPinsRealGo(t *testing.T) {
	for _, tool := range []string{"go", "git"} {
		if _, err := exec.LookPath(tool); err != nil {
			testbin.RequireTool(t, tool)
		}
	}
	w := newToolWorld(t)
	generate := w.trap("generate")
	w.trap("go1.99.9")
	fsmonitor, toolexec := w.trap("fsmonitor"), w.trap("toolexec")
	// The compiler is a recording wrapper, not a trap: go fails when it cannot identify it.
	cc := w.write("bin/cc", "#!/bin/sh\necho \"$*\" >> "+filepath.Join(w.canary, "cc")+"\nexec gcc \"$@\"\n", 0o755)
	w.write("home/.config/go/env", "GOTOOLCHAIN=path\nGOFLAGS=-toolexec="+toolexec+"\nCC="+cc+"\n", 0o644)
	w.write("project/go.mod", "module example.com/hostile\n\ngo 1.23\n\ntoolchain go1.99.9\n", 0o644)
	w.write("project/main.go", "package main\n\n//go:generate "+generate+"\nfunc main() {}\n", 0o644)
	w.write("project/c/c.go", "package c\n\n// #include <stdlib.h>\nimport \"C\"\n\n//go:generate "+generate+"\n\n// F is a cgo function.\nfunc F() {}\n", 0o644)
	w.write("project/mods/go.mod", "module example.com/mods\n\ngo 1.23\n\nrequire example.com/missing v1.0.0\n", 0o644)
	for _, c := range []string{"git init -q", "git add .", "git -c user.name=t -c user.email=t@t commit -qm x", "git config core.fsmonitor " + fsmonitor} {
		if out, sprung := w.run("", c); len(sprung) > 0 {
			t.Fatalf("%s: %s %v", c, out, sprung)
		}
	}

	for _, c := range []struct{ command, trap string }{
		{"go version", "go1.99.9"},                            // go.mod's toolchain line, found on PATH
		{"GOTOOLCHAIN=local go list ./...", "fsmonitor"},      // VCS stamping runs git status
		{"GOTOOLCHAIN=local go list -json ./...", "toolexec"}, // the go env file's GOFLAGS
	} {
		if out, sprung := w.run("", c.command); sprung[c.trap] == "" {
			t.Errorf("control: %s sprang %v, not %s; the test cannot see the pin work\n%s", c.command, sprung, c.trap, out)
		}
	}
	if _, sprung := w.run("", "GOTOOLCHAIN=local GOFLAGS=-buildvcs=false go list -compiled ./c"); !strings.Contains(sprung["cc"], "cgo-gcc-input") {
		t.Errorf("control: go list -compiled gave the compiler %q, not the project's C code; the test cannot see cgo run", sprung["cc"])
	}

	rows := []toolRow{
		{"go version", "go version go1."},
		{"go env GOPATH", filepath.Join(w.home, "go")},
		{"go env", "GOTOOLCHAIN='local'"},
		{"go env -json GOFLAGS CC", cc},
		{"go list", "example.com/hostile"},
		{"go list ./...", "example.com/hostile/c"},
		{"go list -json ./...", `"ImportPath": "example.com/hostile/c"`},
		{"go list -f '{{.Name}} {{.Stale}}' ./c", "c true"},
		{"go list -deps -test ./...", "example.com/hostile/c"},
		{"go list -m all", "example.com/hostile"},
		{"go doc fmt.Println", "func Println"},
		{"go doc ./c", "func F()"},
	}
	for _, c := range rows {
		command := rewritten(t, c.command)
		out, sprung := w.run("", command)
		if probes, ok := sprung["cc"]; ok {
			// go env and a list that computes staleness ask the compiler about itself.
			for _, line := range strings.Split(strings.TrimSpace(probes), "\n") {
				if !strings.HasSuffix(line, " -") && !strings.HasSuffix(line, " /dev/null") {
					t.Errorf("%s ran as %s and gave the compiler a file: %q", c.command, command, line)
				}
			}
			delete(sprung, "cc")
		}
		if len(sprung) > 0 {
			t.Errorf("%s ran as %s and sprang %v", c.command, command, sprung)
		}
		if !strings.Contains(out, c.want) {
			t.Errorf("%s ran as %s and printed %q, want %q in it", c.command, command, out, c.want)
		}
	}
	if out, sprung := w.run(filepath.Join(w.project, "mods"), rewritten(t, "go list -m all")); !strings.Contains(out, "GOPROXY=off") || len(sprung) > 0 {
		t.Errorf("go list -m all with a module missing: %q (sprang %v), want the lookup refused by GOPROXY=off", out, sprung)
	}
	checkInSandbox(t, w, rows)
}

// TestNpmRunsNothing runs npm --version and npm ls in a project whose .npmrc names a trap as
// script-shell, shell, git, editor and browser, loads a script into node through node-options,
// and moves npm's cache and logs into the project, and whose package.json has a script for
// every lifecycle event of ls: neither may spring a trap. The control, npm test, must spring the
// script-shell. Without the sandbox npm ls writes (the reason it runs only in the sandbox); in
// the real sandbox neither may change the project or the home.
func TestNpmRunsNothing(t *testing.T) {
	if _, err := exec.LookPath("npm"); err != nil {
		testbin.RequireTool(t, "npm")
	}
	w := newToolWorld(t)
	shell, other := w.trap("script-shell"), w.trap("other")
	evil := w.write("project/evil.js", "require('fs').appendFileSync("+jsString(filepath.Join(w.canary, "node-options"))+", 'loaded\\n')\n", 0o644)
	w.write("project/.npmrc", "script-shell="+shell+"\nnode-options=--require "+evil+"\nshell="+other+"\ngit="+other+
		"\neditor="+other+"\nbrowser="+other+"\ncache="+filepath.Join(w.project, "cache")+"\nlogs-dir="+filepath.Join(w.project, "logs")+"\n", 0o644)
	w.write("project/package.json", `{"name": "p", "version": "1.0.0",
  "scripts": {"prels": "x", "ls": "x", "postls": "x", "preinstall": "x", "test": "x"},
  "dependencies": {"dep": "1.0.0"}}
`, 0o644)
	w.write("project/node_modules/dep/package.json", `{"name": "dep", "version": "1.0.0", "scripts": {"postinstall": "x"}}`+"\n", 0o644)

	if out, sprung := w.run("", "npm test"); sprung["script-shell"] == "" {
		t.Errorf("control: npm test sprang %v, not the .npmrc's script-shell; the test cannot see npm's configuration\n%s", sprung, out)
	}
	rows := []toolRow{
		{"npm --version", "."},
		{"npm ls --depth=0", "dep@1.0.0"},
		{"npm ls --all --json", `"dep"`},
	}
	for _, c := range rows {
		os.RemoveAll(filepath.Join(w.project, "cache"))
		os.RemoveAll(filepath.Join(w.project, "logs"))
		before := w.snapshot()
		command := rewritten(t, c.command)
		out, sprung := w.run("", command)
		if len(sprung) > 0 {
			t.Errorf("%s ran as %s and sprang %v", c.command, command, sprung)
		}
		if !strings.Contains(out, c.want) {
			t.Errorf("%s ran as %s and printed %q, want %q in it", c.command, command, out, c.want)
		}
		diff := hostile.Diff(before, w.snapshot())
		switch {
		case c.command == "npm --version" && len(diff) > 0:
			t.Errorf("npm --version wrote %q", diff)
		case c.command != "npm --version" && len(diff) == 0:
			t.Errorf("%s wrote nothing without the sandbox; if npm no longer writes, it may not need the sandbox", c.command)
		}
	}
	os.RemoveAll(filepath.Join(w.project, "cache"))
	os.RemoveAll(filepath.Join(w.project, "logs"))
	checkInSandbox(t, w, rows)
}

// jsString quotes s for JavaScript source (a path without quotes or backslashes).
func jsString(s string) string { return "'" + s + "'" }

// TestRustupToolchainPathContained: under rustup, rustc --version and cargo --version run the
// toolchain a project's rust-toolchain.toml names, and a path there is the project's own
// programs: without the sandbox they run, write and connect to a listener here (the control,
// and why both are sandbox-only). In the real sandbox they run too, and print, but can neither
// write nor connect.
func TestRustupToolchainPathContained(t *testing.T) {
	for _, tool := range []string{"rustup", "rustc", "cargo"} {
		if _, err := exec.LookPath(tool); err != nil || exec.Command(tool, "--version").Run() != nil {
			testbin.RequireTool(t, tool)
		}
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	connected := make(chan string, 4)
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			connected <- c.RemoteAddr().String()
			c.Close()
		}
	}()
	w := newToolWorld(t)
	port := ln.Addr().(*net.TCPAddr).Port
	for _, name := range []string{"rustc", "cargo"} {
		w.write("project/evil/bin/"+name, "#!/bin/bash\necho \"$*\" >> "+filepath.Join(w.canary, "toolchain-"+name)+
			"\n(exec 3<>/dev/tcp/127.0.0.1/"+strconv.Itoa(port)+") 2>/dev/null\necho '"+name+" 6.6.6 (the project'\"'\"'s own)'\n", 0o755)
	}
	w.write("project/rust-toolchain.toml", "[toolchain]\npath = \""+filepath.Join(w.project, "evil")+"\"\n", 0o644)

	rows := []toolRow{
		{"rustc --version", "rustc 6.6.6 (the project's own)"},
		{"cargo --version", "cargo 6.6.6 (the project's own)"},
	}
	for _, c := range rows {
		command := rewritten(t, c.command)
		out, sprung := w.run("", command)
		if !strings.Contains(out, c.want) || len(sprung) == 0 {
			t.Errorf("control: %s ran as %s without the sandbox and printed %q, sprang %v; want the project's toolchain run (rustup may have stopped honouring path)", c.command, command, out, sprung)
		}
	}
	for range rows {
		select {
		case <-connected:
		case <-time.After(5 * time.Second):
			t.Fatal("control: the project's toolchain did not connect without the sandbox; the test cannot see the sandbox close the network")
		}
	}
	checkInSandbox(t, w, rows)
	select {
	case from := <-connected:
		t.Errorf("the project's toolchain connected out of the sandbox (from %s)", from)
	case <-time.After(100 * time.Millisecond):
	}
}
