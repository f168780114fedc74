package replica

import (
	"context"
	"errors"
	"log/slog"

	"github.com/redis/go-redis/v9"

	"github.com/xgr-sidecar/xgr/chain"
	"github.com/xgr-sidecar/xgr/execution"
	"github.com/xgr-sidecar/xgr/execution/onchain"
	"github.com/xgr-sidecar/xgr/indexer"
	"github.com/xgr-sidecar/xgr/metric"
	"github.com/xgr-sidecar/xgr/txmanager"
)

// startExecutions starts the executor of cfg.Executions; its upkeep
// outlives Run's drain (executions in flight finish) and stops on Close.
func (r *Replica) startExecutions(ctx context.Context) error {
	x := r.cfg.Executions
	if x == nil {
		return nil
	}
	fin := indexer.DefaultFinality
	if ic := r.cfg.Index; ic != nil {
		fin = indexer.FinalityOf(&ic.Config)
	}
	xc := *x
	if xc.Replica == "" {
		xc.Replica = r.cfg.Name
	}
	if xc.SenderLease == 0 {
		xc.SenderLease = r.cfg.RootLease
	}
	xctx, stop := context.WithCancel(context.WithoutCancel(ctx))
	a, err := StartExecutor(xctx, xc, r.rdb, r.chain, fin, r.metrics, r.log)
	if err != nil {
		stop()
		return err
	}
	r.onClose(func() error { stop(); return nil })
	r.actuator, r.executor = a, chain.Address(x.Key)
	return nil
}

// StartExecutor builds the executor of x — the transaction manager
// behind an actuator, its state in rdb, sending to node — and runs its
// upkeep until ctx ends. A receipt is final under x.Finality, else under
// fin ("auto" asks the node whether it has a finalized block). With
// metrics the manager's xgr_txm_* series and
// xgr_execution_refusals_total are registered there. Errors are *Error
// (PartExecutions): a node that cannot say its finality, or (Usage) a
// policy or key the transaction manager refuses.
func StartExecutor(ctx context.Context, x Executions, rdb redis.UniversalClient, node chain.Backend, fin indexer.Finality, metrics *metric.Set, log *slog.Logger) (execution.Actuator, error) {
	if log == nil {
		log = slog.Default()
	}
	sender, ok := node.(onchain.Chain)
	if !ok {
		return nil, &Error{Part: PartExecutions, Usage: true, Err: errors.New("the node cannot send executions")}
	}
	tf := x.Finality
	if tf.Mode == "" {
		tf = txmanager.Finality{Mode: fin.Mode, Confirmations: fin.Confirmations}
		if fin.Mode == "auto" {
			v, err := fin.View(ctx, node)
			if err != nil {
				return nil, &Error{Part: PartExecutions, Err: err}
			}
			tf.Mode = "finalized"
			if v.Fallback {
				tf.Mode = "confirmations"
			}
		}
	}
	mc := txmanager.Config{Finality: tf, Poll: x.Poll, Log: log, Replica: x.Replica, LeaseTTL: x.Policy.SenderLease}
	if mc.LeaseTTL == 0 {
		mc.LeaseTTL = x.SenderLease
	}
	if metrics != nil {
		mc.Metrics = metrics.Executions()
	}
	s, err := onchain.New(ctx, onchain.Config{Executions: x.Policy, Redis: rdb, Chain: sender, Key: x.Key, Manager: mc})
	if err != nil {
		return nil, &Error{Part: PartExecutions, Usage: true, Err: err}
	}
	go func() {
		if err := s.Run(ctx); err != nil && ctx.Err() == nil {
			log.Error("executions: the transaction manager stopped", "err", err)
		}
	}()
	v := x.Policy.View()
	log.Info("executions on", "executor", s.Address().Hex(), "finality", tf.Mode, "confirmations", tf.Confirmations,
		"anyTarget", v.AnyTarget, "targets", len(v.Targets), "maxGasLimit", v.MaxGasLimit, "maxSessionGas", v.MaxSessionGas,
		"maxGasPerOwnerPerDay", v.MaxGasPerOwnerPerDay, "spendBoundPerOwnerPerDay", v.SpendBoundPerOwnerPerDay,
		"valueMaxPerSession", v.ValueMaxPerSession, "valueMaxPerOwnerPerDay", v.ValueMaxPerOwnerPerDay)
	for _, d := range v.Dangers {
		log.Warn("executions: dangerous policy", "setting", d)
	}
	if metrics != nil {
		return metrics.CountRefusals(s), nil
	}
	return s, nil
}
