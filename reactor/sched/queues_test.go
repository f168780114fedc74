package sched

import (
	"sync"
	"testing"
)

func TestGlobalQueueFIFOAndBatch(t *testing.T) {
	q := newGlobalQueue[int](2)
	it := items(40)
	for _, v := range it[:30] {
		q.push(v)
	}
	// Interleave pops and pushes so the ring wraps while growing.
	dst := newDeque[int](4)
	if got, moved := q.popBatch(dst, 3); *got != 0 || moved != 3 {
		t.Fatalf("first pop %d moving %d, want 0 moving 3", *got, moved)
	}
	for _, v := range it[30:] {
		q.push(v)
	}
	if dst.size() != 3 || q.len() != 36 {
		t.Fatalf("after a batch of 3: deque %d, queue %d", dst.size(), q.len())
	}
	// The owner of dst pops the batch in queue order.
	for want := 1; want <= 3; want++ {
		if got := *dst.pop(); got != want {
			t.Fatalf("batch item %d, want %d", got, want)
		}
	}
	next := 4
	for {
		v, _ := q.popBatch(dst, 16)
		if v == nil {
			break
		}
		if *v != next {
			t.Fatalf("pop %d, want %d", *v, next)
		}
		next++
		for w := dst.pop(); w != nil; w = dst.pop() {
			if *w != next {
				t.Fatalf("batch item %d, want %d", *w, next)
			}
			next++
		}
	}
	if next != 40 || q.len() != 0 {
		t.Fatalf("drained up to %d with %d left", next, q.len())
	}
}

// TestEventQueueMPSC pushes from several producers while one consumer
// drains with a small cap: nothing is lost or duplicated and each
// producer's events come out in order.
func TestEventQueueMPSC(t *testing.T) {
	const producers, each = 4, 20_000
	var q eventQueue
	q.init()
	var wg sync.WaitGroup
	for p := range producers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range each {
				q.push(Event{Type: EventMessage, Tag: uint64(p)<<32 | uint64(i)})
			}
		}()
	}
	done := make(chan struct{})
	go func() { wg.Wait(); close(done) }()
	next := make([]uint64, producers)
	var buf []Event
	got, finished := 0, false
	for got < producers*each {
		var more bool
		buf, more = q.drainInto(buf[:0], 7)
		if len(buf) > 7 {
			t.Fatalf("drained %d events with a cap of 7", len(buf))
		}
		for _, e := range buf {
			p, i := e.Tag>>32, e.Tag&(1<<32-1)
			if i != next[p] {
				t.Fatalf("producer %d: event %d, want %d", p, i, next[p])
			}
			next[p]++
			got++
		}
		if len(buf) == 0 && !more && finished {
			break
		}
		select {
		case <-done:
			finished = true
		default:
		}
	}
	if got != producers*each {
		t.Fatalf("drained %d events, want %d", got, producers*each)
	}
	if buf, _ = q.drainInto(buf[:0], 10); len(buf) != 0 {
		t.Fatalf("%d events after everything was drained", len(buf))
	}
}
