//go:build linux

package main

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
	"unsafe"

	"github.com/hookctl/hookctl/fixtures/hostile"
	"github.com/hookctl/hookctl/sandbox/readonly"
)

// Issue 22: the sandboxes hold at their edges. Each test runs its attacks for real, through
// the rewrite the hook answers with (what the client runs), as root and as an unprivileged
// user, each beside a control that shows the attack's effect without hookctl.

// forEditWorlds runs f in a fresh edit world as root and as the unprivileged user.
func forEditWorlds(t *testing.T, f func(t *testing.T, w *editWorld)) {
	for _, u := range []struct {
		name string
		cred *syscall.Credential
	}{{"root", nil}, {"unprivileged", nobody}} {
		t.Run(u.name, func(t *testing.T) { f(t, newEditWorld(t, u.cred)) })
	}
}

// launched says whether the hook's rewrite runs starts the command in one of the sandbox's
// launchers: hookctl-sandbox (a read-only or policy-only command, where it is installed) or
// `hookctl sandbox`.
func launched(runs string) bool {
	return strings.Contains(runs, " sandbox ") || strings.Contains(runs, readonly.Executable+" --build ")
}

// viaHook sends command through the hook in the session's current mode and runs what the client
// would run (the rewrite), as the world's user, in the project, for at most 20 s. refused: the
// hook refused it (nothing ran).
func (w *editWorld) viaHook(t *testing.T, command string) (out string, err error, refused bool) {
	t.Helper()
	runs, refused := w.throughHook(t, command)
	if refused {
		return "", nil, true
	}
	if !launched(runs) {
		t.Errorf("%s: the hook passed it unsandboxed: %s", command, runs)
		return "", errors.New("unsandboxed"), false
	}
	out, err = w.shell(t, runs)
	return out, err, false
}

// shell runs script in a clean bash as the world's user, in the project, for at most 20 s.
func (w *editWorld) shell(t *testing.T, script string) (string, error) {
	t.Helper()
	sh := exec.Command("bash", "--noprofile", "--norc", "-c", script)
	sh.Dir, sh.Env = w.project, w.env
	sh.SysProcAttr = &syscall.SysProcAttr{Credential: w.user}
	timer := time.AfterFunc(20*time.Second, func() { sh.Process.Kill() })
	defer timer.Stop()
	b, err := sh.CombinedOutput()
	return string(b), err
}

// inSandbox runs script under `hookctl sandbox` with the profile given in args (none: the
// read-only one) in the session, as the world's user does from its shell, and returns what it
// printed.
func (w *editWorld) inSandbox(t *testing.T, script string, args ...string) string {
	t.Helper()
	sandbox := append([]string{shellQuote(w.bin), "sandbox"}, args...)
	out, _ := w.shell(t, strings.Join(sandbox, " ")+" --session "+w.session+" -- bash --noprofile --norc -c "+shellQuote(script))
	return out
}

// mode sets the session's mode as the user does.
func (w *editWorld) mode(t *testing.T, on bool) {
	t.Helper()
	verb := "off"
	if on {
		verb = "on"
	}
	if out, err := w.cli("readonly", verb, "--session", w.session); err != nil {
		t.Fatalf("readonly %s: %v %s", verb, err, out)
	}
}

// chown gives paths to the world's user.
func (w *editWorld) chown(paths ...string) {
	if w.user == nil {
		return
	}
	for _, p := range paths {
		os.Lchown(p, int(w.user.Uid), int(w.user.Gid))
	}
}

// TestFallbackCannotBeTriggered: nothing a command can write turns a sandbox that held into no
// sandbox. Issue 22's attack: in edit mode, `ln -s / ~/.cargo/credentials.toml`; a resolver
// that follows it hides /, the probe fails, and from then on commands ran unsandboxed
// (NoNewPrivs 0). Here the link is planted, the probe is run again (doctor), and a read-only
// command goes through the hook: it runs sandboxed or is refused naming the link; never
// without the sandbox.
func TestFallbackCannotBeTriggered(t *testing.T) {
	forEditWorlds(t, func(t *testing.T, w *editWorld) {
		const probe = "grep NoNewPrivs /proc/self/status"
		// Control: the same command without hookctl shows no sandbox, and the link resolves to /.
		if out, _ := w.shell(t, probe); !strings.Contains(out, "NoNewPrivs:\t0") {
			t.Fatalf("control: %s", out)
		}
		cargo := filepath.Join(w.home, ".cargo")
		os.MkdirAll(cargo, 0o755)
		link := filepath.Join(cargo, "credentials.toml")
		os.Symlink("/", link)
		w.chown(cargo, link)
		if r, _ := filepath.EvalSymlinks(link); r != "/" {
			t.Fatalf("control: the link resolves to %q", r)
		}
		w.mode(t, true)
		if out, err := w.cli("doctor"); !strings.Contains(out, "read-only commands run in hookctl's OS sandbox") {
			t.Errorf("the probe with the link planted: %v\n%s", err, out)
		}
		out, err, refused := w.viaHook(t, probe)
		var ee *exec.ExitError
		switch {
		case refused:
			t.Errorf("the hook refused a read: the sandbox was taken for failing")
		case strings.Contains(out, "NoNewPrivs:\t0"):
			t.Errorf("ran without the sandbox: %s", out)
		case strings.Contains(out, "NoNewPrivs:\t1"):
		case !errors.As(err, &ee) || ee.ExitCode() != exitSandboxFailed || !strings.Contains(out, link+", which the sandbox hides"):
			t.Errorf("neither sandboxed nor refused naming the link: %v %s", err, out)
		}
		t.Logf("with %s -> /: %q", link, strings.TrimSpace(out))
	})
}

// gitRepo makes the world's project a git repository with one commit, as its user.
func (w *editWorld) gitRepo(t *testing.T) {
	t.Helper()
	if out, err := w.shell(t, "git init -q . && git -c user.name=u -c user.email=u@u commit -q --allow-empty -m first && git branch -M main"); err != nil {
		t.Fatalf("git init: %v %s", err, out)
	}
}

// canary is a file in the world that an attack's payload makes when it runs: its runs say
// whether it did.
func (w *editWorld) canary(t *testing.T) (path string, ran func() bool) {
	path = filepath.Join(w.outside, "canary")
	os.Remove(path)
	os.Chmod(w.outside, 0o777)
	return path, func() bool {
		_, err := os.Stat(path)
		os.Remove(path)
		return err == nil
	}
}

// TestEditKeepsRunLaterFilesReadOnly: git's code-running files and the well-known auto-run
// files are read-only to edit-mode commands, whatever the write and whether or not they
// exist yet, while git's everyday commands keep working. Each attack plants code; the trigger
// is what the user does next, outside any sandbox. Control: the same plant without hookctl
// runs the payload on the trigger.
func TestEditKeepsRunLaterFilesReadOnly(t *testing.T) {
	requireTool(t, "git")
	forEditWorlds(t, func(t *testing.T, w *editWorld) {
		w.gitRepo(t)
		canary, ran := w.canary(t)
		touch := "touch " + canary
		commit := "git -c user.name=u -c user.email=u@u commit -q --allow-empty -m next"
		script := filepath.Join(w.project, "payload.sh")
		os.WriteFile(script, []byte("#!/bin/sh\n"+touch+"\n"), 0o755)
		w.chown(script)
		attacks := []struct{ name, plant, trigger, undo string }{
			{"pre-commit hook", "printf '#!/bin/sh\\n" + touch + "\\n' > .git/hooks/pre-commit && chmod +x .git/hooks/pre-commit", commit, "rm -f .git/hooks/pre-commit"},
			{"hook by python", `python3 -c "import os; open('.git/hooks/post-commit','w').write('#!/bin/sh\n` + touch + `\n'); os.chmod('.git/hooks/post-commit', 0o755)"`, commit, "rm -f .git/hooks/post-commit"},
			{"hook by link", "ln -s " + script + " .git/hooks/pre-commit", commit, "rm -f .git/hooks/pre-commit"},
			{"hooks dir swapped", "mv .git/hooks .git/hooks.old; mkdir -p .git/hooks && cp payload.sh .git/hooks/pre-commit", commit, "[ -d .git/hooks.old ] && rm -rf .git/hooks && mv .git/hooks.old .git/hooks; true"},
			{"git dir swapped", "cp -r .git .git2 && cp payload.sh .git2/hooks/pre-commit && mv .git .git-old && mv .git2 .git", commit, "rm -rf .git2 && [ -d .git-old ] && rm -rf .git && mv .git-old .git; true"},
			{"core.fsmonitor", "git config core.fsmonitor " + script, "git status --short >/dev/null 2>&1", "git config --unset core.fsmonitor"},
			{"alias", "git config alias.st '!" + touch + "'", "git st", "git config --unset alias.st"},
			{"config by sed", "sed -i '$a [alias]\\n\\tst = !" + touch + "' .git/config", "git st", "git config --unset alias.st"},
			{"hooksPath target", "mkdir -p .githooks && cp payload.sh .githooks/pre-commit", commit, "rm -rf .githooks"},
			{".envrc", "echo '" + touch + "' > .envrc", "bash -c 'source ./.envrc'", "rm -f .envrc"},
			{".envrc by rename", "echo '" + touch + "' > env.tmp && mv env.tmp .envrc", "bash -c 'source ./.envrc'", "rm -f .envrc env.tmp"},
			{".vscode tasks", `mkdir -p .vscode && echo '{"tasks":[{"command":"` + touch + `","runOptions":{"runOn":"folderOpen"}}]}' > .vscode/tasks.json`,
				`grep -q folderOpen .vscode/tasks.json && ` + touch, "rm -rf .vscode"},
		}
		// core.hooksPath set by the user, before the session: its target is frozen too.
		if out, err := w.shell(t, "git config core.hooksPath .githooks"); err != nil {
			t.Fatal(err, out)
		}
		for _, a := range attacks {
			if a.name == "hooksPath target" {
				continue
			}
			w.shell(t, "git config --unset core.hooksPath")
			// Control: without hookctl the plant lands and the trigger runs it.
			if out, err := w.shell(t, a.plant); err != nil {
				t.Errorf("%s: control plant: %v %s", a.name, err, out)
			}
			w.shell(t, a.trigger)
			if !ran() {
				t.Errorf("%s: control: the payload did not run without hookctl", a.name)
			}
			w.shell(t, a.undo)
			ran()
		}
		w.shell(t, "git config core.hooksPath .githooks")
		for _, a := range attacks {
			if a.name == "hooksPath target" {
				if out, _ := w.shell(t, a.plant+" && "+a.trigger); !ran() {
					t.Errorf("hooksPath target: control: %s", out)
				}
				w.shell(t, a.undo)
			}
		}
		for _, a := range attacks {
			out, _, refused := w.viaHook(t, a.plant)
			w.shell(t, a.trigger)
			if ran() {
				t.Errorf("%s: planted through the edit sandbox, and the user's next step ran it: %s", a.name, out)
			}
			first, _, _ := strings.Cut(strings.TrimSpace(out), "\n")
			t.Logf("%s: refused by the hook %v; %s", a.name, refused, clipLine(first))
			w.shell(t, a.undo)
		}
		// The refusal names the file and the key that widens it.
		out, _, _ := w.viaHook(t, "echo x > .git/hooks/pre-commit")
		if !strings.Contains(out, filepath.Join(w.project, ".git", "hooks")) || !strings.Contains(out, `edit_auto_run_writable = [".git/hooks"]`) {
			t.Errorf("the refusal does not say which file and which key: %s", out)
		}
		// A file tool's write is refused by the hook, naming them too.
		if reason := w.fileToolRefusal(t, filepath.Join(w.project, ".envrc")); !strings.Contains(reason, `edit_auto_run_writable = [".envrc"]`) {
			t.Errorf("a file tool's write to .envrc: %q", reason)
		}
		// git's everyday work goes on in the sandbox.
		for _, c := range []string{
			"echo a > a.txt && git add a.txt && " + commit + " -a && git log --oneline | wc -l",
			"git checkout -q -b feature && echo b > b.txt && git add b.txt && " + commit + " && git branch --list | wc -l",
			"echo c >> a.txt && git stash -q && git stash pop -q && git diff --stat | wc -l",
			"git -c user.name=u -c user.email=u@u commit -qam wip && git checkout -q main && echo m > m.txt && git add m.txt && " + commit +
				" && git checkout -q feature && git -c user.name=u -c user.email=u@u rebase -q main && git log --oneline | wc -l",
			"git tag v1 && git log --oneline --decorate | grep -c v1",
		} {
			if out, err, refused := w.viaHook(t, c); refused || err != nil {
				t.Errorf("%s: refused %v, %v\n%s", c, refused, err, out)
			}
		}
		// The user's key lets edit mode write what it names.
		os.WriteFile(filepath.Join(w.hh, "config.toml"), []byte(`edit_auto_run_writable = [".git/hooks"]`+"\n"), 0o600)
		w.chown(filepath.Join(w.hh, "config.toml"))
		if out, err, _ := w.viaHook(t, "echo '# mine' > .git/hooks/pre-push && cat .git/hooks/pre-push"); err != nil || !strings.Contains(out, "# mine") {
			t.Errorf("with edit_auto_run_writable: %v %s", err, out)
		}
	})
}

// clipLine shortens a line of output for a log.
func clipLine(s string) string {
	if len(s) > 160 {
		return s[:160] + "…"
	}
	return s
}

// fileToolRefusal sends a Write of path through the hook in the session's mode, and returns the
// refusal's reason ("" if it was let through).
func (w *editWorld) fileToolRefusal(t *testing.T, path string) string {
	t.Helper()
	payload := `{"session_id":"` + w.session + `","cwd":"` + w.project + `","hook_event_name":"PreToolUse","tool_name":"Write",` +
		`"tool_input":{"file_path":"` + path + `","content":"x"}}`
	out, _ := w.runHook([]byte(payload))
	a, ok := readAnswer(out)
	if !ok || a.HookSpecificOutput.PermissionDecision != "deny" {
		return ""
	}
	return a.HookSpecificOutput.PermissionDecisionReason
}

// TestEditProcessesEndWithEditMode: every process an edit-mode command starts is tracked, and
// ends when the session leaves edit mode, counted: issue 22's setsid child that wrote the
// project after /readonly on, and its cousins (a double fork, nohup, a process whose main
// thread has exited, which looks like a zombie). Control: without hookctl each writes its file
// after the command has returned.
func TestEditProcessesEndWithEditMode(t *testing.T) {
	requireTool(t, "setsid")
	forEditWorlds(t, func(t *testing.T, w *editWorld) {
		late := func(name string) string { return filepath.Join(w.project, name) }
		py := `import threading, time, ctypes; ` +
			`threading.Thread(target=lambda: (time.sleep(3), open("%s", "w").write("x"))).start(); ` +
			`ctypes.CDLL(None).pthread_exit(None)`
		leftovers := []struct{ name, script string }{
			{"setsid", "setsid -f bash -c 'sleep 3; echo late > %s' </dev/null >/dev/null 2>&1"},
			{"double fork", "( ( sleep 3; echo late > %s ) & ) </dev/null >/dev/null 2>&1"},
			{"nohup", "nohup bash -c 'sleep 3; echo late > %s' </dev/null >/dev/null 2>&1 &"},
			{"main thread gone", "python3 -c " + shellQuote(py) + " </dev/null >/dev/null 2>&1 &"},
		}
		for _, l := range leftovers {
			file := late("control-" + strings.ReplaceAll(l.name, " ", "-"))
			start := time.Now()
			if out, err := w.shell(t, fmt.Sprintf(l.script, file)); err != nil || time.Since(start) > 2*time.Second {
				t.Fatalf("control %s: %v after %v: %s", l.name, err, time.Since(start), out)
			}
		}
		time.Sleep(4 * time.Second)
		for _, l := range leftovers {
			if _, err := os.Stat(late("control-" + strings.ReplaceAll(l.name, " ", "-"))); err != nil {
				t.Errorf("control: %s left nothing running without hookctl", l.name)
			}
		}
		for _, l := range leftovers {
			start := time.Now()
			out, err, refused := w.viaHook(t, fmt.Sprintf(l.script, late(strings.ReplaceAll(l.name, " ", "-"))))
			if refused || err != nil || time.Since(start) > 3*time.Second {
				t.Fatalf("%s through the hook: refused %v, %v after %v: %s", l.name, refused, err, time.Since(start), out)
			}
		}
		start := time.Now()
		out, err := w.cli("readonly", "on", "--session", w.session)
		took := time.Since(start)
		if err != nil || !strings.Contains(out, "READ-ONLY") {
			t.Fatalf("readonly on: %v %s", err, out)
		}
		var ended int
		if i := strings.Index(out, "ended "); i >= 0 {
			fmt.Sscanf(out[i+len("ended "):], "%d", &ended)
		}
		if ended < len(leftovers) {
			t.Errorf("readonly on ended %d processes; the commands left at least %d:\n%s", ended, len(leftovers), out)
		}
		time.Sleep(4 * time.Second)
		for _, l := range leftovers {
			if _, err := os.Stat(late(strings.ReplaceAll(l.name, " ", "-"))); err == nil {
				t.Errorf("%s: a process an edit-mode command left wrote the project after readonly on", l.name)
			}
		}
		t.Logf("readonly on took %v and said: %q", took.Round(time.Millisecond), strings.TrimSpace(out))
	})
}

// TestEditClientSettingsAtAnyDepth: an edit-mode command may not make a client's settings
// directory anywhere below the project (issue 22's sub/.claude/settings.local.json with
// disableAllHooks: the next Claude Code started in sub/ would run without hookctl), by any way
// of making one, for every client; nor change one the user already has there. Control: each
// plant lands without hookctl.
func TestEditClientSettingsAtAnyDepth(t *testing.T) {
	requireTool(t, "git")
	forEditWorlds(t, func(t *testing.T, w *editWorld) {
		// The user's own, made before the session's first edit-mode command: frozen.
		own := filepath.Join(w.project, "packages", "web", ".claude", "settings.json")
		os.MkdirAll(filepath.Dir(own), 0o755)
		os.WriteFile(own, []byte("{}\n"), 0o644)
		w.chown(filepath.Join(w.project, "packages"), filepath.Join(w.project, "packages", "web"), filepath.Dir(own), own)
		w.gitRepo(t)
		off := `{"disableAllHooks":true}`
		type plant struct{ name, script, file string }
		var plants []plant
		for _, c := range []struct{ dir, file string }{
			{".claude", "settings.local.json"}, {".codex", "hooks.json"}, {".gemini", "settings.json"},
			{".qwen", "settings.json"}, {".cursor", "hooks.json"}, {".copilot", "config.json"}, {".github/hooks", "hooks.json"},
		} {
			for _, depth := range []string{"sub", "a/b/c"} {
				f := filepath.Join(depth, c.dir, c.file)
				plants = append(plants, plant{"mkdir -p " + f, "mkdir -p " + filepath.Dir(f) + " && echo '" + off + "' > " + f, f})
			}
		}
		f := "sub/.claude/settings.local.json"
		plants = append(plants,
			plant{"python makedirs", "python3 -c " + shellQuote(`import os; os.makedirs("sub/.claude", exist_ok=True); open("`+f+`", "w").write('`+off+`')`), f},
			plant{"rename into place", "mkdir -p sub/x && echo '" + off + "' > sub/x/settings.local.json && mv sub/x sub/.claude", f},
			plant{"link to a directory made elsewhere", "mkdir -p /tmp/cs-$$ && echo '" + off + "' > /tmp/cs-$$/settings.local.json && mkdir -p sub && ln -s /tmp/cs-$$ sub/.claude", f},
			plant{"case variant", "mkdir -p sub/.Claude && echo '" + off + "' > sub/.Claude/settings.local.json", "sub/.Claude/settings.local.json"},
			plant{"git checkout of a tree that holds one", "b=$(echo '" + off + "' | git hash-object -w --stdin) && git update-index --add --cacheinfo 100644,$b," + f +
				" && git -c user.name=u -c user.email=u@u commit -qm c && git rm -q --cached " + f + " && git -c user.name=u -c user.email=u@u commit -qm d && git checkout -q HEAD~1", f},
			plant{"tar", "mkdir -p /tmp/ct-$$/sub/.claude && echo '" + off + "' > /tmp/ct-$$/" + f + " && tar -C /tmp/ct-$$ -cf /tmp/ct-$$.tar sub && tar -xf /tmp/ct-$$.tar", f},
			plant{"the user's own, rewritten", "echo '" + off + "' > packages/web/.claude/settings.json", "packages/web/.claude/settings.json"},
			plant{"the user's own, replaced", "echo '" + off + "' > x.json && mv x.json packages/web/.claude/settings.local.json", "packages/web/.claude/settings.local.json"},
		)
		planted := func(p plant) bool {
			b, err := os.ReadFile(filepath.Join(w.project, p.file))
			return err == nil && strings.Contains(string(b), "disableAllHooks")
		}
		undo := "git checkout -q -f main 2>/dev/null; rm -rf sub a x.json packages/web/.claude/settings.local.json; " +
			"printf '{}\\n' > packages/web/.claude/settings.json"
		for _, p := range plants {
			w.shell(t, p.script)
			if !planted(p) {
				t.Errorf("control: %s did not plant %s without hookctl", p.name, p.file)
			}
			w.shell(t, undo)
		}
		held := 0
		for _, p := range plants {
			out, _, refused := w.viaHook(t, p.script)
			if planted(p) {
				t.Errorf("%s: planted %s through edit mode's sandbox:\n%s", p.name, p.file, out)
			} else {
				held++
			}
			if refused {
				// The guard saw the name; the sandbox must hold all the same, as if it had not.
				out, _ = w.run(t, p.script)
				if planted(p) {
					t.Errorf("%s: planted %s in edit mode's sandbox (the guard had refused it):\n%s", p.name, p.file, out)
				}
			}
			first, _, _ := strings.Cut(strings.TrimSpace(out), "\n")
			t.Logf("%s: refused by the hook %v; sandbox: %s", p.name, refused, clipLine(first))
			w.shell(t, undo)
		}
		t.Logf("%d of %d plants of a client's settings refused", held, len(plants))
	})
}

// TestEditRunLaterFilesInTheWriteSet: the tools' directories edit mode writes hold code that
// runs later outside the sandbox (issue 22: ~/.cargo/env sourced by the login shell,
// ~/.cargo/bin/git and $PNPM_HOME/git ahead of the real git on PATH, ~/go/bin/gopls run by the
// editor, ~/.gradle/init.d run by every build, a module rewritten in ~/go/pkg/mod); and a
// directory on PATH inside the project. Control: each plant lands in the user's directory
// without hookctl, and its trigger runs it. Through the hook, a tool's directory is written
// through the session's own layer (the build and the next commands see it, the user's
// directory does not change); a PATH directory the sandbox would write as it is is frozen.
func TestEditRunLaterFilesInTheWriteSet(t *testing.T) {
	forEditWorlds(t, func(t *testing.T, w *editWorld) {
		canary, ran := w.canary(t)
		payload := "#!/bin/sh\ntouch " + canary + "\n"
		pnpm := filepath.Join(w.home, ".local", "share", "pnpm")
		bin := filepath.Join(w.project, "bin")
		for _, d := range []string{".cargo/bin", "go/bin", "go/pkg/mod/example.com/m@v1.0.0", ".gradle/init.d", ".local/share/pnpm"} {
			os.MkdirAll(filepath.Join(w.home, d), 0o755)
		}
		os.WriteFile(filepath.Join(w.home, "go/pkg/mod/example.com/m@v1.0.0/m.sh"), []byte("#!/bin/sh\necho module\n"), 0o755)
		filepath.Walk(w.home, func(p string, _ os.FileInfo, _ error) error { w.chown(p); return nil })
		w.env = append(w.env, "PNPM_HOME="+pnpm, "PATH="+filepath.Join(w.home, ".cargo/bin")+":"+pnpm+":"+bin+":"+os.Getenv("PATH"))
		plants := []struct{ name, file, trigger string }{
			{"~/.cargo/env, sourced by the login shell", ".cargo/env", "bash -c '. ~/.cargo/env'"},
			{"~/.cargo/bin/git ahead of git on PATH", ".cargo/bin/git", "git --version"},
			{"$PNPM_HOME/git ahead of git on PATH", ".local/share/pnpm/git", "git --version"},
			{"~/go/bin/gopls, run by the editor", "go/bin/gopls", "~/go/bin/gopls"},
			{"~/.gradle/init.d, run by every build", ".gradle/init.d/init.sh", "sh ~/.gradle/init.d/init.sh"},
			{"a module in ~/go/pkg/mod, built by another project", "go/pkg/mod/example.com/m@v1.0.0/m.sh", "~/go/pkg/mod/example.com/m@v1.0.0/m.sh"},
		}
		write := func(file string) string {
			return "mkdir -p " + shellQuote(filepath.Dir(file)) + " && printf " + shellQuote(payload) + " > " + shellQuote(file) + " && chmod +x " + shellQuote(file)
		}
		for _, p := range plants {
			file := filepath.Join(w.home, p.file)
			before, _ := os.ReadFile(file)
			if out, err := w.shell(t, write(file)+" && "+p.trigger); err != nil || !ran() {
				t.Errorf("control: %s: the trigger did not run the plant without hookctl: %v %s", p.name, err, out)
			}
			if before == nil {
				os.Remove(file)
			} else {
				os.WriteFile(file, before, 0o755)
			}
		}
		for _, p := range plants {
			file := filepath.Join(w.home, p.file)
			before, _ := os.ReadFile(file)
			out, err, refused := w.viaHook(t, write(file))
			if refused || err != nil {
				t.Errorf("%s: the write failed in edit mode (the layer takes it): refused %v, %v %s", p.name, refused, err, out)
			}
			// The session's next command sees it (its own layer)...
			if out, _, _ := w.viaHook(t, "cat "+shellQuote(file)); !strings.Contains(out, canary) {
				t.Errorf("%s: the next edit-mode command does not see what the last one wrote: %s", p.name, out)
			}
			// ...and the user's directory is as it was: the trigger, outside, runs nothing.
			if after, _ := os.ReadFile(file); string(after) != string(before) {
				t.Errorf("%s: the user's file changed: %q", p.name, after)
			}
			w.shell(t, p.trigger)
			if ran() {
				t.Errorf("%s: planted through edit mode, run by the user's next step", p.name)
			}
		}
		// A directory on the user's PATH inside the project is frozen, missing or not.
		for _, script := range []string{write(filepath.Join(bin, "git")), "mkdir bin", "ln -s /tmp bin"} {
			out, _, refused := w.viaHook(t, script)
			if refused {
				out, _ = w.run(t, script) // the guard refused it; the sandbox must hold all the same
			}
			if _, err := os.Lstat(bin); err == nil {
				t.Errorf("%s: made %s, on the user's PATH, from edit mode: %s", script, bin, out)
				os.RemoveAll(bin)
			} else if !strings.Contains(out, "a directory on your PATH") {
				t.Errorf("%s: no refusal saying why: %s", script, out)
			}
		}
	})
}

// TestScratchCannotBeSwapped: issue 22's race on the scratch directory. A process an edit-mode
// command leaves behind swaps the session's scratch directory for a link to the home, again and
// again; the next read-only command must still write nowhere but its own scratch directory.
// Control: without hookctl the same user can swap the directory (it is theirs), and a write
// through the swapped path lands in the home. In the sandbox the scratch root is in hookctl's
// home, which edit mode cannot see, and the read-only sandbox grants the directory it opened.
func TestScratchCannotBeSwapped(t *testing.T) {
	forEditWorlds(t, func(t *testing.T, w *editWorld) {
		scratch := filepath.Join(w.hh, "scratch", w.session)
		gitconfig := filepath.Join(w.home, ".gitconfig")
		swap := "for i in $(seq 300); do rm -rf " + shellQuote(scratch) + " 2>/dev/null; ln -sfn " + shellQuote(w.home) + " " + shellQuote(scratch) + " 2>/dev/null; done"
		// Control, as the user, without hookctl.
		os.MkdirAll(scratch, 0o700)
		w.chown(filepath.Join(w.hh, "scratch"), scratch)
		w.shell(t, swap+"; echo '[core]' > "+shellQuote(scratch)+"/.gitconfig")
		if b, _ := os.ReadFile(gitconfig); !strings.Contains(string(b), "[core]") {
			t.Fatalf("control: the swap did not redirect the write to the home")
		}
		os.Remove(gitconfig)
		os.Remove(scratch)
		// From edit mode, in the background, while read-only commands run. (The hook's guard
		// refuses this command, which names hookctl's home; the sandbox must hold without it.)
		if _, _, refused := w.viaHook(t, swap); !refused {
			t.Log("the guard let the swapper through")
		}
		if out, err := w.run(t, "( "+swap+" ) </dev/null >/dev/null 2>&1 & ls "+shellQuote(filepath.Dir(scratch))+" 2>&1; echo started"); err != nil {
			t.Fatalf("the swapper: %v %s", err, out)
		} else if !strings.Contains(out, "Permission denied") && !strings.Contains(out, "No such file") {
			t.Errorf("edit mode sees the scratch root: %s", out)
		}
		w.mode(t, true)
		// Read-only commands as the hook's rewrite runs them: one the policy admits (issue
		// 22's git status), and the launcher's form with writes the policy would not admit.
		if out, _, refused := w.viaHook(t, "git status --short; echo done"); refused || !strings.Contains(out, "done") {
			t.Errorf("git status in read-only mode: refused %v, %s", refused, out)
		}
		hookctlHome := w.protected(t)
		for i := 0; i < 5; i++ {
			out := w.inSandbox(t, `echo "[core]" > "$TMPDIR/.gitconfig"; cat "$TMPDIR/.gitconfig"; echo x > ~/.gitconfig`)
			if !strings.Contains(out, "[core]") {
				t.Errorf("a read-only command's write to its scratch directory: %s", out)
			}
		}
		if _, err := os.Stat(gitconfig); err == nil {
			t.Error("a read-only command wrote ~/.gitconfig through its scratch directory")
		}
		if fi, err := os.Lstat(scratch); err != nil || !fi.IsDir() {
			t.Errorf("the scratch directory is not the one hookctl made: %v %v", fi, err)
		}
		if d := strings.Join(hostile.Diff(hookctlHome, w.protected(t)), "\n"); d != "" {
			t.Errorf("hookctl's home changed:\n%q", d)
		}
	})
}

// TestPublishRunsTrustedGH: review mode's approved publish runs gh found in a trusted directory
// of PATH only (issue 22: a gh planted in a directory an edit-mode command could write, first on
// the client's PATH, was what the publish ran, with GH_TOKEN). Control: the PATH lookup a shell
// does finds the planted one first.
func TestPublishRunsTrustedGH(t *testing.T) {
	forEditWorlds(t, func(t *testing.T, w *editWorld) {
		planted := filepath.Join(w.project, "bin")
		real := filepath.Join(filepath.Dir(w.home), "ghbin")
		for _, d := range []string{planted, real} {
			os.MkdirAll(d, 0o755)
			os.WriteFile(filepath.Join(d, "gh"), []byte("#!/bin/sh\necho "+d+"\n"), 0o755)
		}
		w.chown(planted, filepath.Join(planted, "gh"))
		w.env = append(w.env, "PATH="+planted+":"+real+":"+os.Getenv("PATH"))
		if out, _ := w.shell(t, "gh"); strings.TrimSpace(out) != planted {
			t.Fatalf("control: the shell's gh is %q", out)
		}
		if out, err := w.cli("readonly", "review", "--session", w.session); err != nil {
			t.Fatalf("readonly review: %v %s", err, out)
		}
		runs, refused := w.throughHook(t, `gh pr review 7 --comment --body "Looks good"`)
		if refused || !strings.Contains(runs, filepath.Join(real, "gh")) || strings.Contains(runs, filepath.Join(planted, "gh")) {
			t.Errorf("the publish runs %q (refused %v); want %s", runs, refused, filepath.Join(real, "gh"))
		}
	})
}

// TestOtherTerminalsAndWatches: a sandboxed command can neither read another terminal's input
// (the user's keystrokes in another shell) nor write into it, and a read-only command cannot
// watch hookctl's home with inotify (to learn when the user changes modes). Control: without
// hookctl, each works.
func TestOtherTerminalsAndWatches(t *testing.T) {
	requireTool(t, "python3")
	forEditWorlds(t, func(t *testing.T, w *editWorld) {
		// Another terminal: a pty the test holds, its slave the world's user's, as a login's is.
		master, err := syscall.Open("/dev/ptmx", syscall.O_RDWR|syscall.O_NOCTTY|syscall.O_NONBLOCK|syscall.O_CLOEXEC, 0)
		if err != nil {
			t.Skipf("no pseudo-terminals: %v", err)
		}
		defer syscall.Close(master)
		var n uint32
		const tiocgptn, tiocsptlck = 0x80045430, 0x40045431
		zero := 0
		syscall.Syscall(syscall.SYS_IOCTL, uintptr(master), tiocsptlck, uintptr(unsafe.Pointer(&zero)))
		syscall.Syscall(syscall.SYS_IOCTL, uintptr(master), tiocgptn, uintptr(unsafe.Pointer(&n)))
		slave := fmt.Sprintf("/dev/pts/%d", n)
		w.chown(slave)
		keep, err := os.OpenFile(slave, os.O_RDWR, 0) // the other shell, holding its terminal open
		if err != nil {
			t.Fatal(err)
		}
		defer keep.Close()
		watch := "python3 -c " + shellQuote(`import ctypes; c = ctypes.CDLL(None); fd = c.inotify_init(); `+
			`print("watch", fd >= 0 and c.inotify_add_watch(fd, b"`+w.hh+`", 0xfff) >= 0)`)
		attacks := []struct{ name, script, worked string }{
			{"write into another terminal", "echo INJECTED > " + slave + " && echo wrote", "wrote"},
			{"read another terminal's input", "timeout 2 head -c 6 " + slave, "SECRET"},
			{"watch hookctl's home", watch, "watch True"},
		}
		try := func(run func(string) string, a struct{ name, script, worked string }) bool {
			if a.name == "read another terminal's input" {
				go func() { time.Sleep(500 * time.Millisecond); syscall.Write(master, []byte("SECRET\n")) }()
			}
			return strings.Contains(run(a.script), a.worked)
		}
		plain := func(s string) string { out, _ := w.shell(t, s); return out }
		for _, a := range attacks {
			if !try(plain, a) {
				t.Errorf("control: %s did not work without hookctl", a.name)
			}
		}
		drain := func() { // what the attempts wrote into the terminal, or left unread
			buf := make([]byte, 4096)
			for {
				if n, err := syscall.Read(master, buf); n <= 0 || err != nil {
					return
				}
			}
		}
		drain()
		for _, p := range []struct {
			name string
			run  func(string) string
		}{
			{"read-only", func(s string) string { return w.inSandbox(t, s) }},
			{"publish", func(s string) string { return w.inSandbox(t, s, "--profile", "publish") }},
			{"edit", func(s string) string { out, _ := w.run(t, s); return out }},
		} {
			for _, a := range attacks {
				if a.name == "watch hookctl's home" && p.name == "edit" {
					continue // edit mode's hookctl home is an empty mount of its own
				}
				if try(p.run, a) {
					t.Errorf("%s: %s worked", p.name, a.name)
				}
			}
			drain()
		}
	})
}
