package sched

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// exits collects OnExit reports and waits for an expected number of them.
type exits struct {
	mu    sync.Mutex
	errs  map[PID]error
	times map[PID]int
	want  int
	all   chan struct{}
}

func newExits(want int) *exits {
	e := &exits{errs: map[PID]error{}, times: map[PID]int{}, want: want, all: make(chan struct{})}
	if want == 0 {
		close(e.all)
	}
	return e
}

func (e *exits) onExit(pid PID, err error) {
	e.mu.Lock()
	defer e.mu.Unlock()
	e.times[pid]++
	e.errs[pid] = err
	if len(e.times) == e.want && e.times[pid] == 1 {
		close(e.all)
	}
}

// wait waits for every expected exit and checks each came once and
// without error (unless allowed by the caller afterwards).
func (e *exits) wait(t *testing.T, s *Scheduler, timeout time.Duration) {
	t.Helper()
	select {
	case <-e.all:
	case <-time.After(timeout):
		e.mu.Lock()
		n := len(e.times)
		e.mu.Unlock()
		t.Fatalf("only %d of %d processes finished within %v; stats %+v", n, e.want, timeout, s.Stats())
	}
	e.mu.Lock()
	defer e.mu.Unlock()
	for pid, n := range e.times {
		if n != 1 {
			t.Fatalf("process %d exited %d times", pid, n)
		}
	}
}

func (e *exits) err(pid PID) error {
	e.mu.Lock()
	defer e.mu.Unlock()
	return e.errs[pid]
}

func (e *exits) noErrors(t *testing.T) {
	t.Helper()
	e.mu.Lock()
	defer e.mu.Unlock()
	for pid, err := range e.errs {
		if err != nil {
			t.Fatalf("process %d: %v", pid, err)
		}
	}
}

// completion says how the test handler completes a yield.
type completion uint8

const (
	completeSync  completion = iota // inside Dispatch
	completeAsync                   // from one of the handler's goroutines
	completeLater                   // from a timer, after the workers went idle
	completeNever                   // not at all (cancellation tests)
)

// errYield is the error the handler completes every seventh yield with.
var errYield = errors.New("yield failed")

// result is what the handler completes yield tag with: an error for every
// seventh tag, tag*3 otherwise.
func result(tag uint64) (any, error) {
	if tag%7 == 0 {
		return nil, errYield
	}
	return tag * 3, nil
}

type asyncJob struct {
	c   Completer
	pid PID
	tag uint64
}

// testHandler completes yields as their command asks.
type testHandler struct {
	async    chan asyncJob
	failures atomic.Int64 // CompleteYield calls that failed
	never    sync.Map     // PID → tag of yields kept back
	wg       sync.WaitGroup
}

func newTestHandler(t *testing.T, goroutines int) *testHandler {
	h := &testHandler{async: make(chan asyncJob, 1024)}
	for range goroutines {
		h.wg.Add(1)
		go func() {
			defer h.wg.Done()
			for j := range h.async {
				h.complete(j.c, j.pid, j.tag)
			}
		}()
	}
	t.Cleanup(func() {
		close(h.async)
		h.wg.Wait()
		if n := h.failures.Load(); n != 0 {
			t.Errorf("%d CompleteYield calls failed", n)
		}
	})
	return h
}

func (h *testHandler) complete(c Completer, pid PID, tag uint64) {
	data, err := result(tag)
	if c.CompleteYield(pid, tag, data, err) != nil {
		h.failures.Add(1)
	}
}

func (h *testHandler) Dispatch(c Completer, pid PID, y Yield) {
	switch y.Command.(completion) {
	case completeSync:
		h.complete(c, pid, y.Tag)
	case completeAsync:
		h.async <- asyncJob{c, pid, y.Tag}
	case completeLater:
		time.AfterFunc(time.Duration(y.Tag%5)*100*time.Microsecond, func() { h.complete(c, pid, y.Tag) })
	case completeNever:
		h.never.Store(pid, y.Tag)
	}
}

// yieldInput configures a yielder.
type yieldInput struct {
	Total int          // yields to complete
	Width int          // yields outstanding at once (≥ 1)
	Modes []completion // the handler mode of tag t is Modes[t % len(Modes)]
}

// yielder issues Total yields, Width at a time, and checks every
// completion: each tag exactly once, with the handler's result.
type yielder struct {
	in      yieldInput
	pid     PID
	issued  int
	done    int
	pending map[uint64]bool
	steps   int
	last    Status
	closes  atomic.Int32
}

func (y *yielder) Init(ctx context.Context, method string, input any) error {
	if method != "yield" {
		return fmt.Errorf("unknown method %q", method)
	}
	in, ok := input.(yieldInput)
	if !ok || in.Width < 1 || len(in.Modes) == 0 {
		return fmt.Errorf("bad input %#v", input)
	}
	y.in, y.pending = in, map[uint64]bool{}
	y.pid, _ = PIDOf(ctx)
	return nil
}

func (y *yielder) Step(events []Event, out *StepOutput) error {
	y.steps++
	if y.steps > 1 && len(events) == 0 && y.last != StatusRunning {
		return fmt.Errorf("step %d without events while %v", y.steps, y.last)
	}
	for _, e := range events {
		switch e.Type {
		case EventYieldComplete:
			if !y.pending[e.Tag] {
				return fmt.Errorf("completion of tag %d, which is not pending", e.Tag)
			}
			data, err := result(e.Tag)
			if e.Data != data || !errors.Is(e.Error, err) {
				return fmt.Errorf("tag %d completed with %v, %v; want %v, %v", e.Tag, e.Data, e.Error, data, err)
			}
			delete(y.pending, e.Tag)
			y.done++
		case EventCancel:
			out.Status = StatusComplete
			return nil
		default:
			return fmt.Errorf("unexpected event %v", e.Type)
		}
	}
	if y.done == y.in.Total {
		out.Status = StatusComplete
		return nil
	}
	for len(y.pending) < y.in.Width && y.issued < y.in.Total {
		y.issued++
		tag := uint64(y.issued)
		y.pending[tag] = true
		out.Yield(tag, y.in.Modes[(tag+uint64(y.pid))%uint64(len(y.in.Modes))])
	}
	out.Status = StatusBlocked
	y.last = out.Status
	return nil
}

func (y *yielder) Close() { y.closes.Add(1) }

// ping is the message of the ping-pong test.
type ping struct {
	From PID
	Seq  int
}

type pingInput struct {
	Partner PID // 0 for the responder, which learns it from the first ping
	Rounds  int
}

// pinger plays ping-pong by PID: the initiator sends Seq 0, the responder
// echoes every ping, the initiator sends the next one after each echo.
type pinger struct {
	s       *Scheduler
	self    PID
	in      pingInput
	seen    int
	started bool
	closes  atomic.Int32
}

func (p *pinger) Init(ctx context.Context, method string, input any) error {
	if method != "ping" {
		return fmt.Errorf("unknown method %q", method)
	}
	p.in = input.(pingInput)
	p.self, _ = PIDOf(ctx)
	return nil
}

func (p *pinger) Step(events []Event, out *StepOutput) error {
	out.Status = StatusIdle
	if !p.started {
		p.started = true
		if p.in.Partner != 0 {
			return p.s.Send(p.in.Partner, ping{From: p.self, Seq: 0})
		}
	}
	for _, e := range events {
		if e.Type == EventCancel {
			out.Status = StatusComplete
			return nil
		}
		m, ok := e.Data.(ping)
		if e.Type != EventMessage || !ok || m.Seq != p.seen {
			return fmt.Errorf("process %d: got %v %#v, want ping %d", p.self, e.Type, e.Data, p.seen)
		}
		p.seen++
		if p.in.Partner == 0 { // responder
			if err := p.s.Send(m.From, m); err != nil {
				return err
			}
		} else if p.seen < p.in.Rounds {
			if err := p.s.Send(p.in.Partner, ping{From: p.self, Seq: p.seen}); err != nil {
				return err
			}
		}
		if p.seen == p.in.Rounds {
			out.Status = StatusComplete
		}
	}
	return nil
}

func (p *pinger) Close() { p.closes.Add(1) }

// funcProc is a process made of functions, for small cases.
type funcProc struct {
	init   func(ctx context.Context, method string, input any) error
	step   func(events []Event, out *StepOutput) error
	closes atomic.Int32
}

func (f *funcProc) Init(ctx context.Context, method string, input any) error {
	if f.init == nil {
		return nil
	}
	return f.init(ctx, method, input)
}

func (f *funcProc) Step(events []Event, out *StepOutput) error { return f.step(events, out) }
func (f *funcProc) Close()                                     { f.closes.Add(1) }
