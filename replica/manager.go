package replica

import (
	"context"
	"errors"
	"log/slog"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/xgr-sidecar/xgr/execution"
	"github.com/xgr-sidecar/xgr/joinstore"
	"github.com/xgr-sidecar/xgr/reactor"
)

// OpenStore is a replica's session store on rdb: cfg's session settings
// (TTL, caps, log) with Redis's clock judging every lease and due time
// (ServerClock) and the transitions of concurrent sessions sharing
// pipelines (Batch, joinstore.DefaultBatch unless cfg sets one), its
// scripts loaded (an unreachable Redis is an error here, before anything
// runs).
func OpenStore(ctx context.Context, rdb redis.UniversalClient, cfg joinstore.Config) (*joinstore.Store, error) {
	cfg.ServerClock = true
	if cfg.Batch <= 0 {
		cfg.Batch = joinstore.DefaultBatch
	}
	store := joinstore.New(rdb, cfg)
	if err := store.Preload(ctx); err != nil {
		return nil, err
	}
	return store, nil
}

// ManagerConfig is the session manager of a replica: what differs
// between the managers New assembles, and between callers that need
// only a manager (tests, benchmarks of the engine).
type ManagerConfig struct {
	// Store is the replica's store (OpenStore).
	Store *joinstore.Store
	// Source serves the orchestrations its sessions run.
	Source reactor.Source
	// Exec runs the steps (Steps.Executor, possibly wrapped).
	Exec reactor.Executor
	// Name names the replica in leases (unique per process).
	Name string
	// RootLease, ProcLease, Poll, MaxRoots and Workers: see
	// reactor.Manager (0: its defaults).
	RootLease, ProcLease, Poll time.Duration
	MaxRoots, Workers          int
	// OnEvent receives every session's timeline (optional; called from
	// several goroutines).
	OnEvent func(joinstore.Root, reactor.Event)
	// Log: nil is slog.Default().
	Log *slog.Logger
	// Lifecycle receives adoptions, lease losses and finished sessions
	// (metrics and operators' logs; optional).
	Lifecycle reactor.Lifecycle
	// Actuator performs steps' executions (nil: executions are off, and a
	// step's execution is reported not performed). Flipper renders the
	// onInvalid branch after a revert; nil uses Exec when it can (the
	// XRC-137 executor can), else a revert aborts the step. ExecPoll is
	// how often an executing step asks for its outcome (0: 1 s).
	Actuator execution.Actuator
	Flipper  reactor.Flipper
	ExecPoll time.Duration
	// Bundles stores every committed step's log bundle (nil: off).
	Bundles reactor.BundleWriter
}

// NewManager is the session manager of a replica; New builds its own
// through it.
func NewManager(cfg ManagerConfig) (*reactor.Manager, error) {
	switch {
	case cfg.Store == nil:
		return nil, errors.New("replica: no store")
	case cfg.Source == nil:
		return nil, errors.New("replica: no orchestration source")
	case cfg.Exec == nil:
		return nil, errors.New("replica: no step executor")
	case cfg.Name == "":
		return nil, errors.New("replica: no name (it names the replica in leases)")
	}
	log := cfg.Log
	if log == nil {
		log = slog.Default()
	}
	flip := cfg.Flipper
	if f, ok := cfg.Exec.(reactor.Flipper); ok && flip == nil {
		flip = f
	}
	return &reactor.Manager{Store: cfg.Store, Source: cfg.Source, Exec: cfg.Exec, Replica: cfg.Name,
		RootLease: cfg.RootLease, ProcLease: cfg.ProcLease, Poll: cfg.Poll, MaxRoots: cfg.MaxRoots, Workers: cfg.Workers,
		OnEvent: cfg.OnEvent, Log: log, Lifecycle: cfg.Lifecycle, Actuator: cfg.Actuator, Flipper: flip, ExecPoll: cfg.ExecPoll, Bundles: cfg.Bundles}, nil
}
