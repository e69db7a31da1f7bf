package export

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"errors"
	"fmt"
	"net/url"
	"os"
	"os/user"
	"strings"
	"time"

	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/exporters/otlp/otlplog/otlploggrpc"
	"go.opentelemetry.io/otel/exporters/otlp/otlplog/otlploghttp"
	"go.opentelemetry.io/otel/log"
	sdklog "go.opentelemetry.io/otel/sdk/log"
	"go.opentelemetry.io/otel/sdk/resource"
	"google.golang.org/grpc/credentials"

	"github.com/hookctl/hookctl/config"
	"github.com/hookctl/hookctl/internal/buildinfo"
)

// sendTimeout bounds one request to the collector.
const sendTimeout = 15 * time.Second

// sender sends batches with the OpenTelemetry SDK's OTLP log exporter, synchronously: the
// records go through a logger provider (which gives each its resource and scope) into a
// processor that only collects them, and then to the exporter in one call whose error says
// whether the collector took them. The SDK's own batching and retries are not used: the cursor
// must advance only on an acknowledgement, and retrying is the exporter loop's.
type sender struct {
	exporter sdklog.Exporter
	provider *sdklog.LoggerProvider
	logger   log.Logger
	held     *collector
}

// collector is the processor that keeps what is emitted, for the next send.
type collector struct{ records []sdklog.Record }

func (c *collector) OnEmit(_ context.Context, r *sdklog.Record) error {
	c.records = append(c.records, r.Clone())
	return nil
}
func (c *collector) Enabled(context.Context, sdklog.EnabledParameters) bool { return true }
func (c *collector) Shutdown(context.Context) error                         { return nil }
func (c *collector) ForceFlush(context.Context) error                       { return nil }

func newSender(t config.TelemetryConfig) (sender, error) {
	exp, err := newExporter(t)
	if err != nil {
		return sender{}, err
	}
	held := &collector{}
	p := sdklog.NewLoggerProvider(sdklog.WithResource(machine()), sdklog.WithProcessor(held),
		sdklog.WithAttributeCountLimit(256), sdklog.WithAttributeValueLengthLimit(-1))
	return sender{exporter: exp, provider: p, logger: p.Logger("github.com/hookctl/hookctl", log.WithInstrumentationVersion(buildinfo.Version())), held: held}, nil
}

// machine is the resource every record carries: which program, which build, which machine,
// which user.
func machine() *resource.Resource {
	attrs := []attribute.KeyValue{attribute.String("service.name", "hookctl"), attribute.String("service.version", buildinfo.Version())}
	if h, err := os.Hostname(); err == nil {
		attrs = append(attrs, attribute.String("host.name", h))
	}
	if u, err := user.Current(); err == nil {
		attrs = append(attrs, attribute.String("user.name", u.Username), attribute.String("user.id", u.Uid))
	}
	return resource.NewSchemaless(attrs...)
}

func (s sender) send(ctx context.Context, dropped []drop, batch []*item) error {
	now := time.Now()
	s.held.records = s.held.records[:0]
	for _, d := range dropped {
		s.logger.Emit(ctx, dropRecord(d, now))
	}
	for _, it := range batch {
		s.logger.Emit(ctx, toRecord(it, now))
	}
	if len(s.held.records) != len(dropped)+len(batch) {
		return fmt.Errorf("the SDK took %d of %d records", len(s.held.records), len(dropped)+len(batch))
	}
	ctx, cancel := context.WithTimeout(ctx, sendTimeout)
	defer cancel()
	if err := s.exporter.Export(ctx, s.held.records); err != nil {
		return fmt.Errorf("the collector did not take %d records: %w", len(s.held.records), err)
	}
	return nil
}

func (s sender) shutdown() {
	ctx, cancel := context.WithTimeout(context.Background(), time.Second)
	defer cancel()
	s.exporter.Shutdown(ctx)
}

// newExporter builds the OTLP exporter the config names, with every option set explicitly
// (hookctl-export also clears OTEL_* from its environment, which the SDK would read).
func newExporter(t config.TelemetryConfig) (sdklog.Exporter, error) {
	u, err := url.Parse(t.Endpoint)
	if err != nil {
		return nil, err
	}
	var tlsCfg *tls.Config
	if u.Scheme == "https" {
		if tlsCfg, err = tlsConfig(t); err != nil {
			return nil, err
		}
	}
	ctx := context.Background()
	switch t.OTLPProtocol() {
	case config.OTLPHTTP:
		opts := []otlploghttp.Option{
			otlploghttp.WithEndpoint(u.Host),
			otlploghttp.WithURLPath(strings.TrimSuffix(u.Path, "/") + "/v1/logs"),
			otlploghttp.WithHeaders(t.Headers),
			otlploghttp.WithRetry(otlploghttp.RetryConfig{Enabled: false}),
			otlploghttp.WithTimeout(sendTimeout),
			otlploghttp.WithCompression(otlploghttp.GzipCompression),
			otlploghttp.WithProxy(nil),
		}
		if tlsCfg == nil {
			opts = append(opts, otlploghttp.WithInsecure())
		} else {
			opts = append(opts, otlploghttp.WithTLSClientConfig(tlsCfg))
		}
		return otlploghttp.New(ctx, opts...)
	case config.OTLPGRPC:
		opts := []otlploggrpc.Option{
			otlploggrpc.WithEndpoint(u.Host),
			otlploggrpc.WithHeaders(t.Headers),
			otlploggrpc.WithRetry(otlploggrpc.RetryConfig{Enabled: false}),
			otlploggrpc.WithTimeout(sendTimeout),
			otlploggrpc.WithCompressor("gzip"),
		}
		if tlsCfg == nil {
			opts = append(opts, otlploggrpc.WithInsecure())
		} else {
			opts = append(opts, otlploggrpc.WithTLSCredentials(credentials.NewTLS(tlsCfg)))
		}
		return otlploggrpc.New(ctx, opts...)
	}
	return nil, fmt.Errorf("telemetry.otlp_protocol %q is not one hookctl-export speaks", t.Protocol)
}

// tlsConfig verifies the collector with otlp_certificate (or the system's roots) and presents
// otlp_client_certificate for mTLS.
func tlsConfig(t config.TelemetryConfig) (*tls.Config, error) {
	cfg := &tls.Config{MinVersion: tls.VersionTLS12}
	if t.Certificate != "" {
		pem, err := os.ReadFile(t.Certificate)
		if err != nil {
			return nil, fmt.Errorf("telemetry.otlp_certificate: %w", err)
		}
		cfg.RootCAs = x509.NewCertPool()
		if !cfg.RootCAs.AppendCertsFromPEM(pem) {
			return nil, errors.New("telemetry.otlp_certificate " + t.Certificate + " holds no PEM certificate")
		}
	}
	if t.ClientCertificate != "" {
		pair, err := tls.LoadX509KeyPair(t.ClientCertificate, t.ClientKey)
		if err != nil {
			return nil, fmt.Errorf("telemetry.otlp_client_certificate and otlp_client_key: %w", err)
		}
		cfg.Certificates = []tls.Certificate{pair}
	}
	return cfg, nil
}
