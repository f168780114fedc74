// Package engine is the scenario.Engine of "xgr scenario run": contracts go
// to a chain (devnet/deploy), sessions run on one replica of xgr's
// session manager over Redis (replica), steps are evaluated by the XRC-137
// executor reading the rules from the chain, and what each evaluation saw
// is recorded for the scenario's input, API and contract-read checks.
package engine

import (
	"context"
	"crypto/ecdsa"
	"encoding/json"
	"fmt"
	"log/slog"
	"sort"
	"strings"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/xgr-sidecar/xgr/chain"
	"github.com/xgr-sidecar/xgr/devnet/deploy"
	"github.com/xgr-sidecar/xgr/execution"
	"github.com/xgr-sidecar/xgr/indexer"
	"github.com/xgr-sidecar/xgr/indexstore"
	"github.com/xgr-sidecar/xgr/joinstore"
	"github.com/xgr-sidecar/xgr/reactor"
	"github.com/xgr-sidecar/xgr/replica"
	"github.com/xgr-sidecar/xgr/rule"
	"github.com/xgr-sidecar/xgr/rulesource"
	"github.com/xgr-sidecar/xgr/scenario"
	"github.com/xgr-sidecar/xgr/session"
)

// Config is the chain and the Redis a run uses, and who acts.
type Config struct {
	Chain   chain.Backend
	ChainID uint64
	Redis   redis.UniversalClient
	// Store is the session store's settings (replica.OpenStore).
	Store joinstore.Config
	// Keys are the actors' keys by alias.
	Keys map[string]*ecdsa.PrivateKey
	// API performs the rules' apiCalls.
	API rule.APICaller
	// Actuator performs the steps' executions (nil: not performed);
	// ExecPoll is how often an executing step asks for its outcome
	// (0: 50 ms).
	Actuator execution.Actuator
	ExecPoll time.Duration
	Log      *slog.Logger
}

// Engine implements scenario.Engine. Run runs its replica; Deploy, Start
// and Observe may be called meanwhile.
type Engine struct {
	chain    chain.Backend
	store    *joinstore.Store
	source   reactor.Source
	manager  *reactor.Manager
	recorder *recorder
	senders  map[string]*chain.Sender
}

// New builds the engine: a sender per actor, the store, the orchestration
// source (the registries on chain, verified against their recorded hashes;
// the indexer's cache stays empty: nothing follows the chain in a scenario
// run) and the replica named "xgr-scenario".
func New(ctx context.Context, cfg Config) (*Engine, error) {
	store, err := replica.OpenStore(ctx, cfg.Redis, cfg.Store)
	if err != nil {
		return nil, fmt.Errorf("redis: %w", err)
	}
	e := &Engine{chain: cfg.Chain, store: store, recorder: &recorder{}, senders: map[string]*chain.Sender{}}
	for alias, k := range cfg.Keys {
		s, err := chain.NewSender(ctx, cfg.Chain, k, 1)
		if err != nil {
			return nil, err
		}
		s.Poll = 20 * time.Millisecond
		e.senders[alias] = s
	}
	e.source = indexer.NewCacheSource(indexstore.New(cfg.Redis, cfg.ChainID), cfg.Chain)
	exec, err := replica.Steps{
		Rules:   &rulesource.Loader{Chain: rulesource.NewChain(cfg.Chain)},
		API:     cfg.API,
		Reads:   &chain.Reads{Default: cfg.Chain},
		Log:     cfg.Log,
		Observe: e.recorder.observe,
	}.Executor()
	if err != nil {
		return nil, err
	}
	// The recording wrapper hides the executor's revert flip: pass it on.
	flip, _ := exec.(reactor.Flipper)
	poll := cfg.ExecPoll
	if poll <= 0 {
		poll = 50 * time.Millisecond
	}
	e.manager, err = replica.New(replica.Config{Store: store, Source: e.source, Exec: recordingExecutor{exec, e.recorder}, Name: "xgr-scenario",
		Poll: 20 * time.Millisecond, Log: cfg.Log, Actuator: cfg.Actuator, Flipper: flip, ExecPoll: poll})
	if err != nil {
		return nil, err
	}
	return e, nil
}

// Run runs the engine's replica until ctx ends, then drains it.
func (e *Engine) Run(ctx context.Context) error { return e.manager.Run(ctx) }

func (e *Engine) sender(alias string) (*chain.Sender, error) {
	if s, ok := e.senders[alias]; ok {
		return s, nil
	}
	names := make([]string, 0, len(e.senders))
	for a := range e.senders {
		names = append(names, a)
	}
	sort.Strings(names)
	return nil, fmt.Errorf("actor %q has no key (actors: %s)", alias, strings.Join(names, ", "))
}

// Deploy implements scenario.Engine (deploy.Plan).
func (e *Engine) Deploy(ctx context.Context, p *scenario.Plan) (*scenario.Deployment, error) {
	return deploy.Plan(ctx, e.chain, e.sender, p)
}

// Start implements scenario.Engine.
func (e *Engine) Start(ctx context.Context, req scenario.StartRequest) (scenario.SessionRef, error) {
	payload, err := json.Marshal(req.Payload)
	if err != nil {
		return scenario.SessionRef{}, fmt.Errorf("start payload: %w", err)
	}
	res, err := session.Starter{Store: e.store, Source: e.source, Trusted: true}.Start(ctx, session.Request{
		Owner: req.Owner, Registry: req.Deployment.Registry, OstcID: req.Deployment.OstcID, OstcHash: req.Deployment.Hash,
		Step: req.Step, Payload: payload,
	})
	if err != nil {
		return scenario.SessionRef{}, err
	}
	return scenario.SessionRef{Owner: res.Root.Owner, ID: res.Root.RootPid}, nil
}

// Observe implements scenario.Engine.
func (e *Engine) Observe(ctx context.Context, s scenario.SessionRef) (*scenario.Observed, error) {
	root := joinstore.Root{Owner: s.Owner, RootPid: s.ID}
	meta, err := e.store.SessionMeta(ctx, root)
	if err != nil {
		return nil, err
	}
	procs, err := e.store.Processes(ctx, root)
	if err != nil {
		return nil, err
	}
	steps, err := e.store.History(ctx, root)
	if err != nil {
		return nil, err
	}
	hist := make([]scenario.HistoryEntry, 0, len(steps))
	for _, h := range steps {
		if h.Commit() { // wake events are not commits
			hist = append(hist, scenario.HistoryEntry{Pid: h.Pid})
		}
	}
	return scenario.ObservedFrom(meta, procs, hist, e.recorder.of(s.Owner, s.ID)), nil
}
