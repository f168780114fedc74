package reactor

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/xgr-sidecar/xgr/joinstore"
	"github.com/xgr-sidecar/xgr/registry"
	"github.com/xgr-sidecar/xgr/testenv"
)

// slowExec wraps an executor with a fixed execution time.
type slowExec struct {
	inner Executor
	delay time.Duration
	runs  atomic.Int64
}

func (s *slowExec) Execute(ctx context.Context, e Execution) (Result, error) {
	s.runs.Add(1)
	time.Sleep(s.delay)
	return s.inner.Execute(ctx, e)
}

func loadExample(t *testing.T, name string) *registry.Orchestration {
	t.Helper()
	s := newSim(t, name, "")
	return s.orch
}

func startMany(t *testing.T, store *joinstore.Store, src Source, o *registry.Orchestration, n int) []joinstore.Root {
	t.Helper()
	ctx := context.Background()
	roots := make([]joinstore.Root, 0, n)
	for i := 0; i < n; i++ {
		res, err := Start(ctx, store, src, StartRequest{Owner: owner, XRC729: "test", OstcID: o.ID, Step: o.Steps[0].ID,
			IdempotencyKey: fmt.Sprint("s", i)}, time.Now())
		if err != nil {
			t.Fatal(err)
		}
		roots = append(roots, res.Root)
	}
	return roots
}

// waitFinished waits until every session has no live process.
func waitFinished(t *testing.T, store *joinstore.Store, roots []joinstore.Root, within time.Duration) {
	t.Helper()
	ctx := context.Background()
	deadline := time.Now().Add(within)
	for _, r := range roots {
		for {
			meta, err := store.SessionMeta(ctx, r)
			if err == nil && meta.Status == joinstore.SessionFinished {
				break
			}
			if time.Now().After(deadline) {
				procs, _ := store.Processes(ctx, r)
				t.Fatalf("session %s not finished after %v: %v\n%v", r, within, meta, procs)
			}
			time.Sleep(20 * time.Millisecond)
		}
	}
}

// checkOnce verifies from proc_steps that no step of any session was
// committed twice, and that every session ran the expected steps.
func checkOnce(t *testing.T, rdb redis.UniversalClient, roots []joinstore.Root, wantSteps int) {
	t.Helper()
	ctx := context.Background()
	for _, r := range roots {
		key := fmt.Sprintf("xgr:{%s:%d}:steps", r.Owner, r.RootPid)
		entries, err := rdb.XRange(ctx, key, "-", "+").Result()
		if err != nil {
			t.Fatal(err)
		}
		seen := map[string]bool{}
		entries = commits(entries)
		for _, e := range entries {
			pid := e.Values["pid"].(string)
			if seen[pid] {
				t.Fatalf("session %s: %s committed twice", r, pid)
			}
			seen[pid] = true
		}
		if len(entries) != wantSteps {
			t.Fatalf("session %s: %d committed steps, want %d", r, len(entries), wantSteps)
		}
	}
}

func TestManagerRunsManySessionsConcurrently(t *testing.T) {
	rdb := testenv.StartRedis(t).Client()
	store := joinstore.New(rdb, joinstore.Config{SessionTTL: time.Hour})
	o := loadExample(t, "nested_join.json")
	src := NewStaticSource(o)
	exec, _ := ParseOutcomes([]byte(`{"default":{"result":"valid"}}`))
	roots := startMany(t, store, src, o, 1000)
	ctx, cancel := context.WithCancel(context.Background())
	m := &Manager{Store: store, Source: src, Exec: &slowExec{inner: exec, delay: time.Millisecond}, Replica: "r1", Poll: 20 * time.Millisecond}
	done := make(chan error, 1)
	go func() { done <- m.Run(ctx) }()
	waitFinished(t, store, roots, 90*time.Second)
	cancel()
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	// H1 may be killed before it runs or run first (kill is ASAP): 7 or 8 steps.
	for _, r := range roots {
		procs, _ := store.Processes(context.Background(), r)
		sum, _ := Summarize(procs)
		if sum.Joins[0].Status != "closed" || sum.Joins[1].Status != "closed" {
			t.Fatalf("session %s: joins %+v", r, sum.Joins)
		}
	}
	ctx2 := context.Background()
	for _, r := range roots {
		n := rdb.XLen(ctx2, fmt.Sprintf("xgr:{%s:%d}:steps", r.Owner, r.RootPid)).Val()
		if n != 7 && n != 8 {
			t.Fatalf("session %s: %d steps", r, n)
		}
	}
}

// Two replicas share the sessions; one dies mid-run (no drain, no lease
// release). The other takes its sessions over when the leases expire, and
// every session completes with no step committed twice.
func TestReplicaFailover(t *testing.T) {
	rdb := testenv.StartRedis(t).Client()
	store := joinstore.New(rdb, joinstore.Config{SessionTTL: time.Hour})
	raw := `{"id":"chain","structure":{
  "S1":{"rule":"x","onValid":{"spawns":["S2"]}},"S2":{"rule":"x","onValid":{"spawns":["S3"]}},
  "S3":{"rule":"x","onValid":{"spawns":["S4"]}},"S4":{"rule":"x","onValid":{"spawns":["S5"]}},
  "S5":{"rule":"x"}}}`
	o, err := registry.Parse([]byte(raw))
	if err != nil {
		t.Fatal(err)
	}
	src := NewStaticSource(o)
	exec, _ := ParseOutcomes([]byte(`{"default":{"result":"valid"}}`))
	roots := startMany(t, store, src, o, 60)
	leases := func(name string, e Executor) *Manager {
		return &Manager{Store: store, Source: src, Exec: e, Replica: name, Poll: 10 * time.Millisecond,
			RootLease: 300 * time.Millisecond, ProcLease: 300 * time.Millisecond}
	}
	slowA := &slowExec{inner: exec, delay: 20 * time.Millisecond}
	slowB := &slowExec{inner: exec, delay: 5 * time.Millisecond}
	a, b := leases("A", slowA), leases("B", slowB)
	var wg sync.WaitGroup
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	wg.Add(1)
	go func() { defer wg.Done(); a.Run(ctx) }()
	// Let A take everything and get some way, then start B and crash A.
	for slowA.runs.Load() < 40 {
		time.Sleep(5 * time.Millisecond)
	}
	wg.Add(1)
	go func() { defer wg.Done(); b.Run(ctx) }()
	time.Sleep(50 * time.Millisecond)
	a.Halt()
	waitFinished(t, store, roots, 60*time.Second)
	cancel()
	wg.Wait()
	checkOnce(t, rdb, roots, 5)
	// A died with executions in flight: B ran them again (at-least-once
	// execution) and only one commit of each counted (at-most-once commit).
	if slowB.runs.Load() == 0 || slowA.runs.Load()+slowB.runs.Load() <= int64(len(roots)*5) {
		t.Fatalf("runs A=%d B=%d for %d steps: the takeover re-ran nothing", slowA.runs.Load(), slowB.runs.Load(), len(roots)*5)
	}
}

// commits are the proc_steps entries of committed steps (not the wake
// events the history also holds).
func commits(entries []redis.XMessage) []redis.XMessage {
	out := entries[:0:0]
	for _, e := range entries {
		if _, ok := e.Values["event"]; !ok {
			out = append(out, e)
		}
	}
	return out
}

func discardLog() *slog.Logger { return slog.New(slog.NewTextHandler(io.Discard, nil)) }

// peakExec wraps an executor and records the most executions at once.
type peakExec struct {
	inner     Executor
	now, peak atomic.Int64
}

func (p *peakExec) Execute(ctx context.Context, e Execution) (Result, error) {
	n := p.now.Add(1)
	defer p.now.Add(-1)
	for {
		old := p.peak.Load()
		if n <= old || p.peak.CompareAndSwap(old, n) {
			break
		}
	}
	time.Sleep(2 * time.Millisecond)
	return p.inner.Execute(ctx, e)
}

// A replica at MaxRoots starts the next session as soon as one hands its
// session back, not at its next poll (an hour here), and never runs more
// than MaxRoots sessions' steps at once (a chain has one step at a time).
func TestManagerFillsFreedSlotsAtOnce(t *testing.T) {
	rdb := testenv.StartRedis(t).Client()
	store := joinstore.New(rdb, joinstore.Config{SessionTTL: time.Hour, Batch: joinstore.DefaultBatch})
	o := benchShapes(t)["chain10"]
	src := NewStaticSource(o)
	inner, _ := ParseOutcomes([]byte(`{"default":{"result":"valid"}}`))
	exec := &peakExec{inner: inner}
	roots := startMany(t, store, src, o, 40)
	ctx, cancel := context.WithCancel(context.Background())
	m := &Manager{Store: store, Source: src, Exec: exec, Replica: "r1", Poll: time.Hour, MaxRoots: 3, Log: discardLog()}
	done := make(chan error, 1)
	go func() { done <- m.Run(ctx) }()
	waitFinished(t, store, roots, 60*time.Second)
	cancel()
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	checkOnce(t, rdb, roots, 10)
	if p := exec.peak.Load(); p > 3 {
		t.Fatalf("%d executions at once, want at most MaxRoots = 3", p)
	}
	if p := exec.peak.Load(); p < 2 {
		t.Fatalf("at most %d execution at once: the replica did not run its 3 sessions side by side", p)
	}
}
