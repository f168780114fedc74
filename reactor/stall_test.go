package reactor

import (
	"context"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/xgr-sidecar/xgr/joinstore"
	"github.com/xgr-sidecar/xgr/registry"
	"github.com/xgr-sidecar/xgr/testenv"
)

// A session whose orchestration the replica does not serve is not adopted
// again and again without a word: the replica records on the session why
// it cannot run it (stalled, stalledBy, stalls), gives the root process
// back un-claimed, and tries again only after a backoff that doubles per
// stall. A replica that serves the orchestration then runs it to the end
// and clears the record.
func TestUnservableSessionStallsWithBackoff(t *testing.T) {
	rdb := testenv.StartRedis(t).Client()
	store := joinstore.New(rdb, joinstore.Config{SessionTTL: time.Hour})
	o, err := registry.Parse([]byte(`{"id":"elsewhere","structure":{"S1":{"rule":"x","onValid":{"spawns":["S2"]}},"S2":{"rule":"x"}}}`))
	if err != nil {
		t.Fatal(err)
	}
	roots := startMany(t, store, NewStaticSource(o), o, 1)
	root := roots[0]
	exec, _ := ParseOutcomes([]byte(`{"default":{"result":"valid"}}`))

	var stalls atomic.Int64
	var mu sync.Mutex
	var kinds []string
	lease := 100 * time.Millisecond
	a := &Manager{Store: store, Source: NewStaticSource(), Exec: exec, Replica: "A", Poll: 5 * time.Millisecond,
		RootLease: lease, ProcLease: lease, Lifecycle: Lifecycle{Stalled: func(r joinstore.Root, kind string) {
			if r == root {
				stalls.Add(1)
				mu.Lock()
				kinds = append(kinds, kind)
				mu.Unlock()
			}
		}}}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() { defer close(done); a.Run(ctx) }()
	// Backoffs 1 s (a lease, at least a second), 2 s, 4 s: within 1.2 s
	// one or two tries (a replica that retried each lease period would
	// make ~12).
	time.Sleep(1200 * time.Millisecond)
	cancel()
	<-done
	n := stalls.Load()
	if n < 1 || n > 2 {
		t.Fatalf("%d stalls in 1.2 s with a 100 ms lease: want 1 or 2 (a backoff of at least a second, doubling)", n)
	}
	mu.Lock()
	if kinds[0] != StallUnknownOrchestration {
		t.Errorf("stall kind %q, want %q", kinds[0], StallUnknownOrchestration)
	}
	mu.Unlock()
	meta, err := store.SessionMeta(context.Background(), root)
	if err != nil {
		t.Fatal(err)
	}
	if meta.Stalled == "" || meta.StalledBy != "A" || meta.Stalls != n || meta.StalledAt.IsZero() || meta.Status != joinstore.SessionLive {
		t.Fatalf("meta after the stalls: %+v", meta)
	}
	// The root process was given back, not left claimed under a lease.
	due, _, _, err := store.Due(context.Background(), root, time.Now().Add(time.Hour), 10)
	if err != nil || len(due) != 1 {
		t.Fatalf("due set of the stalled session: %v %v, want its root process", due, err)
	}

	// A replica that serves it (after the backoff) runs it and clears the stall.
	b := &Manager{Store: store, Source: NewStaticSource(o), Exec: exec, Replica: "B", Poll: 5 * time.Millisecond, RootLease: lease, ProcLease: lease}
	ctx, cancel = context.WithCancel(context.Background())
	defer cancel()
	go b.Run(ctx)
	waitFinished(t, store, roots, 20*time.Second)
	if meta, err = store.SessionMeta(context.Background(), root); err != nil || meta.Stalled != "" || meta.Stalls != 0 || meta.Steps != 2 {
		t.Fatalf("after B ran it: %+v %v, want the stall cleared and both steps committed", meta, err)
	}
}
