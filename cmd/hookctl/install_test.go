package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"github.com/hookctl/hookctl/sandbox"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/hookctl/hookctl/retriever"
	"github.com/hookctl/hookctl/session"

	"github.com/hookctl/hookctl/agents/claude"
	"github.com/hookctl/hookctl/hook"
)

// userEnv makes a temporary user: HOME with Claude Code's settings dir, and HOOKCTL_HOME.
func userEnv(t *testing.T) (home, hookctlHome string) {
	t.Helper()
	home = t.TempDir()
	hookctlHome = filepath.Join(home, ".config", "hookctl")
	t.Setenv("HOME", home)
	t.Setenv(envSessionVar, "") // as in a terminal outside Claude Code, whatever runs the tests
	os.MkdirAll(filepath.Join(home, ".claude"), 0o755)
	t.Chdir(t.TempDir())
	return home, hookctlHome
}

func TestInstallUninstallRoundTrip(t *testing.T) {
	home, hh := userEnv(t)
	settings := filepath.Join(home, ".claude", "settings.json")
	orig := "{\n  \"model\": \"opus\",\n  \"statusLine\": {\"type\": \"command\", \"command\": \"echo mine\"},\n  \"hooks\": {\"PreToolUse\": [{\"matcher\": \"Bash\", \"hooks\": [{\"type\": \"command\", \"command\": \"/other/tool\"}]}]}\n}\n"
	os.WriteFile(settings, []byte(orig), 0o640)

	code, out, errOut := runCLI(t, hh, "", "install")
	if code != exitOK || !strings.Contains(out, "registered hookctl in "+settings) {
		t.Fatalf("install: exit %d %q %q", code, out, errOut)
	}
	after, _ := os.ReadFile(settings)
	exe, _ := os.Executable()
	exe, _ = filepath.EvalSymlinks(exe)
	in, err := claude.Inspect(after, exe)
	if pre, _ := in.Hook("PreToolUse"); pre.Command != filepath.Join(hh, "bin", "hookctl") {
		t.Errorf("PreToolUse runs %q", pre.Command)
	}
	if err != nil || len(in.Hooks) != len(claude.Entries) || !in.StatusLineOurs {
		t.Fatalf("after install: %+v %v\n%s", in, err, after)
	}
	if !strings.Contains(string(after), `"command": "/other/tool"`) || !strings.Contains(string(after), `"model": "opus"`) {
		t.Errorf("install lost the user's settings:\n%s", after)
	}
	if fi, _ := os.Stat(settings); fi.Mode().Perm() != 0o640 {
		t.Errorf("mode changed to %v", fi.Mode().Perm())
	}
	// The backup is in hookctl's home, named for the file, and the output says where.
	if near, _ := filepath.Glob(filepath.Join(home, ".claude", "*backup*")); len(near) != 0 {
		t.Errorf("backups beside the settings: %v", near)
	}
	backups, _ := filepath.Glob(filepath.Join(hh, "backups", "*-user-*-.claude-settings.json"))
	if len(backups) != 1 || !strings.Contains(out, "(backup: "+backups[0]+")") {
		t.Errorf("backups: %v; output %q", backups, out)
	} else if b, _ := os.ReadFile(backups[0]); string(b) != orig {
		t.Errorf("the backup is not the original")
	} else if fi, _ := os.Stat(backups[0]); fi.Mode().Perm() != 0o600 {
		t.Errorf("the backup's mode is %v", fi.Mode().Perm())
	}
	// The hooks run the link in hookctl's home, which leads here; the way out without it is there.
	if target, err := os.Readlink(filepath.Join(hh, "bin", "hookctl")); err != nil || target != exe {
		t.Errorf("link: %q %v, want %s", target, err, exe)
	}
	if b, _ := os.ReadFile(filepath.Join(hh, "uninstall.sh")); string(b) != string(claude.UninstallScript) {
		t.Errorf("uninstall.sh is not written")
	}
	if !strings.Contains(out, "sh "+filepath.Join(hh, "uninstall.sh")+"` removes hookctl's hooks") {
		t.Errorf("install does not say how to recover without the binary: %q", out)
	}
	if err := claude.CheckReadonlyCommand(home); err != nil {
		t.Errorf("command file: %v", err)
	}

	// A second install changes nothing.
	code, out, _ = runCLI(t, hh, "", "install")
	again, _ := os.ReadFile(settings)
	if code != exitOK || !strings.Contains(out, "already up to date") || string(again) != string(after) {
		t.Errorf("second install: exit %d %q", code, out)
	}

	// The status line install replaced runs after the badge.
	code, out, _ = runCLI(t, hh, `{"session_id":"s1"}`, "statusline")
	if code != exitOK || out != "🔒 READ-ONLY  mine\n" {
		t.Errorf("statusline: %q", out)
	}

	// Uninstall restores the original bytes and removes the command.
	code, out, _ = runCLI(t, hh, "", "uninstall")
	restored, _ := os.ReadFile(settings)
	if code != exitOK || string(restored) != orig {
		t.Errorf("uninstall: exit %d %q\n%s", code, out, restored)
	}
	if _, err := os.Stat(claude.ReadonlyCommandPath(home)); !os.IsNotExist(err) {
		t.Errorf("the command file is still there: %v", err)
	}
	var saved savedStatusLines
	b, _ := os.ReadFile(filepath.Join(hh, statusLineFile))
	if json.Unmarshal(b, &saved); saved.Previous != "" || len(saved.Files) != 0 {
		t.Errorf("saved status lines after uninstall: %s", b)
	}
}

// TestInstallRefusesAndNeverOverwrites: a settings file install cannot read, or one Claude Code
// would ignore, is left exactly as it was.
func TestInstallRefusesAndNeverOverwrites(t *testing.T) {
	for name, c := range map[string]struct{ text, want string }{
		"malformed":      {"{\"hooks\": [}", "line 1"},
		"hooks an array": {"{\"hooks\": []}", `"hooks" is not an object`},
		"comments":       {"{\n  // mine\n  \"model\": \"opus\"\n}\n", "Claude Code does not read this file"},
		"trailing comma": {"{\"model\": \"opus\",}", "Claude Code does not read this file"},
	} {
		home, hh := userEnv(t)
		settings := filepath.Join(home, ".claude", "settings.json")
		os.WriteFile(settings, []byte(c.text), 0o644)
		code, _, errOut := runCLI(t, hh, "", "install")
		if code != exitError || !strings.Contains(errOut, c.want) {
			t.Errorf("%s: exit %d, stderr %q, want %q", name, code, errOut, c.want)
		}
		if b, _ := os.ReadFile(settings); string(b) != c.text {
			t.Errorf("%s: the file changed", name)
		}
		if backups, _ := filepath.Glob(filepath.Join(hh, "backups", "*")); len(backups) != 0 {
			t.Errorf("%s: backups %v", name, backups)
		}
	}
}

func TestInstallDryRunWritesNothing(t *testing.T) {
	home, hh := userEnv(t)
	code, out, _ := runCLI(t, hh, "", "install", "--dry-run")
	if code != exitOK || !strings.Contains(out, "(dry run: nothing written)") || !strings.Contains(out, `+   "hooks": {`) {
		t.Errorf("exit %d %q", code, out)
	}
	if entries, _ := os.ReadDir(filepath.Join(home, ".claude")); len(entries) != 0 {
		t.Errorf("dry run wrote %v", entries)
	}
}

func TestInstallScopes(t *testing.T) {
	_, hh := userEnv(t)
	cwd, _ := os.Getwd()
	if code, out, errOut := runCLI(t, hh, "", "install", "--scope", "project"); code != exitOK || !strings.Contains(out, filepath.Join(cwd, ".claude", "settings.json")) {
		t.Errorf("project scope: exit %d %q %q", code, out, errOut)
	}
	if code, _, errOut := runCLI(t, hh, "", "install", "--scope", "team"); code != exitError || !strings.Contains(errOut, "unknown scope") {
		t.Errorf("bad scope: exit %d %q", code, errOut)
	}
}

func TestReadonlyCommand(t *testing.T) {
	_, hh := userEnv(t)
	cwd, _ := os.Getwd()
	store := session.NewStore(hh)
	store.Record("elsewhere", "/somewhere/else", hook.ModeReadOnly)
	store.Record("here", cwd, hook.ModeReadOnly)

	code, out, _ := runCLI(t, hh, "", "readonly", "status")
	if code != exitOK || !strings.Contains(out, "session here") || !strings.Contains(out, "🔒 READ-ONLY") {
		t.Errorf("status: exit %d %q", code, out)
	}
	code, out, _ = runCLI(t, hh, "", "readonly", "off")
	if code != exitOK || !strings.Contains(out, "session here: 🔒 READ-ONLY → ✏ EDIT") {
		t.Errorf("off: exit %d %q", code, out)
	}
	code, out, _ = runCLI(t, hh, "", "readonly", "off")
	if !strings.Contains(out, "already ✏ EDIT") {
		t.Errorf("off again: %q", out)
	}
	code, out, _ = runCLI(t, hh, "", "readonly", "toggle", "--session", "elsewhere")
	if code != exitOK || !strings.Contains(out, "session elsewhere: 🔒 READ-ONLY → ✏ EDIT") {
		t.Errorf("--session: exit %d %q", code, out)
	}
	code, out, _ = runCLI(t, hh, "", "readonly", "status", "--all")
	if code != exitOK || strings.Count(out, "✏ EDIT") != 2 {
		t.Errorf("--all: %q", out)
	}
	sess, _ := store.Load("here")
	if n := len(sess.History); n != 2 || sess.History[1].How != "cli" {
		t.Errorf("history: %+v", sess.History)
	}
	t.Chdir(t.TempDir())
	if code, _, errOut := runCLI(t, hh, "", "readonly", "off"); code != exitError || !strings.Contains(errOut, "--session") {
		t.Errorf("no session here: exit %d %q", code, errOut)
	}
	code, out, _ = runCLI(t, hh, "", "readonly", "review", "--session", "elsewhere")
	if code != exitOK || !strings.Contains(out, "session elsewhere: ✏ EDIT → 👁 REVIEW") || !strings.Contains(out, "runs in hookctl's publish sandbox") {
		t.Errorf("review: exit %d %q", code, out)
	}
	code, out, _ = runCLI(t, hh, "", "readonly", "on", "--session", "elsewhere")
	if code != exitOK || !strings.Contains(out, "👁 REVIEW → 🔒 READ-ONLY") {
		t.Errorf("review → on: exit %d %q", code, out)
	}
	if sess, _ := store.Load("elsewhere"); len(sess.History) != 4 || sess.History[2].To != hook.ModeReview || sess.History[2].How != "cli" {
		t.Errorf("review history: %+v", sess.History)
	}
	if code, _, _ := runCLI(t, hh, "", "readonly", "sideways"); code != exitError {
		t.Errorf("bad verb: exit %d", code)
	}
}

func TestStatuslineBadges(t *testing.T) {
	_, hh := userEnv(t)
	store := session.NewStore(hh)
	store.Record("ro", "/p", hook.ModeReadOnly)
	store.Record("ed", "/p", hook.ModeEdit)
	store.Record("rv", "/p", hook.ModeReview)
	for id, want := range map[string]string{"ro": "🔒 READ-ONLY\n", "ed": "✏ EDIT\n", "new": "🔒 READ-ONLY\n",
		"rv": "👁 REVIEW\n"} { // the publish sandbox holds here: no "(publish: unsandboxed)"
		if _, out, _ := runCLI(t, hh, `{"session_id":"`+id+`"}`, "statusline"); out != want {
			t.Errorf("%s: %q, want %q", id, out, want)
		}
	}
	os.WriteFile(filepath.Join(hh, "config.toml"), []byte("[network]\nedit = \"full\"\n"), 0o600)
	if _, out, _ := runCLI(t, hh, `{"session_id":"ed"}`, "statusline"); out != "✏ EDIT ⚠ FULL NETWORK\n" {
		t.Errorf("edit mode with the whole network: %q", out)
	}
	os.WriteFile(filepath.Join(hh, "config.toml"), []byte("direct_fetch = true\n"), 0o600)
	if _, out, _ := runCLI(t, hh, `{"session_id":"ed"}`, "statusline"); out != "✏ EDIT ⚠ DIRECT FETCH\n" {
		t.Errorf("direct_fetch: %q", out)
	}
	os.WriteFile(filepath.Join(hh, "config.toml"), []byte("direct_fetch = 3\n"), 0o600)
	if _, out, _ := runCLI(t, hh, `{"session_id":"new"}`, "statusline"); !strings.Contains(out, "config broken") {
		t.Errorf("broken config: %q", out)
	}
	// Issue 11: a session the hook has seen showed its mode alone while every call was refused.
	if _, out, _ := runCLI(t, hh, `{"session_id":"ed"}`, "statusline"); out != "✏ EDIT ⚠ hookctl config broken: every call refused\n" {
		t.Errorf("broken config, edit-mode session: %q", out)
	}
	os.Remove(filepath.Join(hh, "config.toml"))
	// Issue 11: the client's plan mode, once the hook has seen a call in it, shows.
	store.NotePermissionMode("ed", hook.PermissionPlan)
	store.NotePermissionMode("ro", hook.PermissionPlan)
	if _, out, _ := runCLI(t, hh, `{"session_id":"ed"}`, "statusline"); out != "✏ EDIT (⏸ plan mode: read-only)\n" {
		t.Errorf("edit mode in plan mode: %q", out)
	}
	if _, out, _ := runCLI(t, hh, `{"session_id":"ro"}`, "statusline"); out != "🔒 READ-ONLY\n" {
		t.Errorf("read-only in plan mode: %q", out)
	}
	store.NotePermissionMode("ed", "default")
	if _, out, _ := runCLI(t, hh, `{"session_id":"ed"}`, "statusline"); out != "✏ EDIT\n" {
		t.Errorf("edit mode out of plan mode: %q", out)
	}
	os.WriteFile(filepath.Join(hh, "sessions", "ed.json"), []byte("{torn"), 0o600)
	if _, out, _ := runCLI(t, hh, `{"session_id":"ed"}`, "statusline"); !strings.Contains(out, "READ-ONLY (⚠ state unreadable)") {
		t.Errorf("damaged: %q", out)
	}
}

func TestDoctorFindsProblems(t *testing.T) {
	home, hh := userEnv(t)
	t.Setenv("PATH", "") // no claude to ask for its version
	code, out, _ := runCLI(t, hh, "", "doctor")
	if code != exitDenied || !strings.Contains(out, "not registered") || !strings.Contains(out, "/readonly command") {
		t.Errorf("before install: exit %d\n%s", code, out)
	}
	runCLI(t, hh, "", "install")
	code, out, _ = runCLI(t, hh, "", "doctor")
	if code != exitOK || !strings.Contains(out, "no problems found") {
		t.Errorf("after install: exit %d\n%s", code, out)
	}
	if !strings.Contains(out, "run in hookctl's OS sandbox (landlock ABI") || !strings.Contains(out, "✓ edit mode's commands run in hookctl's edit sandbox") {
		t.Errorf("doctor does not say what holds each mode:\n%s", out)
	}
	// Run from the home directory, the project's settings file is the user's: said once
	// (control: from another directory, only the user's is registered, and said once too).
	for _, dir := range []string{home, t.TempDir()} {
		t.Chdir(dir)
		if _, out, _ := runCLI(t, hh, "", "doctor"); strings.Count(out, "registered in ") != 1 {
			t.Errorf("doctor in %s names the registration %d times:\n%s", dir, strings.Count(out, "registered in "), out)
		}
	}
	cwd, _ := os.Getwd()
	os.MkdirAll(filepath.Join(cwd, ".claude"), 0o755)
	os.WriteFile(filepath.Join(cwd, ".claude", "settings.local.json"), []byte(`{"disableAllHooks": true}`), 0o644)
	code, out, _ = runCLI(t, hh, "", "doctor")
	if code != exitDenied || !strings.Contains(out, "disableAllHooks") {
		t.Errorf("disableAllHooks: exit %d\n%s", code, out)
	}
	os.Remove(filepath.Join(cwd, ".claude", "settings.local.json"))
	os.MkdirAll(filepath.Join(hh, "sessions"), 0o777)
	os.Chmod(filepath.Join(hh, "sessions"), 0o777)
	if code, out, _ = runCLI(t, hh, "", "doctor"); code != exitDenied || !strings.Contains(out, "writable by others") {
		t.Errorf("world-writable state: exit %d\n%s", code, out)
	}
	os.Chmod(filepath.Join(hh, "sessions"), 0o700)
	if code, out, _ = runCLI(t, hh, "", "doctor"); code != exitOK || !strings.Contains(out, "✓ state directory") {
		t.Errorf("a writable state directory: exit %d\n%s", code, out)
	}
	_ = home
}

// TestDoctorFindsAStateDirThatTakesNoWrite (issue 11): a read-only or full file system under the
// state directory leaves every new session read-only with a warning and every toggle failing;
// doctor says so. (The probe is replaced: as root, permission bits stop no write.)
func TestDoctorFindsAStateDirThatTakesNoWrite(t *testing.T) {
	_, hh := userEnv(t)
	t.Setenv("PATH", "")
	runCLI(t, hh, "", "install")
	os.MkdirAll(filepath.Join(hh, "sessions"), 0o700)
	if err := probeStateDir(filepath.Join(hh, "sessions")); err != nil {
		t.Fatalf("the real probe fails on a writable directory: %v", err)
	}
	if entries, _ := os.ReadDir(filepath.Join(hh, "sessions")); len(entries) != 0 {
		t.Errorf("the probe left %v behind", entries)
	}
	real := probeStateDir
	t.Cleanup(func() { probeStateDir = real })
	for _, why := range []string{"failed to write in it: read-only file system", "its file system is full (12 KiB free)"} {
		probeStateDir = func(string) error { return errors.New(why) }
		code, out, _ := runCLI(t, hh, "", "doctor")
		if code != exitDenied || !strings.Contains(out, why) || !strings.Contains(out, "no toggle can land") {
			t.Errorf("%s: exit %d\n%s", why, code, out)
		}
	}
}

// TestDoctorReportsRetrieval: doctor names the distiller WebFetch will get, or says why there is
// none and how to set one up — for a subscription user, the setup-token step claude-cli needs
// inside the sandbox — without counting it as a problem (retrieval then fails closed).
func TestDoctorReportsRetrieval(t *testing.T) {
	_, hh := userEnv(t)
	bin := t.TempDir()
	claude := filepath.Join(bin, "claude")
	if err := os.WriteFile(claude, []byte("#!/bin/sh\necho 2.1.328 '(Claude Code)'\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	t.Setenv("PATH", bin)
	for _, k := range append(retriever.ClaudeCLICredentialEnv, "BRAVE_API_KEY", "OPENAI_API_KEY") {
		t.Setenv(k, "")
	}
	runCLI(t, hh, "", "install")

	code, out, _ := runCLI(t, hh, "", "doctor")
	if code != exitOK || !strings.Contains(out, "• web retrieval: WebFetch and Bash curl/wget/gh reads will be refused") ||
		!strings.Contains(out, "claude setup-token") || strings.Contains(out, "[retriever.openai]") {
		t.Errorf("no credential: exit %d\n%s", code, out)
	}
	t.Setenv("CLAUDE_CODE_OAUTH_TOKEN", "sk-ant-oat01-test")
	if _, out, _ = runCLI(t, hh, "", "doctor"); !strings.Contains(out, "✓ web retrieval: the claude-cli distiller") ||
		!strings.Contains(out, "• web search: WebSearch will be refused") {
		t.Errorf("with the setup token:\n%s", out)
	}
	t.Setenv("ANTHROPIC_API_KEY", "sk-ant-test")
	if _, out, _ = runCLI(t, hh, "", "doctor"); !strings.Contains(out, "✓ web retrieval: the anthropic distiller") ||
		!strings.Contains(out, "✓ web search: anthropic") {
		t.Errorf("with an API key:\n%s", out)
	}
}

// TestUninstallOneScopeKeepsTheOther (issue 11): uninstall --scope project removed the user's
// /readonly command, which the user install still needs (every toggle then failed). Uninstalling
// one scope leaves the other's settings byte for byte, and the command while any scope still
// registers hookctl; the last uninstall removes it.
func TestUninstallOneScopeKeepsTheOther(t *testing.T) {
	home, hh := userEnv(t)
	cwd, _ := os.Getwd()
	cmd := claude.ReadonlyCommandPath(home)
	userSettings := filepath.Join(home, ".claude", "settings.json")
	for _, scope := range []string{"user", "project"} {
		if code, out, errOut := runCLI(t, hh, "", "install", "--scope", scope); code != exitOK {
			t.Fatalf("install %s: %d %s %s", scope, code, out, errOut)
		}
	}
	userBefore, _ := os.ReadFile(userSettings)
	code, out, _ := runCLI(t, hh, "", "uninstall", "--scope", "project", "--dry-run")
	if code != exitOK || !strings.Contains(out, "would keep the /readonly command") || strings.Contains(out, "would remove "+cmd) {
		t.Errorf("uninstall --scope project --dry-run: %d %s", code, out)
	}
	code, out, _ = runCLI(t, hh, "", "uninstall", "--scope", "project")
	if code != exitOK || !strings.Contains(out, "kept the /readonly command "+cmd+": hookctl is still registered in "+userSettings) {
		t.Errorf("uninstall --scope project: %d %s", code, out)
	}
	if err := claude.CheckReadonlyCommand(home); err != nil {
		t.Errorf("the user's /readonly command is gone: %v", err)
	}
	if after, _ := os.ReadFile(userSettings); string(after) != string(userBefore) {
		t.Errorf("uninstalling the project scope changed the user's settings")
	}
	if b, _ := os.ReadFile(filepath.Join(cwd, ".claude", "settings.json")); strings.Contains(string(b), "hookctl") {
		t.Errorf("the project's settings still register hookctl: %s", b)
	}
	code, out, _ = runCLI(t, hh, "", "uninstall", "--scope", "user")
	if code != exitOK || !strings.Contains(out, "removed the /readonly command") {
		t.Errorf("uninstall --scope user: %d %s", code, out)
	}
	if _, err := os.Stat(cmd); err == nil {
		t.Error("the last uninstall left the /readonly command")
	}
}

// TestDoctorWarnsBeforeTheBinaryGoesMissing (issue 11, item 7): doctor says, before Claude Code
// starts refusing every prompt, that what the hooks run is not this binary, is missing or not
// executable, that the hookctl on PATH is another one, and where the way out is.
func TestDoctorWarnsBeforeTheBinaryGoesMissing(t *testing.T) {
	_, hh := userEnv(t)
	t.Setenv("PATH", "")
	runCLI(t, hh, "", "install")
	link := filepath.Join(hh, "bin", "hookctl")
	script := filepath.Join(hh, "uninstall.sh")
	doctor := func(wantCode int, want ...string) {
		t.Helper()
		code, out, _ := runCLI(t, hh, "", "doctor")
		if code != wantCode {
			t.Errorf("exit %d, want %d\n%s", code, wantCode, out)
		}
		for _, w := range want {
			if !strings.Contains(out, w) {
				t.Errorf("no %q in\n%s", w, out)
			}
		}
	}
	doctor(exitOK, "✓ if hookctl's binary goes missing: sh "+script+" removes its hooks")

	other := filepath.Join(t.TempDir(), "hookctl")
	os.WriteFile(other, []byte("#!/bin/sh\n"), 0o755)
	os.Remove(link)
	os.Symlink(other, link)
	doctor(exitOK, "⚠ "+link+" leads to "+other+", not this binary", "run hookctl at "+link+" → "+other+", not this binary")

	os.Remove(other)
	doctor(exitDenied, "✗ "+link+" leads to "+other+", which is missing: Claude Code refuses every prompt and tool call",
		"fix: reinstall hookctl (make install), or without it: sh "+script,
		"run "+link+", which is missing or not executable")

	os.WriteFile(other, []byte("#!/bin/sh\n"), 0o644)
	doctor(exitDenied, "run "+link+", which is missing or not executable")

	runCLI(t, hh, "", "install")
	onPath := t.TempDir()
	os.WriteFile(filepath.Join(onPath, "hookctl"), []byte("#!/bin/sh\n"), 0o755)
	t.Setenv("PATH", onPath)
	doctor(exitOK, "⚠ the hookctl on your PATH is "+filepath.Join(onPath, "hookctl")+", but the hooks run "+exePath(t))

	os.Remove(script)
	doctor(exitDenied, "✗ "+script+" is missing or out of date")

	// A project's wrapper that is not hookctl's: it could let everything through.
	runCLI(t, hh, "", "install", "--scope", "project")
	cwd, _ := os.Getwd()
	project := filepath.Join(cwd, ".claude", "settings.json")
	b, _ := os.ReadFile(project)
	os.WriteFile(project, bytes.ReplaceAll(b, []byte(`>&2; exit 2"`), []byte(`>&2; exit 0"`)), 0o644)
	doctor(exitDenied, "project settings "+project+" run hookctl through a wrapper that is not this hookctl's")
}

// TestReadonlyCommandUpgrade: the /readonly command an earlier release installed (its argument
// hint said "[on|off]") still toggles, so an upgrade never locks a user in read-only mode; install
// updates it without a backup, and uninstall removes it. Someone else's file is still not ours.
func TestReadonlyCommandUpgrade(t *testing.T) {
	home, hh := userEnv(t)
	path := claude.ReadonlyCommandPath(home)
	os.MkdirAll(filepath.Dir(path), 0o755)
	earlier := strings.Replace(string(claude.ReadonlyCommand), `argument-hint: "[on|off|review|status]"`, `argument-hint: "[on|off]"`, 1)
	earlier = strings.Replace(earlier, "read-only, edit and review mode", "read-only and edit mode", 1)
	if earlier == string(claude.ReadonlyCommand) {
		t.Fatal("the earlier command is the current one")
	}
	os.WriteFile(path, []byte(earlier), 0o644)
	if err := claude.CheckReadonlyCommand(home); err != nil {
		t.Errorf("the earlier release's command no longer toggles: %v", err)
	}
	code, out, errOut := runCLI(t, hh, "", "install")
	if b, _ := os.ReadFile(path); code != exitOK || !strings.Contains(out, "updated the /readonly command") || string(b) != string(claude.ReadonlyCommand) {
		t.Fatalf("install over the earlier command: exit %d %q %q\n%s", code, out, errOut, b)
	}
	if !strings.Contains(string(claude.ReadonlyCommand), `argument-hint: "[on|off|review|status]"`) {
		t.Errorf("the command's hint does not name review and status")
	}
	os.WriteFile(path, []byte(earlier), 0o644)
	if code, out, _ := runCLI(t, hh, "", "uninstall"); code != exitOK || !strings.Contains(out, "removed the /readonly command") {
		t.Errorf("uninstall of the earlier command: exit %d %q", code, out)
	}
	os.WriteFile(path, []byte(earlier+"# mine\n"), 0o644)
	if err := claude.CheckReadonlyCommand(home); err == nil {
		t.Errorf("a changed command file is taken for hookctl's")
	}
}

// TestUninstallRemovesTheFileInstallCreated: where there was no settings file, uninstall leaves
// none (it used to leave `{}`), and so does uninstall.sh; a file the user has since written their
// own settings into is theirs and stays, without hookctl.
func TestUninstallRemovesTheFileInstallCreated(t *testing.T) {
	home, hh := userEnv(t)
	settings := filepath.Join(home, ".claude", "settings.json")
	if code, out, errOut := runCLI(t, hh, "", "install"); code != exitOK {
		t.Fatalf("install: %d %q %q", code, out, errOut)
	}
	if code, out, _ := runCLI(t, hh, "", "uninstall"); code != exitOK || !strings.Contains(out, "which hookctl install had created") {
		t.Errorf("uninstall: exit %d %q", code, out)
	}
	if _, err := os.Stat(settings); !os.IsNotExist(err) {
		b, _ := os.ReadFile(settings)
		t.Errorf("uninstall left %s: %q", settings, b)
	}

	// The same through uninstall.sh, which needs no hookctl.
	runCLI(t, hh, "", "install")
	sh := exec.Command("sh", filepath.Join(hh, "uninstall.sh"))
	sh.Env = append(os.Environ(), "HOME="+home)
	if out, err := sh.CombinedOutput(); err != nil || !strings.Contains(string(out), "which hookctl install had created") {
		t.Errorf("uninstall.sh: %v %s", err, out)
	}
	if _, err := os.Stat(settings); !os.IsNotExist(err) {
		b, _ := os.ReadFile(settings)
		t.Errorf("uninstall.sh left %s: %q", settings, b)
	}

	// The user's own key since install: kept.
	runCLI(t, hh, "", "install")
	b, _ := os.ReadFile(settings)
	os.WriteFile(settings, []byte(strings.Replace(string(b), "{", "{\n  \"model\": \"opus\",", 1)), 0o644)
	runCLI(t, hh, "", "uninstall")
	if b, err := os.ReadFile(settings); err != nil || !strings.Contains(string(b), `"model": "opus"`) || strings.Contains(string(b), "hookctl") {
		t.Errorf("a file with the user's settings: %v %q", err, b)
	}
}

// TestStatuslineLeavesPlanMode (issue 30): the client redraws its status line when its
// permission mode changes, with an input that does not say the mode. A redraw whose input is
// unchanged since the last, with no plan-mode note since, drops the plan badge, which used to
// claim plan mode's read-only rules until the next prompt although the agent could edit again.
func TestStatuslineLeavesPlanMode(t *testing.T) {
	_, hh := userEnv(t)
	store := session.NewStore(hh)
	store.Record("ed", "/p", hook.ModeEdit)
	draw := func(tokens int) string {
		in := fmt.Sprintf(`{"session_id":"ed","model":{"id":"m"},"context_window":{"total_input_tokens":%d},"cost":{"total_duration_ms":%d}}`,
			tokens, time.Now().UnixNano())
		_, out, _ := runCLI(t, hh, in, "statusline")
		return strings.TrimSpace(out)
	}
	const planned = "✏ EDIT (⏸ plan mode: read-only)"
	draw(10)
	store.NotePermissionMode("ed", hook.PermissionPlan) // a prompt in plan mode
	for i, step := range []struct {
		tokens int
		want   string
	}{
		{10, planned},  // noted since the last drawing: shown
		{20, planned},  // the model answered: still in plan mode
		{20, "✏ EDIT"}, // Shift+Tab: redrawn with nothing else changed
		{30, "✏ EDIT"}, // later answers do not bring it back …
	} {
		if got := draw(step.tokens); got != step.want {
			t.Errorf("drawing %d: %q, want %q", i, got, step.want)
		}
	}
	store.NotePermissionMode("ed", hook.PermissionPlan) // … a prompt or call in plan mode does
	if got := draw(30); got != planned {
		t.Errorf("after plan mode was reported again: %q", got)
	}
}

// TestDoctorNamesRulesOnHookctlsWrapper (issue 25): doctor counts the Claude Code permission
// rules hookctl applies, and names a rule that approves hookctl's rewrite rather than a command
// (what "don't ask again" saved when an earlier hookctl left a rewritten call to the client's
// prompt), as a problem with the file it is in.
func TestDoctorNamesRulesOnHookctlsWrapper(t *testing.T) {
	_, hh := userEnv(t)
	t.Setenv("PATH", "")
	runCLI(t, hh, "", "install")
	cwd, _ := os.Getwd()
	local := filepath.Join(cwd, ".claude", "settings.local.json")
	os.MkdirAll(filepath.Dir(local), 0o755)
	os.WriteFile(local, []byte(`{"permissions":{"allow":["Bash(npm test *)"],"deny":["Bash(rm:*)"],"ask":["Bash(git push:*)"]}}`), 0o644)
	code, out, _ := runCLI(t, hh, "", "doctor")
	if code != exitOK || !strings.Contains(out, "Claude Code permission rules for a session here: 1 deny, 1 ask, 1 allow (local 3)") {
		t.Errorf("doctor with the user's rules: exit %d\n%s", code, out)
	}
	os.WriteFile(local, []byte(`{"permissions":{"allow":["Bash(/home/u/.local/bin/hookctl sandbox *)","Bash(npm test *)"]}}`), 0o644)
	code, out, _ = runCLI(t, hh, "", "doctor")
	if code != exitDenied || !strings.Contains(out, "✗ the rule allow Bash(/home/u/.local/bin/hookctl sandbox *) in "+local+" approves hookctl's rewritten commands") ||
		!strings.Contains(out, "fix: remove it from "+local) {
		t.Errorf("doctor did not name the rule on hookctl's wrapper: exit %d\n%s", code, out)
	}
}

// TestInstallCachesTheProbe: install tries the sandbox and caches the answer, so that the first
// command a hook admits does not wait for the probe (two execs of hookctl) inside the hook's
// deadline; and it says what holds. Control: in a home where nothing was installed, that first
// hook call is the one that probes and writes the cache. A dry run writes none.
func TestInstallCachesTheProbe(t *testing.T) {
	_, hh := userEnv(t)
	cache := filepath.Join(hh, sandbox.CacheName)
	if code, out, errOut := runCLI(t, hh, "", "install", "--dry-run"); code != exitOK {
		t.Fatalf("install --dry-run: %d %q %q", code, out, errOut)
	}
	if _, err := os.Stat(cache); !os.IsNotExist(err) {
		t.Fatalf("a dry run wrote %s (%v)", cache, err)
	}
	code, out, errOut := runCLI(t, hh, "", "install")
	if code != exitOK || !strings.Contains(out, "sandbox on this machine: read-only: ") {
		t.Fatalf("install: %d %q %q", code, out, errOut)
	}
	before, err := os.Stat(cache)
	if err != nil {
		t.Fatalf("install did not cache the probe: %v", err)
	}
	payload := func(session string) string {
		return `{"session_id":"` + session + `","cwd":"/tmp","hook_event_name":"PreToolUse","tool_name":"Bash","tool_input":{"command":"ls -la"}}`
	}
	if code, out, errOut := runCLI(t, hh, payload("probe-installed"), "hook"); code != 0 || !strings.Contains(out, `"allow"`) {
		t.Fatalf("hook: %d %s %s", code, out, errOut)
	}
	if after, err := os.Stat(cache); err != nil || !after.ModTime().Equal(before.ModTime()) || !os.SameFile(before, after) {
		t.Errorf("the first hook call after install probed again (cache %v, %v → %v)", err, before.ModTime(), after)
	}

	// Control: nothing installed; the first admitted command probes.
	_, fresh := userEnv(t)
	if code, out, errOut := runCLI(t, fresh, payload("probe-fresh"), "hook"); code != 0 || !strings.Contains(out, `"allow"`) {
		t.Fatalf("hook: %d %s %s", code, out, errOut)
	}
	if _, err := os.Stat(filepath.Join(fresh, sandbox.CacheName)); err != nil {
		t.Errorf("control: the first admitted command in a new home did not probe: %v", err)
	}
}
