package metric

import (
	"github.com/prometheus/client_golang/prometheus"

	"github.com/xgr-sidecar/xgr/internal/build"
)

// buildInfo is xgr_build_info: 1, labelled with the running build.
func buildInfo() prometheus.Collector {
	b := build.Read()
	g := prometheus.NewGauge(prometheus.GaugeOpts{Name: "xgr_build_info",
		Help:        "The running build of xgr (always 1): version, revision and Go version as labels.",
		ConstLabels: prometheus.Labels{"version": b.Version, "revision": b.Revision, "goversion": b.Go}})
	g.Set(1)
	return g
}
