package sched

import (
	"context"
	"errors"
	"runtime"
	"slices"
	"testing"
	"time"
)

// stubborn is an idle process that ignores cancellation.
func stubborn() *funcProc {
	return &funcProc{step: func(_ []Event, out *StepOutput) error {
		out.Status = StatusIdle
		return nil
	}}
}

// TestShutdownCancelsAndReportsUnfinished: Shutdown cancels idle, blocked
// and running processes; those that honour the cancellation complete, the
// one that ignores it is reported unfinished, closed, and reported to OnExit.
func TestShutdownCancelsAndReportsUnfinished(t *testing.T) {
	h := newTestHandler(t, 0)
	const cooperative = 100
	ex := newExits(2*cooperative + 2)
	s := New(Config{Handler: h, OnExit: ex.onExit})
	var initCtx context.Context
	ignore := stubborn()
	ignore.init = func(ctx context.Context, _ string, _ any) error { initCtx = ctx; return nil }
	ignorePID := submit(t, s, ignore, "", nil)

	var all []*yielder
	for range cooperative {
		// blocked on a yield that is never completed
		y := &yielder{}
		submit(t, s, y, "yield", yieldInput{Total: 1, Width: 1, Modes: []completion{completeNever}})
		all = append(all, y)
	}
	var pingers []*pinger
	for range cooperative {
		p := &pinger{s: s} // idle, waiting for a first ping
		submit(t, s, p, "ping", pingInput{Rounds: 5})
		pingers = append(pingers, p)
	}
	// one that keeps running until it sees the cancellation
	cancelled := make(chan error, 1)
	spinner := &funcProc{step: func(events []Event, out *StepOutput) error {
		out.Status = StatusRunning
		for _, e := range events {
			if e.Type == EventCancel {
				cancelled <- e.Error
				out.Status = StatusComplete
			}
		}
		return nil
	}}
	spinnerPID := submit(t, s, spinner, "", nil)
	// Let everything reach its waiting state.
	deadline := time.Now().Add(5 * time.Second)
	for s.Stats().Steps < 2*cooperative+2 {
		if time.Now().After(deadline) {
			t.Fatalf("processes did not start: %+v", s.Stats())
		}
		time.Sleep(time.Millisecond)
	}

	ctx, cancel := context.WithTimeout(context.Background(), 300*time.Millisecond)
	defer cancel()
	began := time.Now()
	err := s.Shutdown(ctx)
	var un *UnfinishedError
	if !errors.As(err, &un) || !slices.Equal(un.PIDs, []PID{ignorePID}) || !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("Shutdown: %v; want exactly process %d unfinished after the deadline", err, ignorePID)
	}
	if waited := time.Since(began); waited > 5*time.Second {
		t.Fatalf("Shutdown took %v with a 300ms context", waited)
	}
	if reason := <-cancelled; !errors.Is(reason, ErrShutdown) {
		t.Fatalf("cancel reason %v, want ErrShutdown", reason)
	}

	ex.wait(t, s, time.Second) // every process was reported, once
	for pid, want := range map[PID]error{ignorePID: ErrUnfinished, spinnerPID: nil} {
		if got := ex.err(pid); !errors.Is(got, want) || (want == nil && got != nil) {
			t.Fatalf("process %d exit %v, want %v", pid, got, want)
		}
	}
	if ignore.closes.Load() != 1 || spinner.closes.Load() != 1 {
		t.Fatalf("closes: stubborn %d, spinner %d", ignore.closes.Load(), spinner.closes.Load())
	}
	for _, y := range all {
		if y.closes.Load() != 1 {
			t.Fatalf("blocked process %d closed %d times", y.pid, y.closes.Load())
		}
	}
	for _, p := range pingers {
		if p.closes.Load() != 1 {
			t.Fatalf("idle process %d closed %d times", p.self, p.closes.Load())
		}
	}
	if initCtx.Err() == nil {
		t.Fatal("Init's context is still live after Shutdown")
	}
	if st := s.Stats(); st.Live != 0 {
		t.Fatalf("live after shutdown: %+v", st)
	}

	// Closed for business.
	if _, err := s.Submit(stubborn(), "", nil); !errors.Is(err, ErrClosed) {
		t.Fatalf("Submit after Shutdown: %v", err)
	}
	if err := s.Send(ignorePID, "x"); !errors.Is(err, ErrNoProcess) {
		t.Fatalf("Send after Shutdown: %v", err)
	}
	if err := s.Shutdown(context.Background()); !errors.Is(err, ErrClosed) {
		t.Fatalf("second Shutdown: %v", err)
	}
}

// TestShutdownWaitsForCompletion: processes that need a few more steps
// after the cancellation (here: an asynchronous clean-up yield) finish, and
// Shutdown reports nothing.
func TestShutdownWaitsForCompletion(t *testing.T) {
	h := newTestHandler(t, 2)
	const procs = 500
	ex := newExits(procs)
	s := New(Config{Handler: h, OnExit: ex.onExit})
	for range procs {
		cleaning := false
		p := &funcProc{step: func(events []Event, out *StepOutput) error {
			out.Status = StatusIdle
			for _, e := range events {
				switch {
				case e.Type == EventCancel && !cleaning:
					cleaning = true
					out.Yield(1, completeAsync)
					out.Status = StatusBlocked
				case e.Type == EventYieldComplete && cleaning:
					out.Status = StatusComplete
				}
			}
			return nil
		}}
		submit(t, s, p, "", nil)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	if err := s.Shutdown(ctx); err != nil {
		t.Fatalf("Shutdown: %v", err)
	}
	ex.wait(t, s, time.Second)
	ex.noErrors(t)
}

// TestShutdownStopsWorkers: with no processes Shutdown returns at once and
// the worker goroutines end.
func TestShutdownStopsWorkers(t *testing.T) {
	before := runtime.NumGoroutine()
	s := New(Config{Workers: 8})
	if err := s.Shutdown(context.Background()); err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(5 * time.Second)
	for runtime.NumGoroutine() > before {
		if time.Now().After(deadline) {
			t.Fatalf("%d goroutines after Shutdown, %d before New", runtime.NumGoroutine(), before)
		}
		time.Sleep(time.Millisecond)
	}
}
