package config

import (
	"fmt"
	"net/url"
	"path/filepath"
	"strings"

	"github.com/BurntSushi/toml"
)

// TelemetryConfig is the [telemetry] section: where hookctl-export sends every record, as OTLP
// log records (docs/fleet.md). The keys are spelled as the OpenTelemetry exporters' variables
// are (OTEL_EXPORTER_OTLP_ENDPOINT, …), which hookctl does not read: Claude Code strips OTEL_*
// from its hooks, and a variable the agent's environment could set must not choose where the
// records go. Global only; the organisation's policy locks it whole.
type TelemetryConfig struct {
	// Endpoint is the collector's base URL, "http://collector:4318"; the logs go to its
	// /v1/logs (OTLP over HTTP) or to its host and port (gRPC). Empty: no export.
	Endpoint string `toml:"otlp_endpoint"`
	// Protocol is "http/protobuf" (the default) or "grpc".
	Protocol string `toml:"otlp_protocol"`
	// Headers are sent with every export: an authorization token, a tenant.
	Headers map[string]string `toml:"otlp_headers"`
	// Certificate is the CA bundle (PEM) that verifies the collector; ClientCertificate and
	// ClientKey are this machine's certificate and key for mTLS. Absolute paths.
	Certificate       string `toml:"otlp_certificate"`
	ClientCertificate string `toml:"otlp_client_certificate"`
	ClientKey         string `toml:"otlp_client_key"`
}

// The OTLP transports hookctl-export speaks.
const (
	OTLPHTTP = "http/protobuf"
	OTLPGRPC = "grpc"
)

// Enabled says whether records are exported.
func (t *TelemetryConfig) Enabled() bool { return t != nil && t.Endpoint != "" }

// OTLPProtocol is Protocol with its default.
func (t *TelemetryConfig) OTLPProtocol() string {
	if t.Protocol == "" {
		return OTLPHTTP
	}
	return t.Protocol
}

// validate refuses a [telemetry] section the exporter could not use as written, naming the
// file and line: an export that silently goes nowhere is worse than a refusal.
func (t *TelemetryConfig) validate(path, text string) error {
	at := func(key string) string {
		return fmt.Sprintf("%s:%d: telemetry.%s", path, lineOfKey(text, toml.Key{"telemetry", key}), key)
	}
	if t.Endpoint == "" {
		for key, set := range map[string]bool{"otlp_protocol": t.Protocol != "", "otlp_headers": len(t.Headers) > 0, "otlp_certificate": t.Certificate != "",
			"otlp_client_certificate": t.ClientCertificate != "", "otlp_client_key": t.ClientKey != ""} {
			if set {
				return fmt.Errorf("%s is set but telemetry.otlp_endpoint is not: say where the records go (\"http://collector:4318\")", at(key))
			}
		}
		return nil
	}
	u, err := url.Parse(t.Endpoint)
	switch {
	case err != nil:
		return fmt.Errorf("%s: %v", at("otlp_endpoint"), err)
	case u.Scheme != "http" && u.Scheme != "https":
		return fmt.Errorf("%s must be an http:// or https:// URL, such as \"http://collector:4318\" (not %q)", at("otlp_endpoint"), t.Endpoint)
	case u.Host == "" || u.Hostname() == "":
		return fmt.Errorf("%s %q names no host", at("otlp_endpoint"), t.Endpoint)
	case u.User != nil:
		return fmt.Errorf("%s holds a user name or password: put credentials in telemetry.otlp_headers", at("otlp_endpoint"))
	case u.RawQuery != "" || u.Fragment != "":
		return fmt.Errorf("%s %q has a query or fragment, which OTLP does not use", at("otlp_endpoint"), t.Endpoint)
	}
	switch t.Protocol {
	case "", OTLPHTTP, OTLPGRPC:
	default:
		return fmt.Errorf("%s must be %q or %q, not %q", at("otlp_protocol"), OTLPHTTP, OTLPGRPC, t.Protocol)
	}
	if t.Protocol == OTLPGRPC && strings.Trim(u.Path, "/") != "" {
		return fmt.Errorf("%s %q has a path, which gRPC does not use: give the collector's host and port", at("otlp_endpoint"), t.Endpoint)
	}
	for name, value := range t.Headers {
		if name == "" || strings.IndexFunc(name, notTokenRune) >= 0 {
			return fmt.Errorf("%s: %q is not a header name", at("otlp_headers"), name)
		}
		if strings.ContainsAny(value, "\r\n\x00") {
			return fmt.Errorf("%s: the value of %s holds a line break", at("otlp_headers"), name)
		}
	}
	for key, p := range map[string]string{"otlp_certificate": t.Certificate, "otlp_client_certificate": t.ClientCertificate, "otlp_client_key": t.ClientKey} {
		if p != "" && !filepath.IsAbs(p) {
			return fmt.Errorf("%s %q is not an absolute path", at(key), p)
		}
		if p != "" && u.Scheme == "http" {
			return fmt.Errorf("%s is set, but telemetry.otlp_endpoint %q is plain http: TLS files need an https:// endpoint", at(key), t.Endpoint)
		}
	}
	if (t.ClientCertificate == "") != (t.ClientKey == "") {
		return fmt.Errorf("%s: mTLS needs both telemetry.otlp_client_certificate and telemetry.otlp_client_key", at("otlp_client_certificate"))
	}
	return nil
}

// notTokenRune: what an HTTP header name (RFC 9110's token) cannot hold.
func notTokenRune(r rune) bool {
	return r > 0x7e || r <= ' ' || strings.ContainsRune(`"(),/:;<=>?@[\]{}`, r)
}
