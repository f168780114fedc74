package sched

import (
	"context"
	"sync"
	"sync/atomic"
)

// chanPool is the benchmarks' baseline: the plain design a scheduler for
// these processes would start from. A fixed number of workers receive
// runnable processes from one buffered channel; each process has a mutex
// around its pending events and a flag saying a worker owns it or it is in
// the channel. Same semantics as Scheduler (routing by PID, synchronous
// and asynchronous completion, re-run on events that arrive during a step).
type chanPool struct {
	work   chan *poolProc
	procs  sync.Map // PID → *poolProc
	next   atomic.Uint64
	h      Handler
	onExit func(PID, error)
	wg     sync.WaitGroup
}

type poolProc struct {
	pid PID
	p   Process

	mu       sync.Mutex
	events   []Event
	queued   bool // in the channel or owned by a worker
	complete bool
	last     Status
}

// newChanPool starts workers; capacity must be at least the number of
// processes live at once (each is in the channel at most once, so sends
// never block and workers cannot deadlock on them).
func newChanPool(workers, capacity int, h Handler, onExit func(PID, error)) *chanPool {
	c := &chanPool{work: make(chan *poolProc, capacity), h: h, onExit: onExit}
	c.wg.Add(workers)
	for range workers {
		go c.worker()
	}
	return c
}

func (c *chanPool) Submit(p Process, method string, input any) (PID, error) {
	pid := PID(c.next.Add(1))
	if err := p.Init(context.Background(), method, input); err != nil {
		return 0, err
	}
	pp := &poolProc{pid: pid, p: p, queued: true}
	c.procs.Store(pid, pp)
	c.work <- pp
	return pid, nil
}

func (c *chanPool) CompleteYield(pid PID, tag uint64, data any, err error) error {
	v, ok := c.procs.Load(pid)
	if !ok {
		return ErrNoProcess
	}
	pp := v.(*poolProc)
	pp.mu.Lock()
	if pp.complete {
		pp.mu.Unlock()
		return ErrNoProcess
	}
	pp.events = append(pp.events, Event{Type: EventYieldComplete, Tag: tag, Data: data, Error: err})
	wake := !pp.queued
	pp.queued = true
	pp.mu.Unlock()
	if wake {
		c.work <- pp
	}
	return nil
}

func (c *chanPool) close() {
	close(c.work)
	c.wg.Wait()
}

func (c *chanPool) worker() {
	defer c.wg.Done()
	var buf []Event
	var out StepOutput
	for pp := range c.work {
		pp.mu.Lock()
		events := pp.events
		pp.events = buf[:0]
		pp.mu.Unlock()

		status := pp.last
		var err error
		if len(events) > 0 || status == StatusRunning || status == 0 {
			out.reset()
			err = pp.p.Step(events, &out)
			status = out.Status
			if err != nil {
				status = StatusComplete
			}
			pp.last = status
			for _, y := range out.Yields {
				c.h.Dispatch(c, pp.pid, y)
			}
		}
		clear(events)
		buf = events

		pp.mu.Lock()
		requeue := status == StatusRunning || (status != StatusComplete && len(pp.events) > 0)
		pp.queued = requeue
		pp.complete = status == StatusComplete
		pp.mu.Unlock()
		switch {
		case requeue:
			c.work <- pp
		case status == StatusComplete:
			c.procs.Delete(pp.pid)
			pp.p.Close()
			if c.onExit != nil {
				c.onExit(pp.pid, err)
			}
		}
	}
}
