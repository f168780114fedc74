package replica

import (
	"context"
	"errors"
	"log/slog"
	"net/http"
	"os"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	"github.com/ethereum/go-ethereum/common"
	"github.com/redis/go-redis/v9"

	"github.com/xgr-sidecar/xgr/authority"
	"github.com/xgr-sidecar/xgr/chain"
	"github.com/xgr-sidecar/xgr/console"
	"github.com/xgr-sidecar/xgr/execution"
	"github.com/xgr-sidecar/xgr/indexer"
	"github.com/xgr-sidecar/xgr/indexstore"
	"github.com/xgr-sidecar/xgr/joinstore"
	"github.com/xgr-sidecar/xgr/metric"
	"github.com/xgr-sidecar/xgr/reactor"
	"github.com/xgr-sidecar/xgr/redisconn"
	"github.com/xgr-sidecar/xgr/tracing"
)

// Replica is one replica process: built by New, run by Run, put away by
// Close.
type Replica struct {
	cfg  Config
	name string
	log  *slog.Logger

	rdb     redis.UniversalClient
	target  redisconn.Target // of rdb, for messages ("" Addr: a caller's client)
	store   *joinstore.Store
	chain   chain.Backend // nil: no chain
	chainID uint64
	idx     *indexstore.Index
	cache   *indexer.CacheSource
	source  reactor.Source

	evidence evidenceParts
	tracer   *tracing.Sessions
	steps    stepParts
	checker  *authority.Checker
	metrics  *metric.Set // nil without listeners
	service  *indexer.Service
	gateway  http.Handler
	url      string // the gateway's
	console  *console.Console
	actuator execution.Actuator
	executor common.Address
	manager  *reactor.Manager
	addrs    []string // the listeners' bound addresses

	draining  atomic.Bool
	closers   []func() error // run last first by Close
	closeOnce sync.Once
	closeErr  error
}

// New assembles the replica of cfg: it checks cfg, connects to Redis (and
// the node), checks what cfg.Checks asks for, and serves its listeners
// and gateway; sessions run once Run is called. On an error everything
// built so far is put away. ctx bounds the assembly only.
func New(ctx context.Context, cfg Config) (*Replica, error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	r := &Replica{cfg: cfg, name: cfg.Name, log: cfg.Log}
	if r.log == nil {
		r.log = slog.Default()
	}
	if r.name == "" {
		host, _ := os.Hostname()
		r.name = host + "-" + strconv.Itoa(os.Getpid())
	}
	if err := r.assemble(ctx); err != nil {
		r.Close()
		return nil, err
	}
	return r, nil
}

// assemble builds the parts in the order they depend on each other;
// Close puts them away in the opposite order.
func (r *Replica) assemble(ctx context.Context) error {
	steps := []func(context.Context) error{
		r.openChain, r.openRedis, r.openIndexStore, r.openEvidence, r.startTracing, r.buildSteps,
		r.openStore, r.runChecks, r.openMetrics, r.buildIndex,
		r.serveGateway, r.buildConsole, r.startExecutions, r.buildManager, r.serveListeners,
	}
	for _, step := range steps {
		if err := step(ctx); err != nil {
			return err
		}
	}
	return nil
}

// onClose registers f to run on Close (the last registered first).
func (r *Replica) onClose(f func() error) { r.closers = append(r.closers, f) }

// openRedis opens cfg.Redis, or takes the caller's client.
func (r *Replica) openRedis(ctx context.Context) error {
	if r.cfg.Client != nil {
		r.rdb = r.cfg.Client
		return nil
	}
	rdb, err := redisconn.Open(ctx, r.cfg.Redis)
	if err != nil {
		return errPart(PartRedis, err)
	}
	r.rdb, r.target = rdb, r.cfg.Redis.Target()
	r.onClose(rdb.Close)
	return nil
}

// redisFailed is err from the replica's Redis, naming it.
func (r *Replica) redisFailed(err error) error {
	if r.target.Addr != "" {
		err = r.target.Failed(err)
	}
	return errPart(PartRedis, err)
}

// openStore opens the session store and, with a chain, loads the index's
// scripts.
func (r *Replica) openStore(ctx context.Context) error {
	store, err := OpenStore(ctx, r.rdb, r.cfg.Store)
	if err != nil {
		return r.redisFailed(err)
	}
	r.store = store
	if r.idx != nil {
		if err := r.idx.Preload(ctx); err != nil {
			return r.redisFailed(err)
		}
	}
	return nil
}

// openMetrics builds the metrics the listeners serve (none without a
// listener) and counts Redis calls into them.
func (r *Replica) openMetrics(context.Context) error {
	if len(r.cfg.Listeners) == 0 {
		return nil
	}
	r.metrics = metric.New(r.log)
	r.rdb.AddHook(r.metrics.RedisHook())
	return nil
}

// buildManager builds the session manager with everything that watches
// its sessions: metrics, traces, the console, cfg.OnEvent.
func (r *Replica) buildManager(context.Context) error {
	var life reactor.Lifecycle
	if r.metrics != nil {
		life = r.metrics.Lifecycle(r.name)
	}
	mc := ManagerConfig{Store: r.store, Source: r.source, Exec: r.steps.exec, Flipper: r.steps.flip, Name: r.name,
		RootLease: r.cfg.RootLease, ProcLease: r.cfg.ProcLease, Poll: r.cfg.Poll, MaxRoots: r.cfg.MaxSessions,
		Log: r.log, Lifecycle: withTracing(life, r.tracer), Actuator: r.actuator, ExecPoll: r.cfg.ExecPoll, OnEvent: r.onEvent}
	if r.evidence.bundles != nil {
		mc.Bundles = r.evidence.bundles
	}
	m, err := NewManager(mc)
	if err != nil {
		return err
	}
	r.manager = m
	if r.metrics != nil {
		r.metrics.AddSessions(r.store, m.Running)
		r.metrics.AddMeter(r.store)
	}
	return nil
}

// onEvent hands a session event to every consumer.
func (r *Replica) onEvent(root joinstore.Root, e reactor.Event) {
	if r.metrics != nil {
		r.metrics.Event(root, e)
	}
	if r.tracer != nil {
		r.tracer.Event(root, e)
	}
	if r.console != nil {
		r.console.Record(root, e)
	}
	if r.cfg.OnEvent != nil {
		r.cfg.OnEvent(root, e)
	}
}

// Run runs the replica until ctx ends (or its index stops on a reorg
// deeper than its window), then drains: executions in flight finish and
// are committed, leases are given back. /readyz fails from the moment it
// drains. It returns an *Error when the index stopped (PartIndex) or,
// with Checks, when the replica could not drain (PartDrain).
func (r *Replica) Run(ctx context.Context) error {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	stop := context.AfterFunc(ctx, func() { r.draining.Store(true) })
	defer stop()
	indexErr := make(chan error, 1)
	if r.service != nil {
		go func() {
			err := r.service.Run(ctx)
			if err != nil {
				cancel() // a reorg deeper than the window: stop serving
			}
			indexErr <- err
		}()
	} else {
		indexErr <- nil
	}
	r.log.Info("session manager running", "replica", r.name, "orchestrations", len(r.cfg.Orchestrations), "following", r.chain != nil)
	err := r.manager.Run(ctx)
	cancel()
	r.draining.Store(true)
	if ierr := <-indexErr; ierr != nil {
		return &Error{Part: PartIndex, Err: ierr}
	}
	if r.cfg.Checks != nil {
		if reason := r.undrained(); reason != "" {
			r.log.Error("session manager stopped without draining", "replica", r.name, "reason", reason)
			return &Error{Part: PartDrain, Err: errors.New(reason)}
		}
	}
	r.log.Info("session manager stopped", "replica", r.name)
	return err
}

// Close stops serving and puts away what New built, the last built
// first: the listeners, the executions' upkeep, the gateway, the clients
// New opened, the traces (flushed). Call it once Run returned; it may be
// called more than once.
func (r *Replica) Close() error {
	r.closeOnce.Do(func() {
		r.draining.Store(true)
		var errs []error
		for i := len(r.closers) - 1; i >= 0; i-- {
			if err := r.closers[i](); err != nil {
				errs = append(errs, err)
			}
		}
		r.closeErr = errors.Join(errs...)
	})
	return r.closeErr
}

// Store is the replica's session store.
func (r *Replica) Store() *joinstore.Store { return r.store }

// Source serves the orchestrations its sessions run.
func (r *Replica) Source() reactor.Source { return r.source }

// Running is how many sessions the replica runs now.
func (r *Replica) Running() int { return r.manager.Running() }

// Addrs are the addresses the Listeners listen on, in their order (port 0
// resolved).
func (r *Replica) Addrs() []string { return r.addrs }

// GatewayURL is the gateway's URL ("" without a gateway).
func (r *Replica) GatewayURL() string { return r.url }

// Executor is the address that sends executions (zero without them).
func (r *Replica) Executor() common.Address { return r.executor }

// durationOr is d, or def when d is 0.
func durationOr(d, def time.Duration) time.Duration {
	if d == 0 {
		return def
	}
	return d
}
