package main

import (
	"context"
	"log/slog"
	"time"

	"github.com/urfave/cli/v2"

	"github.com/xgr-sidecar/xgr/joinstore"
	"github.com/xgr-sidecar/xgr/reactor"
	"github.com/xgr-sidecar/xgr/tracing"
)

// tracingFlag turns on OpenTelemetry traces (off when empty).
func tracingFlag() cli.Flag {
	return &cli.StringFlag{Name: "otlp-endpoint", EnvVars: []string{"XGR_OTLP_ENDPOINT", "OTEL_EXPORTER_OTLP_ENDPOINT"},
		Usage: "export a trace per session (spans per step, API call, contract read and execution) over OTLP/HTTP to this collector, e.g. http://127.0.0.1:4318 (empty: off)"}
}

// startTracing is the session tracer of the --otlp-endpoint flag (nil when
// off) and the function that flushes and stops it.
func startTracing(c *cli.Context, replica string) (*tracing.Sessions, func(), error) {
	ep := c.String("otlp-endpoint")
	if ep == "" {
		return nil, func() {}, nil
	}
	exp, err := tracing.OTLP(c.Context, ep)
	if err != nil {
		return nil, nil, cli.Exit(cmdName(c)+": --otlp-endpoint: "+err.Error(), 2)
	}
	tp := tracing.NewProvider(exp, replica)
	slog.Info("tracing sessions", "otlp", ep)
	return tracing.New(tp), func() {
		ctx, cancel := context.WithTimeout(context.WithoutCancel(c.Context), 5*time.Second)
		defer cancel()
		if err := tp.Shutdown(ctx); err != nil {
			slog.Warn("flushing traces failed", "err", err)
		}
	}, nil
}

// withTracing adds the tracer's session root spans to a lifecycle.
func withTracing(l reactor.Lifecycle, t *tracing.Sessions) reactor.Lifecycle {
	if t == nil {
		return l
	}
	finished := l.Finished
	l.Finished = func(root joinstore.Root, outcome joinstore.Outcome) {
		t.Finished(root)
		if finished != nil {
			finished(root, outcome)
		}
	}
	return l
}
