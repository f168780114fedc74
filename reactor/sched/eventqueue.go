package sched

import (
	"sync"
	"sync/atomic"
)

// eventQueue is a process's multi-producer single-consumer event queue: an
// intrusive linked list after Dmitry Vyukov. Producers (CompleteYield, Send,
// Cancel from any goroutine) swap themselves in at the head with one atomic
// exchange; the one consumer (the worker that runs the process) walks from
// the tail. Events of one producer come out in the order it pushed them.
//
// A push is complete when its link is stored. Between a producer's exchange
// and its link the consumer sees the queue end early; that is harmless
// because every producer notifies the process after its push completes, and
// the notification re-runs a process that is running (the wakeup flag).
type eventQueue struct {
	head atomic.Pointer[eventNode] // producers
	tail *eventNode                // consumer
	stub eventNode
}

type eventNode struct {
	next atomic.Pointer[eventNode]
	ev   Event
}

var eventNodes = sync.Pool{New: func() any { return new(eventNode) }}

func (q *eventQueue) init() {
	q.head.Store(&q.stub)
	q.tail = &q.stub
}

// push appends e. Safe from any goroutine.
func (q *eventQueue) push(e Event) {
	n := eventNodes.Get().(*eventNode)
	n.ev = e
	q.pushNode(n)
}

func (q *eventQueue) pushNode(n *eventNode) {
	n.next.Store(nil)
	prev := q.head.Swap(n)
	prev.next.Store(n)
}

// drainInto appends up to max events to dst and returns it, and whether
// events may remain (max was reached). Consumer only.
func (q *eventQueue) drainInto(dst []Event, max int) ([]Event, bool) {
	for taken := 0; taken < max; taken++ {
		tail := q.tail
		next := tail.next.Load()
		if tail == &q.stub {
			if next == nil {
				return dst, false
			}
			q.tail, tail = next, next
			next = next.next.Load()
		}
		if next != nil {
			q.tail = next
			dst = append(dst, tail.ev)
			release(tail)
			continue
		}
		if q.head.Load() != tail {
			// A producer swapped the head but has not linked it yet: its
			// notification will bring us back.
			return dst, false
		}
		// tail is the last node: put the stub behind it so tail can go.
		q.pushNode(&q.stub)
		next = tail.next.Load()
		if next == nil {
			return dst, false // a producer got in between; see above
		}
		q.tail = next
		dst = append(dst, tail.ev)
		release(tail)
	}
	return dst, true
}

func release(n *eventNode) {
	n.ev = Event{}
	eventNodes.Put(n)
}
