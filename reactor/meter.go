package reactor

import (
	"context"
	"fmt"
	"math/big"

	"github.com/xgr-sidecar/xgr/execution"
	"github.com/xgr-sidecar/xgr/joinstore"
)

// meterExecution adds a final execution to its owner's billing meter
// (joinstore.Store.MeterExecution) before the machine hears of its outcome,
// so before its step commits: a failed metering is a failed poll (polled
// again after a backoff), and a replica that stops in between leaves the
// step executing, polled again by the replica that adopts the session. A
// lost execution executed nothing and is not metered; a reverted one's
// value did not move.
func (s *sessionIO) meterExecution(ctx context.Context, key string, o execution.Outcome) error {
	if o.Lost || joinstore.CheckOwner(s.root.Owner) != nil {
		// Owners that are not addresses (names of tests and
		// simulations) are not billed.
		return nil
	}
	e := joinstore.ExecUsage{Root: s.root, Key: key, FinalAt: o.FinalAt, Gas: int64(min(o.GasUsed, 1<<62))}
	var ok bool
	if o.FeeWei != "" {
		if e.Fee, ok = new(big.Int).SetString(o.FeeWei, 10); !ok {
			return fmt.Errorf("execution %s: fee %q: want decimal wei", key, o.FeeWei)
		}
	}
	if o.ValueWei != "" && o.Status == 1 {
		if e.Value, ok = new(big.Int).SetString(o.ValueWei, 10); !ok {
			return fmt.Errorf("execution %s: value %q: want decimal wei", key, o.ValueWei)
		}
	}
	_, err := s.store.MeterExecution(ctx, e, s.clock())
	return err
}
