package metric

import (
	"context"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/xgr-sidecar/xgr/joinstore"
)

// TopOwners is how many owners xgr_meter_top_owner_gas names: the label
// set of the meter's metrics stays bounded however many owners there are.
const TopOwners = 10

var topOwnerGas = prometheus.NewDesc("xgr_meter_top_owner_gas",
	"Gas (validation gas of the sessions that finished today, UTC, and gas of the executions final today) of the owners that used the most, read from Redis at each scrape: at most 10 owners, across replicas.",
	[]string{"owner"}, nil)

// AddMeter registers the billing meter's metrics (docs/operating.md
// "Metering and billing"): counters of what this replica metered, without
// an owner label (xgr_meter_sessions_total, _steps_total,
// _validation_gas_total, _session_seconds_total, _bytes_total,
// _executions_total, _execution_gas_total; their sum over replicas is the
// meter's total), and the day's top owners by gas read at each scrape
// (xgr_meter_top_owner_gas{owner}, TopOwners of them). It sets the
// store's meter hooks.
func (s *Set) AddMeter(store *joinstore.Store) {
	counter := func(name, help string) prometheus.Counter {
		return prometheus.NewCounter(prometheus.CounterOpts{Name: name, Help: help})
	}
	sessions := counter("xgr_meter_sessions_total", "Finished sessions this replica added to their owner's meter (each session is metered once across replicas).")
	steps := counter("xgr_meter_steps_total", "Steps of the sessions this replica metered.")
	gas := counter("xgr_meter_validation_gas_total", "Validation gas (their gas used less their executions') of the sessions this replica metered.")
	secs := counter("xgr_meter_session_seconds_total", "Lifetimes (start to end) of the sessions this replica metered.")
	bytes := counter("xgr_meter_bytes_total", "Bytes the sessions this replica metered held in Redis at their end (sampled).")
	execs := counter("xgr_meter_executions_total", "Final executions (succeeded or reverted) this replica added to their owner's meter (each once across replicas).")
	execGas := counter("xgr_meter_execution_gas_total", "Gas the transactions of the executions this replica metered used.")
	errs := counter("xgr_meter_scrape_errors_total", "Scrapes that could not read the top owners from Redis (xgr_meter_top_owner_gas is then absent).")
	store.SetMeterHook(func(u joinstore.SessionUsage) {
		sessions.Inc()
		steps.Add(float64(u.Steps))
		gas.Add(float64(u.ValidationGas))
		secs.Add(float64(u.DurationMs) / 1000)
		bytes.Add(float64(u.Bytes))
	})
	store.SetExecMeterHook(func(e joinstore.ExecUsage) {
		execs.Inc()
		execGas.Add(float64(e.Gas))
	})
	s.Registry.MustRegister(sessions, steps, gas, secs, bytes, execs, execGas, &topCollector{store: store, errs: errs, now: time.Now})
}

// topCollector reads the day's top owners at each scrape.
type topCollector struct {
	store *joinstore.Store
	errs  prometheus.Counter
	now   func() time.Time
}

func (c *topCollector) Describe(ch chan<- *prometheus.Desc) {
	ch <- topOwnerGas
	c.errs.Describe(ch)
}

func (c *topCollector) Collect(ch chan<- prometheus.Metric) {
	ctx, cancel := context.WithTimeout(context.Background(), scrapeTimeout)
	defer cancel()
	top, err := c.store.TopOwners(ctx, joinstore.MeterDay(c.now()), TopOwners)
	if err != nil {
		c.errs.Inc()
	}
	for _, o := range top {
		ch <- prometheus.MustNewConstMetric(topOwnerGas, prometheus.GaugeValue, float64(o.Gas), o.Owner)
	}
	c.errs.Collect(ch)
}
