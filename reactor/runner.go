package reactor

import (
	"context"
	"fmt"
	"log/slog"
	"time"

	"github.com/xgr-sidecar/xgr/execution"
	"github.com/xgr-sidecar/xgr/joinstore"
	"github.com/xgr-sidecar/xgr/registry"
)

// Runner drives sessions of one orchestration through the store, one step
// at a time in a deterministic order: the synchronous heart of the session
// manager, used by tests and `xgr simulate --deterministic`. Its clock is an
// input, so a virtual clock makes runs reproducible.
type Runner struct {
	Store *joinstore.Store
	Orch  *registry.Orchestration
	Exec  Executor
	// Now returns the current time; Advance moves a virtual clock forward
	// when nothing is due (nil: the runner sleeps until the next due time).
	Now     func() time.Time
	Advance func(time.Time)
	Worker  string
	Lease   time.Duration
	// OnEvent receives the timeline (optional).
	OnEvent func(Event)
	// MaxSteps stops Run with ErrStepLimit once this many steps have been
	// executed (0: no bound), for orchestrations that loop forever.
	MaxSteps int
	// Actuator performs steps' executions (nil: off: reported not
	// performed); Flipper renders the onInvalid branch after a revert;
	// ExecPoll is how often an outcome is polled on the runner's clock
	// (default 1 s).
	Actuator execution.Actuator
	Flipper  Flipper
	ExecPoll time.Duration
	// Bundles, when set, stores every committed step's log bundle (its
	// payload, saves, outcome and execution receipt) once its commit
	// succeeded; nil: no bundles.
	Bundles BundleWriter
	// Log receives the driver's records (a step aborted, an execution
	// refused, a bundle refused); nil: none.
	Log *slog.Logger

	executed int
}

func (r *Runner) logger() *slog.Logger {
	if r.Log != nil {
		return r.Log
	}
	return slog.New(slog.DiscardHandler)
}

// Executed is the number of steps Run has executed.
func (r *Runner) Executed() int { return r.executed }

func (r *Runner) emit(e Event) {
	if r.OnEvent != nil {
		r.OnEvent(e)
	}
}

// sleepCtx waits for d or until ctx ends (its error then).
func sleepCtx(ctx context.Context, d time.Duration) error {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-t.C:
		return nil
	}
}

// Run executes the session until it has no live process: the serial
// driver of the session machine. Each command runs to its end before the
// next; sleeps move the virtual clock (Advance) or wait.
func (r *Runner) Run(ctx context.Context, root joinstore.Root) error {
	if r.Lease == 0 {
		r.Lease = time.Minute
	}
	io := &sessionIO{store: r.Store, exec: r.Exec, root: root, worker: r.Worker, procLease: r.Lease,
		orch: r.Orch, table: Table(r.Orch), clock: r.Now, log: r.logger(), act: r.Actuator, flip: r.Flipper, bundles: r.Bundles}
	poll := r.ExecPoll
	if poll == 0 {
		poll = time.Second
	}
	m := newMachine(machineConfig{Serial: true, MaxSteps: r.MaxSteps, Worker: r.Worker, Check: r.Store.CheckPayload, CheckSize: r.Store.CheckPayloadSize,
		Executions: r.Actuator != nil, ExecPoll: poll, RecordCap: r.Store.MaxRecord(), Bundles: r.Bundles != nil}, root, r.Orch, r.Now())
	defer func() { r.executed = m.executed }()
	queue := []input{inStart{}}
	for len(queue) > 0 {
		if err := ctx.Err(); err != nil {
			return err
		}
		in := queue[0]
		queue = queue[1:]
		rd := m.Step(in, r.Now())
		for _, e := range rd.events {
			r.emit(e)
		}
		for _, c := range rd.cmds {
			switch c := c.(type) {
			case cmdDone:
				r.executed = m.executed
				if c.Err != nil {
					return fmt.Errorf("%s: %w", root, c.Err)
				}
				return nil
			case cmdSleep:
				if r.Advance != nil {
					r.Advance(c.Until)
				} else if err := sleepCtx(ctx, time.Until(c.Until)); err != nil {
					return err // stopped (a signal, a timeout) while it waited
				}
				queue = append(queue, inTimer{})
			default:
				queue = append(queue, io.carry(ctx, c))
			}
		}
	}
	return fmt.Errorf("%s: the session machine stopped without an outcome", root)
}
