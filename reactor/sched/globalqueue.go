package sched

import (
	"sync"
	"sync/atomic"
)

// globalQueue is the scheduler's FIFO for submissions and for processes
// woken from outside a worker (Send, asynchronous CompleteYield). It is a
// growable ring under a mutex; its length is mirrored in an atomic so idle
// workers can look without taking the lock.
type globalQueue[T any] struct {
	mu    sync.Mutex
	ring  []*T // power-of-two length
	head  int  // index of the oldest item
	count int
	n     atomic.Int64
}

func newGlobalQueue[T any](size int) *globalQueue[T] {
	return &globalQueue[T]{ring: make([]*T, size)}
}

// len is the number of queued items (a snapshot).
func (q *globalQueue[T]) len() int { return int(q.n.Load()) }

// push appends v.
func (q *globalQueue[T]) push(v *T) {
	q.mu.Lock()
	if q.count == len(q.ring) {
		q.grow()
	}
	q.ring[(q.head+q.count)&(len(q.ring)-1)] = v
	q.count++
	q.n.Store(int64(q.count))
	q.mu.Unlock()
}

func (q *globalQueue[T]) grow() {
	ring := make([]*T, 2*len(q.ring))
	for i := 0; i < q.count; i++ {
		ring[i] = q.ring[(q.head+i)&(len(q.ring)-1)]
	}
	q.ring, q.head = ring, 0
}

func (q *globalQueue[T]) take() *T {
	v := q.ring[q.head]
	q.ring[q.head] = nil
	q.head = (q.head + 1) & (len(q.ring) - 1)
	q.count--
	return v
}

// popBatch removes the oldest item and returns it, and moves up to extra of
// the items after it (no more than dst has room for) to the bottom of dst,
// whose owner the caller must be. They go in reverse, so that dst's owner,
// popping LIFO, runs them in queue order. It returns the item and how many
// it moved, or nil when the queue is empty.
func (q *globalQueue[T]) popBatch(dst *deque[T], extra int) (*T, int) {
	if q.n.Load() == 0 {
		return nil, 0
	}
	q.mu.Lock()
	defer q.mu.Unlock()
	if q.count == 0 {
		return nil, 0
	}
	v := q.take()
	extra = min(extra, q.count, dst.room())
	mask := len(q.ring) - 1
	for i := extra - 1; i >= 0; i-- {
		dst.push(q.ring[(q.head+i)&mask])
	}
	for range extra {
		q.take()
	}
	q.n.Store(int64(q.count))
	return v, extra
}
