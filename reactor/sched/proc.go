package sched

import (
	"fmt"
	"sync/atomic"
)

// proc is the scheduler's record of one process: the state word the pure
// transitions of state.go are applied to, and the event queue.
type proc struct {
	pid    PID
	p      Process
	state  atomic.Uint32
	events eventQueue
	ctx    procContext // Init's context

	// Owned by the worker that runs the process. A worker takes ownership
	// with claim (a CAS) and hands it over with park or a queue push, which
	// orders these fields between workers.
	last   Status // status of the last step; 0 before the first step
	streak int    // consecutive re-runs on one worker through its deque
}

func newProc(pid PID, p Process) *proc {
	pr := &proc{pid: pid, p: p}
	pr.ctx.pid = pid
	pr.events.init()
	pr.state.Store(uint32(stateOf(phaseReady)))
	return pr
}

func (p *proc) load() procState { return procState(p.state.Load()) }

// notify applies the notify transition after an event was pushed and
// returns the action. (Whether the process was complete here says nothing
// about the event: the process may have consumed it first. See post.)
func (p *proc) notify() action {
	for {
		old := p.load()
		next, act := notify(old)
		if next == old || p.state.CompareAndSwap(uint32(old), uint32(next)) {
			return act
		}
	}
}

// claim moves a process taken off a run queue to Running.
func (p *proc) claim() {
	old := p.load()
	next, ok := claim(old)
	if !ok || !p.state.CompareAndSwap(uint32(old), uint32(next)) {
		// Only the holder of the single queue entry moves a Ready process.
		panic(fmt.Sprintf("sched: process %d claimed in state %v", p.pid, p.load()))
	}
}

// park applies the park transition with the step's status.
func (p *proc) park(st Status) action {
	for {
		old := p.load()
		next, act, ok := park(old, st)
		if !ok {
			panic(fmt.Sprintf("sched: process %d parked in state %v", p.pid, old))
		}
		if p.state.CompareAndSwap(uint32(old), uint32(next)) {
			return act
		}
	}
}

// abandon completes a process that no worker will run again. It reports
// false when the process had completed already.
func (p *proc) abandon() bool {
	for {
		old := p.load()
		next, ok := abandon(old)
		if !ok {
			return false
		}
		if p.state.CompareAndSwap(uint32(old), uint32(next)) {
			return true
		}
	}
}
