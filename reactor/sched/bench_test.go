package sched

import (
	"context"
	"runtime"
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

type submitter interface {
	Submit(p Process, method string, input any) (PID, error)
}

// drive runs b.N yields' worth of processes (b.N/Total of them) through s
// with at most live in flight and returns the elapsed time.
func drive(b *testing.B, s submitter, exited chan struct{}, in yieldInput) time.Duration {
	procs := max(1, b.N/in.Total)
	b.ResetTimer()
	began := time.Now()
	for i := range procs {
		if i >= live {
			<-exited
		}
		if _, err := s.Submit(&benchProc{}, "bench", in); err != nil {
			b.Fatal(err)
		}
	}
	for range min(procs, live) {
		<-exited
	}
	elapsed := time.Since(began)
	b.StopTimer()
	b.ReportMetric(float64(procs*in.Total)/elapsed.Seconds(), "ops/s")
	return elapsed
}

// poolOps remembers the baseline's last ops/s per workload for the ratio.
var poolOps = map[string]float64{}

// BenchmarkSchedVsPool runs the same workloads on the scheduler and on the
// channel-fed pool with the same number of workers (GOMAXPROCS). An op is
// one yield: dispatched, completed, and the process stepped with it. The
// scheduler's sub-benchmark reports x-pool, its ops/s over the pool's.
func BenchmarkSchedVsPool(b *testing.B) {
	workers := runtime.GOMAXPROCS(0)
	for _, wl := range workloads {
		b.Run(wl.name+"/pool", func(b *testing.B) {
			h := newBenchHandler(workers)
			exited := make(chan struct{}, live)
			c := newChanPool(workers, live, h, func(PID, error) { exited <- struct{}{} })
			elapsed := drive(b, c, exited, wl.in)
			c.close()
			h.stop()
			poolOps[wl.name] = float64(max(1, b.N/wl.in.Total)*wl.in.Total) / elapsed.Seconds()
		})
		b.Run(wl.name+"/sched", func(b *testing.B) {
			h := newBenchHandler(workers)
			exited := make(chan struct{}, live)
			s := New(Config{Workers: workers, Handler: h, OnExit: func(PID, error) { exited <- struct{}{} }})
			elapsed := drive(b, s, exited, wl.in)
			if err := s.Shutdown(context.Background()); err != nil {
				b.Fatal(err)
			}
			h.stop()
			if base := poolOps[wl.name]; base > 0 {
				ops := float64(max(1, b.N/wl.in.Total)*wl.in.Total) / elapsed.Seconds()
				b.ReportMetric(ops/base, "x-pool")
			}
		})
	}
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
