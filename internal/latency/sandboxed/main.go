// Command sandboxed measures what the sandbox adds to a command: each command runs through
// `hookctl sandbox --session bench -- bash --noprofile --norc -c CMD` (what the hook rewrites an
// admitted command into) and as the plain `bash --noprofile --norc -c CMD`, alternately, so that
// machine noise hits both series alike. Short commands measure the launcher (its exec, the
// Landlock walk, the seccomp filter, dropping capabilities, the exec of bash); syscall-heavy ones
// measure what the restrictions cost per system call, as a ratio.
//
//	go run ./internal/latency/sandboxed -hookctl bin/hookctl -n 300 -heavy 21
//
// HOOKCTL_HOME is a temporary directory, so that nothing touches the user's own, made in -home.
// The launcher lists every directory above a hidden one to build its Landlock rules, so the
// parent matters: under a crowded /tmp it is the launcher's largest cost. `make bench` uses bin/,
// whose few ancestors stand in for those of ~/.config/hookctl.
package main

import (
	"flag"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/hookctl/hookctl/internal/latency/stats"
)

// short commands: the launcher's cost dominates; heavy ones: the per-call cost does.
var (
	short = []string{"true", "ls -la", "git log --oneline -5"}
	heavy = []string{
		"git log -p | wc -l",
		"find / -xdev -maxdepth 4 2>/dev/null | wc -l",
		"rg -c . >/dev/null",
	}
)

func main() {
	hookctl := flag.String("hookctl", "bin/hookctl", "hookctl binary")
	n := flag.Int("n", 300, "runs of each short command, each way")
	heavyN := flag.Int("heavy", 21, "runs of each syscall-heavy command, each way")
	parent := flag.String("home", os.TempDir(), "make the temporary HOOKCTL_HOME in `DIR`")
	edit := flag.Bool("edit", false, "also measure edit mode's profile, with the current directory as the project")
	flag.Parse()
	home, err := os.MkdirTemp(*parent, "hookctl-sandbox-bench-")
	if err == nil {
		home, err = filepath.Abs(home)
	}
	if err != nil {
		fail(err)
	}
	defer os.RemoveAll(home)
	env := append(os.Environ(), "HOOKCTL_HOME="+home)

	fmt.Printf("HOOKCTL_HOME %s: the Landlock walk lists %d entries\n", home, walked(home))
	fmt.Printf("sandbox's added latency, %d interleaved runs each way (ms)\n", *n)
	for _, c := range short {
		report(c, measure(*hookctl, env, c, *n), true)
	}
	fmt.Printf("syscall-heavy reads, %d interleaved runs each way (ms)\n", *heavyN)
	for _, c := range heavy {
		report(c, measure(*hookctl, env, c, *heavyN), false)
	}
	if *edit {
		wd, _ := os.Getwd()
		// Edit mode's launcher runs only a session in edit mode: the session starts as a client's
		// does (its SessionStart through the hook), and the user switches it.
		start := `{"session_id":"bench","transcript_path":"/dev/null","cwd":` + strconv.Quote(wd) + `,"hook_event_name":"SessionStart","source":"startup"}`
		for _, c := range []struct {
			args  []string
			stdin string
		}{{[]string{"hook"}, start}, {[]string{"readonly", "off", "--session", "bench"}, ""}} {
			cmd := exec.Command(*hookctl, c.args...)
			cmd.Env, cmd.Dir, cmd.Stdin = env, wd, strings.NewReader(c.stdin)
			if out, err := cmd.CombinedOutput(); err != nil {
				fail(fmt.Errorf("hookctl %s: %v\n%s", strings.Join(c.args, " "), err, out))
			}
		}
		fmt.Printf("edit profile's added latency, %d interleaved runs each way (ms)\n", *n)
		for _, c := range short {
			report(c, measureWith(*hookctl, env, c, *n, "--profile", "edit", "--project", wd), true)
		}
	}
}

// walked counts the entries of the directories the launcher lists: / and each ancestor of a
// hidden directory (sandbox.HiddenDirs).
func walked(home string) int {
	dirs := map[string]bool{}
	hidden := []string{home}
	if h, err := os.UserHomeDir(); err == nil {
		hidden = append(hidden, filepath.Join(h, ".config", "hookctl"))
	}
	for _, h := range hidden {
		if r, err := filepath.EvalSymlinks(h); err == nil {
			h = r
		}
		for d := filepath.Dir(h); ; d = filepath.Dir(d) {
			dirs[d] = true
			if d == "/" {
				break
			}
		}
	}
	n := 0
	for d := range dirs {
		entries, _ := os.ReadDir(d)
		n += len(entries)
	}
	return n
}

type series struct{ boxed, plain []time.Duration }

func measure(hookctl string, env []string, command string, n int) series {
	return measureWith(hookctl, env, command, n)
}

// measureWith is measure with more launcher flags (the profile).
func measureWith(hookctl string, env []string, command string, n int, flags ...string) series {
	boxed := append(append([]string{hookctl, "sandbox", "--session", "bench"}, flags...), "--", "bash", "--noprofile", "--norc", "-c", command)
	plain := boxed[len(boxed)-5:]
	run(boxed, env) // warm the page cache and the scratch directory
	run(plain, env)
	var s series
	for i := range n {
		// Alternate which goes first, so that neither always follows the other's cache misses.
		if i%2 == 0 {
			s.boxed = append(s.boxed, run(boxed, env))
			s.plain = append(s.plain, run(plain, env))
		} else {
			s.plain = append(s.plain, run(plain, env))
			s.boxed = append(s.boxed, run(boxed, env))
		}
	}
	return s
}

func run(argv, env []string) time.Duration {
	cmd := exec.Command(argv[0], argv[1:]...)
	cmd.Env = env
	cmd.Stdout = io.Discard
	cmd.Stderr = io.Discard
	start := time.Now()
	err := cmd.Run()
	d := time.Since(start)
	if err != nil {
		fail(fmt.Errorf("%q: %v", argv, err))
	}
	return d
}

func report(command string, s series, tail bool) {
	b50, p50 := stats.Pct(s.boxed, 50), stats.Pct(s.plain, 50)
	if tail {
		b99, p99 := stats.Pct(s.boxed, 99), stats.Pct(s.plain, 99)
		fmt.Printf("  %-48s plain p50 %7.3f p99 %7.3f  sandboxed p50 %7.3f p99 %7.3f  added p50 %+6.3f p99 %+6.3f\n",
			command, stats.Ms(p50), stats.Ms(p99), stats.Ms(b50), stats.Ms(b99), stats.Ms(b50-p50), stats.Ms(b99-p99))
		return
	}
	fmt.Printf("  %-48s plain p50 %8.2f  sandboxed p50 %8.2f  added %+7.2f  ratio %.3fx\n",
		command, stats.Ms(p50), stats.Ms(b50), stats.Ms(b50-p50), float64(b50)/float64(p50))
}

func fail(err error) {
	fmt.Fprintln(os.Stderr, "sandboxed:", err)
	os.Exit(1)
}
