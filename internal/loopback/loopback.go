// Package loopback serves raw connections for tests: servers on 127.0.0.1 (or a unix socket)
// that count, stall, echo or answer with bytes no well-behaved HTTP server would send, which
// net/http/httptest cannot, and a listener that counts what it accepts. It is imported by tests
// only.
package loopback

import (
	"bufio"
	"fmt"
	"io"
	"net"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// Serve listens on 127.0.0.1 and calls handle with each connection accepted, one at a time,
// until the test ends; then the listener and every connection handle left open are closed. It
// returns the listener's address.
func Serve(t testing.TB, handle func(net.Conn)) string {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	var mu sync.Mutex
	var open []net.Conn
	done := make(chan struct{})
	t.Cleanup(func() {
		l.Close()
		<-done
		mu.Lock()
		defer mu.Unlock()
		for _, c := range open {
			c.Close()
		}
	})
	go func() {
		defer close(done)
		for {
			c, err := l.Accept()
			if err != nil {
				return
			}
			mu.Lock()
			open = append(open, c)
			mu.Unlock()
			handle(c)
		}
	}()
	return l.Addr().String()
}

// Reply serves reply, byte for byte, to every connection after reading its request (what
// arrives in one read, within five seconds), then closes it. It returns the address.
func Reply(t testing.TB, reply string) string {
	t.Helper()
	return Serve(t, func(c net.Conn) {
		c.SetDeadline(time.Now().Add(5 * time.Second))
		c.Read(make([]byte, 4096))
		io.WriteString(c, reply)
		c.Close()
	})
}

// Listen listens on network and address (a unix socket's path, or @name for an abstract one)
// until the test ends.
func Listen(t testing.TB, network, address string) net.Listener {
	t.Helper()
	l, err := net.Listen(network, address)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { l.Close() })
	return l
}

// Go hands each connection l accepts to handle, on a goroutine of its own so that one slow
// client holds up no other, and closes it when handle returns; it stops when l is closed.
func Go(l net.Listener, handle func(net.Conn)) {
	go func() {
		for {
			c, err := l.Accept()
			if err != nil {
				return
			}
			go func() {
				defer c.Close()
				handle(c)
			}()
		}
	}()
}

// Each listens on 127.0.0.1 until the test ends and hands every connection to handle as Go
// does. It returns the listener's address.
func Each(t testing.TB, handle func(net.Conn)) string {
	t.Helper()
	l := Listen(t, "tcp", "127.0.0.1:0")
	Go(l, handle)
	return l.Addr().String()
}

// Echo answers each connection's first line with "echo: " and the line: a server a test can
// tell it reached. It returns the address.
func Echo(t testing.TB) string {
	t.Helper()
	return Each(t, func(c net.Conn) {
		line, _ := bufio.NewReader(c).ReadString('\n')
		fmt.Fprintf(c, "echo: %s", line)
	})
}

// Counting is a listener that counts the connections it accepts: a test's proof that a client
// reached a server, or never did.
type Counting struct {
	net.Listener
	n atomic.Int32
}

// Accept accepts the next connection and counts it.
func (l *Counting) Accept() (net.Conn, error) {
	c, err := l.Listener.Accept()
	if err == nil {
		l.n.Add(1)
	}
	return c, err
}

// Accepted is how many connections the listener has accepted.
func (l *Counting) Accepted() int32 { return l.n.Load() }
