package tracing

import (
	"context"
	"fmt"
	"io"
	"net/url"
	"os"
	"strings"

	"go.opentelemetry.io/otel/exporters/otlp/otlptrace/otlptracegrpc"
	"go.opentelemetry.io/otel/exporters/otlp/otlptrace/otlptracehttp"
	"go.opentelemetry.io/otel/exporters/stdout/stdouttrace"
	"go.opentelemetry.io/otel/sdk/resource"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	semconv "go.opentelemetry.io/otel/semconv/v1.26.0"
)

// NewProvider is a tracer provider with IDs as its ID generator, batching
// spans to exp, for service "xgr" and instance replica.
func NewProvider(exp sdktrace.SpanExporter, replica string) *sdktrace.TracerProvider {
	res := resource.NewSchemaless(semconv.ServiceName("xgr"), semconv.ServiceInstanceID(replica))
	return sdktrace.NewTracerProvider(sdktrace.WithBatcher(exp), sdktrace.WithIDGenerator(IDs{}), sdktrace.WithResource(res))
}

// Endpoints says which endpoints Exporter takes, for flag help and errors.
const Endpoints = "http(s)://host:port (OTLP/HTTP), grpc://host:port or grpcs://host:port (OTLP/gRPC), stdout, or file:PATH (one JSON span per line, appended)"

// Exporter is the span exporter an endpoint names (Endpoints):
// http(s)://host:port[/path] exports over OTLP/HTTP (the path /v1/traces
// is added when it has none), grpc://host:port over OTLP/gRPC without TLS
// and grpcs://host:port with it, stdout writes each span as JSON to
// standard output and file:PATH appends them to PATH (mode 0600) — the
// two an operator uses to check the wiring without a collector.
func Exporter(ctx context.Context, endpoint string) (sdktrace.SpanExporter, error) {
	switch {
	case endpoint == "stdout":
		return stdouttrace.New(stdouttrace.WithWriter(os.Stdout))
	case strings.HasPrefix(endpoint, "file:"):
		path := strings.TrimPrefix(strings.TrimPrefix(endpoint, "file:"), "//")
		if path == "" {
			return nil, fmt.Errorf("trace endpoint %q: want file:PATH", endpoint)
		}
		f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_APPEND, 0o600)
		if err != nil {
			return nil, fmt.Errorf("trace endpoint %q: %w", endpoint, err)
		}
		exp, err := stdouttrace.New(stdouttrace.WithWriter(f))
		if err != nil {
			f.Close()
			return nil, err
		}
		return closing{exp, f}, nil
	}
	u, err := url.Parse(endpoint)
	if err != nil || u.Host == "" {
		return nil, fmt.Errorf("trace endpoint %q: want %s", endpoint, Endpoints)
	}
	switch u.Scheme {
	case "http", "https":
		if u.Path == "" || u.Path == "/" {
			endpoint = u.Scheme + "://" + u.Host + "/v1/traces"
		}
		return otlptracehttp.New(ctx, otlptracehttp.WithEndpointURL(endpoint))
	case "grpc", "grpcs":
		opts := []otlptracegrpc.Option{otlptracegrpc.WithEndpoint(u.Host)}
		if u.Scheme == "grpc" {
			opts = append(opts, otlptracegrpc.WithInsecure())
		}
		return otlptracegrpc.New(ctx, opts...)
	}
	return nil, fmt.Errorf("trace endpoint %q: want %s", endpoint, Endpoints)
}

// closing is an exporter that closes its file when it shuts down.
type closing struct {
	sdktrace.SpanExporter
	f io.Closer
}

func (c closing) Shutdown(ctx context.Context) error {
	err := c.SpanExporter.Shutdown(ctx)
	if cerr := c.f.Close(); err == nil {
		err = cerr
	}
	return err
}
