package replica

import (
	"context"
	"time"

	"github.com/ethereum/go-ethereum"
	"github.com/ethereum/go-ethereum/core/types"

	"github.com/xgr-sidecar/xgr/indexer"
	"github.com/xgr-sidecar/xgr/reactor"
)

// buildIndex builds the orchestration source — the chain's verified
// cache, then cfg.Orchestrations — and, with cfg.Index, the index: the
// follower of its registries (and of the rule contracts, when rules come
// from the chain) and the starter of its triggers. Of several replicas
// with the same config one indexes at a time (a lease in the replica's
// name).
func (r *Replica) buildIndex(ctx context.Context) error {
	var files reactor.Source
	if len(r.cfg.Orchestrations) > 0 || r.cache == nil {
		files = reactor.NewStaticSource(r.cfg.Orchestrations...)
	}
	switch {
	case r.cache == nil:
		r.source = files
	case files == nil:
		r.source = r.cache
	default:
		r.source = reactor.FirstSource(r.cache, files)
	}
	ic := r.cfg.Index
	if ic == nil {
		return nil
	}
	cfg := ic.Config
	f := &indexer.Follower{Chain: r.chain, ChainID: r.chainID, Index: r.idx, Registries: cfg.Registries, Discover: cfg.Discover,
		FollowRules: r.cfg.Rules.FromChain, Triggers: cfg.Triggers, Start: cfg.StartBlock, Window: cfg.Window, Endpoint: r.cfg.Node, Log: r.log}
	st := &indexer.Starter{Chain: r.chain, Index: r.idx, Store: r.store, Source: r.source, Finality: cfg.Finality, Confirmations: cfg.Confirmations,
		Log: r.log, Authority: r.checker}
	svc := &indexer.Service{Follower: f, Starter: st, Poll: durationOr(ic.Poll, time.Second), Log: r.log, Holder: r.name,
		Ping: func(ctx context.Context) error { return r.rdb.Ping(ctx).Err() }}
	if r.metrics != nil {
		st.Count, st.Waited = r.metrics.TriggerStart, r.metrics.TriggerWaited
		r.metrics.AddIndex(r.chain, r.idx)
		r.metrics.AddIndexLease(svc.Leading)
	}
	r.subscribeHeads(ctx, svc)
	r.service = svc
	return nil
}

// headSubscriber is a node that pushes new heads (a websocket client).
type headSubscriber interface {
	SubscribeNewHead(ctx context.Context, ch chan<- *types.Header) (ethereum.Subscription, error)
}

// subscribeHeads wakes the index as blocks arrive (a hint; polling goes
// on) where the node pushes new heads. Over HTTP the subscription is
// refused: poll only.
func (r *Replica) subscribeHeads(ctx context.Context, svc *indexer.Service) {
	node, ok := r.chain.(headSubscriber)
	if !ok {
		return
	}
	heads := make(chan *types.Header, 16)
	sub, err := node.SubscribeNewHead(ctx, heads)
	if err != nil {
		return
	}
	svc.Heads = heads
	r.onClose(func() error { sub.Unsubscribe(); return nil })
	r.log.Info("newHeads subscription active")
}
