// Package otelcoltest runs a real OpenTelemetry Collector for hookctl's export tests: the
// collector in ./collector (its own module, every collector module at one release), built once
// and cached by the hash of its sources and go.sum, started on loopback with the OTLP receiver
// and the file exporter. It is imported by tests only.
package otelcoltest

import (
	"bufio"
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"
)

var built struct {
	once sync.Once
	path string
	err  error
}

// Binary builds the collector, or finds the build cached for the same sources, go.sum and
// toolchain, and returns its path.
func Binary(t testing.TB) string {
	t.Helper()
	built.once.Do(func() { built.path, built.err = build() })
	if built.err != nil {
		t.Fatal(built.err)
	}
	return built.path
}

func build() (string, error) {
	_, self, _, _ := runtime.Caller(0)
	src := filepath.Join(filepath.Dir(self), "collector")
	h := sha256.New()
	for _, f := range []string{"go.mod", "go.sum", "main.go"} {
		b, err := os.ReadFile(filepath.Join(src, f))
		if err != nil {
			return "", err
		}
		fmt.Fprintf(h, "%s %d\n", f, len(b))
		h.Write(b)
	}
	fmt.Fprintln(h, runtime.Version(), runtime.GOOS, runtime.GOARCH)
	cache, err := os.UserCacheDir()
	if err != nil {
		cache = os.TempDir()
	}
	dir := filepath.Join(cache, "hookctl-test", "otelcol-"+hex.EncodeToString(h.Sum(nil))[:16])
	path := filepath.Join(dir, "otelcol")
	if fi, err := os.Stat(path); err == nil && fi.Mode().IsRegular() {
		return path, nil
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return "", err
	}
	gobin := filepath.Join(runtime.GOROOT(), "bin", "go")
	tmp := path + ".tmp" + strconv.Itoa(os.Getpid())
	cmd := exec.Command(gobin, "build", "-trimpath", "-o", tmp, ".")
	cmd.Dir = src
	// Its own module, as go.mod and go.sum pin it: no workspace, no edit of go.mod.
	cmd.Env = append(os.Environ(), "GOWORK=off", "GOFLAGS=-mod=readonly -buildvcs=false", "CGO_ENABLED=0")
	if out, err := cmd.CombinedOutput(); err != nil {
		return "", fmt.Errorf("failed to build the test collector in %s: %v\n%s", src, err, out)
	}
	return path, os.Rename(tmp, path)
}

// Collector is a running collector.
type Collector struct {
	HTTP, GRPC string   // the receivers' addresses, host:port on loopback
	outs       []string // the file exporter's output of each start, one OTLP JSON document a line
	dir        string
	bin        string
	cmd        *exec.Cmd
	done       chan struct{} // closed when the process has exited
	log        *syncBuffer
	t          testing.TB
}

// FreePort is a loopback address free a moment ago, on a port below the kernel's ephemeral range:
// a port the kernel handed out (Listen on :0) was taken, between the check and the collector's
// bind, by another test's outgoing connection, which draws its local port from that range (a
// clean clone's CI: "bind: address already in use").
func FreePort(t testing.TB) string {
	low := 32768
	if b, err := os.ReadFile("/proc/sys/net/ipv4/ip_local_port_range"); err == nil {
		if f := strings.Fields(string(b)); len(f) == 2 {
			if n, err := strconv.Atoi(f[0]); err == nil && n > 2048 {
				low = n
			}
		}
	}
	for range 100 {
		addr := net.JoinHostPort("127.0.0.1", strconv.Itoa(1024+rand.IntN(low-1024)))
		if l, err := net.Listen("tcp", addr); err == nil {
			l.Close()
			return addr
		}
	}
	t.Fatal("no free loopback port below the ephemeral range in 100 tries")
	return ""
}

// New prepares a collector on free loopback ports, not started.
func New(t testing.TB) *Collector {
	c := &Collector{HTTP: FreePort(t), GRPC: FreePort(t), dir: t.TempDir(), bin: Binary(t), t: t}
	t.Cleanup(func() { c.Stop() })
	return c
}

// OutPath is the file the next start's file exporter writes: one of its own for each start, as
// the file exporter truncates the one it opens.
func (c *Collector) OutPath() string {
	return filepath.Join(c.dir, fmt.Sprintf("logs-%d.jsonl", len(c.outs)))
}

// Start starts the collector and waits until its receivers listen.
func (c *Collector) Start() {
	c.t.Helper()
	c.StartReceivers("")
}

// StartReceivers is Start with receiver, YAML that follows each OTLP receiver's endpoint line
// (a tls block, indented under it), added to both receivers.
func (c *Collector) StartReceivers(receiver string) {
	c.t.Helper()
	out := c.OutPath()
	c.StartConfig(fmt.Sprintf(`receivers:
  otlp:
    protocols:
      http:
        endpoint: %s%s
      grpc:
        endpoint: %s%s
exporters:
  file:
    path: %s
    flush_interval: 50ms
service:
  telemetry:
    metrics:
      level: none
    logs:
      level: warn
  pipelines:
    logs:
      receivers: [otlp]
      exporters: [file]
`, c.HTTP, receiver, c.GRPC, receiver, out))
}

// StartConfig starts the collector with a configuration of the caller's, which listens on HTTP
// and GRPC and writes to OutPath, and waits until its receivers listen.
func (c *Collector) StartConfig(config string) {
	t := c.t
	t.Helper()
	c.outs = append(c.outs, c.OutPath())
	cfg := filepath.Join(c.dir, "config.yaml")
	if err := os.WriteFile(cfg, []byte(config), 0o600); err != nil {
		t.Fatal(err)
	}
	c.log = &syncBuffer{}
	c.cmd = exec.Command(c.bin, "--config", cfg)
	c.cmd.Stdout, c.cmd.Stderr = c.log, c.log
	if err := c.cmd.Start(); err != nil {
		t.Fatal(err)
	}
	c.done = make(chan struct{})
	go func(cmd *exec.Cmd, done chan struct{}) { cmd.Wait(); close(done) }(c.cmd, c.done)
	deadline := time.Now().Add(60 * time.Second)
	for _, addr := range []string{c.HTTP, c.GRPC} {
		for {
			conn, err := net.DialTimeout("tcp", addr, time.Second)
			if err == nil {
				conn.Close()
				break
			}
			select {
			case <-c.done:
				t.Fatalf("the collector exited:\n%s", c.log)
			default:
			}
			if time.Now().After(deadline) {
				t.Fatalf("the collector did not listen on %s within a minute:\n%s", addr, c.log)
			}
			time.Sleep(50 * time.Millisecond)
		}
	}
}

// syncBuffer is the collector's output, written by exec's copier and read by the test.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

// Stop stops the collector (SIGTERM: it flushes its file) and waits for it.
func (c *Collector) Stop() {
	if c.cmd == nil || c.cmd.Process == nil {
		return
	}
	c.cmd.Process.Signal(syscall.SIGTERM)
	select {
	case <-c.done:
	case <-time.After(20 * time.Second):
		c.cmd.Process.Kill()
		<-c.done
	}
	c.cmd = nil
}

// Log is what the collector printed.
func (c *Collector) Log() string {
	if c.log == nil {
		return ""
	}
	return c.log.String()
}

// Record is one log record as the collector received it, with its resource's attributes.
type Record struct {
	Resource     map[string]any
	Scope        string
	Time         time.Time
	EventName    string
	Severity     string
	SeverityNum  int
	Body         string
	Attributes   map[string]any
	ScopeVersion string
}

// Records reads every log record the collector has written so far, in the order received.
func (c *Collector) Records() []Record {
	var out []Record
	for _, path := range c.outs {
		out = append(out, c.read(path)...)
	}
	return out
}

func (c *Collector) read(path string) []Record {
	f, err := os.Open(path)
	if os.IsNotExist(err) {
		return nil
	}
	if err != nil {
		c.t.Fatal(err)
	}
	defer f.Close()
	var out []Record
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<20), 64<<20)
	for sc.Scan() {
		var doc struct {
			ResourceLogs []struct {
				Resource struct {
					Attributes []kv `json:"attributes"`
				} `json:"resource"`
				ScopeLogs []struct {
					Scope struct {
						Name    string `json:"name"`
						Version string `json:"version"`
					} `json:"scope"`
					LogRecords []struct {
						TimeUnixNano   string `json:"timeUnixNano"`
						EventName      string `json:"eventName"`
						SeverityText   string `json:"severityText"`
						SeverityNumber int    `json:"severityNumber"`
						Body           value  `json:"body"`
						Attributes     []kv   `json:"attributes"`
					} `json:"logRecords"`
				} `json:"scopeLogs"`
			} `json:"resourceLogs"`
		}
		if err := json.Unmarshal(sc.Bytes(), &doc); err != nil {
			continue // a line being written
		}
		for _, rl := range doc.ResourceLogs {
			res := attrs(rl.Resource.Attributes)
			for _, sl := range rl.ScopeLogs {
				for _, lr := range sl.LogRecords {
					ns, _ := strconv.ParseInt(lr.TimeUnixNano, 10, 64)
					body, _ := lr.Body.get().(string)
					out = append(out, Record{Resource: res, Scope: sl.Scope.Name, ScopeVersion: sl.Scope.Version, Time: time.Unix(0, ns),
						EventName: lr.EventName, Severity: lr.SeverityText, SeverityNum: lr.SeverityNumber, Body: body, Attributes: attrs(lr.Attributes)})
				}
			}
		}
	}
	return out
}

type kv struct {
	Key   string `json:"key"`
	Value value  `json:"value"`
}

// value is OTLP JSON's AnyValue.
type value struct {
	String *string  `json:"stringValue"`
	Bool   *bool    `json:"boolValue"`
	Int    *string  `json:"intValue"`
	Double *float64 `json:"doubleValue"`
	Array  *struct {
		Values []value `json:"values"`
	} `json:"arrayValue"`
}

func (v value) get() any {
	switch {
	case v.String != nil:
		return *v.String
	case v.Bool != nil:
		return *v.Bool
	case v.Int != nil:
		n, _ := strconv.ParseInt(*v.Int, 10, 64)
		return n
	case v.Double != nil:
		return *v.Double
	case v.Array != nil:
		var out []any
		for _, e := range v.Array.Values {
			out = append(out, e.get())
		}
		return out
	}
	return nil
}

func attrs(list []kv) map[string]any {
	m := map[string]any{}
	for _, a := range list {
		m[a.Key] = a.Value.get()
	}
	return m
}

// Wait polls until done says the records so far suffice, or fails the test after d.
func (c *Collector) Wait(d time.Duration, done func([]Record) bool) []Record {
	c.t.Helper()
	deadline := time.Now().Add(d)
	for {
		recs := c.Records()
		if done(recs) {
			return recs
		}
		if time.Now().After(deadline) {
			c.t.Fatalf("the collector did not receive what was expected within %s: %d records so far\ncollector's log:\n%s", d, len(recs), strings.TrimSpace(c.Log()))
		}
		time.Sleep(100 * time.Millisecond)
	}
}
