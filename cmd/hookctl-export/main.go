// Command hookctl-export ships hookctl's records to the collector that [telemetry] names
// (package export). The hook starts it, detached, after answering; it can also be run by hand.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"os"
	"os/signal"
	"strings"
	"syscall"

	"github.com/hookctl/hookctl/config"
	"github.com/hookctl/hookctl/export"
	"github.com/hookctl/hookctl/export/launch"
	"github.com/hookctl/hookctl/internal/buildinfo"
)

func main() {
	if len(os.Args) == 2 && os.Args[1] == "version" {
		fmt.Print(buildinfo.Describe(launch.Executable))
		return
	}
	// The SDK reads OTEL_* for whatever an option leaves unset: the config alone decides.
	for _, kv := range os.Environ() {
		if k, _, _ := strings.Cut(kv, "="); strings.HasPrefix(k, "OTEL_") {
			os.Unsetenv(k)
		}
	}
	fs := flag.NewFlagSet(launch.Executable, flag.ContinueOnError)
	locked := fs.Bool("locked", false, "the lock is held already, on descriptor 3 (the hook starts it so)")
	idle := fs.Duration("idle", export.DefaultIdle, "exit once no new record has come for this long")
	giveUp := fs.Duration("give-up", export.DefaultGiveUp, "exit once every send has failed for this long")
	if err := fs.Parse(os.Args[1:]); err != nil || fs.NArg() > 0 {
		fmt.Fprintf(os.Stderr, "usage: %s [--idle D] [--give-up D] | version\n", launch.Executable)
		os.Exit(2)
	}
	home, err := config.Home()
	if err != nil {
		fail(err)
	}
	cfg, err := config.LoadConfig(home)
	if err != nil {
		fail(err)
	}
	e, err := export.New(export.Options{Home: home, Telemetry: cfg.Telemetry, AuditMaxBytes: cfg.Audit.MaxBytes, Locked: *locked,
		Idle: *idle, GiveUp: *giveUp, Log: os.Stderr})
	if err != nil {
		fail(err)
	}
	ctx, stop := signal.NotifyContext(context.Background(), syscall.SIGTERM, syscall.SIGINT)
	defer stop()
	if err := e.Run(ctx); err != nil && !errors.Is(err, export.ErrBusy) {
		fail(err)
	}
}

func fail(err error) {
	fmt.Fprintf(os.Stderr, "%s: %v\n", launch.Executable, err)
	os.Exit(1)
}
