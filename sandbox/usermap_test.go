//go:build linux && (amd64 || arm64)

package sandbox

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

// innerLaunch, in this test binary's environment, makes it the launcher of TestUserNamespaceMappings
// instead of running tests: "child" or "parent" says who writes the user namespace's mappings.
const innerLaunch = "HOOKCTL_SANDBOX_TEST_LAUNCH"

func TestMain(m *testing.M) {
	if who := os.Getenv(innerLaunch); who != "" {
		os.Exit(launchForTest(who == "parent", os.Args[1:]))
	}
	os.Exit(m.Run())
}

// launchForTest launches argv (after the test flags, from "--") in the read-only profile with
// the directory HIDDEN hidden and the scratch directory SCRATCH, in a user namespace whose
// mappings the child writes, or with parent the launcher (childPlan.startMapped: the launch
// where the child cannot, as under Ubuntu's AppArmor restriction, which this machine cannot
// make). It returns the command's exit status, or 126 when the sandbox failed.
func launchForTest(parent bool, args []string) int {
	for len(args) > 0 && args[0] != "--" {
		args = args[1:]
	}
	scratch, err := OpenDir(os.Getenv("SCRATCH"))
	if err != nil {
		os.Stderr.WriteString(err.Error() + "\n")
		return 126
	}
	p := ReadOnly([]string{os.Getenv("HIDDEN")}, scratch.Path)
	p.ScratchDir = scratch.Dir
	exe, err := readOnlyExec(p, args[1:], os.Environ())
	if err == nil {
		var plan *childPlan
		if plan, err = planLaunch(p, exe, levelMasks, true, parent); err == nil {
			var pid int
			var failed *launchFailure
			pid, failed, err = plan.start(parent)
			plan.close()
			if err == nil && failed != nil {
				wait4(pid)
				err = failed.err
			}
			if err == nil {
				code, err := waitLaunched(pid, true, Bound{})
				if err == nil {
					return code
				}
			}
		}
	}
	os.Stderr.WriteString("launch: " + err.Error() + "\n")
	return 126
}

// TestUserNamespaceMappings: an unprivileged launch maps the user in its new user namespace from
// the child (the launcher is suspended until the child's exec), and where the child cannot,
// from the launcher; either way the command runs as the user, as the first process of its own
// namespace, and the sandbox holds: a write outside its scratch directory and a read of the
// hidden directory are refused. Control: the same user writes and reads both without the
// launcher.
func TestUserNamespaceMappings(t *testing.T) {
	if os.Geteuid() != 0 {
		t.Skip("needs root, to run the launcher as another user (uid 65534)")
	}
	dir := t.TempDir()
	for _, d := range []string{filepath.Dir(dir), dir} {
		os.Chmod(d, 0o755) // for uid 65534 to reach the directories beneath
	}
	bin := filepath.Join(dir, "sandbox.test") // this test binary, where 65534 can run it
	b, err := os.ReadFile(os.Args[0])
	if err == nil {
		err = os.WriteFile(bin, b, 0o755)
	}
	if err != nil {
		t.Fatal(err)
	}
	victim, hidden, scratch := filepath.Join(dir, "victim"), filepath.Join(dir, "hidden"), filepath.Join(dir, "scratch")
	for _, d := range []string{victim, hidden, scratch} {
		if err := os.Mkdir(d, 0o700); err != nil {
			t.Fatal(err)
		}
		os.Chown(d, 65534, 65534)
	}
	if err := os.WriteFile(filepath.Join(hidden, "secret"), []byte("the secret\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	nobody := &syscall.Credential{Uid: 65534, Gid: 65534}
	script := `cat /proc/self/uid_map; echo "pid $$ uid $(id -u)"; cat "$HIDDEN/secret"; echo attack > "$VICTIM/written" && echo wrote`
	run := func(env []string, argv ...string) string {
		cmd := exec.Command(argv[0], argv[1:]...)
		cmd.Env = append(env, "HIDDEN="+hidden, "VICTIM="+victim, "SCRATCH="+scratch, "PATH=/usr/bin:/bin")
		cmd.SysProcAttr = &syscall.SysProcAttr{Credential: nobody}
		out, _ := cmd.CombinedOutput()
		return string(out)
	}

	control := run(nil, "sh", "-c", script)
	if !strings.Contains(control, "the secret") || !strings.Contains(control, "wrote") {
		t.Fatalf("control: uid 65534 could not read the hidden file or write outside without the launcher:\n%s", control)
	}
	os.Remove(filepath.Join(victim, "written"))

	for _, who := range []string{"child", "parent"} {
		out := run([]string{innerLaunch + "=" + who}, bin, "--", "sh", "-c", script)
		for _, want := range []string{"65534      65534          1", "pid 1 uid 65534"} {
			if !strings.Contains(out, want) {
				t.Errorf("mapped by the %s: the command's output lacks %q:\n%s", who, want, out)
			}
		}
		if strings.Contains(out, "the secret") {
			t.Errorf("mapped by the %s: the command read the hidden file:\n%s", who, out)
		}
		if _, err := os.Stat(filepath.Join(victim, "written")); err == nil || strings.Contains(out, "wrote") {
			t.Errorf("mapped by the %s: the command wrote outside its scratch directory:\n%s", who, out)
		}
	}
}
