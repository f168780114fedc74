package sched

import (
	"cmp"
	"context"
	"fmt"
	"slices"
)

// UnfinishedError is Shutdown's report of processes that were still live
// when it gave up waiting. They were closed without completing (OnExit got
// ErrUnfinished for each).
type UnfinishedError struct {
	// PIDs of the processes that did not finish, ascending.
	PIDs []PID
	// Cause is why Shutdown stopped waiting (the context's error).
	Cause error
}

func (e *UnfinishedError) Error() string {
	return fmt.Sprintf("sched: %d process(es) did not finish before shutdown (%v): %v", len(e.PIDs), e.Cause, e.PIDs)
}

// Unwrap returns the cause, so errors.Is(err, context.DeadlineExceeded) works.
func (e *UnfinishedError) Unwrap() error { return e.Cause }

// Shutdown stops the scheduler. It refuses new processes, sends an
// EventCancel (Error ErrShutdown) to every live process and waits until all
// of them have completed or ctx is done. Then it stops the workers — each
// finishes the step it is running, if any, and takes no more work — closes
// the processes that did not finish and reports them in an
// *UnfinishedError. A Step that never returns holds Shutdown up. After
// Shutdown, Submit fails with ErrClosed and Send, CompleteYield and Cancel
// with ErrNoProcess. A second call returns ErrClosed.
func (s *Scheduler) Shutdown(ctx context.Context) error {
	s.admit.Lock()
	if s.closed.Load() {
		s.admit.Unlock()
		return ErrClosed
	}
	s.closed.Store(true)
	s.admit.Unlock()

	s.procs.Range(func(_, v any) bool {
		s.post(v.(*proc), Event{Type: EventCancel, Error: ErrShutdown})
		return true
	})
	if s.live.Load() == 0 {
		s.drain.Do(func() { close(s.drained) })
	}
	var cause error
	select {
	case <-s.drained:
	case <-ctx.Done():
		cause = ctx.Err()
	}
	s.park.halt()
	s.done.Wait()

	// No worker runs any more: whatever is live now is abandoned.
	var left []*proc
	s.procs.Range(func(_, v any) bool {
		if p := v.(*proc); p.abandon() {
			left = append(left, p)
		}
		return true
	})
	slices.SortFunc(left, func(a, b *proc) int { return cmp.Compare(a.pid, b.pid) })
	pids := make([]PID, len(left))
	for i, p := range left {
		pids[i] = p.pid
		s.finish(p, ErrUnfinished)
	}
	s.cancel()
	if len(pids) > 0 {
		return &UnfinishedError{PIDs: pids, Cause: cause}
	}
	return nil
}
