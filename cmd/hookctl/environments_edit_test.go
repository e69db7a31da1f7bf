//go:build linux

package main

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestEditModeWithoutUserNamespaces is TestSandboxEnvironments' edit-mode row for a machine
// that gives an unprivileged user no namespaces (Ubuntu 23.10+'s AppArmor restriction, a
// container that forbids them; made with bwrap --unshare-user --disable-userns, as 65534): an
// edit-mode session there, as a new user has it (install, session start, readonly off, then
// the hook's rewrite), tries a write to the project's client settings, a write outside the
// project, a read of hookctl's home and a TCP connection. The same script without hookctl, in
// the same environment, gets all four through; under the rewrite none does, while a write to
// the project's own file still lands, and the status line and doctor say which protections
// hold there (issue 28).
func TestEditModeWithoutUserNamespaces(t *testing.T) {
	requireTool(t, "bwrap")
	w := newEditWorld(t, nobody)
	wrap := []string{"bwrap", "--dev-bind", "/", "/", "--unshare-user", "--disable-userns", "--"}
	there := w.under(t, wrap)
	// The edit sandbox held here before the namespaces went: edit mode refuses every command
	// until the user forgets that (it is theirs to say the machine changed).
	if out, _ := there("", w.bin, "sandbox", "--forget"); !strings.Contains(out, "forgot") {
		t.Fatalf("forget: %s", out)
	}
	if out, _ := there("", w.bin, "sandbox", "--probe"); !strings.Contains(out, "Landlock-only edit sandbox available") {
		t.Fatalf("the probe found no Landlock-only edit sandbox:\n%s", out)
	}
	if out, _ := there(`{"session_id":"`+w.session+`"}`, w.bin, "statusline"); strings.TrimSpace(out) != "✏ EDIT (⚠ partial edit sandbox: hookctl doctor)" {
		t.Errorf("status line %q", out)
	}
	if out, _ := there("", w.bin, "doctor"); !strings.Contains(out, "no namespaces for edit mode here") || !strings.Contains(out, "cannot write hookctl's files, the client's settings") {
		t.Errorf("doctor does not say what holds:\n%s", out)
	}

	attack := newEditAttack(t, w, there)
	// The hook rewrites edit mode's commands into the Landlock-only profile there; the attack
	// runs in that launch as written (the guard would refuse most of it before the kernel sees
	// it: this is what holds when the guard misjudges).
	if runs, refused := w.throughHookThere(t, wrap, "echo hi > main.go"); refused || !strings.Contains(runs, "'--profile' 'edit-landlock'") && !strings.Contains(runs, "--profile edit-landlock") {
		t.Fatalf("the hook did not rewrite into the Landlock-only edit profile (refused %v): %s", refused, runs)
	}
	out, effects, edited := attack(w.launch("edit-landlock"))
	if len(effects) > 0 {
		t.Errorf("under edit mode's Landlock-only sandbox the attack got through: %v\n%s", effects, out)
	}
	if !edited {
		t.Errorf("edit mode could not write the project's own file:\n%s", out)
	}
}

// throughHookThere is throughHook with the hook run under wrap.
func (w *editWorld) throughHookThere(t *testing.T, wrap []string, command string) (string, bool) {
	t.Helper()
	bin := w.bin
	defer func() { w.bin = bin }()
	// The hook is the wrapped binary: a script that execs it under wrap.
	script := filepath.Join(filepath.Dir(bin), "hookctl-there") // the user's (the build's directory is closed to it)
	os.WriteFile(script, []byte("#!/bin/sh\nexec "+strings.Join(wrap, " ")+" "+bin+" \"$@\"\n"), 0o755)
	w.bin = script
	return w.throughHook(t, command)
}

// under returns a runner of argv under wrap, as w's user in its project.
func (w *editWorld) under(t *testing.T, wrap []string) func(stdin string, argv ...string) (string, int) {
	return func(stdin string, argv ...string) (string, int) {
		t.Helper()
		return runAs(t, w.user, w.project, w.env, stdin, append(append([]string{}, wrap...), argv...)...)
	}
}

// launch makes a script an edit-mode launch with profile, as the hook's rewrite does.
func (w *editWorld) launch(profile string) func(script string) []string {
	return func(s string) []string {
		return []string{w.bin, "sandbox", "--profile", profile, "--session", w.session, "--project", w.project, "--", "bash", "--noprofile", "--norc", "-c", s}
	}
}

// newEditAttack returns the edit-mode rows' attack: it runs, through there, the script that
// launch makes of it in w's project, which writes the project's own file and its client
// settings (disableAllHooks), a directory outside the project, reads a file in hookctl's home
// and connects to a listener on loopback; and says from outside which of the four got through,
// and whether the project's own file was written. First the control: the script alone,
// without hookctl, through there, must get all four through, or the row proves nothing.
func newEditAttack(t *testing.T, w *editWorld, there func(stdin string, argv ...string) (string, int)) func(launch func(script string) []string) (string, []string, bool) {
	settings := filepath.Join(w.project, ".claude", "settings.json")
	const secret = "hookctl-edit-env-secret"
	os.WriteFile(filepath.Join(w.hh, "secret"), []byte(secret+"\n"), 0o600)
	if w.user != nil {
		os.Lchown(filepath.Join(w.hh, "secret"), int(w.user.Uid), int(w.user.Gid))
	}
	conns := newConnCounter(t)
	n := 0
	attack := func(launch func(script string) []string) (string, []string, bool) {
		n++
		os.WriteFile(settings, []byte("{}\n"), 0o644)
		if w.user != nil {
			os.Lchown(settings, int(w.user.Uid), int(w.user.Gid))
		}
		written := filepath.Join(w.outside, fmt.Sprint("written-", n))
		script := fmt.Sprintf(`echo edited-%d > main.go; echo '{"disableAllHooks":true}' > .claude/settings.json; echo x > %s; cat %s; exec 3<>/dev/tcp/127.0.0.1/%d && echo connected`,
			n, written, filepath.Join(w.hh, "secret"), conns.port)
		before := conns.reached.Load()
		out, _ := there("", launch(script)...)
		var effects []string
		if b, _ := os.ReadFile(settings); strings.Contains(string(b), "disableAllHooks") {
			effects = append(effects, "client settings")
		}
		if _, err := os.Stat(written); err == nil {
			effects = append(effects, "write outside")
		}
		if strings.Contains(out, secret) {
			effects = append(effects, "hidden read")
		}
		if conns.since(before, out) {
			effects = append(effects, "connection")
		}
		b, _ := os.ReadFile(filepath.Join(w.project, "main.go"))
		return out, effects, string(b) == fmt.Sprintf("edited-%d\n", n)
	}
	all := "client settings, write outside, hidden read, connection"
	if out, effects, _ := attack(func(s string) []string { return []string{"bash", "--noprofile", "--norc", "-c", s} }); strings.Join(effects, ", ") != all {
		t.Fatalf("control: without hookctl the attack got through only %v, so this proves nothing:\n%s", effects, out)
	}
	return attack
}
