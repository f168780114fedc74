package reactor

import (
	"bytes"
	"context"
	"fmt"
	"log/slog"
	"os"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/xgr-sidecar/xgr/joinstore"
	"github.com/xgr-sidecar/xgr/registry"
	"github.com/xgr-sidecar/xgr/testenv"
)

const outcomeChain = `{"id":"chain","structure":{
  "A":{"rule":"x","onValid":{"spawns":["B"]},"onInvalid":{"spawns":["R"]}},
  "B":{"rule":"x"},"R":{"rule":"x"}}}`

// Every outcome through the real transitions and the session machine
// (simulate's driver), on a single Redis and a 3-master Cluster: the
// tallies the scripts keep give joinstore.OutcomeOf's answer.
func TestSessionOutcomes(t *testing.T) {
	whenFilter, err := os.ReadFile("../examples/ostc/when_filter.json")
	if err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		name, ostc, outcomes string
		maxSteps             int
		want                 joinstore.Outcome
	}{
		{"ok", outcomeChain, `{"default":{"result":"valid"}}`, 0, joinstore.OutcomeOK},
		// An invalid step whose onInvalid branch continues is not an end.
		{"invalid then handled", outcomeChain, `{"A":{"result":"invalid"},"default":{"result":"valid"}}`, 0, joinstore.OutcomeOK},
		{"invalid", outcomeChain, `{"B":{"result":"invalid"},"default":{"result":"valid"}}`, 0, joinstore.OutcomeInvalid},
		{"failed", outcomeChain, `{"B":{"result":"error"},"default":{"result":"valid"}}`, 0, joinstore.OutcomeFailed},
		{"cancelled", outcomeChain, `{"B":{"result":"cancel"},"default":{"result":"valid"}}`, 0, joinstore.OutcomeCancelled},
		{"step cap", outcomeChain, `{"default":{"result":"valid"}}`, 1, joinstore.OutcomeFailed},
		// B1 ends invalid where the join wants valid, C1 valid where it
		// wants invalid: the join can never close.
		// C1 is a producer of the join: its invalid result is the join's
		// to take, never an end, whenever the join closed.
		{"invalid join producer", string(whenFilter), `{"C1":{"result":"invalid"},"default":{"result":"valid"}}`, 0, joinstore.OutcomeOK},
		{"invalid after a join", string(whenFilter), `{"J1":{"result":"invalid"},"default":{"result":"valid"}}`, 0, joinstore.OutcomeInvalid},
		{"unfulfillable", string(whenFilter), `{"B1":{"result":"invalid"},"default":{"result":"valid"}}`, 0, joinstore.OutcomeUnfulfillable},
	}
	testenv.Backends(t, func(t *testing.T, rdb redis.UniversalClient) {
		for _, c := range cases {
			t.Run(c.name, func(t *testing.T) {
				cfg := joinstore.Config{SessionTTL: time.Hour}
				if c.maxSteps > 0 {
					cfg.MaxSteps = c.maxSteps
				}
				meta := runToEnd(t, joinstore.New(rdb, cfg), c.ostc, c.outcomes)
				if got := joinstore.OutcomeOf(meta); got != c.want {
					t.Fatalf("outcome %q, want %q (meta %+v)", got, c.want, meta)
				}
			})
		}
		t.Run("killed", func(t *testing.T) {
			store := joinstore.New(rdb, joinstore.Config{SessionTTL: time.Hour})
			for _, iters := range [][]int64{nil, {1}} { // the whole session; its one process
				res, err := store.Start(context.Background(), joinstore.StartRequest{Owner: owner, StartStep: "A", Now: time.Now()})
				if err != nil {
					t.Fatal(err)
				}
				if _, err := Kill(context.Background(), store, res.Root, time.Now(), iters...); err != nil {
					t.Fatal(err)
				}
				meta, err := store.SessionMeta(context.Background(), res.Root)
				if err != nil {
					t.Fatal(err)
				}
				if got := joinstore.OutcomeOf(meta); got != joinstore.OutcomeKilled {
					t.Fatalf("kill %v: outcome %q, want killed (meta %+v)", iters, got, meta)
				}
			}
		})
	})
}

// runToEnd runs one session of ostc to its end with simulate's driver and
// returns its meta.
func runToEnd(t *testing.T, store *joinstore.Store, ostc, outcomes string) joinstore.SessionMeta {
	t.Helper()
	o, err := registry.Parse([]byte(ostc))
	if err != nil {
		t.Fatal(err)
	}
	exec, err := ParseOutcomes([]byte(outcomes))
	if err != nil {
		t.Fatal(err)
	}
	ctx, clock := context.Background(), time.UnixMilli(1_800_000_000_000)
	res, err := store.Start(ctx, joinstore.StartRequest{Owner: owner, StartStep: o.Steps[0].ID, Now: clock, OstcHash: o.Hash.Hex()})
	if err != nil {
		t.Fatal(err)
	}
	r := &Runner{Store: store, Orch: o, Exec: exec, Worker: "test",
		Now: func() time.Time { return clock }, Advance: func(at time.Time) { clock = at }}
	if err := r.Run(ctx, res.Root); err != nil {
		t.Fatalf("run: %v", err)
	}
	meta, err := store.SessionMeta(ctx, res.Root)
	if err != nil {
		t.Fatal(err)
	}
	if meta.Status != joinstore.SessionFinished {
		t.Fatalf("session not finished: %+v", meta)
	}
	return meta
}

// A replica reports each session it finished once, with its outcome, to
// Lifecycle.Finished and in an INFO line "session finished": sessions its last
// commit ended (a hard error: failed) and sessions a join step ended (the
// join can never close: unfulfillable).
func TestReplicaReportsOutcome(t *testing.T) {
	rdb := testenv.StartRedis(t).Client()
	store := joinstore.New(rdb, joinstore.Config{SessionTTL: time.Hour})
	chain, err := registry.Parse([]byte(outcomeChain))
	if err != nil {
		t.Fatal(err)
	}
	raw, err := os.ReadFile("../examples/ostc/when_filter.json")
	if err != nil {
		t.Fatal(err)
	}
	when, err := registry.Parse(raw)
	if err != nil {
		t.Fatal(err)
	}
	src := NewStaticSource(chain, when)
	exec, _ := ParseOutcomes([]byte(`{"B":{"result":"error"},"B1":{"result":"invalid"},"default":{"result":"valid"}}`))
	var mu sync.Mutex
	var logs bytes.Buffer
	got := map[joinstore.Root][]joinstore.Outcome{}
	log := slog.New(slog.NewTextHandler(&syncWriter{mu: &mu, w: &logs}, nil))
	m := &Manager{Store: store, Source: src, Exec: exec, Replica: "r1", Poll: 10 * time.Millisecond, Log: log,
		Lifecycle: Lifecycle{Finished: func(r joinstore.Root, meta joinstore.SessionMeta) {
			out := joinstore.OutcomeOf(meta)
			mu.Lock()
			got[r] = append(got[r], out)
			mu.Unlock()
		}}}
	want := map[joinstore.Root]joinstore.Outcome{}
	var roots []joinstore.Root
	for i := 0; i < 6; i++ {
		o, outcome := chain, joinstore.OutcomeFailed
		if i%2 == 1 {
			o, outcome = when, joinstore.OutcomeUnfulfillable
		}
		res, err := Start(context.Background(), store, src, StartRequest{Owner: owner, XRC729: "test", OstcID: o.ID, Step: o.Steps[0].ID,
			IdempotencyKey: fmt.Sprint("outcome-", i)}, time.Now())
		if err != nil {
			t.Fatal(err)
		}
		want[res.Root] = outcome
		roots = append(roots, res.Root)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- m.Run(ctx) }()
	waitFinished(t, store, roots, 30*time.Second)
	for deadline := time.Now().Add(10 * time.Second); ; time.Sleep(10 * time.Millisecond) {
		mu.Lock()
		n := len(got)
		mu.Unlock()
		if n == len(roots) || time.Now().After(deadline) {
			break
		}
	}
	// Nothing is reported twice after the sessions were handed back.
	time.Sleep(100 * time.Millisecond)
	cancel()
	<-done
	mu.Lock()
	defer mu.Unlock()
	for _, r := range roots {
		if len(got[r]) != 1 || got[r][0] != want[r] {
			t.Errorf("session %s reported %v, want [%s] once", r, got[r], want[r])
		}
	}
	text := logs.String()
	if n := strings.Count(text, `msg="session finished"`); n != len(roots) || !strings.Contains(text, "outcome=failed") || !strings.Contains(text, "outcome=unfulfillable") {
		t.Errorf("%d 'session finished' lines, want %d with outcomes failed and unfulfillable:\n%s", n, len(roots), text)
	}
}

// syncWriter serializes writes to w under mu.
type syncWriter struct {
	mu *sync.Mutex
	w  *bytes.Buffer
}

func (s *syncWriter) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.w.Write(p)
}

// A session that finished while its holder stopped before handing it back
// (its root index entry is left) is reported by the replica that adopts
// the entry and finds it finished, once.
func TestAdopterReportsAnOrphanedFinish(t *testing.T) {
	rdb := testenv.StartRedis(t).Client()
	store := joinstore.New(rdb, joinstore.Config{SessionTTL: time.Hour})
	meta := runToEnd(t, store, outcomeChain, `{"B":{"result":"cancel"},"default":{"result":"valid"}}`)
	root := joinstore.Root{Owner: meta.Owner, RootPid: meta.RootPid}
	ctx := context.Background()
	store.MarkRoot(ctx, root, time.Now()) // the entry a crashed holder leaves
	o, _ := registry.Parse([]byte(outcomeChain))
	var mu sync.Mutex
	var got []joinstore.Outcome
	m := &Manager{Store: store, Source: NewStaticSource(o), Exec: &Scripted{}, Replica: "r2", Poll: 10 * time.Millisecond,
		Lifecycle: Lifecycle{Finished: func(r joinstore.Root, meta joinstore.SessionMeta) {
			out := joinstore.OutcomeOf(meta)

			mu.Lock()
			defer mu.Unlock()
			if r == root {
				got = append(got, out)
			}
		}}}
	mctx, cancel := context.WithCancel(ctx)
	done := make(chan error, 1)
	go func() { done <- m.Run(mctx) }()
	for deadline := time.Now().Add(10 * time.Second); time.Now().Before(deadline); time.Sleep(10 * time.Millisecond) {
		mu.Lock()
		n := len(got)
		mu.Unlock()
		if n > 0 {
			break
		}
	}
	time.Sleep(100 * time.Millisecond)
	cancel()
	<-done
	mu.Lock()
	defer mu.Unlock()
	if len(got) != 1 || got[0] != joinstore.OutcomeCancelled {
		t.Fatalf("reported %v, want [cancelled] once", got)
	}
	if store.MarkFinished(ctx, root, time.Now()) {
		t.Error("a second MarkFinished claims the report again")
	}
}

// A session an operator's kill ends at once (nothing of it running) is
// reported by the next replica to look, once.
func TestKilledByCommandIsReported(t *testing.T) {
	rdb := testenv.StartRedis(t).Client()
	store := joinstore.New(rdb, joinstore.Config{SessionTTL: time.Hour})
	o, _ := registry.Parse([]byte(outcomeChain))
	src := NewStaticSource(o)
	var mu sync.Mutex
	got := map[joinstore.Root][]joinstore.Outcome{}
	m := &Manager{Store: store, Source: src, Exec: &Scripted{}, Replica: "r1", Poll: 10 * time.Millisecond,
		Lifecycle: Lifecycle{Finished: func(r joinstore.Root, meta joinstore.SessionMeta) {
			out := joinstore.OutcomeOf(meta)
			mu.Lock()
			got[r] = append(got[r], out)
			mu.Unlock()
		}}}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- m.Run(ctx) }()
	var roots []joinstore.Root
	for i := 0; i < 2; i++ {
		res, err := Start(ctx, store, src, StartRequest{Owner: owner, XRC729: "test", OstcID: o.ID, Step: "A",
			IdempotencyKey: fmt.Sprint("kill-", i), WakeAt: time.Now().Add(time.Hour)}, time.Now())
		if err != nil {
			t.Fatal(err)
		}
		roots = append(roots, res.Root)
	}
	time.Sleep(50 * time.Millisecond) // the replica looked at them once
	// One killed whole, one by its only process.
	if _, err := Kill(ctx, store, roots[0], time.Now()); err != nil {
		t.Fatal(err)
	}
	if _, err := Kill(ctx, store, roots[1], time.Now(), 1); err != nil {
		t.Fatal(err)
	}
	for deadline := time.Now().Add(10 * time.Second); time.Now().Before(deadline); time.Sleep(10 * time.Millisecond) {
		mu.Lock()
		n := len(got)
		mu.Unlock()
		if n == len(roots) {
			break
		}
	}
	time.Sleep(100 * time.Millisecond)
	cancel()
	<-done
	mu.Lock()
	defer mu.Unlock()
	for _, r := range roots {
		if len(got[r]) != 1 || got[r][0] != joinstore.OutcomeKilled {
			t.Errorf("session %s reported %v, want [killed] once", r, got[r])
		}
	}
}
