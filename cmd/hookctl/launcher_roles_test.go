//go:build linux

package main

import (
	"net"
	"strconv"
	"strings"
	"sync/atomic"
	"syscall"
	"testing"
	"time"
)

// TestModelPortOnlyInTheRunsNetwork: --model-port, the hidden flag with which a hookctl run's
// init lets the secure-read-only command reach the credential broker's listener, opens that port
// only inside the run's network namespace, where the init made the listener (sandbox/linux.go
// checks the namespace before it applies the profile). Typed anywhere else it would open the
// port on every host; there the launcher refuses and nothing runs. Control: the
// same connection without the launcher reaches a listener on the machine's loopback. As root and
// as an unprivileged user.
func TestModelPortOnlyInTheRunsNetwork(t *testing.T) {
	forUsers(t, func(t *testing.T, user *syscall.Credential) {
		w := newLauncherWorld(t, user)
		l, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			t.Fatal(err)
		}
		defer l.Close()
		var accepted atomic.Int32
		go func() {
			for {
				c, err := l.Accept()
				if err != nil {
					return
				}
				accepted.Add(1)
				c.Close()
			}
		}()
		port := strconv.Itoa(l.Addr().(*net.TCPAddr).Port)
		connect := "exec 3<>/dev/tcp/127.0.0.1/" + port + " && echo CONNECTED"

		// accepts waits for the listener to count what reached it.
		accepts := func() int32 {
			for end := time.Now().Add(2 * time.Second); accepted.Load() == 0 && time.Now().Before(end); {
				time.Sleep(10 * time.Millisecond)
			}
			return accepted.Load()
		}
		out, _, _ := w.run(t, 20*time.Second, nil, "bash", "-c", connect)
		if !strings.Contains(out, "CONNECTED") || accepts() == 0 {
			t.Fatalf("control: the connection does not reach the listener without the launcher:\n%s", out)
		}
		accepted.Store(0)

		out, code, _ := w.run(t, 20*time.Second, nil, w.bin, "sandbox", "--profile", "secure-read-only", "--model-port", port,
			"--read", "/", "--write", w.home, "--", "bash", "-c", connect)
		if code != exitSandboxFailed || strings.Contains(out, "CONNECTED") || !strings.Contains(out, "network namespace") {
			t.Errorf("--model-port outside the run's network namespace: exit %d, want %d and a refusal naming the network namespace:\n%s", code, exitSandboxFailed, out)
		}
		if n := accepts(); n != 0 {
			t.Errorf("the listener on the machine's loopback took %d connections through the launcher", n)
		}
	})
}
