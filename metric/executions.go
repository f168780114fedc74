package metric

import (
	"context"
	"errors"
	"strings"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/xgr-sidecar/xgr/execution"
	"github.com/xgr-sidecar/xgr/txmanager"
)

// RefusalLimits are the limit values xgr_execution_refusals_total shows at
// 0 from the start (a refusal naming another limit adds its own series).
var RefusalLimits = []string{execution.LimitTargets, execution.LimitMaxGas, execution.LimitPermitGas, execution.LimitSessionGas,
	execution.LimitOwnerGas, execution.LimitValue, execution.LimitSessionValue, execution.LimitOwnerValue, execution.LimitOwnerSpend,
	execution.LimitAuthority, execution.LimitInputTarget}

// refusalLabel is a refusal's limit as a label value: a target's own
// setting without its index (executions.targets[3].functions counts as
// executions.targets[].functions), so the label set stays bounded by the
// code's limit names, not by the operator's list.
func refusalLabel(limit string) string {
	if i := strings.Index(limit, "["); i >= 0 {
		if j := strings.Index(limit[i:], "]"); j > 0 {
			return limit[:i+1] + limit[i+j:]
		}
	}
	return limit
}

// Executions registers the executor's metrics on the process's registry
// the first time it is called, and returns the transaction manager's
// (txmanager.Config.Metrics): the xgr_txm_* series and
// xgr_execution_refusals_total. Every sender of the process shares them
// (their series are labelled by chain_id and sender).
func (s *Set) Executions() *txmanager.Metrics {
	s.execOnce.Do(func() {
		m, err := txmanager.NewMetrics(s.Registry)
		if err != nil {
			panic("metric: register the transaction manager's metrics: " + err.Error())
		}
		s.txm = m
		s.refusals = prometheus.NewCounterVec(prometheus.CounterOpts{Name: "xgr_execution_refusals_total",
			Help: "Executions refused before anything was signed, by the limit that refused (the operator's policy, the session's gas budget, the runner's authority)."}, []string{"limit"})
		for _, l := range RefusalLimits {
			s.refusals.WithLabelValues(l)
		}
		s.Registry.MustRegister(s.refusals)
	})
	return s.txm
}

// CountRefusals wraps an executor: each Send it refuses
// (*execution.Refusal) counts in xgr_execution_refusals_total by its
// limit. It registers the executor's metrics (Executions) when they are
// not yet.
func (s *Set) CountRefusals(a execution.Actuator) execution.Actuator {
	if a == nil {
		return nil
	}
	s.Executions()
	return refusalCounter{Actuator: a, refusals: s.refusals}
}

type refusalCounter struct {
	execution.Actuator
	refusals *prometheus.CounterVec
}

func (r refusalCounter) Send(ctx context.Context, sc execution.Scope, key string, c execution.Call) error {
	err := r.Actuator.Send(ctx, sc, key, c)
	var refusal *execution.Refusal
	if errors.As(err, &refusal) {
		r.refusals.WithLabelValues(refusalLabel(refusal.Limit)).Inc()
	}
	return err
}
