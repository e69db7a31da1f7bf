//go:build linux

package egress

import (
	"bytes"
	"fmt"
	"io"
	"net/url"
	"os"
	"strconv"
	"syscall"
)

// maxProxyReply caps the proxy's answer to CONNECT.
const maxProxyReply = 8 << 10

// ProxyConnect is ssh's ProxyCommand in edit mode's sandbox (GIT_SSH_COMMAND): it asks the egress
// proxy named in HTTPS_PROXY, on the command's own loopback, for a tunnel to host:port, and
// relays its standard input and output through it. hookctl links no network code, so this is
// a socket of the system calls' own; the proxy decides whether host:port is allowed.
func ProxyConnect(in io.Reader, out io.Writer, host, port string) error {
	target := host + ":" + port
	if _, err := ParseRule(target, "ssh", false); err != nil {
		return fmt.Errorf("not a host and port: %v", err)
	}
	u, err := url.Parse(os.Getenv("HTTPS_PROXY"))
	if err != nil || u.Scheme != "http" || u.Hostname() != "127.0.0.1" {
		return fmt.Errorf("HTTPS_PROXY is not hookctl's egress proxy (this runs inside edit mode's sandbox)")
	}
	pport, err := strconv.Atoi(u.Port())
	if err != nil {
		return fmt.Errorf("HTTPS_PROXY has no port")
	}
	fd, err := syscall.Socket(syscall.AF_INET, syscall.SOCK_STREAM|syscall.SOCK_CLOEXEC, 0)
	if err != nil {
		return fmt.Errorf("failed to reach the egress proxy: %v", err)
	}
	if err := syscall.Connect(fd, &syscall.SockaddrInet4{Port: pport, Addr: [4]byte{127, 0, 0, 1}}); err != nil {
		syscall.Close(fd)
		return fmt.Errorf("failed to reach the egress proxy: %v", err)
	}
	conn := os.NewFile(uintptr(fd), "egress proxy")
	defer conn.Close()
	if _, err := fmt.Fprintf(conn, "CONNECT %s HTTP/1.1\r\nHost: %s\r\n\r\n", target, target); err != nil {
		return fmt.Errorf("failed to ask the egress proxy: %v", err)
	}
	// The reply's header, a byte at a time: what follows it is the tunnel's.
	var reply []byte
	one := make([]byte, 1)
	for !bytes.HasSuffix(reply, []byte("\r\n\r\n")) {
		if len(reply) > maxProxyReply {
			return fmt.Errorf("the egress proxy's reply is too long")
		}
		if _, err := conn.Read(one); err != nil {
			return fmt.Errorf("the egress proxy closed the connection")
		}
		reply = append(reply, one[0])
	}
	status, _, _ := bytes.Cut(reply, []byte("\r\n"))
	if !bytes.Contains(status, []byte(" 200 ")) {
		why := ""
		if i := bytes.Index(reply, []byte("X-Hookctl-Refused: ")); i >= 0 {
			w, _, _ := bytes.Cut(reply[i+len("X-Hookctl-Refused: "):], []byte("\r\n"))
			why = ": " + string(w)
		}
		return fmt.Errorf("the egress proxy refused %s (%s%s)", target, bytes.TrimSpace(status), why)
	}
	done := make(chan struct{})
	go func() {
		io.Copy(conn, in)
		syscall.Shutdown(fd, syscall.SHUT_WR)
		close(done)
	}()
	io.Copy(out, conn)
	return nil
}
