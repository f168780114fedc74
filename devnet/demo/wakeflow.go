package demo

import (
	"context"
	"fmt"
	"time"

	"github.com/xgr-sidecar/xgr/joinstore"
	"github.com/xgr-sidecar/xgr/reactor"
	"github.com/xgr-sidecar/xgr/session"
)

// WakeFlow is the demo's two-session wake-up: a session of WaitingFlow
// (owner Waiter) waits at WaitingStep until a session of WakingFlow (owner
// Waker, another owner) wakes it through its rule's wakeUps, which the
// waiting session's "__wakeUp" list allows for that owner and that rule
// contract only (WaitingPayload, WakingPayload).
type WakeFlow struct {
	Store    *joinstore.Store
	Source   reactor.Source
	Registry string
	Waiter   string
	Waker    string
	// WakerRule is the XRC-137 contract of the waking step's rule.
	WakerRule string
	// WaitStart and WakeStart are the flows' first steps.
	WaitStart, WakeStart string
	// Timeout bounds how long Start waits for the waiting process to exist
	// before it starts the waking session (0: DefaultWakeFlowTimeout).
	Timeout time.Duration
}

// DefaultWakeFlowTimeout is WakeFlow's Timeout when none is set.
const DefaultWakeFlowTimeout = 20 * time.Second

// Start starts the waiting session, waits until its process waits at
// WaitingStep, then starts the waking session; it returns both roots.
func (f *WakeFlow) Start(ctx context.Context) (waiting, waking joinstore.Root, err error) {
	payload, err := WaitingPayload("alice", f.Waker, f.WakerRule)
	if err != nil {
		return waiting, waking, err
	}
	starter := session.Starter{Store: f.Store, Source: f.Source, Trusted: true}
	res, err := starter.Start(ctx, session.Request{Owner: f.Waiter, Registry: f.Registry,
		OstcID: WaitingFlow, Step: f.WaitStart, Payload: payload})
	if err != nil {
		return waiting, waking, fmt.Errorf("wake flow: start %s: %w", WaitingFlow, err)
	}
	waiting = res.Root
	if err := f.awaitWaiting(ctx, waiting); err != nil {
		return waiting, waking, err
	}
	payload, err = WakingPayload("order-kyc-1", f.Waiter, waiting.RootPid)
	if err != nil {
		return waiting, waking, err
	}
	res, err = starter.Start(ctx, session.Request{Owner: f.Waker, Registry: f.Registry,
		OstcID: WakingFlow, Step: f.WakeStart, Payload: payload})
	if err != nil {
		return waiting, waking, fmt.Errorf("wake flow: start %s: %w", WakingFlow, err)
	}
	return waiting, res.Root, nil
}

// awaitWaiting polls until a process of the session waits at
// WaitingStep: a wake-up that comes earlier would find nothing to wake.
func (f *WakeFlow) awaitWaiting(parent context.Context, root joinstore.Root) error {
	timeout := f.Timeout
	if timeout <= 0 {
		timeout = DefaultWakeFlowTimeout
	}
	ctx, cancel := context.WithTimeout(parent, timeout)
	defer cancel()
	for {
		procs, err := f.Store.Processes(ctx, root)
		if err == nil {
			for _, p := range procs {
				if p.ResumeStep == WaitingStep && p.Status == joinstore.StatusWaiting {
					return nil
				}
			}
		}
		select {
		case <-ctx.Done():
			if parent.Err() != nil {
				return parent.Err()
			}
			return fmt.Errorf("wake flow: session %s did not reach %s within %s", root, WaitingStep, timeout)
		case <-time.After(20 * time.Millisecond):
		}
	}
}
