package dashboard

import (
	"bufio"
	"context"
	"crypto/rand"
	"encoding/base64"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"syscall"
	"testing"
	"time"
)

// A headless Chromium driven over the DevTools protocol with the standard library alone: a
// WebSocket client of the few frames the protocol uses, and synchronous calls (events are
// read and dropped). Enough for the browser test; not a general client.

type browser struct {
	cmd  *exec.Cmd
	page *cdpConn
}

// startBrowser starts Debian's chromium headless with a fresh profile and connects to its page.
func startBrowser(t *testing.T) *browser {
	t.Helper()
	bin, err := exec.LookPath("chromium")
	if err != nil {
		if os.Getenv("HOOKCTL_REQUIRE_ALL") != "" {
			t.Fatal("chromium is not installed (HOOKCTL_REQUIRE_ALL is set; apt-get install chromium)")
		}
		t.Skip("chromium is not installed (apt-get install chromium)")
	}
	profile := t.TempDir()
	cmd := exec.Command(bin, "--headless=new", "--no-sandbox", "--disable-gpu", "--no-first-run", "--no-default-browser-check",
		"--disable-extensions", "--disable-background-networking", "--disable-sync", "--remote-debugging-address=127.0.0.1",
		"--remote-debugging-port=0", "--user-data-dir="+profile, "--window-size=1366,900", "--lang=en-US", "about:blank")
	stderr, _ := cmd.StderrPipe()
	// Its own process group: chromium's helpers (renderer, utility, crash handler) outlive a
	// kill of the main process and keep writing the profile, whose removal then fails.
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	b := &browser{cmd: cmd}
	t.Cleanup(func() {
		if b.page != nil {
			b.page.conn.Close()
		}
		syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
		cmd.Wait()
		for end := time.Now().Add(10 * time.Second); time.Now().Before(end); time.Sleep(50 * time.Millisecond) {
			if syscall.Kill(-cmd.Process.Pid, 0) != nil {
				break // the whole group is gone
			}
			syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
		}
	})
	found := make(chan string, 1)
	go func() {
		re := regexp.MustCompile(`DevTools listening on (ws://\S+)`)
		sc := bufio.NewScanner(stderr)
		for sc.Scan() {
			if m := re.FindStringSubmatch(sc.Text()); m != nil {
				found <- m[1]
			}
		}
		io.Copy(io.Discard, stderr)
	}()
	var ws string
	select {
	case ws = <-found:
	case <-time.After(30 * time.Second):
		t.Fatal("chromium did not start its DevTools server")
	}
	u, _ := url.Parse(ws)
	var pageWS string
	for deadline := time.Now().Add(10 * time.Second); pageWS == "" && time.Now().Before(deadline); time.Sleep(100 * time.Millisecond) {
		resp, err := http.Get("http://" + u.Host + "/json/list")
		if err != nil {
			continue
		}
		var targets []struct{ Type, WebSocketDebuggerURL string }
		json.NewDecoder(resp.Body).Decode(&targets)
		resp.Body.Close()
		for _, tg := range targets {
			if tg.Type == "page" {
				pageWS = tg.WebSocketDebuggerURL
			}
		}
	}
	if pageWS == "" {
		t.Fatal("chromium has no page target")
	}
	if b.page, err = dialCDP(pageWS); err != nil {
		t.Fatal(err)
	}
	return b
}

// call runs a DevTools method on the page and decodes its result into out (nil: dropped).
func (b *browser) call(t *testing.T, method string, params any, out any) {
	t.Helper()
	res, err := b.page.call(method, params)
	if err != nil {
		t.Fatalf("%s: %v", method, err)
	}
	if out != nil {
		if err := json.Unmarshal(res, out); err != nil {
			t.Fatalf("%s: %v", method, err)
		}
	}
}

// eval evaluates a JavaScript expression in the page and returns its value as JSON.
func (b *browser) eval(t *testing.T, expr string) json.RawMessage {
	t.Helper()
	var r struct {
		Result struct {
			Value json.RawMessage `json:"value"`
		} `json:"result"`
		Exception *struct {
			Text string `json:"text"`
		} `json:"exceptionDetails"`
	}
	b.call(t, "Runtime.evaluate", map[string]any{"expression": expr, "returnByValue": true, "awaitPromise": true}, &r)
	if r.Exception != nil {
		t.Fatalf("%s: %s", expr, r.Exception.Text)
	}
	return r.Result.Value
}

func (b *browser) evalString(t *testing.T, expr string) string {
	t.Helper()
	var s string
	json.Unmarshal(b.eval(t, expr), &s)
	return s
}

// waitFor polls expr until it is true. An evaluation that fails because the page is navigating
// counts as not yet.
func (b *browser) waitFor(t *testing.T, expr string, within time.Duration) {
	t.Helper()
	for deadline := time.Now().Add(within); ; time.Sleep(100 * time.Millisecond) {
		res, err := b.page.call("Runtime.evaluate", map[string]any{"expression": "Boolean(" + expr + ")", "returnByValue": true})
		var r struct {
			Result struct{ Value bool } `json:"result"`
		}
		if err == nil && json.Unmarshal(res, &r) == nil && r.Result.Value {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("not so after %s: %s (page %s: %.300q)", within, expr, b.evalString(t, "location.href"), b.text(t))
		}
	}
}

// navigate loads u and waits until the page at path has loaded.
func (b *browser) navigate(t *testing.T, u, path string) {
	t.Helper()
	b.call(t, "Page.navigate", map[string]any{"url": u}, nil)
	b.waitLoaded(t, path)
}

func (b *browser) waitLoaded(t *testing.T, path string) {
	t.Helper()
	b.waitFor(t, fmt.Sprintf("document.readyState === 'complete' && location.pathname === %q", path), 15*time.Second)
}

// click clicks the first element matching a selector, once the evaluation has returned: a click
// that navigates would otherwise destroy the context the evaluation runs in.
func (b *browser) click(t *testing.T, selector string) {
	t.Helper()
	if string(b.eval(t, fmt.Sprintf("(() => { const e = document.querySelector(%q); if (!e) return false; setTimeout(() => e.click(), 0); return true })()", selector))) != "true" {
		t.Fatalf("no element %s on %s", selector, b.evalString(t, "location.href"))
	}
}

// screenshot saves the whole page, width pixels wide, as name under dir.
func (b *browser) screenshot(t *testing.T, dir, name string, width int) string {
	t.Helper()
	b.call(t, "Emulation.setDeviceMetricsOverride", map[string]any{"width": width, "height": 900, "deviceScaleFactor": 1, "mobile": width < 600}, nil)
	var m struct {
		Content struct{ Height float64 } `json:"cssContentSize"`
	}
	b.call(t, "Page.getLayoutMetrics", nil, &m)
	h := min(max(int(m.Content.Height), 600), 4000)
	b.call(t, "Emulation.setDeviceMetricsOverride", map[string]any{"width": width, "height": h, "deviceScaleFactor": 1, "mobile": width < 600}, nil)
	var shot struct{ Data string }
	b.call(t, "Page.captureScreenshot", map[string]any{"format": "png"}, &shot)
	png, err := base64.StdEncoding.DecodeString(shot.Data)
	if err != nil || len(png) < 1000 {
		t.Fatalf("screenshot %s: %v (%d bytes)", name, err, len(png))
	}
	p := filepath.Join(dir, name)
	if err := os.WriteFile(p, png, 0o644); err != nil {
		t.Fatal(err)
	}
	b.call(t, "Emulation.clearDeviceMetricsOverride", nil, nil)
	return p
}

// cdpConn is a WebSocket connection to one DevTools target.
type cdpConn struct {
	conn net.Conn
	r    *bufio.Reader
	id   int
}

func dialCDP(ws string) (*cdpConn, error) {
	u, err := url.Parse(ws)
	if err != nil {
		return nil, err
	}
	conn, err := (&net.Dialer{Timeout: 5 * time.Second}).DialContext(context.Background(), "tcp", u.Host)
	if err != nil {
		return nil, err
	}
	key := make([]byte, 16)
	rand.Read(key)
	fmt.Fprintf(conn, "GET %s HTTP/1.1\r\nHost: %s\r\nUpgrade: websocket\r\nConnection: Upgrade\r\nSec-WebSocket-Key: %s\r\nSec-WebSocket-Version: 13\r\n\r\n",
		u.RequestURI(), u.Host, base64.StdEncoding.EncodeToString(key))
	r := bufio.NewReaderSize(conn, 1<<16)
	resp, err := http.ReadResponse(r, nil)
	if err != nil {
		conn.Close()
		return nil, err
	}
	if resp.StatusCode != http.StatusSwitchingProtocols {
		conn.Close()
		return nil, fmt.Errorf("websocket handshake: %s", resp.Status)
	}
	return &cdpConn{conn: conn, r: r}, nil
}

// call sends one method and reads messages until its answer, dropping events.
func (c *cdpConn) call(method string, params any) (json.RawMessage, error) {
	c.id++
	msg := map[string]any{"id": c.id, "method": method}
	if params != nil {
		msg["params"] = params
	}
	b, _ := json.Marshal(msg)
	c.conn.SetDeadline(time.Now().Add(30 * time.Second))
	if err := c.writeFrame(0x1, b); err != nil {
		return nil, err
	}
	for {
		data, err := c.readMessage()
		if err != nil {
			return nil, err
		}
		var reply struct {
			ID     int             `json:"id"`
			Result json.RawMessage `json:"result"`
			Error  *struct {
				Message string `json:"message"`
			} `json:"error"`
		}
		if json.Unmarshal(data, &reply) != nil || reply.ID != c.id {
			continue // an event
		}
		if reply.Error != nil {
			return nil, errors.New(reply.Error.Message)
		}
		return reply.Result, nil
	}
}

// writeFrame writes one final, masked frame (a client must mask).
func (c *cdpConn) writeFrame(opcode byte, payload []byte) error {
	hdr := []byte{0x80 | opcode}
	switch n := len(payload); {
	case n < 126:
		hdr = append(hdr, 0x80|byte(n))
	case n < 1<<16:
		hdr = append(hdr, 0x80|126, byte(n>>8), byte(n))
	default:
		hdr = append(hdr, 0x80|127)
		hdr = binary.BigEndian.AppendUint64(hdr, uint64(n))
	}
	mask := make([]byte, 4)
	rand.Read(mask)
	hdr = append(hdr, mask...)
	masked := make([]byte, len(payload))
	for i := range payload {
		masked[i] = payload[i] ^ mask[i%4]
	}
	_, err := c.conn.Write(append(hdr, masked...))
	return err
}

// readMessage reads one message, joining continuation frames and answering pings.
func (c *cdpConn) readMessage() ([]byte, error) {
	var msg []byte
	for {
		var h [2]byte
		if _, err := io.ReadFull(c.r, h[:]); err != nil {
			return nil, err
		}
		fin, opcode := h[0]&0x80 != 0, h[0]&0x0f
		n := uint64(h[1] & 0x7f)
		switch n {
		case 126:
			var b [2]byte
			if _, err := io.ReadFull(c.r, b[:]); err != nil {
				return nil, err
			}
			n = uint64(binary.BigEndian.Uint16(b[:]))
		case 127:
			var b [8]byte
			if _, err := io.ReadFull(c.r, b[:]); err != nil {
				return nil, err
			}
			n = binary.BigEndian.Uint64(b[:])
		}
		if n > 64<<20 {
			return nil, fmt.Errorf("a %d-byte frame", n)
		}
		var mask []byte
		if h[1]&0x80 != 0 {
			mask = make([]byte, 4)
			if _, err := io.ReadFull(c.r, mask); err != nil {
				return nil, err
			}
		}
		payload := make([]byte, n)
		if _, err := io.ReadFull(c.r, payload); err != nil {
			return nil, err
		}
		if mask != nil {
			for i := range payload {
				payload[i] ^= mask[i%4]
			}
		}
		switch opcode {
		case 0x8:
			return nil, errors.New("the browser closed the connection")
		case 0x9:
			c.writeFrame(0xA, payload)
			continue
		case 0xA:
			continue
		}
		msg = append(msg, payload...)
		if fin {
			return msg, nil
		}
	}
}

// text is the visible text of the page's body.
func (b *browser) text(t *testing.T) string {
	return b.evalString(t, "document.body ? document.body.innerText : ''")
}

func contains(s string, subs ...string) string {
	for _, x := range subs {
		if !strings.Contains(s, x) {
			return x
		}
	}
	return ""
}
