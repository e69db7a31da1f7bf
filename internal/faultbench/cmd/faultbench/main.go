// Command faultbench runs hookctl's reliability faults against a built hookctl and prints the
// figures (see package faultbench). It needs root (it mounts tmpfs and runs as uid 65534 too).
//
//	go run ./internal/faultbench/cmd/faultbench -bin bin/hookctl [-only burst,kills] [-scale 1]
package main

import (
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"time"

	"github.com/hookctl/hookctl/internal/faultbench"
)

func main() {
	bin := flag.String("bin", "", "the hookctl binary to measure")
	only := flag.String("only", "", "comma-separated scenarios: fulldisk,concurrent,kills,answers,readers,state,rotation,burst (default all)")
	burstProcs := flag.Int("burst", 600, "processes per burst")
	burstRounds := flag.Int("burst-rounds", 3, "bursts")
	cold := flag.Bool("cold", false, "the first burst finds no cached sandbox probe")
	sample := flag.Bool("sample", true, "sample where the burst's processes wait")
	rotations := flag.Int("rotations", 5, "rotations in the rotation scenario (over 5, the oldest files are dropped, and a read cannot be held to them)")
	waitMinute := flag.Bool("minute", false, "in kills, wait a minute and toggle again")
	verbose := flag.Bool("v", false, "print each failure")
	var env []string
	flag.Func("env", "`NAME=VALUE` added to every hookctl's environment (repeatable)", func(v string) error { env = append(env, v); return nil })
	flag.Parse()
	if *bin == "" {
		fmt.Fprintln(os.Stderr, "faultbench: -bin is required")
		os.Exit(2)
	}
	abs, err := filepath.Abs(*bin)
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(2)
	}
	want := func(name string) bool { return *only == "" || strings.Contains(","+*only+",", ","+name+",") }
	nobody := &syscall.Credential{Uid: 65534, Gid: 65534}
	world := func(name string, cred *syscall.Credential) (*faultbench.World, func()) {
		dir, err := os.MkdirTemp("", "faultbench-"+name+"-")
		if err != nil {
			panic(err)
		}
		os.Chmod(dir, 0o755)
		w, err := faultbench.NewWorld(abs, dir, cred)
		if err != nil {
			panic(err)
		}
		w.Env = env
		return w, func() { os.RemoveAll(dir) }
	}
	report := func(name string, start time.Time, fig fmt.Stringer, failures []string, err error) {
		if err != nil {
			fmt.Printf("%-11s ERROR %v\n", name, err)
			return
		}
		fmt.Printf("%-11s %s  [%s]\n", name, fig, time.Since(start).Round(time.Second))
		if *verbose {
			for _, f := range failures {
				fmt.Printf("    %s\n", f)
			}
		}
	}
	for _, cred := range []*syscall.Credential{nil, nobody} {
		who := "root"
		if cred != nil {
			who = "nobody"
		}
		if want("fulldisk") {
			dir, _ := os.MkdirTemp("", "faultbench-disk-")
			os.Chmod(dir, 0o755)
			start := time.Now()
			fig, err := faultbench.FullDisk(abs, dir, cred, 5)
			report("fulldisk/"+who, start, fig, fig.Failures, err)
			os.RemoveAll(dir)
		}
		if want("state") {
			w, done := world("state", cred)
			start := time.Now()
			fig, err := faultbench.StateInPlace(w)
			report("state/"+who, start, fig, fig.Failures, err)
			done()
		}
		if want("readers") {
			w, done := world("readers", cred)
			start := time.Now()
			fig, err := faultbench.Readers(w)
			report("readers/"+who, start, fig, fig.Failures, err)
			done()
		}
	}
	if want("concurrent") {
		w, done := world("concurrent", nil)
		start := time.Now()
		fig, err := faultbench.Concurrent(w, 4200, 48)
		report("concurrent", start, fig, nil, err)
		done()
	}
	if want("answers") {
		w, done := world("answers", nil)
		start := time.Now()
		fig, err := faultbench.Answers(w, 40)
		report("answers", start, fig, fig.Failures, err)
		done()
	}
	if want("kills") {
		w, done := world("kills", nil)
		start := time.Now()
		fig, err := faultbench.Kills(w, 1500, 24, 40*time.Millisecond, *waitMinute)
		report("kills", start, fig, nil, err)
		done()
	}
	if want("rotation") {
		w, done := world("rotation", nil)
		start := time.Now()
		fig, err := faultbench.RotationReads(w, 4, 4, *rotations)
		report("rotation", start, fig, fig.Failures, err)
		done()
	}
	if want("burst") {
		w, done := world("burst", nil)
		start := time.Now()
		fig, err := faultbench.Burst(w, *burstProcs, *burstRounds, *sample, *cold)
		report("burst", start, fig, nil, err)
		done()
	}
}
