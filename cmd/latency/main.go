// Command latency measures whole-process hook latency: it runs a hook binary once per payload,
// many times, interleaved with a floor program that only reads stdin and prints a fixed
// decision, and reports the median and 99th percentile of each and their ratio. With -baseline
// it runs a second hook binary (another build) in the same interleaving and reports the
// difference, which is finer than comparing two runs' ratios to the floor; with -idle, that
// second binary is hookctl built to answer before doing anything (make bench's bin/hookctl-idle),
// and the ratio to it is what the hook's work adds to the start it cannot avoid. With -wrapper it also
// runs the hook as a wrapped registration does, /bin/sh -c claude.Wrapper hookctl hook, through
// the link in hookctl's home, and reports what the shell adds.
//
//	go run ./cmd/latency -hook bin/hookctl -floor bin/floor -n 300 fixtures/claude/*.json
package main

import (
	"bytes"
	"flag"
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"time"

	"github.com/hookctl/hookctl/agents/claude"
	"github.com/hookctl/hookctl/internal/latency/stats"
)

func main() {
	hookBin := flag.String("hook", "bin/hookctl", "hookctl binary")
	floorBin := flag.String("floor", "bin/floor", "floor binary")
	baseBin := flag.String("baseline", "", "another hookctl binary to interleave and compare")
	idleBin := flag.String("idle", "", "hookctl built with -tags hookctl_idle, which answers like the floor before doing anything: interleaved as the baseline, and the hook's ratio to it reported")
	n := flag.Int("n", 300, "runs of each binary")
	wrapper := flag.Bool("wrapper", false, "also run the hook through the wrapper a shared registration uses")
	unique := flag.Bool("unique", false, "give each run its own tool_use_id, so that every call is decided and recorded as a new one (not answered as a repeat)")
	installed := flag.Bool("installed", false, "time copies of the hook (with the launcher beside it) and the floor, written as make install writes them, instead of the files the linker wrote")
	config := flag.String("config", "", "a config.toml for the measured hook's home, not the baseline's: with -baseline the same binary, what a setting costs ([telemetry])")
	flag.Parse()
	if *idleBin != "" {
		*baseBin = *idleBin
	}
	payloads := flag.Args()
	if len(payloads) == 0 {
		fmt.Fprintln(os.Stderr, "latency: give payload files")
		os.Exit(2)
	}
	var inputs [][]byte
	for _, p := range payloads {
		b, err := os.ReadFile(p)
		if err != nil {
			fmt.Fprintln(os.Stderr, "latency:", err)
			os.Exit(2)
		}
		inputs = append(inputs, b)
	}
	if *installed {
		// The same bytes run 0.2–0.45 ms faster per call when the page cache was filled by a
		// write (install, cp) than by the exec's own faults, as the linker's output and every
		// binary after a reboot are (docs/decisions/0004): time the state a user runs in after
		// make install, beside make bench's other run, which times the other.
		dir := mustTemp()
		if launcher := filepath.Join(filepath.Dir(*hookBin), "hookctl-sandbox"); fileExists(launcher) {
			mustCopy(launcher, dir)
		}
		*hookBin = mustCopy(*hookBin, dir)
		*floorBin = mustCopy(*floorBin, mustTemp())
		if *baseBin != "" {
			*baseBin = mustCopy(*baseBin, mustTemp())
		}
	}
	home := mustTemp()
	env := append(os.Environ(), "HOOKCTL_HOME="+home)
	if *config != "" {
		b, err := os.ReadFile(*config)
		if err == nil {
			err = os.WriteFile(filepath.Join(home, "config.toml"), b, 0o600)
		}
		if err != nil {
			fmt.Fprintln(os.Stderr, "latency:", err)
			os.Exit(2)
		}
	}
	if *wrapper {
		abs, _ := filepath.Abs(*hookBin)
		os.MkdirAll(filepath.Join(home, "bin"), 0o700)
		if err := os.Symlink(abs, filepath.Join(home, claude.LinkedBinary)); err != nil {
			fmt.Fprintln(os.Stderr, "latency:", err)
			os.Exit(2)
		}
	}
	// The baseline has a home of its own: the sandbox probe's cache is per build, and two
	// builds sharing one would each probe again on every run.
	baseEnv := append(os.Environ(), "HOOKCTL_HOME="+mustTemp())
	// One call of each, untimed: the first hook in a new home probes the sandbox, as the first
	// after an install or an upgrade does, once; it is not what a call costs.
	runOnce(*hookBin, []string{"hook"}, env, inputs[0])
	if *baseBin != "" {
		runOnce(*baseBin, []string{"hook"}, baseEnv, inputs[0])
	}
	var hook, floor, base, wrapped []time.Duration
	startLoad := loadAverage()
	order := rand.New(rand.NewPCG(1, 2))
	for i := 0; i < *n; i++ {
		in := inputs[i%len(inputs)]
		if *unique {
			in = useID.ReplaceAll(in, []byte(fmt.Sprintf(`"tool_use_id":"latency_%d"`, i)))
		}
		// Interleave so that machine noise hits every series alike, each round in an order of
		// its own: in a fixed one each series ran after the same one, whose traces in the caches
		// favoured or taxed it.
		for _, k := range order.Perm(4) {
			switch {
			case k == 0:
				floor = append(floor, runOnce(*floorBin, nil, env, in))
			case k == 1:
				hook = append(hook, runOnce(*hookBin, []string{"hook"}, env, in))
			case k == 2 && *baseBin != "":
				base = append(base, runOnce(*baseBin, []string{"hook"}, baseEnv, in))
			case k == 3 && *wrapper:
				wrapped = append(wrapped, runOnce(claude.WrapperShell, []string{"-c", claude.Wrapper, "hookctl", "hook"}, env, in))
			}
		}
	}
	h50, h99 := percentiles(hook)
	f50, f99 := percentiles(floor)
	calls := "repeat calls (each payload's own tool_use_id: a call answered before is answered again, not recorded)"
	if *unique {
		calls = "unique calls (each decided and recorded as a new one)"
	}
	files := "the binaries as the linker wrote them (the page cache as after a reboot)"
	if *installed {
		files = "copies of the binaries as make install writes them"
	}
	fmt.Printf("runs: %d each, %d payloads, %s; %s; load average %s before, %s after\n", *n, len(inputs), calls, files, startLoad, loadAverage())
	fmt.Printf("floor   p50 %7.3f ms  p90 %7.3f ms  p99 %7.3f ms\n", stats.Ms(f50), stats.Ms(stats.Pct(floor, 90)), stats.Ms(f99))
	fmt.Printf("hookctl p50 %7.3f ms  p90 %7.3f ms  p99 %7.3f ms\n", stats.Ms(h50), stats.Ms(stats.Pct(hook, 90)), stats.Ms(h99))
	fmt.Printf("ratio   p50 %.2fx  p99 %.2fx\n", float64(h50)/float64(f50), float64(h99)/float64(f99))
	if *idleBin != "" {
		b50, b99 := percentiles(base)
		fmt.Printf("idle    p50 %7.3f ms  p99 %7.3f ms  ratio p50 %.2fx (hookctl doing nothing: the runtime, every package's initialiser, the binary's pages)\n", stats.Ms(b50), stats.Ms(b99), float64(b50)/float64(f50))
		fmt.Printf("hookctl / idle      p50 %.2fx  p99 %.2fx (what the hook's work adds)\n", float64(h50)/float64(b50), float64(h99)/float64(b99))
	} else if *baseBin != "" {
		b50, b99 := percentiles(base)
		fmt.Printf("baseline p50 %7.3f ms  p99 %7.3f ms  ratio p50 %.2fx\n", stats.Ms(b50), stats.Ms(b99), float64(b50)/float64(f50))
		fmt.Printf("hookctl - baseline  p50 %+.3f ms  p99 %+.3f ms\n", stats.Ms(h50-b50), stats.Ms(h99-b99))
	}
	if *wrapper {
		w50, w99 := percentiles(wrapped)
		fmt.Printf("wrapped p50 %7.3f ms  p99 %7.3f ms  ratio p50 %.2fx\n", stats.Ms(w50), stats.Ms(w99), float64(w50)/float64(f50))
		fmt.Printf("wrapped - hookctl   p50 %+.3f ms  p99 %+.3f ms\n", stats.Ms(w50-h50), stats.Ms(w99-h99))
	}
	// Each payload against the floor runs interleaved with it (a payload's p99 is over n/payloads
	// runs: with 400 and 6, its slowest but one).
	fmt.Printf("  %-50s %9s %9s %7s %9s %9s\n", "payload", "p50 ms", "floor", "ratio", "p99 ms", "floor")
	met := true
	for i, p := range payloads {
		var hs, fs []time.Duration
		for j := i; j < len(hook); j += len(inputs) {
			hs, fs = append(hs, hook[j]), append(fs, floor[j])
		}
		a, b := percentiles(hs)
		fa, fb := percentiles(fs)
		ratio := float64(a) / float64(fa)
		met = met && ratio <= goalRatio && b < goalP99
		fmt.Printf("  %-50s %9.3f %9.3f %6.2fx %9.3f %9.3f\n", p, stats.Ms(a), stats.Ms(fa), ratio, stats.Ms(b), stats.Ms(fb))
	}
	verdict := func(ok bool) string {
		if ok {
			return "met"
		}
		return "NOT met"
	}
	fmt.Printf("issue 28 as filed: p50 at most %.1fx the floor's, p99 under %s: %s (all payloads: p50 %.2fx, p99 %.3f ms)\n",
		goalRatio, goalP99, verdict(met && float64(h50)/float64(f50) <= goalRatio && h99 < goalP99), float64(h50)/float64(f50), stats.Ms(h99))
	if *idleBin != "" {
		// Restated (docs/decisions/0004): the floor links none of the dependencies the house
		// requires, whose start alone is about 1.25x it; the work is what the hook can answer for.
		b50, _ := percentiles(base)
		fmt.Printf("goal (issue 28, restated): p50 at most %.1fx hookctl doing nothing, p99 under %s: %s (p50 %.2fx, p99 %.3f ms)\n",
			goalRatio, goalP99, verdict(float64(h50)/float64(b50) <= goalRatio && h99 < goalP99), float64(h50)/float64(b50), stats.Ms(h99))
	}
}

// The hook's goals: p50 at most goalRatio times the do-nothing hook's (as issue 28 was filed:
// the floor program; restated: hookctl doing nothing), p99 under goalP99.
const (
	goalRatio = 1.3
	goalP99   = 5 * time.Millisecond
)

// loadAverage is the machine's load average over the last minute, 5 and 15 (/proc/loadavg):
// whole-process times mean little without it.
func loadAverage() string {
	b, err := os.ReadFile("/proc/loadavg")
	if f := strings.Fields(string(b)); err == nil && len(f) >= 3 {
		return strings.Join(f[:3], " ")
	}
	return "unknown"
}

// useID is a payload's tool_use_id, which -unique replaces.
var useID = regexp.MustCompile(`"tool_use_id":\s*"[^"]*"`)

func runOnce(bin string, args, env []string, in []byte) time.Duration {
	cmd := exec.Command(bin, args...)
	cmd.Env = env
	cmd.Stdin = bytes.NewReader(in)
	var out bytes.Buffer
	cmd.Stdout = &out
	start := time.Now()
	err := cmd.Run()
	d := time.Since(start)
	if err != nil || out.Len() == 0 {
		fmt.Fprintf(os.Stderr, "latency: %s failed: %v\n", bin, err)
		os.Exit(1)
	}
	return d
}

func percentiles(ds []time.Duration) (p50, p99 time.Duration) {
	s := append([]time.Duration(nil), ds...)
	sort.Slice(s, func(i, j int) bool { return s[i] < s[j] })
	return s[len(s)*50/100], s[min(len(s)-1, len(s)*99/100)]
}

// mustCopy writes a copy of the executable file into dir, through write(2) as install does,
// and returns its path.
func mustCopy(file, dir string) string {
	b, err := os.ReadFile(file)
	if err == nil {
		err = os.WriteFile(filepath.Join(dir, filepath.Base(file)), b, 0o755)
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "latency:", err)
		os.Exit(2)
	}
	return filepath.Join(dir, filepath.Base(file))
}

func fileExists(path string) bool {
	_, err := os.Stat(path)
	return err == nil
}

func mustTemp() string {
	d, err := os.MkdirTemp("", "hookctl-latency")
	if err != nil {
		panic(err)
	}
	return d
}
