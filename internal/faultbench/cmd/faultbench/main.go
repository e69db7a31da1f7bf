//go:build linux

// Command faultbench runs hookctl's reliability faults against a built hookctl and prints the
// figures (see package faultbench). It needs root (it mounts tmpfs and runs as uid 65534 too).
//
//	go run ./internal/faultbench/cmd/faultbench -bin bin/hookctl [-only burst,kills] [-v]
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

// figures is what a scenario measured, and what went wrong in words.
type figures interface{ fmt.Stringer }

// scenario is one fault: run in a world of its own (a home, owned by cred's user), or, with
// dir, in a directory it builds its world in.
type scenario struct {
	name  string
	users bool // also as uid 65534
	run   func(w *faultbench.World, dir string) (figures, []string, error)
}

func main() {
	bin := flag.String("bin", "", "the hookctl binary to measure")
	only := flag.String("only", "", "comma-separated scenarios: fulldisk,state,readers,concurrent,answers,kills,rotation,burst (default all)")
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
	scenarios := []scenario{
		{"fulldisk", true, func(w *faultbench.World, dir string) (figures, []string, error) {
			fig, err := faultbench.FullDisk(w.Bin, dir, w.Cred, 5)
			return fig, fig.Failures, err
		}},
		{"state", true, func(w *faultbench.World, _ string) (figures, []string, error) {
			fig, err := faultbench.StateInPlace(w)
			return fig, fig.Failures, err
		}},
		{"readers", true, func(w *faultbench.World, _ string) (figures, []string, error) {
			fig, err := faultbench.Readers(w)
			return fig, fig.Failures, err
		}},
		{"concurrent", false, func(w *faultbench.World, _ string) (figures, []string, error) {
			fig, err := faultbench.Concurrent(w, 4200, 48)
			return fig, nil, err
		}},
		{"answers", false, func(w *faultbench.World, _ string) (figures, []string, error) {
			fig, err := faultbench.Answers(w, 40)
			return fig, fig.Failures, err
		}},
		{"kills", false, func(w *faultbench.World, _ string) (figures, []string, error) {
			fig, err := faultbench.Kills(w, 1500, 24, 40*time.Millisecond, *waitMinute)
			return fig, nil, err
		}},
		{"rotation", false, func(w *faultbench.World, _ string) (figures, []string, error) {
			fig, err := faultbench.RotationReads(w, 4, 4, *rotations)
			return fig, fig.Failures, err
		}},
		{"burst", false, func(w *faultbench.World, _ string) (figures, []string, error) {
			fig, err := faultbench.Burst(w, *burstProcs, *burstRounds, *sample, *cold)
			return fig, nil, err
		}},
	}
	nobody := &syscall.Credential{Uid: 65534, Gid: 65534}
	for _, s := range scenarios {
		if *only != "" && !strings.Contains(","+*only+",", ","+s.name+",") {
			continue
		}
		creds := []*syscall.Credential{nil}
		if s.users {
			creds = append(creds, nobody)
		}
		for _, cred := range creds {
			name := s.name
			if s.users {
				name += map[bool]string{true: "/root", false: "/nobody"}[cred == nil]
			}
			dir, err := os.MkdirTemp("", "faultbench-"+s.name+"-")
			if err != nil {
				panic(err)
			}
			os.Chmod(dir, 0o755) // reachable by uid 65534
			start := time.Now()
			w, err := faultbench.NewWorld(abs, filepath.Join(dir, "world"), cred)
			var fig figures
			var failures []string
			if err == nil {
				w.Env = env
				os.Chmod(filepath.Dir(w.Home), 0o755)
				fig, failures, err = s.run(w, dir)
			}
			if err != nil {
				fmt.Printf("%-15s ERROR %v\n", name, err)
			} else {
				fmt.Printf("%-15s %s  [%s]\n", name, fig, time.Since(start).Round(time.Second))
			}
			if *verbose {
				for _, f := range failures {
					fmt.Printf("    %s\n", f)
				}
			}
			os.RemoveAll(dir)
		}
	}
}
