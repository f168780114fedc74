package sched

import (
	"fmt"
	"math/rand/v2"
	"runtime"
	"sync/atomic"
)

const (
	// globalBatch is how many processes a worker moves from the global
	// queue into its deque on top of the one it takes.
	globalBatch = 16
	// globalEvery makes a worker look at the global queue first on every
	// globalEvery-th search, so a busy deque cannot starve it.
	globalEvery = 61
	// spinTight and spinYield bound the adaptive spinning: searches below
	// spinTight retry at once, those below spinYield call runtime.Gosched
	// first, and then the worker sleeps.
	spinTight = 4
	spinYield = 16
	// maxStepEvents caps the events handed to one Step; the rest wait for
	// the next step, which follows at once.
	maxStepEvents = 256
	// maxStreak caps how often a process re-runs through its worker's deque
	// in a row (its wakeup flag kept it hot) before it goes to the global
	// queue, so it cannot starve the processes below it in the deque.
	maxStreak = 32
)

// worker runs processes: it finds one (local deque, global queue, steal),
// steps it, dispatches its yields and parks or re-enqueues it.
type worker struct {
	s      *Scheduler
	id     int
	dq     *deque[proc]
	tick   uint32
	events []Event
	out    StepOutput
	stats  workerStats
}

// workerStats are single-writer counters (the worker) read by Stats.
type workerStats struct {
	steps, yields, globalPops, steals, stolen, sleeps atomic.Uint64
	_                                                 [64]byte // keep other workers' hot fields off this cache line
}

func inc(c *atomic.Uint64, n uint64) { c.Store(c.Load() + n) }

func (w *worker) loop() {
	defer w.s.done.Done()
	for {
		p := w.find()
		if p == nil {
			return
		}
		w.run(p)
	}
}

// find returns the next process to run, or nil when the scheduler stops.
// It spins adaptively and then sleeps while there is no work.
func (w *worker) find() *proc {
	k := &w.s.park
	spinning := false
	for spins := 0; ; spins++ {
		if k.stop.Load() {
			if spinning {
				k.spinning.Add(-1)
			}
			return nil
		}
		if p := w.findOnce(); p != nil {
			if spinning && k.spinning.Add(-1) == 0 && w.s.workVisible() {
				k.wake() // we were the last to look; let someone take the rest
			}
			return p
		}
		if !spinning {
			spinning = true
			k.spinning.Add(1)
		}
		switch {
		case spins < spinTight:
		case spins < spinYield:
			runtime.Gosched()
		default:
			if k.sleep(w.s.workVisible) {
				inc(&w.stats.sleeps, 1)
			}
			spins = -1
		}
	}
}

// findOnce looks for work in priority order: the local deque (LIFO), the
// global queue (FIFO, with a batch into the deque), a random victim's deque
// (half of it).
func (w *worker) findOnce() *proc {
	w.tick++
	if w.tick%globalEvery == 0 {
		if p := w.popGlobal(); p != nil {
			return p
		}
	}
	if p := w.dq.pop(); p != nil {
		return p
	}
	if p := w.popGlobal(); p != nil {
		return p
	}
	return w.steal()
}

func (w *worker) popGlobal() *proc {
	g := w.s.global
	// Up to globalBatch more, but not more than a fair share.
	p, moved := g.popBatch(w.dq, min(globalBatch, g.len()/len(w.s.workers)))
	if p != nil {
		inc(&w.stats.globalPops, uint64(1+moved))
	}
	return p
}

func (w *worker) steal() *proc {
	ws := w.s.workers
	if len(ws) < 2 {
		return nil
	}
	start := rand.IntN(len(ws))
	for i := range ws {
		v := ws[(start+i)%len(ws)]
		if v == w {
			continue
		}
		if n := v.dq.stealHalfInto(w.dq); n > 0 {
			inc(&w.stats.steals, 1)
			inc(&w.stats.stolen, uint64(n))
			if p := w.dq.pop(); p != nil {
				return p
			}
		}
	}
	return nil
}

// run executes one turn of p: steps while it has something to do and
// hands it on (parked, re-enqueued or finished).
func (w *worker) run(p *proc) {
	p.claim()
	var more bool
	w.events, more = p.events.drainInto(w.events[:0], maxStepEvents)
	status := p.last
	var err error
	if len(w.events) > 0 || status == StatusRunning || status == 0 {
		status, err = w.step(p)
	}
	// else: a wakeup whose events the previous step already consumed.
	if more {
		p.notify() // running: sets the wakeup flag for the events left behind
	}
	// After park the process may belong to another worker: touch nothing
	// of it unless park handed it back to us (finish, enqueue).
	streak := p.streak
	p.streak = 0
	switch p.park(status) {
	case actFinish:
		w.s.finish(p, err)
	case actEnqueue:
		w.requeue(p, status, streak)
	}
}

// step calls Step and dispatches the yields. A step error, a missing
// status or a yield without a handler completes the process.
func (w *worker) step(p *proc) (Status, error) {
	w.out.reset()
	err := p.p.Step(w.events, &w.out)
	clear(w.events)
	inc(&w.stats.steps, 1)
	status := w.out.Status
	switch {
	case err != nil:
	case status < StatusRunning || status > StatusComplete:
		err = fmt.Errorf("%w (got %v)", ErrNoStatus, status)
	case len(w.out.Yields) > 0 && w.s.handler == nil:
		err = ErrNoHandler
	}
	if err != nil {
		p.last = StatusComplete
		return StatusComplete, err
	}
	p.last = status
	for _, y := range w.out.Yields {
		w.s.handler.Dispatch(w.s, p.pid, y)
	}
	inc(&w.stats.yields, uint64(len(w.out.Yields)))
	return status, nil
}

// requeue puts a process back on a run queue after park made it Ready: a
// process that asked to keep running goes to the back of the global queue
// (like runtime.Gosched); one woken while it ran stays on this worker's
// deque and runs next, up to maxStreak times in a row.
func (w *worker) requeue(p *proc, status Status, streak int) {
	if status == StatusRunning || streak >= maxStreak {
		w.s.global.push(p)
		w.s.park.wake()
		return
	}
	p.streak = streak + 1
	if !w.dq.push(p) {
		w.s.global.push(p) // the deque is full
		w.s.park.wake()
		return
	}
	if w.dq.size() > 1 {
		w.s.park.wake() // there is more than what we run next: a thief may help
	}
}
