package execution

import (
	"context"
	"time"
)

// Paced is an Actuator whose Outcome waits Every (real time) before it
// answers "not final yet". A driver on a virtual clock (xgr simulate
// --deterministic) moves its clock past each poll interval at once; without
// the pause it would ask the node for a pending transaction's receipt in a
// tight loop while the chain has not moved.
type Paced struct {
	Actuator
	Every time.Duration
}

// Outcome implements Actuator.
func (p Paced) Outcome(ctx context.Context, key string) (Outcome, bool, error) {
	o, ok, err := p.Actuator.Outcome(ctx, key)
	if err != nil || ok || p.Every <= 0 {
		return o, ok, err
	}
	t := time.NewTimer(p.Every)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return o, false, ctx.Err()
	case <-t.C:
	}
	return o, false, nil
}
