// Package loopback serves raw TCP on 127.0.0.1 for tests: servers that count, stall or answer
// with bytes no well-behaved HTTP server would send, which net/http/httptest cannot, and a
// listener that counts what it accepts. It is imported by tests only.
package loopback

import (
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
