// Package tracing exports sessions as OpenTelemetry traces: one trace per
// session, a span per step (from its claim to its commit), per API call and
// contract read of the step's rule, and per execution (from the call sent
// to its final receipt).
//
// It reads what the runtime reports anyway — a session's timeline
// (reactor.Event) and each rule evaluation (ruleexec's Observe) — so that
// tracing adds no work and no Redis round trip to a step. A session's
// trace id and root span id are derived from the session (owner and root
// pid), not stored: every replica that runs a step of the session, also
// after a takeover, puts its spans into the same trace under the same root.
//
// Off unless configured: `xgr run --otlp-endpoint URL` (or the standard
// OTEL_EXPORTER_OTLP_ENDPOINT) exports over OTLP/HTTP.
package tracing
