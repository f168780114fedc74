package metric

import (
	"log/slog"
	"sync"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"

	"github.com/xgr-sidecar/xgr/joinstore"
	"github.com/xgr-sidecar/xgr/reactor"
	"github.com/xgr-sidecar/xgr/txmanager"
)

// Outcomes are the values of xgr_sessions_finished_total's outcome label:
// joinstore.Outcomes (ok, invalid, unfulfillable, failed, budget,
// cancelled, killed), as joinstore.OutcomeOf decides them from the session's meta.
var Outcomes = func() []string {
	out := make([]string, len(joinstore.Outcomes))
	for i, o := range joinstore.Outcomes {
		out[i] = string(o)
	}
	return out
}()

// TriggerOutcomes are the outcome values of xgr_trigger_starts_total
// (indexer.Starter.Count).
var TriggerOutcomes = []string{"started", "failed", "retry", "waiting"}

// maxTracked bounds the per-process and per-session state kept between
// events (claim times, outcomes): past it new entries are not tracked.
const maxTracked = 1 << 16

// Set is the metrics of one xgr process, registered on Registry.
type Set struct {
	Registry *prometheus.Registry
	Log      *slog.Logger

	events          *prometheus.CounterVec
	triggerStarts   *prometheus.CounterVec
	triggerToStart  prometheus.Histogram
	stepDuration    prometheus.Histogram
	sessionsDone    *prometheus.CounterVec
	takeovers       prometheus.Counter
	leaseLosses     prometheus.Counter
	stalls          *prometheus.CounterVec
	redisErrors     *prometheus.CounterVec
	redisLatency    *prometheus.HistogramVec
	indexScrapeErrs prometheus.Counter

	execOnce sync.Once
	txm      *txmanager.Metrics
	refusals *prometheus.CounterVec

	mu      sync.Mutex
	claimed map[joinstore.Root]map[string]time.Time // claim time by session and pid
	redis   redisState
}

// New makes the registry of a process: the Go and process collectors and
// every xgr metric that needs no store or chain (those are added by
// AddSessions and AddIndex). log receives lifecycle lines (nil: slog.Default()).
func New(log *slog.Logger) *Set {
	if log == nil {
		log = slog.Default()
	}
	steps := []float64{.001, .005, .01, .025, .05, .1, .25, .5, 1, 2.5, 5, 10, 30, 60}
	s := &Set{
		Registry: prometheus.NewRegistry(),
		Log:      log,
		events: prometheus.NewCounterVec(prometheus.CounterOpts{Name: "xgr_events_total",
			Help: "Session timeline events by type."}, []string{"type"}),
		triggerStarts: prometheus.NewCounterVec(prometheus.CounterOpts{Name: "xgr_trigger_starts_total",
			Help: "Trigger start attempts by outcome: started, failed (a definite refusal), retry (an error; the trigger stays pending), waiting (its orchestration is not indexed yet)."}, []string{"outcome"}),
		triggerToStart: prometheus.NewHistogram(prometheus.HistogramOpts{Name: "xgr_trigger_to_start_seconds",
			Help:    "Time from the indexer seeing a trigger log to the start of its session (the finality wait included).",
			Buckets: []float64{.1, .25, .5, 1, 2, 5, 10, 20, 40, 80, 160, 320, 640}}),
		stepDuration: prometheus.NewHistogram(prometheus.HistogramOpts{Name: "xgr_step_duration_seconds",
			Help: "Time from a step's claim to its executed result on this replica (rule, API calls and contract reads).", Buckets: steps}),
		sessionsDone: prometheus.NewCounterVec(prometheus.CounterOpts{Name: "xgr_sessions_finished_total",
			Help: "Sessions this replica finished, by outcome: finished, killed, cancelled, capped, failed, unfulfillable."}, []string{"outcome"}),
		takeovers: prometheus.NewCounter(prometheus.CounterOpts{Name: "xgr_session_takeovers_total",
			Help: "Sessions this replica adopted with processes left running under expired leases (another replica stopped without handing them back)."}),
		leaseLosses: prometheus.NewCounter(prometheus.CounterOpts{Name: "xgr_root_lease_losses_total",
			Help: "Root leases this replica lost to another replica (it did not renew in time)."}),
		stalls: prometheus.NewCounterVec(prometheus.CounterOpts{Name: "xgr_session_stalls_total",
			Help: "Sessions this replica adopted and could not run at all, by kind: unknown-orchestration (it serves no such orchestration) or hash-mismatch (not the pinned text); each is handed back and tried again after a backoff."}, []string{"kind"}),
		redisErrors: prometheus.NewCounterVec(prometheus.CounterOpts{Name: "xgr_redis_errors_total",
			Help: "Redis requests that failed, by kind: connection (network, timeout, refused) or server (an error reply)."}, []string{"kind"}),
		redisLatency: prometheus.NewHistogramVec(prometheus.HistogramOpts{Name: "xgr_redis_request_duration_seconds",
			Help:    "Redis round trips by kind: command or pipeline (a pipeline of many commands is one round trip).",
			Buckets: []float64{.0001, .00025, .0005, .001, .0025, .005, .01, .025, .05, .1, .25, 1}}, []string{"op"}),
		indexScrapeErrs: prometheus.NewCounter(prometheus.CounterOpts{Name: "xgr_indexer_scrape_errors_total",
			Help: "Scrapes that could not read the chain's head or the index checkpoint (the xgr_indexer_* gauges are then absent)."}),
		claimed: map[joinstore.Root]map[string]time.Time{},
	}
	for _, o := range Outcomes {
		s.sessionsDone.WithLabelValues(o)
	}
	for _, o := range TriggerOutcomes {
		s.triggerStarts.WithLabelValues(o)
	}
	for _, k := range []string{reactor.StallUnknownOrchestration, reactor.StallHashMismatch} {
		s.stalls.WithLabelValues(k)
	}
	for _, k := range []string{"connection", "server"} {
		s.redisErrors.WithLabelValues(k)
	}
	for _, op := range []string{"command", "pipeline"} {
		s.redisLatency.WithLabelValues(op)
	}
	s.Registry.MustRegister(collectors.NewGoCollector(), collectors.NewProcessCollector(collectors.ProcessCollectorOpts{}),
		s.events, s.triggerStarts, s.triggerToStart, s.stepDuration, s.sessionsDone, s.takeovers, s.leaseLosses,
		s.stalls, s.redisErrors, s.redisLatency, s.indexScrapeErrs, buildInfo())
	return s
}

// Event counts a timeline event and measures step durations and outcomes
// (reactor.Manager.OnEvent).
func (s *Set) Event(r joinstore.Root, e reactor.Event) {
	s.events.WithLabelValues(string(e.Type)).Inc()
	switch e.Type {
	case reactor.EvClaimed:
		s.mu.Lock()
		pids := s.claimed[r]
		if pids == nil && len(s.claimed) < maxTracked {
			pids = map[string]time.Time{}
			s.claimed[r] = pids
		}
		if pids != nil && len(pids) < maxTracked {
			pids[e.Pid] = e.At
		}
		s.mu.Unlock()
	case reactor.EvExecuted:
		s.mu.Lock()
		at, ok := s.claimed[r][e.Pid]
		delete(s.claimed[r], e.Pid)
		s.mu.Unlock()
		if ok && !e.At.Before(at) {
			s.stepDuration.Observe(e.At.Sub(at).Seconds())
		}
	}
}

// TriggerStart counts a trigger start outcome (indexer.Starter.Count).
func (s *Set) TriggerStart(outcome string) { s.triggerStarts.WithLabelValues(outcome).Inc() }

// TriggerWaited observes a trigger-to-start time (indexer.Starter.Waited).
func (s *Set) TriggerWaited(d time.Duration) { s.triggerToStart.Observe(d.Seconds()) }

// Lifecycle returns the hooks of reactor.Manager.Lifecycle: it counts
// finished sessions by outcome, takeovers and lease losses, and logs
// takeovers at INFO (a finished session's INFO line and a lease loss's WARN
// are the manager's own).
func (s *Set) Lifecycle(replica string) reactor.Lifecycle {
	return reactor.Lifecycle{
		Adopted: func(r joinstore.Root, previous string, recovered int) {
			if recovered == 0 {
				return
			}
			s.takeovers.Inc()
			switch previous {
			case "":
				previous = "unknown" // no replica adopted it before (an old session's meta)
			case replica:
				// This replica's own earlier run (restarted under the same
				// name): its leases expired as another replica's would.
				s.Log.Info("session adopted after this replica's earlier run's lease expired", "session", r.String(),
					"previous", previous, "recovered", recovered, "replica", replica)
				return
			}
			s.Log.Info("session adopted after another replica's lease expired", "session", r.String(),
				"previous", previous, "recovered", recovered, "replica", replica)
		},
		LeaseLost: func(joinstore.Root) { s.leaseLosses.Inc() },
		Stalled:   func(_ joinstore.Root, kind string) { s.stalls.WithLabelValues(kind).Inc() },
		Finished: func(r joinstore.Root, meta joinstore.SessionMeta) {
			s.forget(r)
			s.sessionsDone.WithLabelValues(string(joinstore.OutcomeOf(meta))).Inc()
		},
	}
}

// forget drops what the set kept of a finished session's events.
func (s *Set) forget(r joinstore.Root) {
	s.mu.Lock()
	defer s.mu.Unlock()
	delete(s.claimed, r)
}
