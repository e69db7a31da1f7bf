//go:build linux

package main

import (
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"

	"github.com/hookctl/hookctl/internal/landlock"
)

// TestSandboxOldLandlockABI runs the read-only sandbox on this kernel as a kernel with Landlock
// ABI 1, 2 and 3 (execAtLandlockABI: the launcher asks for that ABI's rights only, and the real
// kernel enforces them) and tries from inside what each ABI leaves to the other layers: a write
// outside, an open for reading that truncates, by openat and by openat2 (Landlock governs
// truncation from ABI 3; below it the filter refuses the one and makes the other ENOSYS), a hard
// link of a file outside into the scratch directory then a write through it, and a rename of
// one into it (reparenting: refused outright at ABI 1, governed by REFER from ABI 2), a read of
// a hidden key and a TCP connection (Landlock governs TCP from ABI 4). Each row first runs the
// same attack at the same ABI without hookctl, which must get every one through; then the
// probe must name the ABI, and under the sandbox none may get through. As root and as an
// unprivileged user (docs/sandbox-environments.md).
func TestSandboxOldLandlockABI(t *testing.T) {
	requireTool(t, "bash")
	requireTool(t, "python3")
	eachOldABI(t, []*syscall.Credential{nil, nobody}, oldABIRow)
}

// eachOldABI runs row at Landlock ABI 1, 2 and 3, each as every one of users (nil: root), on a
// kernel whose own Landlock is newer; self is the test binary, the harness.
func eachOldABI(t *testing.T, users []*syscall.Credential, row func(t *testing.T, self string, abi int, user *syscall.Credential)) {
	if os.Geteuid() != 0 {
		t.Skip("the rows switch users: run as root")
	}
	if abi, err := landlock.ABI(); err != nil || abi < 4 {
		t.Skipf("the kernel's own Landlock must be newer than the ABIs it stands in for (%d, %v)", abi, err)
	}
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	for _, abi := range []int{1, 2, 3} {
		for _, user := range users {
			name := fmt.Sprintf("ABI_%d/root", abi)
			if user != nil {
				name = fmt.Sprintf("ABI_%d/unprivileged", abi)
			}
			t.Run(name, func(t *testing.T) { row(t, self, abi, user) })
		}
	}
}

func oldABIRow(t *testing.T, self string, abi int, user *syscall.Credential) {
	root := machineDir(t, "hookctl-abi-test-")
	home, outside, bin, tmp := filepath.Join(root, "home"), filepath.Join(root, "outside"), filepath.Join(root, "bin"), filepath.Join(root, "tmp")
	hh := filepath.Join(home, ".config", "hookctl")
	for _, d := range []string{hh, filepath.Join(home, ".ssh"), outside, bin, tmp} {
		os.MkdirAll(d, 0o755)
	}
	const secret = "hookctl-abi-test-secret"
	os.WriteFile(filepath.Join(home, ".ssh", "id_ed25519"), []byte(secret+"\n"), 0o600)
	for src, dst := range map[string]string{hookctlBinary(t): "hookctl", self: "harness"} {
		b, err := os.ReadFile(src)
		if err != nil {
			t.Fatal(err)
		}
		os.WriteFile(filepath.Join(bin, dst), b, 0o755)
	}
	conns := newConnCounter(t)
	env := append(os.Environ(), "HOME="+home, "HOOKCTL_HOME="+hh, "XDG_CONFIG_HOME=", "TMPDIR="+tmp)
	run := func(argv ...string) (string, int) {
		t.Helper()
		return runAs(t, user, outside, env, "", append([]string{filepath.Join(bin, "harness"), atLandlockABIArg, strconv.Itoa(abi)}, argv...)...)
	}
	n := 0
	// attack tries each way out, in a directory of its own (victims owned by the user, so that
	// only the sandbox can refuse them), and says from outside which got through. scratch is
	// where the command may write: the session's scratch directory under hookctl, TMPDIR
	// without it.
	attack := func(scratch string, launch ...string) (string, []string) {
		n++
		dir := filepath.Join(outside, strconv.Itoa(n))
		victims(dir)
		if user != nil {
			filepath.Walk(root, func(p string, _ os.FileInfo, _ error) error {
				if !strings.HasPrefix(p, bin) {
					os.Lchown(p, int(user.Uid), int(user.Gid))
				}
				return nil
			})
		}
		script := fmt.Sprintf("%s\ncat %s; exec 3<>/dev/tcp/127.0.0.1/%d && echo connected",
			byABIAttack(dir, scratch, n), filepath.Join(home, ".ssh", "id_ed25519"), conns.port)
		before := conns.reached.Load()
		out, _ := run(append(launch, "bash", "--noprofile", "--norc", "-c", script)...)
		effects := byABIEffects(dir)
		if strings.Contains(out, secret) {
			effects = append(effects, "hidden read")
		}
		if conns.since(before, out) {
			effects = append(effects, "connection")
		}
		return out, effects
	}
	all := byABIAttacks + ", hidden read, connection"
	if out, effects := attack(tmp); strings.Join(effects, ", ") != all {
		t.Fatalf("control: at ABI %d without hookctl the attack got through only %v, so this row proves nothing:\n%s", abi, effects, out)
	}
	probe, _ := run(filepath.Join(bin, "hookctl"), "sandbox", "--probe")
	if want := fmt.Sprintf("sandbox available: landlock ABI %d,", abi); !strings.Contains(probe, want) {
		t.Errorf("the probe does not say %q:\n%s", want, probe)
	}
	out, effects := attack(filepath.Join(hh, "scratch", "s"), filepath.Join(bin, "hookctl"), "sandbox", "--session", "s", "--")
	if len(effects) > 0 {
		t.Errorf("at ABI %d the attack got through the sandbox: %v\n%s", abi, effects, out)
	}
	if !strings.Contains(out, "truncate: Operation not permitted") || !strings.Contains(out, "rename: Invalid cross-device link") ||
		(abi < 3) != strings.Contains(out, "openat2: Function not implemented") {
		t.Errorf("the sandbox did not refuse as it should (seccomp the truncating open and below ABI 3 openat2, Landlock the rename):\n%s", out)
	}
}

// victims makes dir and the files byABIAttack tries to change there.
func victims(dir string) {
	os.Mkdir(dir, 0o755)
	for _, f := range []string{"truncated", "truncated2", "linked", "renamed"} {
		os.WriteFile(filepath.Join(dir, f), []byte("data\n"), 0o644)
	}
}

// byABIAttack is a script that tries the writes to dir (victims, where the command may not
// write) whose refusal depends on the Landlock ABI: a write, an open for reading that truncates,
// by openat and by openat2 (Landlock governs truncation from ABI 3), a hard link of a file into
// scratch (where it may write) then a write through it, and a rename of one into it
// (reparenting: refused outright at ABI 1, governed by REFER from ABI 2); n names what it puts
// in scratch.
func byABIAttack(dir, scratch string, n int) string {
	return fmt.Sprintf(`d=%s; s=%s; echo x > $d/written
python3 -c 'import os, sys
try: os.open(sys.argv[1], os.O_RDONLY | os.O_TRUNC)
except OSError as e: print("truncate:", e.strerror)' $d/truncated
python3 -c 'import ctypes, os, struct, sys
how = struct.pack("QQQ", os.O_RDONLY | os.O_TRUNC, 0, 0)
libc = ctypes.CDLL(None, use_errno=True)
if libc.syscall(ctypes.c_long(437), ctypes.c_long(-100), sys.argv[1].encode(), how, ctypes.c_long(len(how))) < 0: print("openat2:", os.strerror(ctypes.get_errno()))' $d/truncated2
ln $d/linked "$s/link-%d" && echo x >> "$s/link-%d"
python3 -c 'import os, sys
try: os.rename(sys.argv[1], sys.argv[2])
except OSError as e: print("rename:", e.strerror)' $d/renamed "$s/renamed-%d"`, dir, scratch, n, n, n)
}

// byABIEffects says, from outside, which of byABIAttack's writes to dir got through.
func byABIEffects(dir string) []string {
	var effects []string
	if _, err := os.Stat(filepath.Join(dir, "written")); err == nil {
		effects = append(effects, "write outside")
	}
	if fi, err := os.Stat(filepath.Join(dir, "truncated")); err == nil && fi.Size() == 0 {
		effects = append(effects, "truncate")
	}
	if fi, err := os.Stat(filepath.Join(dir, "truncated2")); err == nil && fi.Size() == 0 {
		effects = append(effects, "openat2 truncate")
	}
	if b, _ := os.ReadFile(filepath.Join(dir, "linked")); string(b) != "data\n" {
		effects = append(effects, "link")
	}
	if _, err := os.Stat(filepath.Join(dir, "renamed")); err != nil {
		effects = append(effects, "rename")
	}
	return effects
}

// byABIAttacks is every effect byABIAttack has where nothing holds it.
const byABIAttacks = "write outside, truncate, openat2 truncate, link, rename"

// TestEditModeOldLandlockABI is TestSandboxOldLandlockABI for edit mode: an edit-mode session,
// as a new user has it (install, session start, readonly off), on this kernel as a kernel with
// Landlock ABI 1, 2 and 3 (execAtLandlockABI, which traces rather than listens, so that the edit
// sandbox's own seccomp listener can be installed under it). The probe must find the edit
// sandbox there and name the ABI, the hook must rewrite into the edit profile, and the attack
// of TestEditModeWithoutUserNamespaces (the client's settings, a write outside the project, a
// read of hookctl's home, a TCP connection), which gets all four through at that ABI without
// hookctl, must get none through the edit sandbox, while the project's own file is written; and
// so must byABIAttack's writes outside by truncation, hard link and rename into the project. As
// root and as an unprivileged user (docs/sandbox-environments.md).
func TestEditModeOldLandlockABI(t *testing.T) {
	eachOldABI(t, []*syscall.Credential{nil, nobody}, func(t *testing.T, self string, abi int, user *syscall.Credential) {
		oldABIEditRow(t, self, abi, user, nil)
	})
}

// TestEditModeLandlockOnlyOldABI is TestEditModeOldLandlockABI where the user gets no
// namespaces either (an older kernel in a container that forbids them; made as
// TestEditModeWithoutUserNamespaces makes it): edit mode runs in the Landlock-only profile,
// whose every file protection is Landlock's at that ABI, and the same attacks must fail.
func TestEditModeLandlockOnlyOldABI(t *testing.T) {
	requireTool(t, "bwrap")
	eachOldABI(t, []*syscall.Credential{nobody}, func(t *testing.T, self string, abi int, user *syscall.Credential) {
		oldABIEditRow(t, self, abi, user, []string{"bwrap", "--dev-bind", "/", "/", "--unshare-user", "--disable-userns", "--"})
	})
}

// oldABIEditRow is a row of TestEditModeOldLandlockABI, run under outer (nil: as the test
// runs; else where the user has no namespaces, and edit mode's profile is edit-landlock).
func oldABIEditRow(t *testing.T, self string, abi int, user *syscall.Credential, outer []string) {
	w := newEditWorld(t, user)
	// hookctl and the harness where the row's user can run them, and the hook's wrapper (the
	// build's directory is not the test's to write).
	bin := filepath.Join(filepath.Dir(w.outside), "bin")
	os.MkdirAll(bin, 0o755)
	for src, dst := range map[string]string{w.bin: "hookctl", self: "harness"} {
		b, err := os.ReadFile(src)
		if err != nil {
			t.Fatal(err)
		}
		os.WriteFile(filepath.Join(bin, dst), b, 0o755)
	}
	w.bin = filepath.Join(bin, "hookctl")
	wrap := append(outer[:len(outer):len(outer)], filepath.Join(bin, "harness"), atLandlockABIArg, strconv.Itoa(abi))
	profile, available := "edit", "\nedit sandbox available"
	if outer != nil {
		profile, available = "edit-landlock", "\nLandlock-only edit sandbox available"
	}
	there := w.under(t, wrap)
	attack := newEditAttack(t, w, there)
	// The machine the sandbox was probed on had a newer Landlock: it is the user's to say that
	// it changed.
	if out, _ := there("", w.bin, "sandbox", "--forget"); !strings.Contains(out, "forgot") {
		t.Fatalf("forget: %s", out)
	}
	probe, _ := there("", w.bin, "sandbox", "--probe")
	if want := fmt.Sprintf("sandbox available: landlock ABI %d,", abi); !strings.Contains(probe, want) || !strings.Contains(probe, available) {
		t.Fatalf("the probe does not say %q and %q:\n%s", want, available, probe)
	}
	if runs, refused := w.throughHookThere(t, wrap, "echo hi > main.go"); refused || !strings.Contains(runs, "'--profile' '"+profile+"'") && !strings.Contains(runs, "--profile "+profile+" ") {
		t.Fatalf("the hook did not rewrite into the %s profile (refused %v): %s", profile, refused, runs)
	}
	out, effects, edited := attack(w.launch(profile))
	if len(effects) > 0 {
		t.Errorf("at ABI %d the attack got through the edit sandbox: %v\n%s", abi, effects, out)
	}
	if !edited {
		t.Errorf("at ABI %d edit mode could not write the project's own file:\n%s", abi, out)
	}
	// What Landlock governs by ABI, with a directory of the project as where the command may
	// write (the Landlock-only profile makes no new entry at the project's top): a file outside
	// truncated, linked or renamed into it would be a write outside.
	sub := filepath.Join(w.project, "sub")
	os.Mkdir(sub, 0o755)
	if w.user != nil {
		os.Lchown(sub, int(w.user.Uid), int(w.user.Gid))
	}
	byABI := func(name string, launch ...string) (string, []string) {
		dir := filepath.Join(w.outside, name)
		victims(dir)
		if w.user != nil {
			filepath.Walk(dir, func(p string, _ os.FileInfo, _ error) error { return os.Lchown(p, int(w.user.Uid), int(w.user.Gid)) })
		}
		out, _ := there("", append(launch, "bash", "--noprofile", "--norc", "-c", byABIAttack(dir, sub, len(name)))...)
		return out, byABIEffects(dir)
	}
	if out, effects := byABI("control"); strings.Join(effects, ", ") != byABIAttacks {
		t.Fatalf("control: at ABI %d without hookctl the attack got through only %v, so this proves nothing:\n%s", abi, effects, out)
	}
	if out, effects := byABI("edit", w.bin, "sandbox", "--profile", profile, "--session", w.session, "--project", w.project, "--"); len(effects) > 0 {
		t.Errorf("at ABI %d the attack got through the edit sandbox: %v\n%s", abi, effects, out)
	}
}
