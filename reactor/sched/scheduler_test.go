package sched

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"testing"
	"time"
)

// start returns a running scheduler that is shut down when the test ends.
func start(t *testing.T, cfg Config) *Scheduler {
	t.Helper()
	s := New(cfg)
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		if err := s.Shutdown(ctx); err != nil && !errors.Is(err, ErrClosed) {
			t.Errorf("cleanup shutdown: %v", err)
		}
	})
	return s
}

func submit(t *testing.T, s *Scheduler, p Process, method string, input any) PID {
	t.Helper()
	pid, err := s.Submit(p, method, input)
	if err != nil {
		t.Fatalf("submit: %v", err)
	}
	return pid
}

// TestManyProcessesManyYields: 10,000 processes with 100 yields each, the
// yields completed inside Dispatch, from other goroutines, one or three
// outstanding at a time. Every process sees every completion exactly once
// with the right result, and every process finishes (no lost wakeup).
func TestManyProcessesManyYields(t *testing.T) {
	const procs, yields = 10_000, 100
	h := newTestHandler(t, 4)
	ex := newExits(procs)
	s := start(t, Config{Handler: h, OnExit: ex.onExit})
	mixes := [][]completion{
		{completeSync},
		{completeAsync},
		{completeSync, completeAsync, completeAsync},
	}
	ys := make([]*yielder, procs)
	for i := range ys {
		ys[i] = &yielder{}
		in := yieldInput{Total: yields, Width: 1 + 2*(i%2), Modes: mixes[i%len(mixes)]}
		submit(t, s, ys[i], "yield", in)
	}
	ex.wait(t, s, 60*time.Second)
	ex.noErrors(t)
	for i, y := range ys {
		if y.done != yields || y.closes.Load() != 1 {
			t.Fatalf("process %d: %d of %d yields done, closed %d times", i, y.done, yields, y.closes.Load())
		}
	}
	st := s.Stats()
	if st.Yields != procs*yields || st.Live != 0 {
		t.Fatalf("stats %+v: want %d yields and nothing live", st, procs*yields)
	}
	t.Logf("stats %+v", st)
}

// TestWakeupsAfterSleep completes yields from timers, long after the workers
// ran out of work and went to sleep: the wake-ups must reach them.
func TestWakeupsAfterSleep(t *testing.T) {
	const procs, yields = 300, 10
	h := newTestHandler(t, 0)
	ex := newExits(procs)
	s := start(t, Config{Handler: h, OnExit: ex.onExit})
	for range procs {
		submit(t, s, &yielder{}, "yield", yieldInput{Total: yields, Width: 2, Modes: []completion{completeLater}})
	}
	ex.wait(t, s, 20*time.Second)
	ex.noErrors(t)
	// Now everything is idle: a single late message must still get through.
	done := make(chan struct{})
	late := &funcProc{step: func(events []Event, out *StepOutput) error {
		out.Status = StatusIdle
		for _, e := range events {
			if e.Type == EventMessage {
				close(done)
				out.Status = StatusComplete
			}
		}
		return nil
	}}
	pid := submit(t, s, late, "", nil)
	waitAllAsleep(t, s)
	if err := s.Send(pid, "wake up"); err != nil {
		t.Fatal(err)
	}
	select {
	case <-done:
	case <-time.After(5 * time.Second):
		t.Fatalf("a message to an idle process on a sleeping scheduler was lost: %+v", s.Stats())
	}
}

// waitAllAsleep waits until every worker waits on the condition variable.
func waitAllAsleep(t *testing.T, s *Scheduler) {
	t.Helper()
	deadline := time.Now().Add(5 * time.Second)
	for int(s.park.sleepers.Load()) != len(s.workers) {
		if time.Now().After(deadline) {
			t.Fatalf("workers never all slept: %d of %d; %+v", s.park.sleepers.Load(), len(s.workers), s.Stats())
		}
		time.Sleep(100 * time.Microsecond)
	}
}

// TestPingPongByPID runs pairs of processes that address each other by PID
// only, on one worker and on the default number.
func TestPingPongByPID(t *testing.T) {
	for _, workers := range []int{1, 0} {
		t.Run(fmt.Sprintf("workers=%d", workers), func(t *testing.T) {
			const pairs, rounds = 200, 300
			ex := newExits(2 * pairs)
			s := start(t, Config{Workers: workers, OnExit: ex.onExit})
			var ps []*pinger
			for range pairs {
				resp := &pinger{s: s}
				rpid := submit(t, s, resp, "ping", pingInput{Rounds: rounds})
				init := &pinger{s: s}
				submit(t, s, init, "ping", pingInput{Partner: rpid, Rounds: rounds})
				ps = append(ps, resp, init)
			}
			ex.wait(t, s, 30*time.Second)
			ex.noErrors(t)
			for _, p := range ps {
				if p.seen != rounds || p.closes.Load() != 1 {
					t.Fatalf("process %d saw %d of %d pings, closed %d times", p.self, p.seen, rounds, p.closes.Load())
				}
			}
		})
	}
}

// TestSendFanIn: many goroutines send to one process; it gets every message
// once, in each sender's order.
func TestSendFanIn(t *testing.T) {
	const senders, each = 8, 5_000
	ex := newExits(1)
	s := start(t, Config{OnExit: ex.onExit})
	next := make([]int, senders)
	got := 0
	sink := &funcProc{step: func(events []Event, out *StepOutput) error {
		for _, e := range events {
			m := e.Data.([2]int)
			if m[1] != next[m[0]] {
				return fmt.Errorf("sender %d: message %d, want %d", m[0], m[1], next[m[0]])
			}
			next[m[0]]++
			got++
		}
		out.Status = StatusIdle
		if got == senders*each {
			out.Status = StatusComplete
		}
		return nil
	}}
	pid := submit(t, s, sink, "", nil)
	var wg sync.WaitGroup
	for i := range senders {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for j := range each {
				if err := s.Send(pid, [2]int{i, j}); err != nil {
					t.Errorf("send: %v", err)
					return
				}
			}
		}()
	}
	wg.Wait()
	ex.wait(t, s, 20*time.Second)
	ex.noErrors(t)
	if err := s.Send(pid, [2]int{0, 0}); !errors.Is(err, ErrNoProcess) {
		t.Fatalf("send to a completed process: %v, want ErrNoProcess", err)
	}
}

// TestMessageWhileBlocked: a message wakes a process blocked on a yield;
// the yield's completion comes in a later step.
func TestMessageWhileBlocked(t *testing.T) {
	h := newTestHandler(t, 0)
	ex := newExits(1)
	s := start(t, Config{Handler: h, OnExit: ex.onExit})
	seen := make(chan []EventType, 3)
	p := &funcProc{step: func(events []Event, out *StepOutput) error {
		var types []EventType
		for _, e := range events {
			types = append(types, e.Type)
		}
		seen <- types
		switch {
		case len(events) == 0:
			out.Yield(1, completeNever)
			out.Status = StatusBlocked
		case events[0].Type == EventMessage:
			out.Status = StatusBlocked
		default:
			out.Status = StatusComplete
		}
		return nil
	}}
	pid := submit(t, s, p, "", nil)
	if got := <-seen; len(got) != 0 {
		t.Fatalf("first step got %v", got)
	}
	if err := s.Send(pid, "hello"); err != nil {
		t.Fatal(err)
	}
	if got := <-seen; len(got) != 1 || got[0] != EventMessage {
		t.Fatalf("second step got %v, want one message", got)
	}
	if err := s.CompleteYield(pid, 1, "ok", nil); err != nil {
		t.Fatal(err)
	}
	if got := <-seen; len(got) != 1 || got[0] != EventYieldComplete {
		t.Fatalf("third step got %v, want the completion", got)
	}
	ex.wait(t, s, 5*time.Second)
	ex.noErrors(t)
}

// TestStatusRunningStepsAgain: a process that reports running is stepped
// again without events, and others still get their turn on one worker.
func TestStatusRunningStepsAgain(t *testing.T) {
	const procs, turns = 50, 100
	ex := newExits(procs)
	s := start(t, Config{Workers: 1, OnExit: ex.onExit})
	steps := make([]int, procs)
	for i := range procs {
		p := &funcProc{step: func(events []Event, out *StepOutput) error {
			if len(events) != 0 {
				return fmt.Errorf("unexpected events %v", events)
			}
			steps[i]++
			out.Status = StatusRunning
			if steps[i] == turns {
				out.Status = StatusComplete
			}
			return nil
		}}
		submit(t, s, p, "", nil)
	}
	ex.wait(t, s, 20*time.Second)
	ex.noErrors(t)
	for i, n := range steps {
		if n != turns {
			t.Fatalf("process %d stepped %d times, want %d", i, n, turns)
		}
	}
}

// TestEventCapPerStep: events that piled up while a process ran reach it
// at most maxStepEvents per step, in order, in steps that follow at once.
func TestEventCapPerStep(t *testing.T) {
	const msgs = 2*maxStepEvents + 10
	ex := newExits(1)
	s := start(t, Config{Workers: 1, OnExit: ex.onExit})
	release := make(chan struct{})
	running := make(chan struct{})
	var sizes []int
	got := 0
	p := &funcProc{step: func(events []Event, out *StepOutput) error {
		out.Status = StatusIdle
		if sizes == nil {
			sizes = []int{}
			close(running)
			<-release // hold the worker while the messages pile up
			return nil
		}
		sizes = append(sizes, len(events))
		for _, e := range events {
			if e.Data != got {
				return fmt.Errorf("message %v, want %d", e.Data, got)
			}
			got++
		}
		if got == msgs {
			out.Status = StatusComplete
		}
		return nil
	}}
	pid := submit(t, s, p, "", nil)
	<-running
	for i := range msgs {
		if err := s.Send(pid, i); err != nil {
			t.Fatal(err)
		}
	}
	close(release)
	ex.wait(t, s, 5*time.Second)
	ex.noErrors(t)
	if want := []int{maxStepEvents, maxStepEvents, 10}; fmt.Sprint(sizes) != fmt.Sprint(want) {
		t.Fatalf("events per step %v, want %v", sizes, want)
	}
}

// TestProcessFailures: a step error, a step without a status and a yield
// without a handler end the process, which is closed once and reported.
func TestProcessFailures(t *testing.T) {
	boom := errors.New("boom")
	cases := []struct {
		name string
		step func([]Event, *StepOutput) error
		want error
	}{
		{"step error", func([]Event, *StepOutput) error { return boom }, boom},
		{"no status", func([]Event, *StepOutput) error { return nil }, ErrNoStatus},
		{"bad status", func(_ []Event, o *StepOutput) error { o.Status = 9; return nil }, ErrNoStatus},
		{"no handler", func(_ []Event, o *StepOutput) error {
			o.Yield(1, nil)
			o.Status = StatusBlocked
			return nil
		}, ErrNoHandler},
	}
	ex := newExits(len(cases))
	s := start(t, Config{OnExit: ex.onExit})
	pids := make([]PID, len(cases))
	ps := make([]*funcProc, len(cases))
	for i, c := range cases {
		ps[i] = &funcProc{step: c.step}
		pids[i] = submit(t, s, ps[i], "", nil)
	}
	ex.wait(t, s, 5*time.Second)
	for i, c := range cases {
		if err := ex.err(pids[i]); !errors.Is(err, c.want) {
			t.Errorf("%s: exit error %v, want %v", c.name, err, c.want)
		}
		if n := ps[i].closes.Load(); n != 1 {
			t.Errorf("%s: closed %d times", c.name, n)
		}
	}
}

// TestSubmitInit: Init gets the method, the input and a context with the
// PID; a failing Init is returned by Submit and the process never runs or
// closes.
func TestSubmitInit(t *testing.T) {
	ex := newExits(1)
	s := start(t, Config{OnExit: ex.onExit})
	var gotPID PID
	var gotMethod string
	var gotInput any
	ok := &funcProc{
		init: func(ctx context.Context, method string, input any) error {
			gotPID, _ = PIDOf(ctx)
			gotMethod, gotInput = method, input
			return nil
		},
		step: func(_ []Event, out *StepOutput) error { out.Status = StatusComplete; return nil },
	}
	pid := submit(t, s, ok, "entry", 42)
	if gotPID != pid || gotMethod != "entry" || gotInput != 42 {
		t.Fatalf("Init saw pid %d method %q input %v; want %d, entry, 42", gotPID, gotMethod, gotInput, pid)
	}
	ex.wait(t, s, 5*time.Second)
	ex.noErrors(t)

	bad := errors.New("no such entry point")
	ran := false
	failing := &funcProc{
		init: func(context.Context, string, any) error { return bad },
		step: func(_ []Event, out *StepOutput) error { ran = true; out.Status = StatusComplete; return nil },
	}
	if _, err := s.Submit(failing, "other", nil); !errors.Is(err, bad) {
		t.Fatalf("Submit with failing Init: %v", err)
	}
	if _, err := s.Submit(nil, "x", nil); err == nil {
		t.Fatal("Submit(nil) succeeded")
	}
	if err := s.Shutdown(context.Background()); err != nil {
		t.Fatal(err)
	}
	if ran || failing.closes.Load() != 0 {
		t.Fatalf("a process whose Init failed ran (%v) or was closed (%d)", ran, failing.closes.Load())
	}
}

// TestUnknownPID: messages, completions and cancellations for PIDs that
// never existed fail with ErrNoProcess.
func TestUnknownPID(t *testing.T) {
	s := start(t, Config{})
	if err := s.Send(12345, "x"); !errors.Is(err, ErrNoProcess) {
		t.Fatalf("Send: %v", err)
	}
	if err := s.CompleteYield(12345, 1, nil, nil); !errors.Is(err, ErrNoProcess) {
		t.Fatalf("CompleteYield: %v", err)
	}
	if err := s.Cancel(12345, nil); !errors.Is(err, ErrNoProcess) {
		t.Fatalf("Cancel: %v", err)
	}
}
