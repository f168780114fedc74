package reactor

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/xgr-sidecar/xgr/joinstore"
	"github.com/xgr-sidecar/xgr/reactor/sched"
)

// heldActor stands in for a root actor a replica holds: it waits for
// messages and ends when it is cancelled (a drain), as a root actor whose
// session has nothing in flight does.
type heldActor struct{}

func (heldActor) Init(context.Context, string, any) error { return nil }
func (heldActor) Close()                                  {}
func (heldActor) Step(events []sched.Event, out *sched.StepOutput) error {
	for _, e := range events {
		if e.Type == sched.EventCancel {
			out.Status = sched.StatusComplete
			return nil
		}
	}
	out.Status = sched.StatusIdle
	return nil
}

func heldRoot(i int) joinstore.Root {
	return joinstore.Root{Owner: "0x00000000000000000000000000000000000000be", RootPid: int64(i + 1)}
}

// heldSizes are the numbers of sessions a replica holds in the exit
// benchmarks (issue 46: 1k to 100k).
var heldSizes = []int{1_000, 10_000, 100_000}

// BenchmarkManagerExit is the manager's cost of one actor's exit (the
// scheduler's OnExit) while it holds held sessions: each iteration one
// actor exits and its session is taken again, so held stays constant. It
// is O(1): ns/op is flat from 1k to 100k held.
func BenchmarkManagerExit(b *testing.B) {
	for _, n := range heldSizes {
		b.Run(fmt.Sprintf("held=%d", n), func(b *testing.B) {
			m := &Manager{Log: discardLog(), MaxRoots: n}
			m.defaults()
			m.mu.Lock()
			for i := range n {
				m.track(heldRoot(i), sched.PID(i+1))
			}
			m.mu.Unlock()
			b.ReportAllocs()
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				k := i % n
				m.exited(sched.PID(k+1), nil)
				m.mu.Lock()
				m.track(heldRoot(k), sched.PID(k+1))
				m.mu.Unlock()
			}
			b.StopTimer()
			if got := m.Running(); got != n {
				b.Fatalf("holds %d sessions; want %d", got, n)
			}
		})
	}
}

// BenchmarkManagerDrain drains a replica that holds held sessions: every
// actor runs on the scheduler, the drain (Shutdown) cancels them all and
// each exit goes through the manager's OnExit. It reports the drain's time
// per session (ns/session), which is flat from 1k to 100k held when exits
// are O(1). (No Redis: the hand-backs of real actors are the same per
// session at any N; this is what grows with N.)
func BenchmarkManagerDrain(b *testing.B) {
	for _, n := range heldSizes {
		b.Run(fmt.Sprintf("held=%d", n), func(b *testing.B) {
			var total time.Duration
			for i := 0; i < b.N; i++ {
				b.StopTimer()
				m := &Manager{Log: discardLog()}
				m.defaults()
				m.sched = sched.New(sched.Config{OnExit: m.exited})
				for j := range n {
					m.mu.Lock()
					pid, err := m.sched.Submit(heldActor{}, "run", nil)
					if err == nil {
						m.track(heldRoot(j), pid)
					}
					m.mu.Unlock()
					if err != nil {
						b.Fatal(err)
					}
				}
				b.StartTimer()
				start := time.Now()
				if err := m.sched.Shutdown(context.Background()); err != nil {
					b.Fatal(err)
				}
				total += time.Since(start)
				b.StopTimer()
				if got := m.Running(); got != 0 {
					b.Fatalf("%d sessions left after the drain", got)
				}
				b.StartTimer()
			}
			b.ReportMetric(float64(total.Nanoseconds())/float64(b.N*n), "ns/session")
			b.ReportMetric(total.Seconds()/float64(b.N), "s/drain")
		})
	}
}

// An exit forgets exactly its own session, frees its slot once (not again
// for one that was leaving), and a pid the manager never tracked changes
// nothing.
func TestExitedByPid(t *testing.T) {
	m := &Manager{Log: discardLog(), MaxRoots: 3}
	m.defaults()
	m.mu.Lock()
	for i := range 3 {
		m.track(heldRoot(i), sched.PID(i+10))
	}
	m.mu.Unlock()
	m.leave(heldRoot(1))
	<-m.room // leave freed a slot
	m.exited(sched.PID(11), nil)
	select {
	case <-m.room:
		t.Fatal("the exit of a leaving actor freed its slot again")
	default:
	}
	m.exited(sched.PID(99), nil)
	if m.Running() != 2 || len(m.roots) != 2 || len(m.leaving) != 0 {
		t.Fatalf("after one exit: %d actors, %d pids, %d leaving; want 2, 2, 0", m.Running(), len(m.roots), len(m.leaving))
	}
	m.exited(sched.PID(10), nil)
	<-m.room
	m.mu.Lock()
	_, held0 := m.actors[heldRoot(0)]
	_, held2 := m.actors[heldRoot(2)]
	m.mu.Unlock()
	if held0 || !held2 || len(m.roots) != 1 {
		t.Fatalf("after exits of pids 10 and 11: root 0 held %v, root 2 held %v, %d pids", held0, held2, len(m.roots))
	}
	// A session taken again under a new pid: the old pid's late exit
	// leaves the new actor alone.
	m.mu.Lock()
	m.track(heldRoot(0), sched.PID(20))
	m.roots[sched.PID(10)] = heldRoot(0)
	m.mu.Unlock()
	m.exited(sched.PID(10), nil)
	m.mu.Lock()
	pid := m.actors[heldRoot(0)]
	m.mu.Unlock()
	if pid != 20 {
		t.Fatalf("root 0's actor is pid %d after a stale exit; want 20", pid)
	}
}
