package benchmark

import (
	"sync"
	"sync/atomic"
	"time"

	"github.com/xgr-sidecar/xgr/joinstore"
	"github.com/xgr-sidecar/xgr/reactor"
)

// stepClock records the replicas' timelines for a bench run: it counts
// executed steps and measures each one's latency, from the moment the step
// became runnable to the moment its result is handed to its commit.
//
// A step becomes runnable when its parent's commit returned (the "spawned"
// event, emitted after the commit) or, for a join target, when its join
// closed ("join_closed"); a session's first step, which was started before
// the clock, counts from its claim. The "executed" event is emitted just
// before the step's commit, so the latency covers the claim round trip,
// the execution and any wait for the session's store turn, but not the
// step's own commit round trip (which is in its children's wait instead).
type stepClock struct {
	steps atomic.Int64

	mu        sync.Mutex
	runnable  map[string]time.Time // pid → when it became runnable
	latencies []time.Duration
}

func newStepClock() *stepClock { return &stepClock{runnable: map[string]time.Time{}} }

// onEvent is the replicas' Manager.OnEvent. Pids are unique within the
// bench because all its sessions have one owner.
func (s *stepClock) onEvent(_ joinstore.Root, e reactor.Event) {
	now := time.Now()
	switch e.Type {
	case "spawned", "join_closed":
		s.mu.Lock()
		s.runnable[e.Pid] = now
		s.mu.Unlock()
	case "claimed":
		s.mu.Lock()
		if _, ok := s.runnable[e.Pid]; !ok {
			s.runnable[e.Pid] = now
		}
		s.mu.Unlock()
	case "executed":
		s.steps.Add(1)
		s.mu.Lock()
		if t, ok := s.runnable[e.Pid]; ok {
			s.latencies = append(s.latencies, now.Sub(t))
			delete(s.runnable, e.Pid)
		}
		s.mu.Unlock()
	}
}

// measured returns a copy of the latencies so far.
func (s *stepClock) measured() []time.Duration {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]time.Duration(nil), s.latencies...)
}
