package reactor

import (
	"context"
	"sync"
	"testing"
	"time"

	"github.com/xgr-sidecar/xgr/joinstore"
	"github.com/xgr-sidecar/xgr/registry"
	"github.com/xgr-sidecar/xgr/testenv"
)

// The Lifecycle hooks see a crash as operators need it: replica B adopts
// sessions of the halted replica A naming A as the previous holder with
// the processes A left in flight, and every session's finish is reported
// exactly once, by the replica that finished it.
func TestLifecycleReportsTakeoverAndFinish(t *testing.T) {
	rdb := testenv.StartRedis(t).Client()
	store := joinstore.New(rdb, joinstore.Config{SessionTTL: time.Hour})
	o, err := registry.Parse([]byte(`{"id":"chain","structure":{
  "S1":{"rule":"x","onValid":{"spawns":["S2"]}},"S2":{"rule":"x","onValid":{"spawns":["S3"]}},"S3":{"rule":"x"}}}`))
	if err != nil {
		t.Fatal(err)
	}
	src := NewStaticSource(o)
	exec, _ := ParseOutcomes([]byte(`{"default":{"result":"valid"}}`))
	roots := startMany(t, store, src, o, 20)

	var mu sync.Mutex
	finished := map[joinstore.Root]int{}
	type adoption struct {
		previous  string
		recovered int
	}
	var takeovers []adoption
	life := func(name string) Lifecycle {
		return Lifecycle{
			Adopted: func(r joinstore.Root, previous string, recovered int) {
				if recovered > 0 && name == "B" {
					mu.Lock()
					takeovers = append(takeovers, adoption{previous, recovered})
					mu.Unlock()
				}
			},
			Finished: func(r joinstore.Root, _ joinstore.SessionMeta) {
				mu.Lock()
				finished[r]++
				mu.Unlock()
			},
		}
	}
	slowA := &slowExec{inner: exec, delay: 30 * time.Millisecond}
	mk := func(name string, e Executor) *Manager {
		return &Manager{Store: store, Source: src, Exec: e, Replica: name, Poll: 10 * time.Millisecond,
			RootLease: 300 * time.Millisecond, ProcLease: 300 * time.Millisecond, Lifecycle: life(name)}
	}
	a, b := mk("A", slowA), mk("B", exec)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	var wg sync.WaitGroup
	wg.Add(1)
	go func() { defer wg.Done(); a.Run(ctx) }()
	for slowA.runs.Load() < 10 {
		time.Sleep(5 * time.Millisecond)
	}
	a.Halt() // a crash: nothing committed or given back
	wg.Add(1)
	go func() { defer wg.Done(); b.Run(ctx) }()
	waitFinished(t, store, roots, 60*time.Second)
	// The last finishes are reported as the sessions are handed back.
	deadline := time.Now().Add(10 * time.Second)
	for {
		mu.Lock()
		n := len(finished)
		mu.Unlock()
		if n == len(roots) || time.Now().After(deadline) {
			break
		}
		time.Sleep(10 * time.Millisecond)
	}
	cancel()
	wg.Wait()
	mu.Lock()
	defer mu.Unlock()
	if len(takeovers) == 0 {
		t.Fatal("no takeover reported after A crashed with steps in flight")
	}
	for _, tk := range takeovers {
		if tk.previous != "A" || tk.recovered < 1 {
			t.Errorf("takeover %+v: want previous A and at least one recovered process", tk)
		}
	}
	if len(finished) != len(roots) {
		t.Errorf("%d of %d sessions reported finished", len(finished), len(roots))
	}
	for r, n := range finished {
		if n != 1 {
			t.Errorf("session %s reported finished %d times", r, n)
		}
	}
}
