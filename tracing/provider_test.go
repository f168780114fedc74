package tracing_test

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/xgr-sidecar/xgr/tracing"
)

// Exporter takes OTLP/HTTP, OTLP/gRPC, stdout and a file; file:PATH
// appends one JSON span per line that an operator can read without a
// collector; anything else is refused naming what is allowed.
func TestExporterEndpoints(t *testing.T) {
	ctx := context.Background()
	for _, ep := range []string{"http://127.0.0.1:4318", "https://collector.example:4318/v1/traces", "grpc://127.0.0.1:4317", "grpcs://collector.example:4317", "stdout"} {
		exp, err := tracing.Exporter(ctx, ep)
		if err != nil {
			t.Errorf("%s: %v", ep, err)
			continue
		}
		_ = exp.Shutdown(ctx)
	}
	for _, ep := range []string{"", "127.0.0.1:4318", "ftp://x:1", "file:", "udp://x:1"} {
		if _, err := tracing.Exporter(ctx, ep); err == nil || (ep != "file:" && !strings.Contains(err.Error(), "OTLP/gRPC")) {
			t.Errorf("%q: %v, want a refusal naming the allowed endpoints", ep, err)
		}
	}

	path := filepath.Join(t.TempDir(), "spans.jsonl")
	exp, err := tracing.Exporter(ctx, "file:"+path)
	if err != nil {
		t.Fatal(err)
	}
	tp := tracing.NewProvider(exp, "r1")
	_, sp := tp.Tracer("t").Start(ctx, "wiring check")
	sp.End()
	if err := tp.Shutdown(ctx); err != nil {
		t.Fatal(err)
	}
	raw, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(raw), `"Name":"wiring check"`) || !strings.Contains(string(raw), "r1") {
		t.Errorf("file exporter wrote %s", raw)
	}
	if fi, _ := os.Stat(path); fi.Mode().Perm() != 0o600 {
		t.Errorf("spans file mode %v, want 0600", fi.Mode().Perm())
	}
}
