package sched

import (
	"context"
	"runtime"
	"slices"
	"sync"
	"testing"
	"time"
)

// benchProc is a short state machine: Total yields, Width outstanding at a
// time, each completed as Modes[tag % len(Modes)] says.
type benchProc struct {
	in           yieldInput
	issued, done int
}

func (p *benchProc) Init(_ context.Context, _ string, input any) error {
	p.in = input.(yieldInput)
	return nil
}

func (p *benchProc) Step(events []Event, out *StepOutput) error {
	p.done += len(events)
	if p.done == p.in.Total {
		out.Status = StatusComplete
		return nil
	}
	for p.issued-p.done < p.in.Width && p.issued < p.in.Total {
		out.Yield(uint64(p.issued), p.in.Modes[p.issued%len(p.in.Modes)])
		p.issued++
	}
	out.Status = StatusBlocked
	return nil
}

func (p *benchProc) Close() {}

// benchHandler completes yields inside Dispatch or from its goroutines.
type benchHandler struct {
	async chan asyncJob
	wg    sync.WaitGroup
}

func newBenchHandler(goroutines int) *benchHandler {
	h := &benchHandler{async: make(chan asyncJob, 4096)}
	h.wg.Add(goroutines)
	for range goroutines {
		go func() {
			defer h.wg.Done()
			for j := range h.async {
				j.c.CompleteYield(j.pid, j.tag, nil, nil)
			}
		}()
	}
	return h
}

func (h *benchHandler) stop() {
	close(h.async)
	h.wg.Wait()
}

func (h *benchHandler) Dispatch(c Completer, pid PID, y Yield) {
	if y.Command.(completion) == completeSync {
		c.CompleteYield(pid, y.Tag, nil, nil)
		return
	}
	h.async <- asyncJob{c, pid, y.Tag}
}

// workload is one benchmark: many short state machines, a bounded number
// of them live at once.
type workload struct {
	name string
	in   yieldInput
}

var workloads = []workload{
	{"sync", yieldInput{Total: 10, Width: 1, Modes: []completion{completeSync}}},
	{"async", yieldInput{Total: 10, Width: 1, Modes: []completion{completeAsync}}},
	{"mixed", yieldInput{Total: 12, Width: 3, Modes: []completion{completeSync, completeAsync, completeSync}}},
}

// live bounds the processes in flight, like a session manager's sessions.
const live = 4096

// engine is a scheduler or the baseline pool, started with a handler and an
// exit callback; stop ends it and its handler.
type engine struct {
	submit func(p Process, method string, input any) (PID, error)
	stop   func()
}

func startSched(workers int, onExit func(PID, error)) engine {
	h := newBenchHandler(workers)
	s := New(Config{Workers: workers, Handler: h, OnExit: onExit})
	return engine{s.Submit, func() {
		if err := s.Shutdown(context.Background()); err != nil {
			panic(err)
		}
		h.stop()
	}}
}

func startPool(workers int, onExit func(PID, error)) engine {
	h := newBenchHandler(workers)
	c := newChanPool(workers, live, h, onExit)
	return engine{c.Submit, func() { c.close(); h.stop() }}
}

// run starts an engine, pushes procs processes of the workload through it
// with at most live in flight, stops it, and returns the yields per second
// between the first Submit and the last exit.
func run(start func(int, func(PID, error)) engine, in yieldInput, procs int) float64 {
	exited := make(chan struct{}, live)
	e := start(runtime.GOMAXPROCS(0), func(PID, error) { exited <- struct{}{} })
	defer e.stop()
	began := time.Now()
	for i := range procs {
		if i >= live {
			<-exited
		}
		if _, err := e.submit(&benchProc{}, "bench", in); err != nil {
			panic(err)
		}
	}
	for range min(procs, live) {
		<-exited
	}
	return float64(procs*in.Total) / time.Since(began).Seconds()
}

// BenchmarkSchedVsPool runs each workload on the scheduler and on the
// channel-fed pool with the same number of workers (GOMAXPROCS). An op is
// one yield: dispatched, completed, and its process stepped with it.
func BenchmarkSchedVsPool(b *testing.B) {
	for _, wl := range workloads {
		for _, impl := range []struct {
			name  string
			start func(int, func(PID, error)) engine
		}{{"pool", startPool}, {"sched", startSched}} {
			b.Run(wl.name+"/"+impl.name, func(b *testing.B) {
				ops := run(impl.start, wl.in, max(1, b.N/wl.in.Total))
				b.ReportMetric(ops, "ops/s")
			})
		}
	}
}

// BenchmarkSchedVsPoolPaired measures the ratio robustly on a shared
// machine: per workload it alternates rounds of pool and scheduler (which
// goes first alternates too) and reports the median ops/s of each and the
// median of the per-round ratios, x-pool = scheduler / pool. One b.N op is
// one yield on each of the two.
func BenchmarkSchedVsPoolPaired(b *testing.B) {
	const rounds = 10
	for _, wl := range workloads {
		b.Run(wl.name, func(b *testing.B) {
			procs := max(1, b.N/rounds/wl.in.Total)
			var pool, sched, ratio []float64
			for r := range rounds {
				var p, s float64
				if r%2 == 0 {
					p, s = run(startPool, wl.in, procs), run(startSched, wl.in, procs)
				} else {
					s, p = run(startSched, wl.in, procs), run(startPool, wl.in, procs)
				}
				pool, sched, ratio = append(pool, p), append(sched, s), append(ratio, s/p)
			}
			b.ReportMetric(median(pool), "pool-ops/s")
			b.ReportMetric(median(sched), "sched-ops/s")
			b.ReportMetric(median(ratio), "x-pool")
		})
	}
}

func median(xs []float64) float64 {
	xs = slices.Clone(xs)
	slices.Sort(xs)
	if n := len(xs); n%2 == 1 {
		return xs[n/2]
	}
	return (xs[len(xs)/2-1] + xs[len(xs)/2]) / 2
}

func BenchmarkDequePushPop(b *testing.B) {
	d := newDeque[int](minDequeSize)
	v := new(int)
	for b.Loop() {
		d.push(v)
		d.pop()
	}
}

func BenchmarkDequeStealHalf(b *testing.B) {
	src, dst := newDeque[int](minDequeSize), newDeque[int](minDequeSize)
	v := new(int)
	for b.Loop() {
		for range 8 {
			src.push(v)
		}
		for src.stealHalfInto(dst) > 0 {
		}
		for dst.pop() != nil {
		}
	}
}

func BenchmarkEventQueue(b *testing.B) {
	var q eventQueue
	q.init()
	var buf []Event
	for b.Loop() {
		q.push(Event{Type: EventMessage})
		buf, _ = q.drainInto(buf[:0], maxStepEvents)
	}
}
