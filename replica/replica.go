// Package replica assembles a replica of the session manager — its Redis
// session store, its step executor and the reactor.Manager that runs
// sessions with them — in one place, for every command that runs one (xgr
// run, xgr dev, xgr scenario run, xgr bench). What legitimately differs
// between them is a field of Config or Steps; everything else (the store
// judging leases and due times on Redis's clock, the shared pipelines of
// a store that runs many sessions at once, the scripts loaded before the
// first session) is the same for all.
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
	"github.com/xgr-sidecar/xgr/rule"
	"github.com/xgr-sidecar/xgr/ruleexec"
	"github.com/xgr-sidecar/xgr/rulesource"
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

// Config is what differs between replicas.
type Config struct {
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
	// OnFinished receives the outcome of each session this replica
	// finished (reactor.Manager.OnFinished; optional).
	OnFinished func(joinstore.Root, joinstore.Outcome)
	// Log: nil is slog.Default().
	Log *slog.Logger
	// Actuator performs steps' executions (nil: executions are off, and a
	// step's execution is reported not performed). Flipper renders the
	// onInvalid branch after a revert; nil uses Exec when it can (the
	// XRC-137 executor can), else a revert aborts the step. ExecPoll is
	// how often an executing step asks for its outcome (0: 1 s).
	Actuator execution.Actuator
	Flipper  reactor.Flipper
	ExecPoll time.Duration
}

// New is the session manager of a replica.
func New(cfg Config) (*reactor.Manager, error) {
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
		OnEvent: cfg.OnEvent, OnFinished: cfg.OnFinished, Log: log, Actuator: cfg.Actuator, Flipper: flip, ExecPoll: cfg.ExecPoll}, nil
}

// Steps is how a replica (or xgr simulate) runs steps: as the XRC-137 rules
// Rules resolves, with scripted outcomes for the steps no rule source
// covers, or all scripted.
type Steps struct {
	// Rules resolves a step's rule (nil: every step plays Scripted).
	Rules rulesource.Source
	// API and Reads perform the rules' apiCalls and contractReads (nil
	// fails each, so their defaults apply).
	API   rule.APICaller
	Reads rule.ContractReader
	// Scripted plays the steps no rule covers (every step without Rules;
	// nil with Rules: such a step is a hard error).
	Scripted *reactor.Scripted
	// Observe sees every completed evaluation (ruleexec.Executor.Observe).
	Observe func(reactor.Execution, *rulesource.Loaded, *rule.Result)
	// Log: nil is slog.Default().
	Log *slog.Logger
}

// ErrNoSteps: Steps has neither rules nor scripted outcomes.
var ErrNoSteps = errors.New("no rule source and no scripted outcomes: nothing can run a step")

// Executor is the step executor of s: the XRC-137 executor with Scripted
// as its fallback, or Scripted alone.
func (s Steps) Executor() (reactor.Executor, error) {
	if s.Rules == nil {
		if s.Scripted == nil {
			return nil, ErrNoSteps
		}
		return s.Scripted, nil
	}
	x := &ruleexec.Executor{Rules: s.Rules, API: s.API, Reads: s.Reads, Observe: s.Observe, Log: s.Log}
	if s.Scripted != nil {
		x.Fallback = s.Scripted
	}
	return x, nil
}
