// Package metric holds xgr's Prometheus metrics: one registry per process
// with the Go and process collectors, the session manager's counters and
// histograms (fed by reactor.Manager's OnEvent and Lifecycle), a go-redis
// hook for Redis errors and latency, and collectors that read the due
// queue and the chain index when scraped. docs/operating.md lists every
// metric; deploy/prometheus and deploy/grafana use them.
package metric
