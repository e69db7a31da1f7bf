// runaway is a distiller that will not stop by itself: it prints past the output cap (unless its
// second argument is "quiet"), ignores a closed pipe, and sleeps. Only a kill ends it. Built by
// the tests in claudecli_isolated_test.go.
package main

import (
	"os"
	"os/signal"
	"strings"
	"syscall"
	"time"
)

func main() {
	signal.Ignore(syscall.SIGPIPE, syscall.SIGTERM, syscall.SIGHUP)
	if len(os.Args) < 3 || os.Args[2] != "quiet" {
		line := strings.Repeat("x", 99) + "\n"
		for range 1000 { // 100 KB, past the 64 KiB cap
			os.Stdout.WriteString(line)
		}
	}
	time.Sleep(1000 * time.Second)
}
