// Package benchmark is `xgr bench`: it starts sessions of an orchestration
// (every step valid at once), runs session-manager replicas in this process
// until every session finished, and measures steps/s, Redis round trips,
// commands and CPU per step, client CPU and allocations per step, step
// latency percentiles and the memory the finished sessions keep.
// docs/performance.md defines each figure.
package benchmark
