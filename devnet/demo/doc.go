// Package demo is the `xgr dev` demo's own logic. Pure: the start payloads
// of its two-session wake-up flow (wake.go), how a finished session is
// judged from its records (session.go), the lines and the summary table
// xgr dev prints (report.go), the demo trigger (trigger.go) and the
// settlement rule (settlement.go). With IO: starting the wake-up flow
// (wakeflow.go, WakeFlow), following sessions until they finish (watch.go,
// Watch), deploying the settlement and starting its executor
// (settlement_deploy.go), and the demo's run itself — the wake-up flow,
// the orders, until every demo session finished (driver.go, Driver). The
// command (cmd/xgr, dev*.go) parses the flags and wires the chain, Redis
// and the replica to these.
package demo
