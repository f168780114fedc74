package sched

import (
	"context"
	"errors"
	"fmt"
	"runtime"
	"sync"
	"sync/atomic"
)

// Errors of the scheduler.
var (
	// ErrClosed: Shutdown has begun; no new processes are accepted.
	ErrClosed = errors.New("sched: scheduler is shut down")
	// ErrNoProcess: no live process has the PID (never existed, or completed).
	ErrNoProcess = errors.New("sched: no such process")
	// ErrNoHandler: a step yielded but the scheduler has no Handler.
	ErrNoHandler = errors.New("sched: a step yielded but no handler is configured")
	// ErrNoStatus: a step returned without setting StepOutput.Status.
	ErrNoStatus = errors.New("sched: step set no valid status")
	// ErrUnfinished: the process was still live when Shutdown gave up on it;
	// OnExit reports it for such processes.
	ErrUnfinished = errors.New("sched: process did not finish before shutdown")
	// ErrShutdown is the Error of the EventCancel that Shutdown sends.
	ErrShutdown = errors.New("sched: shutting down")
)

// Config configures a Scheduler. The zero Config is valid: GOMAXPROCS
// workers, no handler (a yield then fails its process), no exit callback.
type Config struct {
	// Workers is the number of worker goroutines; 0 means GOMAXPROCS.
	Workers int
	// Handler dispatches yields.
	Handler Handler
	// OnExit, if set, is called once for every process that Submit
	// accepted, after its Close: with nil when it completed, with its
	// Step's error, or with ErrUnfinished when Shutdown gave up on it. It
	// runs on a worker (or in Shutdown) and should return quickly.
	OnExit func(pid PID, err error)
}

// Scheduler runs processes on a fixed set of workers with work stealing.
// Its methods are safe for concurrent use.
type Scheduler struct {
	handler Handler
	onExit  func(PID, error)
	workers []*worker
	global  *globalQueue[proc]

	procs   sync.Map // PID → *proc, the live processes
	nextPID atomic.Uint64
	live    atomic.Int64

	admit   sync.RWMutex // Submit holds it shared; Shutdown takes it to close
	closed  atomic.Bool
	drained chan struct{} // closed when closed and live reaches 0
	drain   sync.Once

	ctx    context.Context // passed to Init; cancelled when Shutdown ends
	cancel context.CancelFunc

	park parking
	done sync.WaitGroup // workers

	// afterPush, if set, runs in post between the push of an event and
	// the notify: tests use it to force interleavings.
	afterPush func()
}

// New starts a scheduler with its workers.
func New(cfg Config) *Scheduler {
	s := newScheduler(cfg)
	s.done.Add(len(s.workers))
	for _, w := range s.workers {
		go w.loop()
	}
	return s
}

// newScheduler sets a scheduler up without starting its workers.
func newScheduler(cfg Config) *Scheduler {
	n := cfg.Workers
	if n <= 0 {
		n = runtime.GOMAXPROCS(0)
	}
	s := &Scheduler{
		handler: cfg.Handler,
		onExit:  cfg.OnExit,
		global:  newGlobalQueue[proc](256),
		drained: make(chan struct{}),
	}
	s.ctx, s.cancel = context.WithCancel(context.Background())
	s.park.init()
	s.workers = make([]*worker, n)
	for i := range s.workers {
		s.workers[i] = &worker{s: s, id: i, dq: newDeque[proc](minDequeSize)}
	}
	return s
}

// Submit initialises p with method and input (on the caller's goroutine)
// and queues it to run. Init's context carries the process's PID (see
// PIDOf). Submit returns the PID, ErrClosed once Shutdown has begun (p is
// closed then), or Init's error.
func (s *Scheduler) Submit(p Process, method string, input any) (PID, error) {
	if p == nil {
		return 0, errors.New("sched: Submit of a nil Process")
	}
	if s.closed.Load() {
		return 0, ErrClosed
	}
	pr := newProc(PID(s.nextPID.Add(1)), p)
	pr.ctx.Context = s.ctx
	if err := p.Init(&pr.ctx, method, input); err != nil {
		return 0, fmt.Errorf("sched: init %q: %w", method, err)
	}
	s.admit.RLock()
	if s.closed.Load() {
		s.admit.RUnlock()
		p.Close()
		return 0, ErrClosed
	}
	s.procs.Store(pr.pid, pr)
	s.live.Add(1)
	s.admit.RUnlock()
	s.global.push(pr)
	s.park.wake()
	return pr.pid, nil
}

type pidKey struct{}

// procContext is the context a process's Init gets: the scheduler's, plus
// the PID. It lives in the proc record to save an allocation per Submit.
type procContext struct {
	context.Context
	pid PID
}

// Value implements context.Context.
func (c *procContext) Value(key any) any {
	if key == (pidKey{}) {
		return c.pid
	}
	return c.Context.Value(key)
}

// PIDOf returns the PID of the process whose Init received ctx (or a
// context derived from it), so a process can tell others where to reply.
func PIDOf(ctx context.Context) (PID, bool) {
	pid, ok := ctx.Value(pidKey{}).(PID)
	return pid, ok
}

// Send delivers data to the process pid as an EventMessage and wakes it if
// it waits. It fails with ErrNoProcess when pid is not live.
func (s *Scheduler) Send(pid PID, data any) error {
	return s.deliver(pid, Event{Type: EventMessage, Data: data})
}

// CompleteYield delivers the outcome of the yield tagged tag of process pid
// as an EventYieldComplete and wakes the process if it waits. It may be
// called from any goroutine, also from inside Handler.Dispatch. It fails
// with ErrNoProcess when pid is not live (never existed, or had completed
// when the call began); a completion that arrives while the process
// completes is dropped without an error (see post).
func (s *Scheduler) CompleteYield(pid PID, tag uint64, data any, err error) error {
	return s.deliver(pid, Event{Type: EventYieldComplete, Tag: tag, Data: data, Error: err})
}

// Cancel asks the process pid to finish: it gets an EventCancel with reason
// as its Error. The process decides how (and whether) to finish.
func (s *Scheduler) Cancel(pid PID, reason error) error {
	return s.deliver(pid, Event{Type: EventCancel, Error: reason})
}

func (s *Scheduler) lookup(pid PID) *proc {
	v, ok := s.procs.Load(pid)
	if !ok {
		return nil
	}
	return v.(*proc)
}

func (s *Scheduler) deliver(pid PID, e Event) error {
	p := s.lookup(pid)
	if p == nil {
		return ErrNoProcess
	}
	if !s.post(p, e) {
		return ErrNoProcess
	}
	return nil
}

// post pushes e onto p's queue and wakes p: a parked process goes onto the
// global queue, a running one gets its wakeup flag. It reports false, and
// drops e, when p had completed before the call.
//
// The check comes before the push: once e is pushed, a worker running p may
// consume it and complete p before notify, so a Complete phase seen by
// notify does not mean e was dropped. A process that completes while e is
// on its way drops e like any event still queued when it completes; post
// reports true then, as it does when notify finds p running its last step.
func (s *Scheduler) post(p *proc, e Event) bool {
	if p.load().phase() == phaseComplete {
		return false
	}
	p.events.push(e)
	if s.afterPush != nil {
		s.afterPush()
	}
	if p.notify() == actEnqueue {
		s.global.push(p)
		s.park.wake()
	}
	return true
}

// finish forgets a completed process, closes it and reports its exit.
func (s *Scheduler) finish(p *proc, err error) {
	s.procs.Delete(p.pid)
	p.p.Close()
	if s.onExit != nil {
		s.onExit(p.pid, err)
	}
	if s.live.Add(-1) == 0 && s.closed.Load() {
		s.drain.Do(func() { close(s.drained) })
	}
}

// workVisible reports whether any queue holds a process (a snapshot).
func (s *Scheduler) workVisible() bool {
	if s.global.len() > 0 {
		return true
	}
	for _, w := range s.workers {
		if w.dq.size() > 0 {
			return true
		}
	}
	return false
}

// Stats are counters of a scheduler since New.
type Stats struct {
	Workers int
	// Live is the number of processes submitted and not yet finished.
	Live int64
	// Steps counts Step calls, Yields the yields dispatched.
	Steps, Yields uint64
	// GlobalPops counts processes taken from the global queue (one per pop
	// plus the batch moved with it); Steals counts successful steal-half
	// operations and Stolen the processes they moved.
	GlobalPops, Steals, Stolen uint64
	// Sleeps counts how often a worker blocked on the condition variable.
	Sleeps uint64
}

// Stats returns the current counters.
func (s *Scheduler) Stats() Stats {
	st := Stats{Workers: len(s.workers), Live: s.live.Load()}
	for _, w := range s.workers {
		st.Steps += w.stats.steps.Load()
		st.Yields += w.stats.yields.Load()
		st.GlobalPops += w.stats.globalPops.Load()
		st.Steals += w.stats.steals.Load()
		st.Stolen += w.stats.stolen.Load()
		st.Sleeps += w.stats.sleeps.Load()
	}
	return st
}
