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
	"errors"
	"fmt"
	"log/slog"
	"sort"
	"strings"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/xgr-sidecar/xgr/chain"
	"github.com/xgr-sidecar/xgr/devnet/deploy"
	"github.com/xgr-sidecar/xgr/joinstore"
	"github.com/xgr-sidecar/xgr/reactor"
	"github.com/xgr-sidecar/xgr/replica"
	"github.com/xgr-sidecar/xgr/rule"
	"github.com/xgr-sidecar/xgr/scenario"
	"github.com/xgr-sidecar/xgr/session"
)

// Config is the chain and the Redis a run uses, and who acts.
type Config struct {
	Chain chain.Backend
	Redis redis.UniversalClient
	// Store is the session store's settings (replica.Config.Store).
	Store joinstore.Config
	// Keys are the actors' keys by alias.
	Keys map[string]*ecdsa.PrivateKey
	// API performs the rules' apiCalls.
	API rule.APICaller
	// Executions sends the steps' executions (nil: not performed);
	// ExecPoll is how often an executing step asks for its outcome
	// (0: 50 ms).
	Executions *replica.Executions
	ExecPoll   time.Duration
	Log        *slog.Logger
}

// Engine implements scenario.Engine. Run runs its replica; Deploy, Start
// and Observe may be called meanwhile; Close puts the replica away.
type Engine struct {
	chain    chain.Backend
	replica  *replica.Replica
	store    *joinstore.Store
	source   reactor.Source
	recorder *recorder
	senders  map[string]*chain.Sender
}

// New builds the engine: a sender per actor and the replica named
// "xgr-scenario" on the chain and Redis of cfg. Its orchestrations come
// from the registries on chain, verified against their recorded hashes
// (the index's cache stays empty: nothing follows the chain in a
// scenario run); its steps run the XRC-137 rules on chain, and what each
// evaluation saw, or why it failed, is recorded.
func New(ctx context.Context, cfg Config) (*Engine, error) {
	e := &Engine{chain: cfg.Chain, recorder: &recorder{}, senders: map[string]*chain.Sender{}}
	for alias, k := range cfg.Keys {
		s, err := chain.NewSender(ctx, cfg.Chain, k, 1)
		if err != nil {
			return nil, err
		}
		s.Poll = 20 * time.Millisecond
		e.senders[alias] = s
	}
	poll := cfg.ExecPoll
	if poll <= 0 {
		poll = 50 * time.Millisecond
	}
	rep, err := replica.New(ctx, replica.Config{Name: "xgr-scenario", Log: cfg.Log, Client: cfg.Redis, Store: cfg.Store, Chain: cfg.Chain,
		Rules: replica.Rules{FromChain: true, API: cfg.API, Observe: e.recorder.observe,
			Wrap: func(x reactor.Executor) reactor.Executor { return recordingExecutor{x, e.recorder} }},
		Executions: cfg.Executions, Poll: 20 * time.Millisecond, ExecPoll: poll})
	var re *replica.Error
	if errors.As(err, &re) && re.Part == replica.PartRedis {
		return nil, fmt.Errorf("redis: %w", re.Err)
	} else if err != nil {
		return nil, err
	}
	e.replica, e.store, e.source = rep, rep.Store(), rep.Source()
	return e, nil
}

// Run runs the engine's replica until ctx ends, then drains it.
func (e *Engine) Run(ctx context.Context) error { return e.replica.Run(ctx) }

// Close puts the engine's replica away (the executions' upkeep with it).
func (e *Engine) Close() error { return e.replica.Close() }

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
