package sched

import (
	"sync"
	"sync/atomic"
)

// parking puts workers without work to sleep on a condition variable and
// wakes them when work appears, without ever leaving work stranded while
// workers sleep. The protocol (after the Go runtime's spinning Ms):
//
//   - A worker that finds no work counts itself spinning while it keeps
//     looking. To sleep it takes the lock, counts itself a sleeper instead,
//     and looks at every queue once more; only if all are empty does it
//     wait.
//   - Whoever makes work available (a push onto the global queue, or a
//     worker's deque holding more than the item it runs next) first
//     publishes it and then calls wake: if there are sleepers and nobody is
//     spinning, one sleeper is signalled and counted as spinning at once,
//     so a burst of pushes wakes one worker rather than all.
//   - A spinning worker that finds work stops spinning; if it was the last
//     spinner and work is still visible it calls wake, so a batch it
//     brought into its deque gets a thief.
//
// Counters and queues are sequentially consistent atomics, so in the pair
// "publish work, then read the counters" against "count as sleeper, then
// read the queues" at least one side sees the other: either the waker
// signals, or a spinner exists that will either find the work or re-check
// the queues before it sleeps, or the sleeper sees the work and stays up.
type parking struct {
	mu   sync.Mutex
	cond sync.Cond
	// sleepers counts workers waiting and not yet signalled; it changes
	// only under mu.
	sleepers atomic.Int32
	// spinning counts workers looking for work, including a signalled
	// worker that has not yet started looking.
	spinning atomic.Int32
	stop     atomic.Bool
}

func (k *parking) init() { k.cond.L = &k.mu }

// wake signals one sleeping worker if there are sleepers and none spins.
func (k *parking) wake() {
	if k.sleepers.Load() == 0 || k.spinning.Load() != 0 {
		return
	}
	k.mu.Lock()
	if k.sleepers.Load() > 0 && k.spinning.Load() == 0 {
		k.sleepers.Add(-1)
		k.spinning.Add(1) // on behalf of the worker we wake
		k.cond.Signal()
	}
	k.mu.Unlock()
}

// sleep is called by a spinning worker that found nothing. It returns
// without waiting if work became visible or the scheduler stops, and
// otherwise when signalled (the worker is then counted spinning again) or
// stopped. It reports whether it waited.
func (k *parking) sleep(workVisible func() bool) bool {
	k.mu.Lock()
	defer k.mu.Unlock()
	k.sleepers.Add(1)
	k.spinning.Add(-1)
	if k.stop.Load() || workVisible() {
		k.sleepers.Add(-1)
		k.spinning.Add(1)
		return false
	}
	k.cond.Wait()
	return true
}

// halt makes every worker's next look for work fail and wakes all sleepers.
func (k *parking) halt() {
	k.stop.Store(true)
	k.mu.Lock()
	k.cond.Broadcast()
	k.mu.Unlock()
}
