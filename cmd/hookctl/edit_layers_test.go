//go:build linux

package main

import (
	"bufio"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// TestEditCommandsAtOnceLayers: two edit-mode commands of one session at once (a subagent's
// beside the main agent's) must not mount overlays on one upper and work directory, which the
// kernel calls undefined behaviour (it warns, and refuses the second mount where overlay's index
// is on). The first, still running, holds the session's layer of ~/.cache; the second, started
// meanwhile, writes it through a layer of its own. Both succeed. Then the session's next command
// sees what the first wrote and not the second's, and the user's ~/.cache has neither.
func TestEditCommandsAtOnceLayers(t *testing.T) {
	forEditWorlds(t, func(t *testing.T, w *editWorld) {
		cache := filepath.Join(w.home, ".cache")
		os.MkdirAll(cache, 0o755)
		w.chown(cache)
		release := filepath.Join(w.project, "release")
		// Where the overlay on ~/.cache keeps its changes, as the command's own mount table says:
		// its upper directory, and whether the layers there are the session's (on disk) or a
		// tmpfs the command mounted in their place.
		upper := `echo "$(awk -v m=` + shellQuote(cache) + ` '$5 == m' /proc/self/mountinfo | grep -o 'upperdir=[^,]*')" ` +
			`"$(grep -q ' - tmpfs hookctl-layers ' /proc/self/mountinfo && echo own || echo session)"`

		runs, refused := w.throughHook(t, "echo first > ~/.cache/a && "+upper+" && while [ ! -e release ]; do sleep 0.05; done")
		if refused || !launched(runs) {
			t.Fatalf("the first command was not launched in the sandbox: refused %v, %s", refused, runs)
		}
		first := exec.Command("bash", "--noprofile", "--norc", "-c", runs)
		first.Dir, first.Env = w.project, w.env
		first.SysProcAttr = &syscall.SysProcAttr{Credential: w.user}
		first.Stderr = os.Stderr
		stdout, _ := first.StdoutPipe()
		if err := first.Start(); err != nil {
			t.Fatal(err)
		}
		timer := time.AfterFunc(30*time.Second, func() { first.Process.Kill() })
		defer timer.Stop()
		lines := make(chan string, 1)
		go func() {
			line, _ := bufio.NewReader(stdout).ReadString('\n')
			lines <- strings.TrimSpace(line)
		}()
		var firstUpper string
		select {
		case firstUpper = <-lines:
		case <-time.After(20 * time.Second):
			first.Process.Kill()
			t.Fatal("the first command printed no upper directory in 20 s")
		}
		if !strings.HasPrefix(firstUpper, "upperdir="+w.hh) || !strings.HasSuffix(firstUpper, " session") {
			t.Errorf("the first command's layer is not the session's, beneath hookctl's home: %q", firstUpper)
		}

		// The second, while the first runs.
		out, err, refused := w.viaHook(t, "echo second > ~/.cache/b && "+upper+" && ls ~/.cache")
		if refused || err != nil {
			t.Errorf("the second command, beside the first, failed: refused %v, %v %s", refused, err, out)
		}
		secondUpper, listed, _ := strings.Cut(out, "\n")
		if !strings.HasPrefix(secondUpper, "upperdir=") || !strings.HasSuffix(secondUpper, " own") {
			t.Errorf("the two commands at once write ~/.cache through one upper directory: %q and %q", firstUpper, secondUpper)
		}
		if strings.Contains(listed, "a\n") || !strings.Contains(listed, "b\n") {
			t.Errorf("the second command's ~/.cache is not the user's with its own write: %q", listed)
		}

		os.WriteFile(release, nil, 0o644)
		if err := first.Wait(); err != nil {
			t.Errorf("the first command failed: %v", err)
		}
		out, err, _ = w.viaHook(t, "cat ~/.cache/a; ls ~/.cache")
		if err != nil || !strings.Contains(out, "first") || strings.Contains(out, "b\n") {
			t.Errorf("the session's next command sees %q (%v): want the first command's write and not the second's", out, err)
		}
		for _, name := range []string{"a", "b"} {
			if _, err := os.Lstat(filepath.Join(cache, name)); err == nil {
				t.Errorf("the user's ~/.cache/%s was written", name)
			}
		}
	})
}
