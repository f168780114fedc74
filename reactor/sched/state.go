package sched

import "fmt"

// The process state machine. The transitions are pure functions of the
// state word (no IO, no queues); proc applies them with compare-and-swap
// loops and performs the action a transition asks for. state_test.go checks
// them over every interleaving of a worker and concurrent notifiers.
//
//	Submit ─► Ready ──claim──► Running ──park(complete)──► Complete
//	            ▲                 │ park(blocked|idle), no wakeup ─► Blocked | Idle
//	            │                 │ park(running), or wakeup set  ─► Ready (re-enqueue)
//	            └──── notify ─────┴─ Blocked | Idle ─► Ready (enqueue)
//
// The wakeup flag closes the race between a worker parking a process and
// an event arriving: an event notified while the process is Running sets
// the flag, and park then re-enqueues instead of parking.

// phase is where a process is in its life.
type phase uint32

const (
	// phaseReady: on a run queue (exactly one entry) or about to be.
	phaseReady phase = iota
	// phaseRunning: a worker owns it and may be calling Step.
	phaseRunning
	// phaseBlocked: waiting for yield completions (any event wakes it).
	phaseBlocked
	// phaseIdle: waiting for messages (any event wakes it).
	phaseIdle
	// phaseComplete: finished, closed or about to be; events are dropped.
	phaseComplete
)

var phaseNames = [...]string{"ready", "running", "blocked", "idle", "complete"}

func (p phase) String() string {
	if int(p) < len(phaseNames) {
		return phaseNames[p]
	}
	return fmt.Sprintf("phase(%d)", uint32(p))
}

// procState is a phase plus the wakeup flag, the content of one atomic word.
type procState uint32

const (
	phaseMask procState = 0x7
	wakeup    procState = 0x8
)

func stateOf(p phase) procState { return procState(p) }

func (s procState) phase() phase { return phase(s & phaseMask) }
func (s procState) woken() bool  { return s&wakeup != 0 }
func (s procState) String() string {
	if s.woken() {
		return s.phase().String() + "+wakeup"
	}
	return s.phase().String()
}

// action is what the caller of a transition must do next.
type action uint8

const (
	// actNone: nothing.
	actNone action = iota
	// actEnqueue: put the process on a run queue (it is Ready now, and the
	// caller's is its only queue entry).
	actEnqueue
	// actFinish: the process completed; close it and forget it.
	actFinish
)

var actionNames = [...]string{"none", "enqueue", "finish"}

func (a action) String() string { return actionNames[a] }

// notify is the transition for an event pushed onto the process's queue
// (after the push). A parked process becomes Ready and must be enqueued; a
// running one gets the wakeup flag; a ready one will see the event when it
// runs; a complete one drops it.
func notify(s procState) (procState, action) {
	switch s.phase() {
	case phaseRunning:
		return s | wakeup, actNone
	case phaseBlocked, phaseIdle:
		return stateOf(phaseReady), actEnqueue
	default: // ready, complete
		return s, actNone
	}
}

// claim is the transition of a worker taking the process off a run queue.
// It fails for anything but Ready, which the one-queue-entry invariant rules
// out.
func claim(s procState) (procState, bool) {
	if s != stateOf(phaseReady) {
		return s, false
	}
	return stateOf(phaseRunning), true
}

// park is the transition after a step's yields were dispatched, with the
// status the step reported. It fails (returns s, actNone, false) unless the
// process is Running.
func park(s procState, st Status) (procState, action, bool) {
	if s.phase() != phaseRunning {
		return s, actNone, false
	}
	switch {
	case st == StatusComplete:
		return stateOf(phaseComplete), actFinish, true
	case st == StatusRunning, s.woken():
		return stateOf(phaseReady), actEnqueue, true
	case st == StatusBlocked:
		return stateOf(phaseBlocked), actNone, true
	default: // StatusIdle
		return stateOf(phaseIdle), actNone, true
	}
}

// abandon is the transition Shutdown applies to a process that did not
// finish once no worker runs any more. It fails for a complete process and
// for a running one (no worker runs, so that means a bug).
func abandon(s procState) (procState, bool) {
	switch s.phase() {
	case phaseReady, phaseBlocked, phaseIdle:
		return stateOf(phaseComplete), true
	default:
		return s, false
	}
}
