package indexer

import (
	"bytes"
	"context"
	"fmt"
	"log/slog"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/xgr-sidecar/xgr/chain"
	"github.com/xgr-sidecar/xgr/indexstore"
	"github.com/xgr-sidecar/xgr/joinstore"
	"github.com/xgr-sidecar/xgr/testenv"
)

// syncBuffer is a log sink several goroutines write.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

// replicaService is one replica's indexer on a shared chain and Redis, as
// xgr run --config builds it: its own Index handle, follower and starter.
func replicaService(t *testing.T, sim *testenv.Sim, rdb redis.UniversalClient, reg *chain.Registry, name string, log *syncBuffer) *Service {
	t.Helper()
	cfg, err := ParseConfig("test.yaml", []byte(triggerConfig(reg.Address)))
	if err != nil {
		t.Fatal(err)
	}
	idx := indexstore.New(rdb, 1337)
	store := joinstore.New(rdb, joinstore.Config{})
	l := slog.New(slog.NewTextHandler(log, &slog.HandlerOptions{Level: slog.LevelDebug}))
	return &Service{
		Follower: &Follower{Chain: sim.Backend(), ChainID: 1337, Index: idx, Registries: cfg.Registries, Triggers: cfg.Triggers, Range: NewRangeSizer(5, 0), Log: l},
		Starter: &Starter{Chain: sim.Backend(), Index: idx, Store: store, Source: NewCacheSource(idx, sim.Backend()), Finality: cfg.Finality,
			Confirmations: cfg.Confirmations, Log: l, Authority: scriptedAuthority(sim)},
		Poll: 20 * time.Millisecond, Log: l, Holder: name, LeaseTTL: 500 * time.Millisecond,
	}
}

// noisy returns the WARN and ERROR lines of a log.
func noisy(log string) []string {
	var out []string
	for _, l := range strings.Split(log, "\n") {
		if strings.Contains(l, "level=WARN") || strings.Contains(l, "level=ERROR") {
			out = append(out, l)
		}
	}
	return out
}

// Two replicas index one chain into one Redis: one holds the indexing
// lease and indexes and starts triggers, the other stays quiet (no WARN or
// ERROR, a DEBUG line naming the holder); when the first stops, it gives
// the lease back and the second takes over and starts the next triggers.
// Every trigger starts exactly one session.
func TestOneReplicaIndexesAtATime(t *testing.T) {
	sim := testenv.StartSim(t)
	reg, _ := testenv.DeployXRC729(t, sim, chain.RegistryInit{})
	sender := testenv.Sender(t, sim, 0)
	rdb := testenv.StartRedis(t).Client()
	ctx := context.Background()
	if _, err := reg.Put(ctx, sender, "flow", example(t, "nested_join.json")); err != nil {
		t.Fatal(err)
	}
	var logA, logB syncBuffer
	a, b := replicaService(t, sim, rdb, reg, "replica-a", &logA), replicaService(t, sim, rdb, reg, "replica-b", &logB)
	ctxA, stopA := context.WithCancel(ctx)
	ctxB, stopB := context.WithCancel(ctx)
	defer stopB()
	doneA, doneB := make(chan error, 1), make(chan error, 1)
	go func() { doneA <- a.Run(ctxA) }()
	time.Sleep(100 * time.Millisecond) // a takes the lease first
	go func() { doneB <- b.Run(ctxB) }()

	store := joinstore.New(rdb, joinstore.Config{})
	owner := chainOwner(sim)
	waitSessions := func(n int) {
		t.Helper()
		deadline := time.Now().Add(20 * time.Second)
		for {
			list, err := store.Sessions(ctx, owner, 0, 1000, true)
			if err != nil {
				t.Fatal(err)
			}
			if len(list) == n {
				return
			}
			if len(list) > n || time.Now().After(deadline) {
				t.Fatalf("%d sessions, want %d\nA:\n%s\nB:\n%s", len(list), n, logA.String(), logB.String())
			}
			sim.Mine(1)
			time.Sleep(20 * time.Millisecond)
		}
	}
	// The put of "flow" itself and three more are triggers.
	for i := range 3 {
		if _, err := reg.Put(ctx, sender, fmt.Sprintf("order%d", i), example(t, "minimal_join.json")); err != nil {
			t.Fatal(err)
		}
	}
	waitSessions(4)
	if !a.Leading() || b.Leading() {
		t.Fatalf("leading: a %v, b %v; want a only", a.Leading(), b.Leading())
	}
	if n := noisy(logB.String()); len(n) > 0 {
		t.Errorf("the idle replica logged warnings:\n%s", strings.Join(n, "\n"))
	}
	if !strings.Contains(logB.String(), `level=DEBUG msg="indexing: another replica holds the indexing lease" holder=replica-a`) {
		t.Errorf("the idle replica does not say who indexes:\n%s", logB.String())
	}
	if !regexp.MustCompile(`level=INFO msg="orchestration cache updated" entry=0x[0-9a-f]{40}:flow block=\d+ version=1 hash=0x[0-9a-f]{64} removed=false`).MatchString(logA.String()) {
		t.Errorf("the indexing replica did not log the orchestration it cached:\n%s", logA.String())
	}
	if strings.Contains(logB.String(), "trigger started a session") || strings.Contains(logB.String(), "cache updated") {
		t.Errorf("the idle replica indexed or started triggers:\n%s", logB.String())
	}

	// a stops: it gives the lease back, b takes over at its next poll.
	stopA()
	if err := <-doneA; err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(logA.String(), "gave the indexing lease back") {
		t.Errorf("a did not give the lease back:\n%s", logA.String())
	}
	for i := range 2 {
		if _, err := reg.Put(ctx, sender, fmt.Sprintf("late%d", i), example(t, "minimal_join.json")); err != nil {
			t.Fatal(err)
		}
	}
	waitSessions(6)
	if !b.Leading() {
		t.Fatal("b does not lead after a stopped")
	}
	if !strings.Contains(logB.String(), `msg="indexing: this replica holds the indexing lease and follows the chain" replica=replica-b`) {
		t.Errorf("b's takeover is not logged:\n%s", logB.String())
	}
	for name, l := range map[string]string{"a": logA.String(), "b": logB.String()} {
		if n := noisy(l); len(n) > 0 {
			t.Errorf("replica %s logged warnings:\n%s", name, strings.Join(n, "\n"))
		}
	}
	stopB()
	<-doneB
}

// A replica that crashes keeps the lease until it expires; then another
// takes it with a larger token, and the crashed one's fenced commit is
// refused (ErrNotHolder) instead of moving the checkpoint.
func TestIndexingLeaseFencesAStaleHolder(t *testing.T) {
	rdb := testenv.StartRedis(t).Client()
	ctx := context.Background()
	old, other := indexstore.New(rdb, 1337), indexstore.New(rdb, 1337)
	la, err := old.AcquireLease(ctx, "a", 200*time.Millisecond)
	if err != nil || !la.Held {
		t.Fatalf("a: %+v %v", la, err)
	}
	old.Fence(la)
	if lb, err := other.AcquireLease(ctx, "b", time.Second); err != nil || lb.Held || lb.Holder != "a" {
		t.Fatalf("b while a holds: %+v %v", lb, err)
	}
	if again, err := old.AcquireLease(ctx, "a", 200*time.Millisecond); err != nil || !again.Held || again.Token != la.Token {
		t.Fatalf("a renewing: %+v %v (token %d)", again, err, la.Token)
	}
	time.Sleep(300 * time.Millisecond) // a "crashed": its lease expires
	lb, err := other.AcquireLease(ctx, "b", time.Second)
	if err != nil || !lb.Held || lb.Token <= la.Token {
		t.Fatalf("b after expiry: %+v %v", lb, err)
	}
	other.Fence(lb)
	blk := indexstore.Block{Number: 1, Hash: [32]byte{1}, Parent: [32]byte{0}}
	if err := old.Commit(ctx, [32]byte{}, true, []indexstore.Block{blk}, nil, nil); err == nil || !strings.Contains(err.Error(), "indexing lease lost") {
		t.Fatalf("stale holder's commit: %v; want ErrNotHolder", err)
	}
	if _, ok, _ := other.Head(ctx); ok {
		t.Fatal("the refused commit moved the checkpoint")
	}
	if err := other.Commit(ctx, [32]byte{}, true, []indexstore.Block{blk}, nil, nil); err != nil {
		t.Fatalf("holder's commit: %v", err)
	}
	if h, ok, _ := other.Head(ctx); !ok || h.Number != 1 {
		t.Fatalf("checkpoint %+v %v", h, ok)
	}
	if err := old.ReleaseLease(ctx, la); err != nil {
		t.Fatal(err)
	}
	if l, _ := old.AcquireLease(ctx, "a", time.Second); l.Held {
		t.Fatal("a stale release removed b's lease")
	}
}

// After a Redis outage long enough that the backoff grew to seconds, the
// indexer retries as soon as Redis answers again (Ping), not at the end of
// the backoff.
func TestBackoffResetsWhenRedisAnswers(t *testing.T) {
	sim := testenv.StartSim(t)
	reg, _ := testenv.DeployXRC729(t, sim, chain.RegistryInit{})
	srv := testenv.StartRedis(t)
	rdb := redis.NewClient(&redis.Options{Network: srv.Network, Addr: srv.Addr, MaxRetries: -1, DialTimeout: 100 * time.Millisecond})
	defer rdb.Close()
	var log syncBuffer
	s := replicaService(t, sim, rdb, reg, "", &log)
	s.Poll = 50 * time.Millisecond
	s.Ping = func(ctx context.Context) error { return rdb.Ping(ctx).Err() }
	srv.Stop()
	ctx, stop := context.WithCancel(context.Background())
	defer stop()
	done := make(chan error, 1)
	go func() { done <- s.Run(ctx) }()
	// Wait until the backoff has grown to 1.6 s and the service sleeps it.
	deadline := time.Now().Add(30 * time.Second)
	for !strings.Contains(log.String(), "in=1.6s") {
		if time.Now().After(deadline) {
			t.Fatalf("the backoff did not reach 1.6 s:\n%s", log.String())
		}
		time.Sleep(10 * time.Millisecond)
	}
	srv.Restart()
	restarted := time.Now()
	idx := indexstore.New(rdb, 1337)
	for {
		if _, ok, _ := idx.Head(context.Background()); ok {
			break
		}
		if time.Since(restarted) > 10*time.Second {
			t.Fatalf("no checkpoint 10 s after Redis restarted:\n%s", log.String())
		}
		time.Sleep(20 * time.Millisecond)
	}
	took := time.Since(restarted)
	stop()
	<-done
	if took > time.Second {
		t.Errorf("indexing resumed %s after Redis answered; want within a few polls\n%s", took, log.String())
	}
	if !strings.Contains(log.String(), `level=INFO msg="Redis reachable again; indexing resumes"`) {
		t.Errorf("no INFO line when Redis answered:\n%s", log.String())
	}
}
