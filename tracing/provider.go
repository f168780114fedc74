package tracing

import (
	"context"
	"fmt"
	"net/url"

	"go.opentelemetry.io/otel/exporters/otlp/otlptrace/otlptracehttp"
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

// OTLP is an OTLP/HTTP exporter to endpoint (http(s)://host:port; the
// path /v1/traces is added when it has none).
func OTLP(ctx context.Context, endpoint string) (sdktrace.SpanExporter, error) {
	u, err := url.Parse(endpoint)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return nil, fmt.Errorf("OTLP endpoint %q: want http(s)://host:port", endpoint)
	}
	opts := []otlptracehttp.Option{otlptracehttp.WithEndpointURL(endpoint)}
	if u.Path == "" || u.Path == "/" {
		opts = []otlptracehttp.Option{otlptracehttp.WithEndpointURL(u.Scheme + "://" + u.Host + "/v1/traces")}
	}
	return otlptracehttp.New(ctx, opts...)
}
