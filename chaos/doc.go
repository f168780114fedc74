// Package chaos is xgr's chaos suite: real `xgr run` replicas on a real
// redis-server (AOF, fsync always) and on a Redis Cluster with replicas,
// sessions of mixed shapes whose steps take time, and faults — kill -9 of
// replicas, a Redis kill -9 and restart, a CLIENT PAUSE, a SIGSTOP, a
// cluster master kill with failover — followed by an audit of what Redis
// holds.
//
// The suite itself is behind the build tag "chaos" (chaos_test.go,
// harness_test.go, cluster_test.go, …), so `go test ./...` never builds it:
//
//	make chaos        # long preset
//	make chaos-short  # three to five minutes; what CI runs
//	go test -tags chaos -run TestChaos ./chaos -v
//
// Knobs (environment): XGR_CHAOS_SESSIONS, XGR_CHAOS_REPLICAS,
// XGR_CHAOS_KILLS, XGR_CHAOS_MASTER_KILLS, XGR_CHAOS_DURATION,
// XGR_CHAOS_SETTLE, XGR_CHAOS_SEED, XGR_CHAOS_RACE=1 (build xgr with the
// race detector), and for TestChaosExecutions XGR_CHAOS_EXEC_SESSIONS,
// XGR_CHAOS_FAILPOINT_HIT, XGR_CHAOS_FAILPOINT_KILLS, for TestChaosDeepReorg
// (reorgs deeper than finality during executions, reorg_test.go)
// XGR_CHAOS_REORGS and XGR_CHAOS_REORG_DEPTH; docs/testing.md describes
// them and the report.
//
// The replicas run in a fleet (harness_test.go): one supervisor goroutine
// per slot starts every incarnation of it, so a slot never has two live
// ones, and stopping the fleet awaits every process it started, each wait
// bounded (TestChaosFleet).
//
// The suite's xgr is built with the tag xgrfailpoint (internal/failpoint):
// TestChaosExecutions starts its replicas with XGR_FAILPOINTS, so they die
// with SIGKILL at every boundary of an execution, and audits the chain.
//
// The audit (audit.go) is plain code with its own unit tests, which run in
// `make test`: it reads a session's meta, process records and proc_steps
// history and names every broken invariant.
package chaos
