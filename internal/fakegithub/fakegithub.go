// Package fakegithub is a GitHub API on loopback for the tests of review mode's publishes and the
// retriever's repository snapshots (Repo), which only tests import. A publish in hookctl's publish sandbox reaches api.github.com through the
// egress proxy, which connects through the user's own proxy when there is one (HTTPS_PROXY);
// here that proxy is the test's, and sends every tunnel to this server, whose certificate for
// api.github.com is signed by a CA the tests name in SSL_CERT_FILE. Nothing in hookctl is told
// it is being tested: the route is the one a user behind a corporate proxy has.
package fakegithub

import (
	"bufio"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"fmt"
	"io"
	"math/big"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"sync"
	"testing"
	"time"
)

// Post is one write the API received.
type Post struct {
	Path, Auth, Body string
}

// Server is the API and the proxy in front of it.
type Server struct {
	// CAFile holds the CA certificate (PEM) that signed the API's certificate.
	CAFile string
	// ProxyURL is the test's HTTPS_PROXY.
	ProxyURL string

	mu      sync.Mutex
	posts   []Post
	tunnels []string
}

// New starts the API and its proxy; dir is where the CA file goes (readable by every user the
// test runs commands as).
func New(t testing.TB, dir string) *Server {
	var s *Server
	s = NewWith(t, dir, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(io.LimitReader(r.Body, 1<<20))
		if r.Method == http.MethodPost {
			s.mu.Lock()
			s.posts = append(s.posts, Post{Path: r.URL.Path, Auth: r.Header.Get("Authorization"), Body: string(body)})
			s.mu.Unlock()
		}
		w.Header().Set("Content-Type", "application/json")
		fmt.Fprintf(w, `{"id":1,"html_url":"https://github.com%s"}`, r.URL.Path)
	}))
	return s
}

// Repo answers as GitHub does for one repository, o/r, on main: its metadata, its tarball's
// redirect to codeload, and archive (a .tar.gz) at the address the redirect names: a handler
// for NewWith, for the retriever's repository snapshots.
func Repo(archive []byte) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch {
		case r.Host == "codeload.github.com" && r.URL.Path == "/o/r/legacy.tar.gz/refs/heads/main":
			w.Write(archive)
		case r.URL.Path == "/repos/o/r":
			fmt.Fprint(w, `{"full_name":"o/r","default_branch":"main","private":false}`)
		case r.URL.Path == "/repos/o/r/tarball/main":
			w.Header().Set("Location", "https://codeload.github.com/o/r/legacy.tar.gz/refs/heads/main")
			w.WriteHeader(http.StatusFound)
		default:
			http.NotFound(w, r)
		}
	})
}

// NewWith is New with the API's answers given by handler, which also serves
// codeload.github.com (the certificate names both; r.Host tells them apart): the retriever's
// reads and snapshots reach it as they would reach GitHub behind a proxy.
func NewWith(t testing.TB, dir string, handler http.Handler) *Server {
	t.Helper()
	s := &Server{CAFile: filepath.Join(dir, "fake-github-ca.pem")}
	cert, caPEM := issue(t)
	if err := os.WriteFile(s.CAFile, caPEM, 0o644); err != nil {
		t.Fatal(err)
	}
	api := httptest.NewUnstartedServer(handler)
	api.TLS = &tls.Config{Certificates: []tls.Certificate{cert}}
	api.StartTLS()
	t.Cleanup(api.Close)

	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { l.Close() })
	s.ProxyURL = "http://" + l.Addr().String()
	go func() {
		for {
			c, err := l.Accept()
			if err != nil {
				return
			}
			go s.tunnel(c, api.Listener.Addr().String())
		}
	}()
	return s
}

// Env is the environment that routes a publish here: the proxy and the CA.
func (s *Server) Env() []string {
	return []string{"HTTPS_PROXY=" + s.ProxyURL, "https_proxy=" + s.ProxyURL, "SSL_CERT_FILE=" + s.CAFile}
}

// Posts are the writes received so far.
func (s *Server) Posts() []Post {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]Post(nil), s.posts...)
}

// Tunnels are the CONNECT targets the proxy was asked for.
func (s *Server) Tunnels() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]string(nil), s.tunnels...)
}

func (s *Server) tunnel(c net.Conn, api string) {
	defer c.Close()
	br := bufio.NewReader(c)
	req, err := http.ReadRequest(br)
	if err != nil || req.Method != http.MethodConnect {
		return
	}
	s.mu.Lock()
	s.tunnels = append(s.tunnels, req.RequestURI)
	s.mu.Unlock()
	up, err := net.Dial("tcp", api)
	if err != nil {
		return
	}
	defer up.Close()
	io.WriteString(c, "HTTP/1.1 200 Connection established\r\n\r\n")
	go io.Copy(up, br)
	io.Copy(c, up)
}

// issue makes a CA and a certificate for api.github.com and codeload.github.com signed by it.
func issue(t testing.TB) (tls.Certificate, []byte) {
	t.Helper()
	caKey, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	ca := &x509.Certificate{SerialNumber: big.NewInt(1), Subject: pkix.Name{CommonName: "fake GitHub test CA"},
		NotBefore: time.Now().Add(-time.Hour), NotAfter: time.Now().Add(24 * time.Hour), IsCA: true,
		KeyUsage: x509.KeyUsageCertSign, BasicConstraintsValid: true}
	caDER, err := x509.CreateCertificate(rand.Reader, ca, ca, &caKey.PublicKey, caKey)
	if err != nil {
		t.Fatal(err)
	}
	ca, _ = x509.ParseCertificate(caDER)
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	leaf := &x509.Certificate{SerialNumber: big.NewInt(2), Subject: pkix.Name{CommonName: "api.github.com"},
		DNSNames: []string{"api.github.com", "codeload.github.com"}, NotBefore: time.Now().Add(-time.Hour), NotAfter: time.Now().Add(24 * time.Hour),
		KeyUsage: x509.KeyUsageDigitalSignature, ExtKeyUsage: []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth}}
	leafDER, err := x509.CreateCertificate(rand.Reader, leaf, ca, &key.PublicKey, caKey)
	if err != nil {
		t.Fatal(err)
	}
	return tls.Certificate{Certificate: [][]byte{leafDER}, PrivateKey: key},
		pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: caDER})
}

// GH is a stand-in for gh (which this machine does not have) as a python3 script: for
// `pr review N --comment --body TEXT` and `pr comment N --body TEXT` it posts the text to the
// API as gh would, with GH_TOKEN, through the proxy variables it finds; then it tries what a
// publish must not manage — write to its working directory, reach another host — and prints a
// JSON report of what it saw (its variables' names, the pins, each outcome) on stdout.
const GH = `#!/usr/bin/env python3
import json, os, sys, urllib.request
args = sys.argv[1:]
out = {"args": args, "env": sorted(os.environ), "pins": {k: os.environ.get(k) for k in ("GH_PAGER", "GH_HOST", "GH_REPO", "GH_PROMPT_DISABLED")}}
n = args[2]
path = "/repos/o/r/pulls/%s/reviews" % n if args[1] == "review" else "/repos/o/r/issues/%s/comments" % n
body = args[args.index("--body") + 1]
req = urllib.request.Request("https://api.github.com" + path, data=json.dumps({"body": body}).encode(),
    headers={"Authorization": "token " + os.environ.get("GH_TOKEN", ""), "Content-Type": "application/json"}, method="POST")
try:
    out["post"] = urllib.request.urlopen(req, timeout=10).read().decode()
except Exception as e:
    out["post"] = "failed: %s" % e
try:
    open("written-by-publish", "w").write("x")
    out["write"] = "written"
except OSError as e:
    out["write"] = e.strerror
try:
    urllib.request.urlopen("https://evil.example/", timeout=5)
    out["evil"] = "reached"
except Exception as e:
    out["evil"] = str(e)
print(json.dumps(out))
`
