package reactor

import (
	"context"
	"errors"
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

// op is what a yield of a root actor was for.
type op uint8

const (
	opSetup op = iota
	opClaim
	opExec
	opApply
	opSleep
	opRenew
	opRelease
)

// rootActor runs one session as a scheduler process. Its state changes only
// in Step: it claims due processes up to the window, executes them
// concurrently (one yield each), and applies their results one at a time,
// in the order they complete. Store transitions of the session are never
// concurrent with each other (at most one outstanding), executions are.
type rootActor struct {
	io       *sessionIO
	ops      map[uint64]op
	tag      uint64
	inflight map[int64]joinstore.Claim
	ready    []int64
	results  []result

	mode actorMode
	// finished: a commit of this actor ended the session; the release
	// then needs no reads.
	finished bool
	// What is outstanding: a store transition (at most one at a time), a
	// renewal, a timer; needClaim asks for a claim round.
	storeBusy, renewing, sleeping, needClaim bool
	// next is the earliest known due time of a waiting process (hasNext).
	next      time.Time
	hasNext   bool
	lastRenew time.Time
	// sleepUntil is when the latest (earliest-ending) sleep ends; sleeps
	// counts the sleeps still pending (an earlier due time issues a shorter
	// sleep without waiting for the longer one).
	sleepUntil time.Time
	sleeps     int
}

func newRootActor(m *Manager, root joinstore.Root, adopted *joinstore.Adoption) *rootActor {
	return &rootActor{io: &sessionIO{m: m, root: root, token: adopted.Token, adopted: adopted}, ops: map[uint64]op{}, inflight: map[int64]joinstore.Claim{},
		needClaim: true, lastRenew: time.Now()}
}

// Init implements sched.Process.
func (a *rootActor) Init(context.Context, string, any) error { return nil }

// Close implements sched.Process.
func (a *rootActor) Close() {}

func (a *rootActor) yield(out *sched.StepOutput, o op, cmd any) {
	a.tag++
	a.ops[a.tag] = o
	out.Yield(a.tag, cmd)
}

// Step implements sched.Process.
func (a *rootActor) Step(events []sched.Event, out *sched.StepOutput) error {
	m := a.io.m
	log := sessionLog{m: m, root: a.io.root}
	for _, e := range events {
		switch e.Type {
		case sched.EventCancel:
			a.mode = a.mode.cancel()
		case sched.EventMessage:
			if _, ok := e.Data.(poke); ok {
				a.needClaim = true
			}
		case sched.EventYieldComplete:
			o := a.ops[e.Tag]
			delete(a.ops, e.Tag)
			switch o {
			case opSetup:
				a.storeBusy = false
				a.mode = a.mode.opened(e.Error == nil)
				if e.Error != nil {
					log.Error("cannot run session", "err", e.Error)
					break
				}
				o := e.Data.(opened)
				a.ready = append(a.ready, o.ready...)
				a.next, a.hasNext, a.needClaim = o.next, o.nextOK, o.recheck
				a.run(out, o.claims, nil)
			case opClaim:
				a.storeBusy = false
				if e.Error != nil {
					log.Warn("claim failed", "err", e.Error)
				}
				if c, ok := e.Data.(claimed); ok {
					if !c.keepNext {
						a.next, a.hasNext = c.next, c.ok
					}
					a.run(out, c.claims, nil)
				}
			case opExec:
				a.results = append(a.results, e.Data.(result))
			case opApply:
				a.storeBusy = false
				if e.Error != nil {
					log.Warn("applying a result failed", "err", e.Error)
					a.needClaim = true
				}
				if ap, ok := e.Data.(applied); ok {
					// The commit claimed the children that were ready:
					// they run now, without a claim round; a claim round
					// follows only for what it could not claim.
					a.ready = append(a.ready, ap.ready...)
					a.needClaim = a.needClaim || ap.recheck
					a.finished = a.finished || ap.finished
					if ap.wakeOK && (!a.hasNext || ap.wake.Before(a.next)) {
						a.next, a.hasNext = ap.wake, true
					}
					a.run(out, ap.claims, ap.input)
				}
			case opSleep:
				a.sleeps--
				a.needClaim = true
				if a.sleeps == 0 || !time.Now().Before(a.sleepUntil) {
					a.sleeping = false
				}
			case opRenew:
				a.renewing = false
				if errors.Is(e.Error, joinstore.ErrRootHeld) {
					// Another replica took the session; its fencing tokens
					// void our in-flight work. Stop without releasing.
					log.Warn("lost the root lease", "err", e.Error)
					a.mode = modeDone
				} else if e.Error != nil {
					log.Warn("renewal failed", "err", e.Error)
				}
				if ready, ok := e.Data.([]int64); ok {
					a.ready, a.needClaim = append(a.ready, ready...), true
				}
			case opRelease:
				a.mode = modeDone
			}
		}
	}
	if m.halted.Load() {
		// A crash: nothing more is committed and no lease is given back.
		a.mode = modeDone
	}
	if a.mode == modeDone {
		out.Status = sched.StatusComplete
		return nil
	}
	a.decide(out)
	out.Status = sched.StatusBlocked
	return nil
}

// decide issues the next yields.
func (a *rootActor) decide(out *sched.StepOutput) {
	m := a.io.m
	if !a.renewing && a.mode.renews() && time.Since(a.lastRenew) > m.RootLease/3 {
		a.renewing, a.lastRenew = true, time.Now()
		inflight := make([]joinstore.Claim, 0, len(a.inflight))
		for _, c := range a.inflight {
			inflight = append(inflight, c)
		}
		a.yield(out, opRenew, ioCmd(func(ctx context.Context) (any, error) { return a.io.renew(ctx, inflight) }))
	}
	if a.storeBusy || a.mode == modeReleasing {
		return
	}
	switch {
	case a.mode == modeOpening:
		a.storeBusy = true
		a.yield(out, opSetup, ioCmd(func(ctx context.Context) (any, error) { return a.io.setup(ctx) }))
	case len(a.results) > 0:
		r := a.results[0]
		a.results = a.results[1:]
		delete(a.inflight, r.claim.Iter)
		a.storeBusy = true
		a.yield(out, opApply, ioCmd(func(ctx context.Context) (any, error) { return a.io.apply(ctx, r) }))
	case a.mode == modeOpeningCancelled:
		// Cancelled before the session was read: nothing was claimed.
		a.release(out)
	case a.mode == modeDraining && len(a.inflight) == 0:
		a.release(out)
	case a.mode == modeDraining:
		// Wait for the executions in flight.
	case a.needClaim || len(a.ready) > 0:
		ready := a.ready
		a.ready, a.needClaim = nil, false
		busy := make(map[int64]bool, len(a.inflight))
		for it := range a.inflight {
			busy[it] = true
		}
		a.storeBusy = true
		a.yield(out, opClaim, ioCmd(func(ctx context.Context) (any, error) { return a.io.claim(ctx, ready, busy) }))
	case len(a.inflight) == 0 && (!a.hasNext || time.Until(a.next) > m.RootLease):
		// Nothing runs and nothing is due soon: hand the session back; the
		// root index brings it back when it is due.
		a.release(out)
	default:
		// Sleep until the next due time (or a third of the root lease, to
		// renew); a due time earlier than the pending sleep's end gets a
		// shorter sleep of its own, so it is met within the poll interval.
		wait := m.RootLease / 3
		if a.hasNext {
			wait = min(wait, max(time.Until(a.next), time.Millisecond))
		}
		until := time.Now().Add(wait)
		if a.sleeping && !until.Before(a.sleepUntil) {
			return
		}
		a.sleeping, a.sleepUntil = true, until
		a.sleeps++
		a.yield(out, opSleep, sleepCmd(wait))
	}
}

// run executes claimed processes, one yield each; input is their payload
// when known decoded (nil: decoded from the claim).
func (a *rootActor) run(out *sched.StepOutput, claims []joinstore.Claim, input map[string]any) {
	for _, cl := range claims {
		a.inflight[cl.Iter] = cl
		a.io.emit(Event{At: time.Now(), Type: "claimed", Pid: cl.Pid, Step: cl.ResumeStep})
		cl := cl
		a.yield(out, opExec, ioCmd(func(ctx context.Context) (any, error) { return a.io.execute(ctx, cl, input), nil }))
	}
}

// sessionLog logs with the session's name; it builds nothing until a
// line is written (Step runs for every event, lines are rare).
type sessionLog struct {
	m    *Manager
	root joinstore.Root
}

func (l sessionLog) Error(msg string, args ...any) {
	l.m.Log.Error(msg, append([]any{"session", l.root.String()}, args...)...)
}

func (l sessionLog) Warn(msg string, args ...any) {
	l.m.Log.Warn(msg, append([]any{"session", l.root.String()}, args...)...)
}

func (a *rootActor) release(out *sched.StepOutput) {
	a.mode, a.storeBusy = modeReleasing, true
	a.io.m.leave(a.io.root)
	finished := a.finished && len(a.ready) == 0
	a.yield(out, opRelease, ioCmd(func(ctx context.Context) (any, error) {
		if finished {
			a.io.releaseFinished(context.WithoutCancel(ctx))
		} else {
			a.io.release(context.WithoutCancel(ctx))
		}
		return nil, nil
	}))
}
