package reactor

import (
	"context"
	"runtime"
	"sync"
	"testing"
	"time"
)

// The pool runs every function once, keeps its goroutines for the next
// ones instead of starting one per call, and lets them go when its context
// ends.
func TestIOPoolReusesGoroutines(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	p := newIOPool(ctx)
	base := runtime.NumGoroutine()
	var mu sync.Mutex
	ran := map[int]int{}
	for round := 0; round < 50; round++ {
		var wg sync.WaitGroup
		for i := 0; i < 8; i++ {
			wg.Add(1)
			i := round*8 + i
			p.run(func() {
				defer wg.Done()
				time.Sleep(100 * time.Microsecond)
				mu.Lock()
				ran[i]++
				mu.Unlock()
			})
		}
		wg.Wait()
		// Wait until the goroutines are idle again, so the next round can
		// find them (the pool never waits for one).
		waitFor(t, func() bool { return p.idle.Load() >= 8 })
	}
	if len(ran) != 400 {
		t.Fatalf("%d of 400 functions ran", len(ran))
	}
	for i, n := range ran {
		if n != 1 {
			t.Fatalf("function %d ran %d times", i, n)
		}
	}
	// 400 calls, 8 at a time: the pool kept the 8 goroutines of the first
	// round (a few more when a round came before one went idle), not 400.
	if g := runtime.NumGoroutine() - base; g > 16 {
		t.Fatalf("%d goroutines more than before 400 calls in rounds of 8: want at most 16", g)
	}
	cancel()
	waitFor(t, func() bool { return p.idle.Load() == 0 && runtime.NumGoroutine() <= base })
}

func waitFor(t *testing.T, cond func() bool) {
	t.Helper()
	for deadline := time.Now().Add(5 * time.Second); !cond(); {
		if time.Now().After(deadline) {
			t.Fatal("condition not reached in 5s")
		}
		time.Sleep(time.Millisecond)
	}
}
