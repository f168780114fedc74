package demo

import (
	"context"
	"fmt"
	"log/slog"
	"time"
)

// Driver runs the demo once xgr dev has wired the chain, Redis and the
// replica: it starts the wake-up flow (Wake), registers Orders orders on
// the demo orders contract, one every Every (each a trigger event that
// starts a session of Flow), and follows every session with Watch until
// all the demo's sessions finished (ExitWhenDone) or ctx ends.
type Driver struct {
	Watch *Watch
	// Wake is the wake-up flow to start first; nil: none.
	Wake *WakeFlow
	// Home is the owner whose sessions are named by their root id alone.
	Home   string
	Orders int
	Every  time.Duration
	Flow   string
	// Put registers one order, its id and JSON text, on the orders contract.
	Put          func(ctx context.Context, id string, text []byte) error
	ExitWhenDone bool
	// Poll is how often Watch is polled (0: 100 ms).
	Poll time.Duration
	// Say prints a line; Log gets what failed.
	Say func(format string, args ...any)
	Log *slog.Logger
}

// Run runs the demo (see Driver) and returns when it is over: every demo
// session finished (ExitWhenDone), or ctx ended.
func (d *Driver) Run(ctx context.Context) {
	demos := d.Orders
	if d.Wake != nil {
		waiting, waking, err := d.Wake.Start(ctx)
		if err != nil {
			d.Log.Error("dev: wake-up flow", "err", err)
		} else {
			demos += 2
			d.Watch.Add(waiting)
			d.Watch.Add(waking)
			d.Say("xgr dev: wake-up flow: session %s (%s) waits at %s; session %s (%s), allowed by its __wakeUp list, wakes it\n",
				Label(waiting.Owner, waiting.RootPid, d.Home), WaitingFlow, WaitingStep,
				Label(waking.Owner, waking.RootPid, d.Home), WakingFlow)
		}
	}
	every := d.Poll
	if every <= 0 {
		every = 100 * time.Millisecond
	}
	poll := time.NewTicker(every)
	defer poll.Stop()
	next := time.After(d.Every)
	for i := 1; i <= d.Orders && ctx.Err() == nil; {
		select {
		case <-ctx.Done():
		case <-poll.C:
			d.Watch.Poll(ctx)
		case <-next:
			id := fmt.Sprintf("order-%d", i)
			if err := d.Put(ctx, id, []byte(fmt.Sprintf(`{"order":%q}`, id))); err != nil {
				d.Log.Error("demo order", "err", err)
			} else {
				d.Say("xgr dev: registered %s on the demo orders contract (a trigger event: a session of %s)\n", id, d.Flow)
			}
			i++
			next = time.After(d.Every)
		}
	}
	for ctx.Err() == nil {
		done := d.Watch.Poll(ctx)
		if d.ExitWhenDone && done >= demos {
			d.Say("xgr dev: all %d demo sessions finished\n", demos)
			return
		}
		select {
		case <-ctx.Done():
		case <-poll.C:
		}
	}
}
