package reactor

import (
	"context"
	"slices"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/xgr-sidecar/xgr/joinstore"
	"github.com/xgr-sidecar/xgr/registry"
	"github.com/xgr-sidecar/xgr/testenv"
)

// The owners of BenchmarkOwnerFairness.
const (
	victimOwner = "0x00000000000000000000000000000000000000a1"
	floodOwner  = "0x00000000000000000000000000000000000000f1"
)

// BenchmarkOwnerFairness measures what a flooding owner costs another
// owner (issue 40, fair scheduling across owners): one replica of
// --max-sessions 32 on one local redis-server, with an instant executor.
// A victim owner starts a 2-step session every 20 ms, first alone, then
// beside a flooding owner, in the same run; the benchmark reports the
// victim's start-to-finish latency (from just before its start to the
// replica's "session finished") at p50 and p99 both ways, and their
// ratio (flood/alone). Floods:
//
//   - sessions: 5000 sessions of the flooding owner, a 10-step chain
//     each, become due at once (more than the 16×256 due roots one read
//     of the root index returns), then the victim starts its sessions;
//   - forkbomb: the flooding owner starts the fork bomb
//     {"S1":{"rule":"x","onValid":{"spawns":["S1","S1"]}}} every 50 ms
//     under a live-process quota of 2000 (each bomb grows until the quota
//     kills it) while the victim starts its sessions.
//
// Run it with -benchtime=1x (each iteration is one whole run).
func BenchmarkOwnerFairness(b *testing.B) {
	for _, flood := range []string{"sessions", "forkbomb"} {
		b.Run("flood="+flood, func(b *testing.B) {
			for range b.N {
				benchOwnerFairness(b, flood)
			}
		})
	}
}

func benchOwnerFairness(b *testing.B, flood string) {
	parse := func(raw string) *registry.Orchestration {
		o, err := registry.Parse([]byte(raw))
		if err != nil {
			b.Fatal(err)
		}
		return o
	}
	victim := parse(`{"id":"victim2","structure":{"V1":{"rule":"x","onValid":{"spawns":["V2"]}},"V2":{"rule":"x"}}}`)
	chain := benchShapes(b)["chain10"]
	bomb := parse(`{"id":"bomb","structure":{"S1":{"rule":"x","onValid":{"spawns":["S1","S1"]}}}}`)
	srv := testenv.StartRedis(b)
	rdb := srv.Client()
	var quotas joinstore.Quotas
	if flood == "forkbomb" {
		quotas.Owners = map[string]joinstore.Quota{floodOwner: {LiveProcesses: 2000}}
	}
	store := joinstore.New(rdb, joinstore.Config{SessionTTL: time.Hour, ServerClock: true, Batch: joinstore.DefaultBatch, Quotas: quotas})
	store.Preload(context.Background())
	src := NewStaticSource(victim, chain, bomb)
	exec, _ := ParseOutcomes([]byte(`{"default":{"result":"valid"}}`))
	ctx := context.Background()

	var mu sync.Mutex
	started := map[joinstore.Root]time.Time{}
	finished := map[joinstore.Root]time.Duration{}
	var floodSteps atomic.Int64
	m := &Manager{Store: store, Source: src, Exec: exec, Replica: "bench", Poll: benchPoll, Log: discardLog(), MaxRoots: 32,
		OnEvent: func(r joinstore.Root, e Event) {
			if r.Owner == floodOwner && e.Type == "executed" {
				floodSteps.Add(1)
			}
		},
		Lifecycle: Lifecycle{Finished: func(r joinstore.Root, _ joinstore.SessionMeta) {
			if r.Owner != victimOwner {
				return
			}
			mu.Lock()
			defer mu.Unlock()
			if t, ok := started[r]; ok {
				finished[r] = time.Since(t)
			}
		}}}
	// The session flood is started before the replica runs (untimed), due
	// at floodAt: after the victim's first phase, all at once.
	var floodAt time.Time
	if flood == "sessions" {
		floodAt = time.Now().Add(12 * time.Second)
		var wg sync.WaitGroup
		errs := make(chan error, 8)
		for w := range 8 {
			wg.Add(1)
			go func() {
				defer wg.Done()
				for i := w; i < 5000; i += 8 {
					if _, err := Start(ctx, store, src, StartRequest{Owner: floodOwner, OstcID: chain.ID, Step: "S1", WakeAt: floodAt}, time.Now()); err != nil {
						errs <- err
						return
					}
				}
			}()
		}
		wg.Wait()
		close(errs)
		if err := <-errs; err != nil {
			b.Fatal(err)
		}
		if time.Until(floodAt) < 3*time.Second {
			b.Fatalf("starting the flood took until %v before it is due: too slow for the victim's first phase", time.Until(floodAt))
		}
		time.Sleep(time.Until(floodAt) - 3*time.Second)
	}
	runCtx, cancel := context.WithCancel(ctx)
	done := make(chan struct{})
	go func() { m.Run(runCtx); close(done) }()
	defer func() { cancel(); <-done }()

	const victims, every = 50, 20 * time.Millisecond
	// phase starts the victim's sessions steadily and waits until each
	// finished; it returns their latencies.
	phase := func() []time.Duration {
		var roots []joinstore.Root
		tick := time.NewTicker(every)
		defer tick.Stop()
		for range victims {
			<-tick.C
			mu.Lock() // the session may finish before its start is recorded otherwise
			t := time.Now()
			res, err := Start(ctx, store, src, StartRequest{Owner: victimOwner, OstcID: victim.ID, Step: "V1"}, t)
			if err != nil {
				mu.Unlock()
				b.Fatal(err)
			}
			started[res.Root] = t
			mu.Unlock()
			roots = append(roots, res.Root)
		}
		deadline := time.Now().Add(2 * time.Minute)
		for {
			mu.Lock()
			n := 0
			for _, r := range roots {
				if _, ok := finished[r]; ok {
					n++
				}
			}
			mu.Unlock()
			if n == len(roots) {
				break
			}
			if time.Now().After(deadline) {
				b.Fatalf("%d of %d victim sessions finished in 2 minutes", n, len(roots))
			}
			time.Sleep(10 * time.Millisecond)
		}
		mu.Lock()
		defer mu.Unlock()
		var lat []time.Duration
		for _, r := range roots {
			lat = append(lat, finished[r])
		}
		slices.Sort(lat)
		return lat
	}

	b.ResetTimer()
	alone := phase()
	stopFlood := make(chan struct{})
	floodDone := make(chan struct{})
	switch flood {
	case "sessions":
		if time.Now().After(floodAt) {
			b.Fatal("the victim's first phase ended after the flood became due")
		}
		time.Sleep(time.Until(floodAt))
		close(floodDone)
	case "forkbomb":
		go func() {
			defer close(floodDone)
			tick := time.NewTicker(50 * time.Millisecond)
			defer tick.Stop()
			for {
				select {
				case <-stopFlood:
					return
				case <-tick.C:
					// Over the quota the start is refused: the next tick tries again.
					Start(ctx, store, src, StartRequest{Owner: floodOwner, OstcID: bomb.ID, Step: "S1"}, time.Now())
				}
			}
		}()
		time.Sleep(500 * time.Millisecond) // the first bombs grow
	}
	floodStart := floodSteps.Load()
	flooded := phase()
	floodRan := floodSteps.Load() - floodStart
	close(stopFlood)
	<-floodDone
	b.StopTimer()
	pct := func(lat []time.Duration, p int) time.Duration { return lat[(len(lat)-1)*p/100] }
	for _, x := range []struct {
		name string
		lat  []time.Duration
	}{{"alone", alone}, {"flood", flooded}} {
		b.ReportMetric(float64(pct(x.lat, 50).Milliseconds()), x.name+"-p50-ms")
		b.ReportMetric(float64(pct(x.lat, 99).Milliseconds()), x.name+"-p99-ms")
	}
	b.ReportMetric(float64(pct(flooded, 50))/float64(pct(alone, 50)), "p50-factor")
	b.ReportMetric(float64(pct(flooded, 99))/float64(pct(alone, 99)), "p99-factor")
	b.ReportMetric(float64(floodRan), "flood-steps")
	b.Logf("flood steps before the victim's second phase %d, after %d; running %d", floodStart, floodSteps.Load(), m.Running())
	b.Logf("%s: victim alone p50 %v p99 %v; beside the flood p50 %v p99 %v (%d flood steps meanwhile)", flood, pct(alone, 50), pct(alone, 99), pct(flooded, 50), pct(flooded, 99), floodRan)
}
