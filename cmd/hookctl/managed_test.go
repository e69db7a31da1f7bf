//go:build linux

package main

import (
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/hookctl/hookctl/agents/agenttest"
	"github.com/hookctl/hookctl/config"
)

// managedWorld runs the built hookctl as a user whose own config loosens things, with or without
// the organisation's policy at its fixed place: the policy directory is mounted on
// /etc/hookctl in a mount namespace of the command's own (agenttest.InPlace), so the machine's
// /etc is untouched and the binary reads the path it always reads.
type managedWorld struct {
	bin, home, policy string
	user              *syscall.Credential
	// userns runs hookctl in a user namespace of the user's own that maps only the user (as
	// bubblewrap, a rootless container or hookctl run do): root's files show as the overflow uid.
	userns bool
}

func newManagedWorld(t *testing.T, user *syscall.Credential, userConfig string) *managedWorld {
	t.Helper()
	requireTool(t, "unshare")
	requireTool(t, "setpriv")
	if os.Geteuid() != 0 {
		t.Skip("mounting the policy in place needs root")
	}
	if _, err := os.Lstat(config.ManagedConfigPath); err == nil {
		t.Skipf("this machine has an organisation's policy at %s already", config.ManagedConfigPath)
	}
	root := machineDir(t, "hookctl-managed-e2e-")
	w := &managedWorld{bin: filepath.Join(root, "hookctl"), home: filepath.Join(root, "home"), policy: filepath.Join(root, "policy"), user: user}
	b, err := os.ReadFile(hookctlBinary(t))
	if err != nil {
		t.Fatal(err)
	}
	os.WriteFile(w.bin, b, 0o755)
	os.MkdirAll(filepath.Join(w.home, ".config", "hookctl"), 0o755)
	os.MkdirAll(filepath.Join(w.home, ".aws"), 0o755)
	os.WriteFile(filepath.Join(w.home, ".aws", "credentials"), []byte("[default]\naws_secret_access_key = CANARY\n"), 0o600)
	os.WriteFile(filepath.Join(w.home, ".config", "hookctl", "config.toml"), []byte(userConfig), 0o600)
	os.MkdirAll(w.policy, 0o755)
	if user != nil {
		filepath.Walk(w.home, func(p string, _ os.FileInfo, _ error) error { return os.Lchown(p, int(user.Uid), int(user.Gid)) })
	}
	return w
}

// run runs hookctl with args, under the managed policy when managed is set.
func (w *managedWorld) run(t *testing.T, managed bool, stdin string, args ...string) (string, int) {
	t.Helper()
	var argv []string
	switch {
	case managed:
		argv = agenttest.InPlace(t, w.policy, filepath.Dir(config.ManagedConfigPath))
	default:
		argv = []string{"env"}
	}
	if w.user != nil {
		argv = append(argv, "setpriv", "--reuid=65534", "--regid=65534", "--clear-groups")
	}
	if w.userns {
		argv = append(argv, "unshare", "--user", "--map-root-user")
	}
	argv = append(append(argv, w.bin), args...)
	cmd := exec.Command(argv[0], argv[1:]...)
	cmd.Dir = w.home
	cmd.Env = []string{"PATH=" + os.Getenv("PATH"), "HOME=" + w.home, "HOOKCTL_HOME=" + filepath.Join(w.home, ".config", "hookctl"), "TMPDIR=" + w.home, "LANG=C.UTF-8"}
	cmd.Stdin = strings.NewReader(stdin)
	out, err := cmd.CombinedOutput()
	code := 0
	var ee *exec.ExitError
	if errors.As(err, &ee) {
		code = ee.ExitCode()
	} else if err != nil {
		t.Fatal(err)
	}
	return string(out), code
}

func (w *managedWorld) setPolicy(t *testing.T, text string) {
	t.Helper()
	path := filepath.Join(w.policy, "config.toml")
	os.Remove(path)
	if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
}

// writePayload is a new session's first Write, as Claude Code sends it.
func writePayload(home, session string) string {
	return `{"session_id":"` + session + `","hook_event_name":"PreToolUse","cwd":"` + home + `","tool_name":"Write",` +
		`"tool_input":{"file_path":"` + home + `/notes.txt","content":"x"}}`
}

// TestManagedPolicyBindsEveryUser: the organisation's file at its fixed place holds against a
// user's config that loosens each thing tried, as root and as an unprivileged user, through
// the real binary. Control: the same user config without the managed file has its looser
// effect. A managed file root does not alone control, or one that does not parse, refuses
// every tool call naming the file; doctor names the keys it sets.
func TestManagedPolicyBindsEveryUser(t *testing.T) {
	forUsers(t, func(t *testing.T, user *syscall.Credential) {
		w := newManagedWorld(t, user, "default_mode = \"edit\"\nallow_read = [\"~/.aws\"]\nread_only_runners = [\"go test ./...\"]\n")
		w.setPolicy(t, "default_mode = \"read-only\"\nallow_read = []\nread_only_runners = []\n")
		rows := []struct {
			name  string
			stdin string
			args  []string
			loose func(out string, code int) bool
		}{
			{"default_mode: a new session's Write", writePayload(w.home, "0f7c2a11-managed-1"), []string{"hook"},
				func(out string, _ int) bool { return !strings.Contains(out, `"deny"`) }},
			{"allow_read: reading ~/.aws/credentials", "", []string{"check", "--", "cat " + w.home + "/.aws/credentials"},
				func(_ string, code int) bool { return code == exitOK }},
			{"read_only_runners: go test", "", []string{"check", "--", "go test ./..."},
				func(_ string, code int) bool { return code == exitOK }},
		}
		for i, r := range rows {
			stdin := r.stdin
			if out, code := w.run(t, false, stdin, r.args...); !r.loose(out, code) {
				t.Errorf("control: %s without the managed file: exit %d\n%s", r.name, code, out)
			}
			if r.stdin != "" {
				stdin = writePayload(w.home, "0f7c2a11-managed-m"+string(rune('a'+i)))
			}
			if out, code := w.run(t, true, stdin, r.args...); r.loose(out, code) {
				t.Errorf("%s: the user's config loosened the organisation's policy: exit %d\n%s", r.name, code, out)
			}
		}
		out, _ := w.run(t, true, "", "doctor")
		if !strings.Contains(out, "under your organisation's policy "+config.ManagedConfigPath+", which sets allow_read, default_mode, read_only_runners") ||
			!strings.Contains(out, "sets default_mode, which your organisation's policy") {
			t.Errorf("doctor does not say what is managed:\n%s", out)
		}

		// A policy root does not alone control, or one that does not parse: every tool call is
		// refused, naming the file and why.
		path := filepath.Join(w.policy, "config.toml")
		for _, bad := range []struct {
			name, want string
			make       func()
		}{
			{"a policy its group may write", "writable by its group", func() { w.setPolicy(t, "sandbox = \"require\"\n"); os.Chmod(path, 0o664) }},
			{"a policy a user owns", "owned by uid 65534", func() { w.setPolicy(t, "sandbox = \"require\"\n"); os.Chown(path, 65534, 65534) }},
			{"a policy that does not parse", config.ManagedConfigPath + ":2:", func() { w.setPolicy(t, "sandbox = \"require\"\ndefault_mode = \n") }},
		} {
			bad.make()
			out, _ := w.run(t, true, `{"session_id":"0f7c2a11-managed-r","hook_event_name":"PreToolUse","cwd":"`+w.home+`","tool_name":"Read","tool_input":{"file_path":"`+w.home+`/notes.txt"}}`, "hook")
			if !strings.Contains(out, `"deny"`) || !strings.Contains(out, bad.want) {
				t.Errorf("%s: a Read is not refused naming why (%q):\n%s", bad.name, bad.want, out)
			}
		}
	})
}

// TestManagedPolicyInAUserNamespace: in a user namespace that does not map root, the policy and
// the directories above it show as owned by the overflow uid; the policy still binds there, and
// a policy its group may write is still refused. (Before, every tool call there was refused as
// if the policy were a user's: hookctl run and bubblewrap were unusable on a managed machine.)
// Control: the same user config without the policy reads ~/.aws.
func TestManagedPolicyInAUserNamespace(t *testing.T) {
	w := newManagedWorld(t, &syscall.Credential{Uid: 65534, Gid: 65534}, "allow_read = [\"~/.aws\"]\n")
	w.userns = true
	w.setPolicy(t, "allow_read = []\n")
	secret := []string{"check", "--", "cat " + w.home + "/.aws/credentials"}
	if out, code := w.run(t, false, "", secret...); code != exitOK {
		t.Fatalf("control: without the policy the user's allow_read does not hold: exit %d\n%s", code, out)
	}
	if out, code := w.run(t, true, "", "check", "--", "cat notes.txt"); code != exitOK {
		t.Errorf("a plain read under the policy in a user namespace: exit %d\n%s", code, out)
	}
	if out, code := w.run(t, true, "", secret...); code == exitOK || strings.Contains(out, "owned by uid") {
		t.Errorf("the policy does not bind in a user namespace: exit %d\n%s", code, out)
	} else if !strings.Contains(out, "allow_read is set by the organisation's policy") || strings.Contains(out, "allow_read in their own hookctl config") {
		// The refusal does not send the agent to ask for what the user's file cannot give.
		t.Errorf("the refusal under a managed allow_read suggests the user's own config:\n%s", out)
	}
	os.Chmod(filepath.Join(w.policy, "config.toml"), 0o664)
	if out, _ := w.run(t, true, "", "check", "--", "cat notes.txt"); !strings.Contains(out, "writable by its group") {
		t.Errorf("a policy its group may write is not refused in a user namespace:\n%s", out)
	}
}

// versionedHookctl is hookctl built as a release is, with version v stamped in.
func versionedHookctl(t *testing.T, v string) string {
	t.Helper()
	hookctlBinary(t) // skips where the tests build no binary
	out := filepath.Join(t.TempDir(), "hookctl")
	cmd := exec.Command("go", "build", "-o", out, "-ldflags", "-X github.com/hookctl/hookctl/internal/buildinfo.version="+v, ".")
	cmd.Env = append(os.Environ(), "CGO_ENABLED=0")
	if b, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, b)
	}
	return out
}

// TestManagedVersionsHold: the organisation's file sets the oldest hookctl that may answer and
// the client versions allowed, as root and as an unprivileged user, through the real binary at
// the policy's fixed place. A hookctl older than the minimum refuses every tool call naming the
// file and the minimum, and one at the minimum answers; a policy that checks Claude Code's
// version refuses a call whose client cannot be learned (here: no client runs the hook), naming
// why. Control for each: without the policy the same call passes. Doctor says what the policy
// asks and what holds. (The client versions learned from real clients: agents/conformance
// ClientVersionPolicy.)
func TestManagedVersionsHold(t *testing.T) {
	versioned := versionedHookctl(t, "1.4.0")
	forUsers(t, func(t *testing.T, user *syscall.Credential) {
		w := newManagedWorld(t, user, "")
		b, err := os.ReadFile(versioned)
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(w.bin, b, 0o755); err != nil {
			t.Fatal(err)
		}
		read := func(session string) string {
			return `{"session_id":"` + session + `","hook_event_name":"PreToolUse","cwd":"` + w.home + `","tool_name":"Read","tool_input":{"file_path":"` + w.home + `/notes.txt"}}`
		}
		rows := []struct {
			name, policy string
			refused      []string // what the refusal names; nil: the call passes under the policy
		}{
			{"hookctl older than the minimum", "min_hookctl_version = \"1.5.0\"\n",
				[]string{"this hookctl (1.4.0) is older than 1.5.0", config.ManagedConfigPath, "every tool call is refused"}},
			{"hookctl at the minimum", "min_hookctl_version = \"1.4.0\"\n", nil},
			{"a client whose version cannot be learned", "[clients.claude]\nmin_version = \"2.1.0\"\n",
				[]string{"allows only some versions of Claude Code", "cannot learn which one runs this hook", config.ManagedConfigPath}},
		}
		for i, r := range rows {
			session := "0f7c2a11-version-" + string(rune('a'+i))
			if out, _ := w.run(t, false, read(session+"-control"), "hook"); strings.Contains(out, `"deny"`) {
				t.Errorf("control: %s, without the policy a Read is refused:\n%s", r.name, out)
			}
			w.setPolicy(t, r.policy)
			out, _ := w.run(t, true, read(session), "hook")
			switch {
			case r.refused == nil && strings.Contains(out, `"deny"`):
				t.Errorf("%s: a Read is refused:\n%s", r.name, out)
			case r.refused != nil && !strings.Contains(out, `"deny"`):
				t.Errorf("%s: a Read passes:\n%s", r.name, out)
			}
			for _, want := range r.refused {
				if !strings.Contains(out, want) {
					t.Errorf("%s: the refusal does not say %q:\n%s", r.name, want, out)
				}
			}
		}
		w.setPolicy(t, "min_hookctl_version = \"1.5.0\"\n[clients.claude]\nmin_version = \"2.1.0\"\n")
		out, _ := w.run(t, true, "", "doctor")
		for _, want := range []string{"this hookctl (1.4.0) is older than 1.5.0", "Claude Code: your organisation's policy (" + config.ManagedConfigPath + ") allows 2.1.0 or newer"} {
			if !strings.Contains(out, want) {
				t.Errorf("doctor does not say %q:\n%s", want, out)
			}
		}
	})
}
