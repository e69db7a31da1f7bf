//go:build linux

package main

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"

	"github.com/hookctl/hookctl/sandbox/readonly"
)

// holding is what of the sandbox an environment row holds, which the status line says.
type holding int

const (
	sandboxWhole      holding = iota // every layer: the status line adds nothing
	sandboxPartial                   // some layers are missing: "partial sandbox"
	sandboxPolicyOnly                // no sandbox for the files: the read-only launcher runs nothing
)

// TestSandboxEnvironments launches the read-only sandbox in each environment people run agents
// in (issue 28, docs/sandbox-environments.md) and tries from inside a write outside, a read of
// a hidden credential and a TCP connection to a listener on loopback. Each row first runs the
// same attack without hookctl, in the same environment: it must write, read and connect there,
// or the row proves nothing. Where the sandbox holds, none of the three gets through and the
// probe names the layers that hold; where it cannot apply (no Landlock), the launcher runs
// nothing, and the policy-only launch the hook uses there is shown to hold none of them.
func TestSandboxEnvironments(t *testing.T) {
	if os.Geteuid() != 0 {
		t.Skip("the rows switch users and drop capabilities: run as root")
	}
	for _, tool := range []string{"bash", "bwrap", "setpriv"} {
		requireTool(t, tool)
	}
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	// harness is this test binary, copied where every row's user can run it.
	const harness = "HARNESS"
	bwrap := func(extra ...string) []string {
		return append(append([]string{"bwrap", "--dev-bind", "/", "/"}, extra...), "--")
	}
	rows := []struct {
		name  string
		wrap  []string
		user  *syscall.Credential
		probe []string // what the probe says holds (or why nothing does)
		held  holding
	}{
		{"root with capabilities", nil, nil, []string{"sandbox available: landlock ABI", "a process namespace of its own", "an empty capability bounding set"}, sandboxWhole},
		{"unprivileged user", nil, nobody, []string{"sandbox available: landlock ABI", "a process namespace of its own", "no capabilities"}, sandboxWhole},
		// What docker run --cap-drop ALL and a pod that drops ALL leave: no capability, and a
		// bounding set that cannot be emptied.
		{"root without capabilities", bwrap("--cap-drop", "ALL"), nil, []string{"sandbox available: landlock ABI", "no_new_privs, seccomp filter, no capabilities",
			"without a process namespace", "an empty capability bounding set (no CAP_SETPCAP"}, sandboxPartial},
		// Ubuntu 23.10+'s AppArmor restriction in its default mode: a user namespace can be
		// made, but its process has no capability in it and cannot write its own mappings,
		// which the launcher, its owner from outside, then writes (a tracer refuses the
		// process's own: childCannotMapArg).
		{"user namespaces without capabilities", []string{harness, childCannotMapArg}, nobody,
			[]string{"sandbox available: landlock ABI", "a process namespace of its own", "no capabilities"}, sandboxWhole},
		// Ubuntu 23.10+'s AppArmor restriction, or a container that forbids them.
		{"no user namespaces", bwrap("--unshare-user", "--disable-userns"), nobody, []string{"sandbox available: landlock ABI", "no_new_privs, seccomp filter",
			"without a process namespace"}, sandboxPartial},
		// Without Landlock, read-only mounts in a mount namespace of its own stand in for it.
		{"no Landlock", []string{harness, withoutLandlockArg}, nil, []string{"sandbox available: read-only mounts and masks",
			"a process namespace of its own", "; without Landlock (the kernel has none"}, sandboxPartial},
		// The same for an unprivileged user, whose mounts are made in a user namespace.
		{"no Landlock, unprivileged user", []string{harness, withoutLandlockArg}, nobody, []string{"sandbox available: read-only mounts and masks",
			"a process namespace of its own", "; without Landlock (the kernel has none"}, sandboxPartial},
		// Without Landlock or namespaces: nothing holds the files; the policy-only launch
		// still holds its seccomp filter (no network), no_new_privs and no capabilities.
		{"no Landlock and no user namespaces", append(bwrap("--unshare-user", "--disable-userns"), harness, withoutLandlockArg), nobody,
			[]string{"no sandbox: the kernel has no Landlock", "no mount namespace of its own here"}, sandboxPolicyOnly},
		// The same for root, in a container whose filter refuses new namespaces (unshare, clone
		// with CLONE_NEW*), as Docker's default profile does.
		{"no Landlock and no namespaces, root", []string{harness, withoutLandlockOrNamespacesArg}, nil,
			[]string{"no sandbox: the kernel has no Landlock", "no mount namespace of its own here"}, sandboxPolicyOnly},
	}
	for _, row := range rows {
		t.Run(strings.ReplaceAll(row.name, " ", "_"), func(t *testing.T) {
			root := machineDir(t, "hookctl-env-test-")
			home, outside, bin := filepath.Join(root, "home"), filepath.Join(root, "outside"), filepath.Join(root, "bin")
			hh := filepath.Join(home, ".config", "hookctl")
			for _, d := range []string{hh, filepath.Join(home, ".ssh"), outside, bin, filepath.Join(root, "tmp")} {
				os.MkdirAll(d, 0o755)
			}
			const secret = "hookctl-env-test-secret"
			os.WriteFile(filepath.Join(home, ".ssh", "id_ed25519"), []byte(secret+"\n"), 0o600)
			b, _ := os.ReadFile(hookctlBinary(t))
			os.WriteFile(filepath.Join(bin, "hookctl"), b, 0o755)
			b, _ = os.ReadFile(filepath.Join(filepath.Dir(hookctlBinary(t)), readonly.Executable))
			os.WriteFile(filepath.Join(bin, readonly.Executable), b, 0o755)
			launcher := readOnlyLauncher(t, filepath.Join(bin, readonly.Executable))
			b, _ = os.ReadFile(self)
			os.WriteFile(filepath.Join(bin, "harness"), b, 0o755)
			wrap := slices.Clone(row.wrap)
			for i, w := range wrap {
				if w == harness {
					wrap[i] = filepath.Join(bin, "harness")
				}
			}
			if row.user != nil {
				for _, d := range []string{home, outside, filepath.Join(root, "tmp")} {
					filepath.Walk(d, func(p string, _ os.FileInfo, _ error) error {
						return os.Lchown(p, int(row.user.Uid), int(row.user.Gid))
					})
				}
			}
			conns := newConnCounter(t)
			env := append(os.Environ(), "HOME="+home, "HOOKCTL_HOME="+hh, "XDG_CONFIG_HOME=", "TMPDIR="+filepath.Join(root, "tmp"))
			run := func(argv ...string) (string, int) {
				t.Helper()
				return runAs(t, row.user, outside, env, "", append(append([]string{}, wrap...), argv...)...)
			}
			n := 0
			// attack writes outside, reads the hidden key and connects; effects says which
			// of the three got through, from outside.
			attack := func(launch ...string) (string, int, []string) {
				n++
				written := filepath.Join(outside, "written-"+strconv.Itoa(n))
				script := fmt.Sprintf("echo x > %s; cat %s; exec 3<>/dev/tcp/127.0.0.1/%d && echo connected",
					written, filepath.Join(home, ".ssh", "id_ed25519"), conns.port)
				before := conns.reached.Load()
				out, code := run(append(launch, "bash", "--noprofile", "--norc", "-c", script)...)
				var effects []string
				if _, err := os.Stat(written); err == nil {
					effects = append(effects, "write outside")
				}
				if strings.Contains(out, secret) {
					effects = append(effects, "hidden read")
				}
				if conns.since(before, out) || strings.Contains(out, "connected") {
					effects = append(effects, "connection")
				}
				return out, code, effects
			}
			all := "write outside, hidden read, connection"
			if out, _, effects := attack(); strings.Join(effects, ", ") != all {
				t.Fatalf("control: without hookctl the attack got through only %v, so this row proves nothing:\n%s", effects, out)
			}
			// The status line: nothing added where every layer holds, a warning where some are
			// missing, "policy only" where none can apply.
			badge := map[holding]string{sandboxWhole: "", sandboxPartial: " (⚠ partial sandbox: hookctl doctor)",
				sandboxPolicyOnly: " (⚠ policy only for files, seccomp holds: hookctl doctor)"}[row.held]
			status := exec.Command(filepath.Join(bin, "hookctl"), "statusline")
			status.Args = append(append([]string{}, wrap...), status.Args...)
			if len(wrap) > 0 {
				status.Path, _ = exec.LookPath(wrap[0])
			}
			status.Env, status.Stdin = env, strings.NewReader(`{"session_id":"s1"}`)
			status.SysProcAttr = &syscall.SysProcAttr{Credential: row.user}
			out, _ := status.CombinedOutput()
			// What a tracing harness says of itself is not the status line's.
			out = regexp.MustCompile(`(?m)^harness: .*\n`).ReplaceAll(out, nil)
			if strings.TrimSpace(string(out)) != "🔒 READ-ONLY"+badge {
				t.Errorf("status line %q, want %q", out, "🔒 READ-ONLY"+badge)
			}
			probe, _ := run(filepath.Join(bin, "hookctl"), "sandbox", "--probe")
			for _, want := range row.probe {
				if !strings.Contains(probe, want) {
					t.Errorf("the probe does not say %q:\n%s", want, probe)
				}
			}
			// Both launchers of the profile: hookctl-sandbox, which the hook's rewrite starts
			// where it is installed, and hookctl sandbox.
			for _, launch := range [][]string{launcher, {filepath.Join(bin, "hookctl"), "sandbox"}} {
				out, code, effects := attack(append(slices.Clone(launch), "--session", "s", "--")...)
				switch {
				case row.held != sandboxPolicyOnly && len(effects) > 0:
					t.Errorf("%s: under the sandbox the attack got through: %v\n%s", launch[0], effects, out)
				case row.held != sandboxPolicyOnly && code == exitSandboxFailed:
					t.Errorf("%s: the sandbox did not run the command:\n%s", launch[0], out)
				case row.held == sandboxPolicyOnly && (code != exitSandboxFailed || len(effects) > 0):
					t.Errorf("%s: without the sandbox the read-only launcher ran the command (exit %d, %v):\n%s", launch[0], code, effects, out)
				}
				if slices.Contains(row.wrap, childCannotMapArg) {
					// The command is in namespaces of its own, mapped by the launcher: the
					// process's own writes were refused.
					out, _ := run(append(slices.Clone(launch), "--session", "s", "--", "sh", "-c", "cat /proc/self/uid_map; echo pid $$")...)
					refused := regexp.MustCompile(`harness: refused ([1-9][0-9]*) writes`).MatchString(out)
					if !refused || !strings.Contains(out, "pid 1\n") || !regexp.MustCompile(`(?m)^\s*65534\s+65534\s+1$`).MatchString(out) {
						t.Errorf("%s: not the command mapped by the launcher in namespaces of its own after the child's own mapping was refused:\n%s", launch[0], out)
					}
				}
				if row.held == sandboxPolicyOnly {
					// The hook's launch on a machine without the sandbox: the policy alone holds
					// the files; the seccomp filter still refuses the connection.
					out, _, effects := attack(append(slices.Clone(launch), "--profile", "policy-only", "--session", "s", "--")...)
					if want := "write outside, hidden read"; strings.Join(effects, ", ") != want {
						t.Errorf("%s policy-only: expected %s to get through and the connection refused, got %v:\n%s", launch[0], want, effects, out)
					}
				}
			}
		})
	}
}
