package main

import (
	"github.com/urfave/cli/v2"

	"github.com/xgr-sidecar/xgr/tracing"
)

// tracingFlag turns on OpenTelemetry traces (off when empty).
func tracingFlag() cli.Flag {
	return &cli.StringFlag{Name: "otlp-endpoint", EnvVars: []string{"XGR_OTLP_ENDPOINT", "OTEL_EXPORTER_OTLP_ENDPOINT"},
		Usage: "export a trace per session (spans per step, API call, contract read and execution) to " + tracing.Endpoints + ", e.g. http://127.0.0.1:4318 (empty: off)"}
}
