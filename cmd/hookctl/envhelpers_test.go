//go:build linux

package main

import (
	"net"
	"os/exec"
	"strings"
	"sync/atomic"
	"syscall"
	"testing"
	"time"
)

// connCounter is a TCP listener on loopback that counts the connections made to it: the
// environment tests' connection attack, seen from outside.
type connCounter struct {
	port    int
	reached atomic.Int32
}

func newConnCounter(t *testing.T) *connCounter {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { l.Close() })
	c := &connCounter{port: l.Addr().(*net.TCPAddr).Port}
	go func() {
		for {
			conn, err := l.Accept()
			if err != nil {
				return
			}
			c.reached.Add(1)
			conn.Close()
		}
	}()
	return c
}

// since says whether a connection was counted since before (the count then), waiting a little
// when the attack's output says it connected.
func (c *connCounter) since(before int32, out string) bool {
	for wait := 0; wait < 20 && c.reached.Load() == before && strings.Contains(out, "connected"); wait++ {
		time.Sleep(50 * time.Millisecond)
	}
	return c.reached.Load() != before
}

// runAs runs argv in dir with env as user (nil: the tester), bounded by 30 s, and returns its
// output and exit status.
func runAs(t *testing.T, user *syscall.Credential, dir string, env []string, stdin string, argv ...string) (string, int) {
	t.Helper()
	cmd := exec.Command(argv[0], argv[1:]...)
	cmd.Dir, cmd.Env = dir, env
	cmd.Stdin = strings.NewReader(stdin)
	cmd.SysProcAttr = &syscall.SysProcAttr{Credential: user}
	timer := time.AfterFunc(30*time.Second, func() { cmd.Process.Kill() })
	defer timer.Stop()
	out, err := cmd.CombinedOutput()
	code := 0
	if ee, ok := err.(*exec.ExitError); ok {
		code = ee.ExitCode()
	} else if err != nil {
		t.Fatalf("%q: %v", argv, err)
	}
	return string(out), code
}
