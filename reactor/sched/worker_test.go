package sched

import (
	"errors"
	"fmt"
	"testing"
)

func procs(from, n int) []*proc {
	out := make([]*proc, n)
	for i := range out {
		out[i] = newProc(PID(from+i), nil)
	}
	return out
}

func pids(ps ...*proc) []PID {
	out := make([]PID, len(ps))
	for i, p := range ps {
		if p != nil {
			out[i] = p.pid
		}
	}
	return out
}

// TestFindOrder checks the search order of a worker, with the workers not
// started: local deque (LIFO), then the global queue (one plus a fair batch,
// at most 16, run in queue order), then half of a victim's deque; and the
// global queue first on every 61st search.
func TestFindOrder(t *testing.T) {
	s := newScheduler(Config{Workers: 3})
	w0, w1, w2 := s.workers[0], s.workers[1], s.workers[2]
	local := procs(1, 2)
	for _, p := range local {
		w0.dq.push(p)
	}
	global := procs(100, 31)
	for _, p := range global {
		s.global.push(p)
	}
	victim := procs(200, 5)
	for _, p := range victim {
		w1.dq.push(p)
	}

	// Local first, newest first.
	if got := w0.findOnce(); got != local[1] {
		t.Fatalf("first find %v, want the newest local process", pids(got))
	}
	if got := w0.findOnce(); got != local[0] {
		t.Fatalf("second find %v, want the older local process", pids(got))
	}
	// Then the global queue: the oldest, plus min(16, 30/3) = 10 more into
	// the deque, which then run in queue order.
	if got := w0.findOnce(); got != global[0] {
		t.Fatalf("third find %v, want the oldest global process", pids(got))
	}
	if w0.dq.size() != 10 || s.global.len() != 20 {
		t.Fatalf("after the batch: deque %d, global %d; want 10, 20", w0.dq.size(), s.global.len())
	}
	for i := 1; i <= 10; i++ {
		if got := w0.findOnce(); got != global[i] {
			t.Fatalf("batch find %d: %v, want %v", i, pids(got), pids(global[i]))
		}
	}
	// The global queue has 20: a batch of min(16, 20/3) = 6.
	if got := w0.findOnce(); got != global[11] || w0.dq.size() != 6 {
		t.Fatalf("next batch: %v with %d in the deque", pids(got), w0.dq.size())
	}
	for s.global.len() > 0 {
		p, _ := s.global.popBatch(w0.dq, 16)
		w0.dq.push(p)
	}

	// w2 has nothing local and the global queue is empty: it steals half
	// of a victim's deque (3 of w1's 5, the oldest, or of w0's) and runs one.
	before := w0.dq.size() + w1.dq.size()
	got := w2.findOnce()
	if got == nil || w2.stats.steals.Load() != 1 {
		t.Fatalf("w2 found %v after %d steals", pids(got), w2.stats.steals.Load())
	}
	stolen := int(w2.stats.stolen.Load())
	if after := w0.dq.size() + w1.dq.size(); before-after != stolen || w2.dq.size() != stolen-1 {
		t.Fatalf("stole %d: victims went from %d to %d, thief holds %d", stolen, before, after, w2.dq.size())
	}
	if got.pid >= 200 && (stolen != 3 || got != victim[2]) {
		t.Fatalf("steal from w1 took %d and ran %v; want 3 and the newest stolen", stolen, pids(got))
	}

	// Every 61st search looks at the global queue before the deque.
	late := newProc(999, nil)
	s.global.push(late)
	w1.tick = globalEvery - 1
	if got := w1.findOnce(); got != late {
		t.Fatalf("61st search found %v, want the global process", pids(got))
	}
	if got := w1.findOnce(); got == nil || got.pid < 200 {
		t.Fatalf("next search found %v, want a local process", pids(got))
	}
}

// TestCompletionConsumedBeforeNotify replays, with the workers not started
// and the interleaving forced by channels, the race that made
// TestWakeupsAfterSleep flaky: the last completion of a process is pushed,
// and before its sender gets to notify, a worker that runs the process for
// an earlier completion drains it too, steps to Complete and finishes the
// process. The completion was delivered (the process needed it to finish),
// so CompleteYield must report success, not ErrNoProcess.
func TestCompletionConsumedBeforeNotify(t *testing.T) {
	var dispatched []uint64
	h := HandlerFunc(func(_ Completer, _ PID, y Yield) { dispatched = append(dispatched, y.Tag) })
	var exits []error
	s := newScheduler(Config{Workers: 1, Handler: h, OnExit: func(_ PID, err error) { exits = append(exits, err) }})
	w := s.workers[0]

	got := map[uint64]int{}
	proc := &funcProc{step: func(events []Event, out *StepOutput) error {
		for _, e := range events {
			if e.Type != EventYieldComplete {
				return fmt.Errorf("unexpected event %v", e.Type)
			}
			got[e.Tag]++
		}
		switch {
		case len(events) == 0: // the first step
			out.Yield(1, nil)
			out.Yield(2, nil)
			out.Status = StatusBlocked
		case got[1] == 1 && got[2] == 1:
			out.Status = StatusComplete
		default:
			out.Status = StatusBlocked
		}
		return nil
	}}
	pid, err := s.Submit(proc, "", nil)
	if err != nil {
		t.Fatal(err)
	}
	runOne := func() {
		t.Helper()
		p := w.findOnce()
		if p == nil {
			t.Fatal("no runnable process")
		}
		w.run(p)
	}
	runOne() // first step: yields 1 and 2, parks Blocked
	if len(dispatched) != 2 {
		t.Fatalf("dispatched %v, want tags 1 and 2", dispatched)
	}

	// Tag 1 completes normally: the process becomes Ready and is queued.
	if err := s.CompleteYield(pid, 1, nil, nil); err != nil {
		t.Fatalf("complete tag 1: %v", err)
	}
	// Tag 2 completes from another goroutine that stops between its push
	// and its notify.
	pushed, resume := make(chan struct{}), make(chan struct{})
	s.afterPush = func() {
		close(pushed)
		<-resume
	}
	res := make(chan error)
	go func() { res <- s.CompleteYield(pid, 2, nil, nil) }()
	<-pushed
	// The worker runs the process for tag 1, drains tag 2 along with it,
	// completes and finishes the process, all before tag 2's notify.
	runOne()
	if got[1] != 1 || got[2] != 1 {
		t.Fatalf("completions seen %v, want tags 1 and 2 once each", got)
	}
	if len(exits) != 1 || exits[0] != nil {
		t.Fatalf("exits %v, want one without error", exits)
	}
	close(resume)
	if err := <-res; err != nil {
		t.Fatalf("CompleteYield of a completion the process consumed: %v, want nil", err)
	}
	s.afterPush = nil

	// After the process finished, delivery fails as before.
	if err := s.CompleteYield(pid, 3, nil, nil); !errors.Is(err, ErrNoProcess) {
		t.Fatalf("CompleteYield after the process finished: %v, want ErrNoProcess", err)
	}
}
