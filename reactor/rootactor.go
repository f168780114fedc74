package reactor

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/xgr-sidecar/xgr/joinstore"
	"github.com/xgr-sidecar/xgr/reactor/sched"
)

// ioCmd is a yield: IO that runs off the scheduler's workers; its return
// values complete the yield.
type ioCmd func(ctx context.Context) (any, error)

// sleepCmd is a yield that completes after the duration.
type sleepCmd time.Duration

// ioHandler dispatches root actors' yields: IO on a pooled goroutine of
// its own, sleeps on a timer.
type ioHandler struct {
	ctx  context.Context
	pool *ioPool
}

func (h ioHandler) Dispatch(c sched.Completer, pid sched.PID, y sched.Yield) {
	switch cmd := y.Command.(type) {
	case ioCmd:
		h.pool.run(func() {
			v, err := cmd(h.ctx)
			c.CompleteYield(pid, y.Tag, v, err)
		})
	case sleepCmd:
		time.AfterFunc(time.Duration(cmd), func() { c.CompleteYield(pid, y.Tag, nil, nil) })
	default:
		c.CompleteYield(pid, y.Tag, nil, errors.New("reactor: unknown yield"))
	}
}

// rootActor drives one session's machine on a replica, as a process of the
// work-stealing scheduler: each command of the machine becomes a yield
// (store transitions and executions on the IO pool, sleeps on a timer) and
// each completed yield goes back to the machine as its input. It holds no
// decision of its own; the clock is the replica's.
type rootActor struct {
	m       *Manager
	io      *sessionIO
	machine *machine
	tag     uint64
	// executing is what this actor last added to Manager.executing.
	executing int
}

func newRootActor(m *Manager, root joinstore.Root, adopted *joinstore.Adoption) *rootActor {
	io := &sessionIO{store: m.Store, source: m.Source, exec: m.Exec, root: root, worker: m.Replica,
		procLease: m.ProcLease, rootLease: m.RootLease, token: adopted.Token, adopted: adopted,
		clock: m.now, poke: m.poke, log: m.Log, act: m.Actuator, flip: m.Flipper, life: m.Lifecycle, bundles: m.Bundles}
	cfg := machineConfig{RootLease: m.RootLease, Poll: m.Poll, ClaimLease: m.ProcLease, Worker: m.Replica, Check: m.Store.CheckPayload, CheckSize: m.Store.CheckPayloadSize,
		Executions: m.Actuator != nil, ExecPoll: m.ExecPoll, RecordCap: m.Store.MaxRecord(), Bundles: m.Bundles != nil}
	return &rootActor{m: m, io: io, machine: newMachine(cfg, root, nil, m.now())}
}

// Init implements sched.Process.
func (a *rootActor) Init(context.Context, string, any) error { return nil }

// Close implements sched.Process.
func (a *rootActor) Close() {}

// Step implements sched.Process.
func (a *rootActor) Step(events []sched.Event, out *sched.StepOutput) error {
	if len(events) == 0 {
		a.feed(out, inStart{})
	}
	for _, e := range events {
		switch e.Type {
		case sched.EventCancel:
			a.feed(out, inCancel{})
		case sched.EventMessage:
			if _, ok := e.Data.(poke); ok {
				a.feed(out, inPoke{})
			}
		case sched.EventYieldComplete:
			in, _ := e.Data.(input)
			if in == nil {
				in = inTimer{} // a sleep completes without data
			}
			a.feed(out, in)
		}
	}
	if n := a.machine.Executing(); n != a.executing || a.machine.Done() {
		if a.machine.Done() {
			n = 0
		}
		a.m.executing.Add(int64(n - a.executing))
		a.executing = n
	}
	if a.m.halted.Load() || a.machine.Done() {
		// Done, or a crash: nothing more is committed and no lease is
		// given back.
		out.Status = sched.StatusComplete
		return nil
	}
	out.Status = sched.StatusBlocked
	return nil
}

// feed steps the machine and carries out what it asks.
func (a *rootActor) feed(out *sched.StepOutput, in input) {
	if a.machine.Done() {
		return
	}
	rd := a.machine.Step(in, a.m.now())
	if a.machine.Releasing() {
		// The session is being handed back: its slot is free.
		a.m.leave(a.io.root)
	}
	if a.m.OnEvent != nil {
		for _, e := range rd.events {
			a.m.OnEvent(a.io.root, e)
		}
	}
	for _, c := range rd.cmds {
		a.tag++
		switch c := c.(type) {
		case cmdSleep:
			out.Yield(a.tag, sleepCmd(max(c.Until.Sub(a.m.now()), 0)))
		case cmdDone:
		default:
			out.Yield(a.tag, ioCmd(func(ctx context.Context) (any, error) {
				in := a.io.carry(ctx, c)
				if err := failure(in); err != nil {
					a.m.Log.Warn("session store transition failed", "session", a.io.root.String(), "command", strings.TrimPrefix(fmt.Sprintf("%T", c), "reactor.cmd"), "err", err)
				}
				return in, nil
			}))
		}
	}
}
