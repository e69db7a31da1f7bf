package export

import (
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"fmt"
	"math/big"
	"net"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/hookctl/hookctl/config"
	"github.com/hookctl/hookctl/internal/jsonl"
	"github.com/hookctl/hookctl/internal/otelcoltest"
)

// pki is a CA, a server certificate for 127.0.0.1 and a client certificate, as PEM files.
type pki struct{ ca, serverCert, serverKey, clientCert, clientKey string }

func newPKI(t *testing.T) pki {
	dir := t.TempDir()
	caKey, _ := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	caTmpl := &x509.Certificate{SerialNumber: big.NewInt(1), Subject: pkix.Name{CommonName: "test CA"}, IsCA: true, BasicConstraintsValid: true,
		KeyUsage: x509.KeyUsageCertSign, NotBefore: time.Now().Add(-time.Hour), NotAfter: time.Now().Add(time.Hour)}
	caDER, err := x509.CreateCertificate(rand.Reader, caTmpl, caTmpl, &caKey.PublicKey, caKey)
	if err != nil {
		t.Fatal(err)
	}
	ca, _ := x509.ParseCertificate(caDER)
	write := func(name, kind string, der []byte) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, pem.EncodeToMemory(&pem.Block{Type: kind, Bytes: der}), 0o600); err != nil {
			t.Fatal(err)
		}
		return p
	}
	issue := func(name string, serial int64, usage x509.ExtKeyUsage, ips []net.IP) (string, string) {
		key, _ := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
		tmpl := &x509.Certificate{SerialNumber: big.NewInt(serial), Subject: pkix.Name{CommonName: name}, IPAddresses: ips,
			ExtKeyUsage: []x509.ExtKeyUsage{usage}, KeyUsage: x509.KeyUsageDigitalSignature, NotBefore: time.Now().Add(-time.Hour), NotAfter: time.Now().Add(time.Hour)}
		der, err := x509.CreateCertificate(rand.Reader, tmpl, ca, &key.PublicKey, caKey)
		if err != nil {
			t.Fatal(err)
		}
		kder, _ := x509.MarshalECPrivateKey(key)
		return write(name+".pem", "CERTIFICATE", der), write(name+".key", "EC PRIVATE KEY", kder)
	}
	p := pki{ca: write("ca.pem", "CERTIFICATE", caDER)}
	p.serverCert, p.serverKey = issue("server", 2, x509.ExtKeyUsageServerAuth, []net.IP{net.IPv4(127, 0, 0, 1)})
	p.clientCert, p.clientKey = issue("client", 3, x509.ExtKeyUsageClientAuth, nil)
	return p
}

// TestTLSAndMTLS: otlp_certificate verifies a collector whose certificate the system does not
// trust, and otlp_client_certificate with otlp_client_key is what a collector that demands mTLS
// admits; over HTTP and gRPC. Controls: without the CA the send fails (the system's roots do not
// know the test CA), and without the client certificate the mTLS collector refuses it.
func TestTLSAndMTLS(t *testing.T) {
	if testing.Short() {
		t.Skip("builds an OpenTelemetry Collector")
	}
	p := newPKI(t)
	for _, mtls := range []bool{false, true} {
		col := otelcoltest.New(t)
		tls := fmt.Sprintf("\n        tls:\n          cert_file: %s\n          key_file: %s", p.serverCert, p.serverKey)
		if mtls {
			tls += "\n          client_ca_file: " + p.ca
		}
		col.StartReceivers(tls)
		for _, protocol := range []string{config.OTLPHTTP, config.OTLPGRPC} {
			addr := col.HTTP
			if protocol == config.OTLPGRPC {
				addr = col.GRPC
			}
			for _, withFiles := range []bool{false, true} {
				tc := config.TelemetryConfig{Endpoint: "https://" + addr, Protocol: protocol}
				if withFiles {
					tc.Certificate = p.ca
					if mtls {
						tc.ClientCertificate, tc.ClientKey = p.clientCert, p.clientKey
					}
				} else if mtls {
					tc.Certificate = p.ca // trusted, but no client certificate
				}
				home := t.TempDir()
				lg := &jsonl.Log{Dir: filepath.Join(home, "log"), Name: "d.jsonl"}
				id := fmt.Sprintf("%v-%s-%v", mtls, protocol, withFiles)
				lg.Append(fmt.Appendf(nil, `{"id":%q,"time":"2026-12-01T00:00:00Z","event":"tool","verdict":"allow"}`, id))
				e, err := New(Options{Home: home, Telemetry: tc, Idle: 200 * time.Millisecond, GiveUp: time.Second, MaxBackoff: 200 * time.Millisecond})
				if err != nil {
					t.Fatal(err)
				}
				e.sources = []source{{"decisions", lg}}
				err = e.Run(context.Background())
				if withFiles != (err == nil) {
					t.Errorf("mTLS %v, %s, with the files %v: %v", mtls, protocol, withFiles, err)
				}
				if withFiles {
					col.Wait(10*time.Second, func(r []otelcoltest.Record) bool {
						got, _ := byDecision(r)
						_, ok := got[id]
						return ok
					})
				}
			}
		}
		col.Stop()
	}
}
