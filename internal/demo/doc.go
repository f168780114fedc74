// Package demo is the `xgr dev` demo's own logic. Pure: the start payloads
// of its two-session wake-up flow (wake.go), how a finished session is
// judged from its records (session.go), the lines and the summary table
// xgr dev prints (report.go), the demo trigger (trigger.go) and the
// settlement rule (settlement.go). On the session store: starting the
// wake-up flow (wakeflow.go, WakeFlow) and following sessions until they
// finish (watch.go, Watch). The command (cmd/xgr, dev*.go) parses the
// flags and wires the chain, Redis and the replica to these.
package demo
